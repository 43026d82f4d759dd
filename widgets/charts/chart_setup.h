// Shared wiring for every QCustomPlot chart: zoom and pan, a legend, hover
// values, axis units, and a context menu to save as PNG or SVG.
#pragma once

#include <QColor>
#include <QString>

#include <functional>

class QCustomPlot;
class QCPAxis;
class QCPGraph;

namespace cs::widgets {

// Formats an axis value as text with units (e.g. durations in ns → "1.2 ms").
using ValueFormatter = std::function<QString(double)>;

// Light or dark palette, zoom, the context menu, and a y axis whose tick
// count follows the chart's height (one per kPixelsPerValueTick, 2 to 5).
// Named categories on the x axis turn kAslantDegrees where they do not fit
// side by side (categoryLabelsFit).
void setupChart(QCustomPlot* plot);
inline constexpr int kPixelsPerValueTick = 30;
inline constexpr double kAslantDegrees = -25;
inline constexpr double kCategoryGapPx = 6;
// The axis's text ticks in range, at their widths, leave kCategoryGapPx
// between each other; true for an axis without text ticks.
bool categoryLabelsFit(QCPAxis* axis);
// Tick labels on the y axis in human units.
void setDurationAxis(QCustomPlot* plot, const QString& label);
void setBytesAxis(QCustomPlot* plot, const QString& label);
// A logarithmic axis of durations (ns), ticks at powers of ten in human units.
void setLogDurationAxis(QCPAxis* axis, const QString& label);
// Shows the nearest point's values in a tooltip while the mouse moves.
void enableHoverValues(QCustomPlot* plot, const ValueFormatter& xText, const ValueFormatter& yText);
// A chart with nothing to show says why, in the middle, instead of a blank.
void setEmptyMessage(QCustomPlot* plot, const QString& message);
// A graph of triangles only, named "<label>: recompiled": the calls that
// recompiled, on the Latency and Warmup charts alike.
QCPGraph* addRecompileMarks(QCustomPlot* plot, const QString& label, const QColor& color);

bool saveChartSvg(QCustomPlot* plot, const QString& path);
QColor toQColor(const std::string& hex);
QString durationText(double ns);
QString bytesText(double bytes);

} // namespace cs::widgets
