// Peak memory per phase, one bar per setting in each phase: device bytes held
// (CUPTI) when any run has them, else host RSS.
#pragma once

#include <QWidget>

#include "core/report/session.h"

class QCustomPlot;
class QCPTextElement;

namespace cs::widgets {

class MemoryPeakChart : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryPeakChart(QWidget* parent = nullptr);
    void showReport(const core::Report& report);
    // The kind the bars show ("device" or "host_rss"), empty when none.
    const std::string& kind() const { return kind_; }

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    void hover(QMouseEvent* event);

    QCustomPlot* plot_;
    QCPTextElement* title_;
    std::string kind_;
};

} // namespace cs::widgets
