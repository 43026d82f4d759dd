// One run's memory over time: phase bands behind device bytes held (CUPTI),
// torch's reserved and allocated at each phase edge, and host RSS.
#pragma once

#include <QWidget>

#include "core/report/session.h"

class QCustomPlot;

namespace cs::widgets {

class MemoryTimelineChart : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryTimelineChart(QWidget* parent = nullptr);
    // hostRss: draw the host RSS series too (always drawn when there is no device series).
    void showRun(const core::Run* run, const std::string& color, bool hostRss);
    int bandCount() const { return bands_; }

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    QCustomPlot* plot_;
    int bands_ = 0;
};

} // namespace cs::widgets
