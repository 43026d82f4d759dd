#include "widgets/common/table_setup.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QTableView>

#include <map>

namespace cs::widgets {

QSortFilterProxyModel* setupTableView(QTableView* view, QAbstractItemModel* model) {
    auto* proxy = new QSortFilterProxyModel(view);
    proxy->setSourceModel(model);
    proxy->setSortRole(SortRole);
    proxy->setSortCaseSensitivity(Qt::CaseInsensitive);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder); // model order until the user sorts
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->setVisible(false);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view->setWordWrap(false);
    auto* copy = new QAction(QObject::tr("Copy"), view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    QObject::connect(copy, &QAction::triggered, view,
                     [view] { QApplication::clipboard()->setText(selectionAsText(view)); });
    view->addAction(copy);
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
    return proxy;
}

QString selectionAsText(const QTableView* view) {
    const auto indexes =
        view->selectionModel() ? view->selectionModel()->selectedIndexes() : QModelIndexList{};
    if (indexes.isEmpty())
        return {};
    std::map<int, std::map<int, QString>> cells;
    std::map<int, bool> columns;
    for (const auto& index : indexes) {
        cells[index.row()][index.column()] = index.data(Qt::DisplayRole).toString();
        columns[index.column()] = true;
    }
    QStringList lines;
    QStringList header;
    for (const auto& [column, _] : columns)
        header << view->model()->headerData(column, Qt::Horizontal).toString();
    lines << header.join('\t');
    for (const auto& [row, values] : cells) {
        QStringList line;
        for (const auto& [column, _] : columns)
            line << (values.count(column) ? values.at(column) : QString());
        lines << line.join('\t');
    }
    return lines.join('\n') + '\n';
}

} // namespace cs::widgets
