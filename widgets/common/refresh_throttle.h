// Coalesces refresh requests: live events arrive faster than a person can see,
// so a view asks on every change and refreshes at most once per interval.
#pragma once

#include <QObject>
#include <QTimer>

namespace cs::widgets {

class RefreshThrottle : public QObject {
    Q_OBJECT
  public:
    explicit RefreshThrottle(int intervalMs, QObject* parent = nullptr);

    // Schedules one refresh; requests before it fires join it.
    void request();
    // The view refreshed by other means: drop the pending one.
    void cancel();

  signals:
    void due();

  private:
    QTimer timer_;
};

} // namespace cs::widgets
