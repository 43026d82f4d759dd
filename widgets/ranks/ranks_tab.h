// Ranks: the ranks of an imported TORCH_TRACE log side by side (divergent
// cells tinted, why in the tooltip), the divergences in words, and below the
// compiles of the selected rank. A report with no imported runs says so.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace cs::widgets {

class CompilesModel;
class RankTableModel;
class ReportDocument;

class RanksTab : public QWidget {
    Q_OBJECT
  public:
    explicit RanksTab(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    void showCompiles();
    // The imported run whose compiles are shown: the selected one, else the first.
    int compilesRun() const;

    ReportDocument* document_;
    QLabel* empty_;
    QWidget* body_;
    QLabel* summary_;
    QTableView* ranks_;
    RankTableModel* rankModel_;
    QSortFilterProxyModel* rankProxy_;
    QLabel* compilesTitle_;
    QTableView* compiles_;
    CompilesModel* compilesModel_;
    RefreshThrottle throttle_{150};
};

} // namespace cs::widgets
