// Breaks: where torch.compile split the selected run and why. The break map,
// a table of break sites (reason, file:line, function, count) beside the
// user's source with the break lines marked, and below them the recompiles
// (a limit hit marked as its own row). Recompiles live here, not in a tab of
// their own: both answer "why is my model not one compiled graph, compiled once".
#pragma once

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace cs::widgets {

class BreakMap;
class BreakSitesModel;
class RecompilesModel;
class ReportDocument;
class RunPicker;
class SourcePane;
struct Selection;

class BreaksTab : public QWidget {
    Q_OBJECT
  public:
    explicit BreaksTab(ReportDocument* document, QWidget* parent = nullptr);

    QString summary() const;
    // The site row selected in the table (model row), -1 when none.
    int selectedSite() const;

  private:
    void onSelection(const Selection& selection);
    void updateSummary();
    void showReason(int row);

    ReportDocument* document_;
    RunPicker* runPicker_;
    QLabel* summary_;
    BreakMap* breakMap_;
    BreakSitesModel* sites_;
    QSortFilterProxyModel* sitesProxy_;
    QTableView* table_;
    QTextBrowser* reason_;
    SourcePane* source_;
    RecompilesModel* recompiles_;
    QTableView* recompilesTable_;
    QLabel* recompilesNote_;
    bool syncing_ = false;
};

} // namespace cs::widgets
