// A combo box of every run of the report (each setting in its colour) bound to
// the shared selection: picking one selects that run everywhere, and it follows
// selections made elsewhere. (RunPicker lists only the compiled runs, for graphs.)
#pragma once

#include <QComboBox>

namespace cs::widgets {

class ReportDocument;

// The run a single-run view shows: the selected one, else the first; -1 when none.
int shownRun(const ReportDocument& document);

class SettingPicker : public QComboBox {
    Q_OBJECT
  public:
    explicit SettingPicker(ReportDocument* document, QWidget* parent = nullptr);

  private:
    void rebuild();
    void follow();

    ReportDocument* document_;
};

} // namespace cs::widgets
