// Memory: one setting's memory over time with its phases, and every setting's
// peak per phase. GPU runs show device bytes held (CUPTI) and torch's counters;
// CPU runs show host RSS and say why the GPU parts are empty.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QCheckBox;
class QLabel;

namespace cs::widgets {

class MemoryPeakChart;
class MemoryTimelineChart;
class ReportDocument;
class SettingPicker;

class MemoryTab : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryTab(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    ReportDocument* document_;
    SettingPicker* picker_;
    QCheckBox* hostRss_;
    QLabel* notes_;
    QLabel* imported_;
    QWidget* body_;
    MemoryTimelineChart* timeline_;
    MemoryPeakChart* peaks_;
    RefreshThrottle throttle_{150}; // live events arrive faster than a person can see
};

} // namespace cs::widgets
