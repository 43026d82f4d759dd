#include "widgets/code/cell_table_model.h"

#include <QFont>

#include "widgets/common/table_setup.h"

namespace cs::widgets {

QString shareText(double share) {
    return QStringLiteral("%1 %").arg(share * 100, 0, 'f', share < 0.1 ? 2 : 1);
}

CellTableModel::CellTableModel(const QStringList& headers, const QStringList& tips, QObject* parent)
    : QAbstractTableModel(parent), headers_(headers), tips_(tips) {}

void CellTableModel::setRows(std::vector<std::vector<Cell>> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

const Cell* CellTableModel::cell(int row, int column) const {
    if (row < 0 || row >= rowCount() || column < 0 ||
        column >= static_cast<int>(rows_[static_cast<size_t>(row)].size()))
        return nullptr;
    return &rows_[static_cast<size_t>(row)][static_cast<size_t>(column)];
}

int CellTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int CellTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(headers_.size());
}

QVariant CellTableModel::data(const QModelIndex& index, int role) const {
    const Cell* c = cell(index.row(), index.column());
    if (!c)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return c->text;
    case SortRole:
        return c->sort.isValid() ? c->sort : QVariant(c->text);
    case Qt::ToolTipRole:
        return c->tip.isEmpty() ? (c->text.isEmpty() ? QVariant() : QVariant(c->text))
                                : QVariant(c->tip);
    case Qt::TextAlignmentRole:
        return c->number ? int(Qt::AlignRight | Qt::AlignVCenter)
                         : int(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::FontRole:
        if (c->bold) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    default:
        return {};
    }
}

QVariant CellTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= headers_.size())
        return {};
    if (role == Qt::DisplayRole)
        return headers_[section];
    if (role == Qt::ToolTipRole && section < tips_.size())
        return tips_[section];
    return {};
}

} // namespace cs::widgets
