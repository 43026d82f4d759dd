// Shaded spans behind a timeline chart for a run's phases (load, compile,
// warmup, measure), each labelled at the top, on the chart's seconds axis.
#pragma once

#include <QColor>

#include <cstdint>
#include <string>

#include "core/report/session.h"

class QCustomPlot;

namespace cs::widgets {

QColor phaseColor(const std::string& phase);
// x = seconds since originNs. Returns how many bands were drawn.
int drawPhaseBands(QCustomPlot* plot, const core::Run& run, int64_t originNs);

} // namespace cs::widgets
