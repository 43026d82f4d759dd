// One bar per setting for one figure (launches per iteration, GPU time per
// iteration, ...), in each setting's colour; settings without the figure get no
// bar, and when none has it the chart says why.
#pragma once

#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

#include "widgets/charts/chart_setup.h"

class QCustomPlot;

namespace cs::widgets {

struct RunBar {
    QString label;
    QColor color;
    std::optional<double> value; // none: no bar
};

class RunBarChart : public QWidget {
    Q_OBJECT
  public:
    RunBarChart(const QString& title, ValueFormatter format, QWidget* parent = nullptr);
    void setBars(const std::vector<RunBar>& bars, const QString& emptyMessage);
    // The values drawn, in setting order (tests).
    std::vector<double> values() const;

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    void hover(QMouseEvent* event);

    QCustomPlot* plot_;
    ValueFormatter format_;
    std::vector<RunBar> bars_;
};

} // namespace cs::widgets
