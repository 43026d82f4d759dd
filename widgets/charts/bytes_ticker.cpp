#include "widgets/charts/bytes_ticker.h"

#include <cmath>

#include "widgets/charts/chart_setup.h"

namespace cs::widgets {

double BytesTicker::getTickStep(const QCPRange& range) {
    const double raw = range.size() / std::max(1, tickCount());
    if (!(raw > 0) || !std::isfinite(raw))
        return 1;
    double unit = 1;
    while (unit * 1024 <= raw)
        unit *= 1024;
    // The power of two nearest the step wanted, in that unit.
    const double mantissa = std::exp2(std::round(std::log2(raw / unit)));
    return unit * std::max(1.0, mantissa);
}

QString BytesTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
    return bytesText(tick);
}

} // namespace cs::widgets
