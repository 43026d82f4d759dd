// One chart of a batch-size walk against batch size (log2 axis), one line per
// setting in its colour: throughput with each point's interval, speedup over
// eager with the 1× line, or peak memory with where memory ran out.
#pragma once

#include <QStringList>
#include <QWidget>

#include <map>
#include <vector>

#include "core/analysis/scaling.h"

class QCustomPlot;
class QCPAbstractPlottable;
class QCPTextElement;
class QMouseEvent;

namespace cs::widgets {

class ScalingChart : public QWidget {
    Q_OBJECT
  public:
    enum class Kind { Throughput, Speedup, Memory };

    explicit ScalingChart(Kind kind, QWidget* parent = nullptr);
    void showCurves(const core::Report& report, const std::vector<core::ScaleCurve>& curves);
    QCustomPlot* plot() const { return plot_; }

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    void drawThroughput(const core::Report& report, const std::vector<core::ScaleCurve>& curves);
    void drawSpeedup(const core::Report& report, const std::vector<core::ScaleCurve>& curves);
    void drawMemory(const core::Report& report, const std::vector<core::ScaleCurve>& curves);
    void hover(QMouseEvent* event);

    Kind kind_;
    QCustomPlot* plot_;
    QCPTextElement* title_;
    // Per line, one tooltip per point in key order; per memory mark, its words.
    std::map<const QCPAbstractPlottable*, QStringList> tips_;
    std::vector<std::pair<double, QString>> stopTips_; // batch size, text
};

} // namespace cs::widgets
