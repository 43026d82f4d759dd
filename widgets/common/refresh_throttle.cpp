#include "widgets/common/refresh_throttle.h"

namespace cs::widgets {

RefreshThrottle::RefreshThrottle(int intervalMs, QObject* parent) : QObject(parent) {
    timer_.setSingleShot(true);
    timer_.setInterval(intervalMs);
    connect(&timer_, &QTimer::timeout, this, &RefreshThrottle::due);
}

void RefreshThrottle::request() {
    // Not a restart: a steady stream must still refresh once per interval.
    if (!timer_.isActive())
        timer_.start();
}

void RefreshThrottle::cancel() {
    timer_.stop();
}

} // namespace cs::widgets
