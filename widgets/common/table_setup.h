// One call sets up a results table the way every table in the app behaves:
// sortable (by raw values), copyable (Ctrl+C as tab-separated text), tooltips.
#pragma once

#include <QSortFilterProxyModel>

class QAbstractItemModel;
class QTableView;

namespace cs::widgets {

// Models put the raw value to sort by (a number) in this role.
inline constexpr int SortRole = Qt::UserRole + 1;

QSortFilterProxyModel* setupTableView(QTableView* view, QAbstractItemModel* model);
// Sizes every column but `stretch` to its content, each at most `maxShare` of
// the view's width (longer text is elided in the middle; models put the full
// text in the tooltip), and gives `stretch` the rest. Refits when the rows or
// the view's width change, so one long path cannot squeeze the main column.
void fitColumnsToContent(QTableView* view, int stretch, double maxShare = 0.25);
// Prose in `column` (notes, reasons) elided at its end, not its middle: "the
// machine ch…" reads, "the…lls" does not. Other columns keep the view's mode.
void elideRightInColumn(QTableView* view, int column);
// The selected cells as tab-separated lines with a header row.
QString selectionAsText(const QTableView* view);

} // namespace cs::widgets
