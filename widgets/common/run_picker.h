// A combo box of the compiled runs of the report ("default — 2 graphs, 1 break");
// picking one selects that run in the document. Follows the document's selection.
#pragma once

#include <QComboBox>

namespace cs::widgets {

class ReportDocument;

class RunPicker : public QComboBox {
    Q_OBJECT
  public:
    explicit RunPicker(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    ReportDocument* document_;
};

} // namespace cs::widgets
