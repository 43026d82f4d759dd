// The empty state: what a person can do before there is anything to show.
#pragma once

#include <QWidget>

namespace cs::widgets {

class WelcomePage : public QWidget {
    Q_OBJECT
  public:
    explicit WelcomePage(QWidget* parent = nullptr);

  signals:
    void openModelRequested();
    void runDemoRequested();
    void openReportRequested();
};

} // namespace cs::widgets
