// Axis ticks for byte counts: steps of a power of two in B, KiB, MiB or GiB
// (16 MiB, 32 MiB, ... rather than 19.1 MiB), labelled in human units.
#pragma once

#include <qcustomplot.h>

namespace cs::widgets {

class BytesTicker : public QCPAxisTicker {
  protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override;
};

} // namespace cs::widgets
