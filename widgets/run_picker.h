// A combo box of the report's runs bound to the shared selection: picking a
// setting here selects that run everywhere, and it follows selections made elsewhere.
#pragma once

#include <QComboBox>

namespace cs::widgets {

class ReportDocument;

// The run a single-run view shows: the selected one, else the first; -1 when none.
int shownRun(const ReportDocument& document);

class RunPicker : public QComboBox {
    Q_OBJECT
  public:
    explicit RunPicker(ReportDocument* document, QWidget* parent = nullptr);

  private:
    void rebuild();
    void follow();

    ReportDocument* document_;
};

} // namespace cs::widgets
