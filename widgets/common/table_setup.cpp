#include "widgets/common/table_setup.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QHeaderView>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTableView>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

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

namespace {

// Refits the columns of one table when its viewport is resized.
class ColumnFitter : public QObject {
  public:
    ColumnFitter(QTableView* view, int stretch, double maxShare)
        : QObject(view), view_(view), stretch_(stretch), maxShare_(maxShare) {}

    void fit() const {
        auto* header = view_->horizontalHeader();
        const int columns = view_->model() ? view_->model()->columnCount() : 0;
        const int available = view_->viewport()->width();
        const int cap = std::max(80, static_cast<int>(available * maxShare_));
        int used = 0;
        std::vector<std::pair<int, int>> capped; // column, the width its content wants
        for (int c = 0; c < columns; ++c) {
            if (c == stretch_) {
                header->setSectionResizeMode(c, QHeaderView::Stretch);
                continue;
            }
            header->setSectionResizeMode(c, QHeaderView::Interactive);
            const int wanted = wantedWidth(c);
            view_->setColumnWidth(c, wanted);
            if (wanted > cap) {
                view_->setColumnWidth(c, cap);
                capped.emplace_back(c, wanted);
            }
            used += view_->columnWidth(c);
        }
        // Room the main column does not need goes to the capped ones, in order.
        const int mainWants =
            stretch_ >= 0 && stretch_ < columns
                ? std::max(
                      static_cast<const QAbstractItemView*>(view_)->sizeHintForColumn(stretch_),
                      header->sectionSizeHint(stretch_))
                : 0;
        int spare = available - used - mainWants;
        for (const auto& [column, wanted] : capped) {
            if (spare <= 0)
                break;
            const int grow = std::min(spare, wanted - cap);
            view_->setColumnWidth(column, cap + grow);
            spare -= grow;
        }
    }

    // The width column `c` needs: its cells, or its title. Qt sizes every
    // title with room for the sort arrow, which only the sorted column shows:
    // across a dozen narrow columns that room alone pushed the Compare table
    // past a 1280-pixel window.
    int wantedWidth(int c) const {
        const auto* header = view_->horizontalHeader();
        int title = header->sectionSizeHint(c);
        if (header->isSortIndicatorShown() && header->sortIndicatorSection() != c)
            title -= header->sizeHint().height() +
                     header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
        const int cells = static_cast<const QAbstractItemView*>(view_)->sizeHintForColumn(c);
        return std::max(cells, title);
    }

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize)
            fit();
        return QObject::eventFilter(watched, event);
    }

  private:
    QTableView* view_;
    int stretch_;
    double maxShare_;
};

} // namespace

void fitColumnsToContent(QTableView* view, int stretch, double maxShare) {
    view->horizontalHeader()->setStretchLastSection(false);
    view->setTextElideMode(Qt::ElideMiddle);
    auto* fitter = new ColumnFitter(view, stretch, maxShare);
    view->viewport()->installEventFilter(fitter);
    if (auto* model = view->model()) {
        auto refit = [fitter] { fitter->fit(); };
        QObject::connect(model, &QAbstractItemModel::modelReset, fitter, refit);
        QObject::connect(model, &QAbstractItemModel::rowsInserted, fitter, refit);
        QObject::connect(model, &QAbstractItemModel::layoutChanged, fitter, refit);
    }
    // The newly sorted column takes the room for its arrow.
    QObject::connect(view->horizontalHeader(), &QHeaderView::sortIndicatorChanged, fitter,
                     [fitter] { fitter->fit(); });
    fitter->fit();
}

namespace {

class ElideRightDelegate : public QStyledItemDelegate {
  public:
    using QStyledItemDelegate::QStyledItemDelegate;

  protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = Qt::ElideRight;
    }
};

} // namespace

void elideRightInColumn(QTableView* view, int column) {
    view->setItemDelegateForColumn(column, new ElideRightDelegate(view));
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
