// Shaded spans behind a timeline chart for a run's phases (load, compile,
// warmup, measure), each labelled at the top, on the chart's seconds axis.
#pragma once

#include <QColor>
#include <QString>

#include <cstdint>
#include <string>

#include "core/report/session.h"

class QCustomPlot;

namespace cs::widgets {

QColor phaseColor(const std::string& phase);
// x = seconds since originNs. Returns how many bands were drawn. The labels
// arrange themselves at each replot (arrangePhaseLabels).
int drawPhaseBands(QCustomPlot* plot, const core::Run& run, int64_t originNs);
// Puts each phase label in the first of three rows where it overlaps no other
// label at the current zoom and size, and hides the label where none is free
// (its band's name is then in the hover text). Returns the labels shown.
int arrangePhaseLabels(QCustomPlot* plot);
// The phase whose band holds `seconds` on the chart, or empty.
QString phaseAt(QCustomPlot* plot, double seconds);

} // namespace cs::widgets
