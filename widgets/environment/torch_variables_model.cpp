#include "widgets/environment/torch_variables_model.h"

#include <QBrush>
#include <QColor>

#include "core/analysis/units.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

void TorchVariablesModel::showReport(const core::Report& report) {
    beginResetModel();
    variables_ = core::variablesAcrossRuns(report);
    endResetModel();
}

int TorchVariablesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(variables_.size());
}

int TorchVariablesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString TorchVariablesModel::text(const core::VariableAcrossRuns& v, int column) const {
    switch (column) {
    case Variable:
        return QString::fromStdString(v.variable.name);
    case Value:
        return QString::fromStdString(v.variable.value);
    case From:
        return QString::fromLatin1(core::toString(v.origin));
    case Effect: {
        const auto effect = core::variableEffectText(v.variable.name, v.variable.value);
        return effect.empty() ? QStringLiteral("—") : QString::fromStdString(effect);
    }
    case Settings:
        return v.everyRun ? tr("all") : QString::fromStdString(core::joinList(v.settings));
    default:
        return {};
    }
}

QVariant TorchVariablesModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const auto& v = variables_[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case SortRole:
        return text(v, index.column());
    case Qt::ToolTipRole:
        if (index.column() == From && v.origin == core::VariableOrigin::Inherited)
            return tr("From the environment compilescope started the probe in: your shell, or on "
                      "a --target host its login. No setting shows it, yet it changed what the "
                      "probe measured.");
        if (index.column() == Settings && v.everyRun)
            return tr("Every probe of this report started with it");
        return text(v, index.column());
    case Qt::ForegroundRole:
        if (core::voidsMeasurement(v.variable))
            return QBrush(QColor("#c0392b"));
        return {};
    default:
        return {};
    }
}

QVariant TorchVariablesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Variable:
        return tr("Variable");
    case Value:
        return tr("Value");
    case From:
        return tr("From");
    case Effect:
        return tr("What it does");
    case Settings:
        return tr("Settings");
    default:
        return {};
    }
}

} // namespace cs::widgets
