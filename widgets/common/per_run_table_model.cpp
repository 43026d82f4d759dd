#include "widgets/common/per_run_table_model.h"

#include "widgets/common/report_document.h"

namespace cs::widgets {

PerRunTableModel::PerRunTableModel(ReportDocument* document, int columns, QObject* parent)
    : QAbstractTableModel(parent), document_(document), columns_(columns) {
    connect(document_, &ReportDocument::reportReset, this, [this] {
        beginResetModel();
        endResetModel();
    });
    connect(document_, &ReportDocument::runChanged, this, [this](int run) {
        if (run >= 0 && run < rowCount())
            emit dataChanged(index(run, 0), index(run, columns_ - 1));
    });
}

int PerRunTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(document_->report().runs.size());
}

int PerRunTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : columns_;
}

} // namespace cs::widgets
