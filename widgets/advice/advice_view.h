// Advice: the findings of the report on screen, most severe first, with the
// advice options the rules use. Selecting a finding selects what it rests on
// (the break or source line) through the document; activating it, or the
// link in its detail, asks for the tab that shows the evidence.
#pragma once

#include <QWidget>

class QLabel;
class QSpinBox;
class QStackedWidget;
class QTableView;
class QSortFilterProxyModel;

namespace cs::widgets {

class AdviceDetail;
class AdviceModel;
class ReportDocument;

class AdviceView : public QWidget {
    Q_OBJECT
  public:
    explicit AdviceView(ReportDocument* document, QWidget* parent = nullptr);

    // Selects the finding at this row of the (sorted) table, as a click does.
    void selectRow(int row);
    // Opens the evidence of the current finding: its tab, its break or line.
    void openEvidence();

  private:
    QWidget* buildOptionsBar();
    void updateSummary();
    void showCurrent(bool pushSelection);
    int currentSourceRow() const;

    ReportDocument* document_;
    AdviceModel* model_;
    QSortFilterProxyModel* proxy_ = nullptr;
    QLabel* summary_ = nullptr;
    QSpinBox* calls_ = nullptr;
    QSpinBox* memoryPercent_ = nullptr;
    QStackedWidget* pages_ = nullptr;
    QLabel* empty_ = nullptr;
    QTableView* table_ = nullptr;
    AdviceDetail* detail_ = nullptr;
};

} // namespace cs::widgets
