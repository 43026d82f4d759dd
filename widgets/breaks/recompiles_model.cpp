#include "widgets/breaks/recompiles_model.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

#include "core/advice/advice_text.h"
#include "core/analysis/function_name.h"
#include "core/analysis/measurement_check.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/graph/compiled_run.h"
#include "widgets/graph/graph_terms.h"

namespace cs::widgets {

RecompilesModel::RecompilesModel(ReportDocument* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
    connect(document_, &ReportDocument::reportReset, this, &RecompilesModel::rebuild);
    connect(document_, &ReportDocument::runChanged, this, [this](int run) {
        const auto* r = document_->run(run);
        if ((run == run_ && r && static_cast<int>(r->recompiles.size()) != rows_) || run_ < 0)
            rebuild();
    });
    connect(document_, &ReportDocument::selectionChanged, this, [this] {
        if (compiledRunIndex(*document_) != run_)
            rebuild();
    });
    rebuild();
}

void RecompilesModel::rebuild() {
    beginResetModel();
    run_ = compiledRunIndex(*document_);
    const auto* run = document_->run(run_);
    rows_ = run ? static_cast<int>(run->recompiles.size()) : 0;
    endResetModel();
}

// Reads the run itself, not rows_: on a new report the breaks model may reset
// (and ask this) before this model has rebuilt, when rows_ still counts the
// old report's recompiles.
bool RecompilesModel::hasLimitHit() const {
    const auto* run = document_->run(compiledRunIndex(*document_));
    return run && std::any_of(run->recompiles.begin(), run->recompiles.end(),
                              [](const core::Recompile& r) { return r.limitHit; });
}

int RecompilesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : rows_;
}

int RecompilesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RecompilesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* names[] = {"function", "guard that failed", "cache size", "input shapes",
                                  "when"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Function:
            return recompileTerm();
        case Reason:
            return tr("The guard of the compiled code that the new call did not pass");
        case CacheSize:
            return tr("Compiled variants of this function after this recompile");
        case Inputs:
            return tr("Shapes of the inputs of the call that caused the recompile");
        case When:
            return tr("The call it happened in, numbered as the Latency and Warmup charts number "
                      "calls (a triangle marks it there)");
        default:
            return {};
        }
    }
    return {};
}

QVariant RecompilesModel::data(const QModelIndex& index, int role) const {
    const auto* run = document_->run(run_);
    if (!run || index.row() < 0 || index.row() >= rows_ ||
        index.row() >= static_cast<int>(run->recompiles.size()))
        return {};
    const core::Recompile& r = run->recompiles[static_cast<size_t>(index.row())];
    const QString function = QString::fromStdString(core::functionLabel(r.function));
    const QString reason = QString::fromStdString(r.reason).trimmed();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Function:
            return r.limitHit ? tr("⚠ %1").arg(function) : function;
        case Reason: {
            // The guard alone; torch's source comment and hint are in the tooltip.
            const QString guard = QString::fromStdString(core::advice::guardExpression(r.reason));
            if (!r.limitHit)
                return guard;
            return (r.limit > 0 ? tr("RECOMPILE LIMIT HIT (limit %1)").arg(r.limit)
                                : tr("RECOMPILE LIMIT HIT")) +
                   tr(": runs eagerly from now on — %1").arg(guard);
        }
        case CacheSize:
            // limit 0: a report recorded before the probe read torch's limit.
            if (r.limit <= 0)
                return r.limitHit && r.cacheSize == 0 ? tr("limit hit")
                                                      : QString::number(r.cacheSize);
            if (!r.limitHit)
                return tr("%1 of %2").arg(r.cacheSize).arg(r.limit);
            return r.cacheSize > 0 ? tr("%1 (limit %2)").arg(r.cacheSize).arg(r.limit)
                                   : tr("limit %1").arg(r.limit);
        case Inputs:
            return QString::fromStdString(r.inputShapes);
        case When:
            return QString::fromStdString(core::recompileWhenText(*run, r));
        default:
            return {};
        }
    case SortRole:
        if (index.column() == When)
            return r.callIndex; // call order; -1 (unknown) first
        return index.column() == CacheSize ? QVariant(r.cacheSize) : data(index, Qt::DisplayRole);
    case Qt::ToolTipRole:
        if (r.limitHit)
            return recompileLimitTerm() + QStringLiteral("\n\n") + reason;
        // Every column may be elided in the middle: the tooltip has it whole.
        if (index.column() != Reason)
            return data(index, Qt::DisplayRole);
        // torch names what it carries across a graph break ___stack0, ___stack0[0]:
        // a name the user never wrote.
        if (reason.contains(QStringLiteral("___stack")))
            return tr("___stack names a value torch carries across a graph break into the "
                      "function after it: the value is the user's, the name is torch's.") +
                   QStringLiteral("\n\n") + reason;
        return reason;
    case Qt::BackgroundRole:
        return r.limitHit ? QVariant(QBrush(QColor(0xff, 0xb3, 0x47, 110))) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == CacheSize ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                           : QVariant();
    default:
        return {};
    }
}

} // namespace cs::widgets
