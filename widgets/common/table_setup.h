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
// The selected cells as tab-separated lines with a header row.
QString selectionAsText(const QTableView* view);

} // namespace cs::widgets
