#include "widgets/ranks/rank_table_model.h"

#include <QBrush>
#include <QColor>

#include <optional>

#include "core/analysis/palette.h"
#include "core/analysis/units.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

namespace {

// The kind of divergence a column shows; nullopt for columns no divergence marks.
std::optional<core::DivergenceKind> kindOf(int column) {
    switch (column) {
    case RankTableModel::Graphs:
        return core::DivergenceKind::Graphs;
    case RankTableModel::Recompiles:
        return core::DivergenceKind::Recompiles;
    case RankTableModel::CompileTime:
        return core::DivergenceKind::CompileTime;
    case RankTableModel::CacheMisses:
    case RankTableModel::CacheBypasses:
        return core::DivergenceKind::Cache;
    default:
        return std::nullopt;
    }
}

} // namespace

RankTableModel::RankTableModel(ReportDocument* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
    rebuild(); // the tab calls it again when the report changes
}

void RankTableModel::rebuild() {
    beginResetModel();
    ranks_ = core::compareRanks(document_->report());
    endResetModel();
}

int RankTableModel::runAt(int row) const {
    if (row < 0 || row >= static_cast<int>(ranks_.rows.size()))
        return -1;
    return ranks_.rows[static_cast<size_t>(row)].run;
}

int RankTableModel::rowOfRun(int run) const {
    for (size_t i = 0; i < ranks_.rows.size(); ++i) {
        if (ranks_.rows[i].run == run)
            return static_cast<int>(i);
    }
    return -1;
}

int RankTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(ranks_.rows.size());
}

int RankTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RankTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* names[] = {"rank",       "compiles",     "graphs",     "breaks",
                                  "recompiles", "compile time", "cache hits", "misses",
                                  "bypasses",   "failures",     "restarts"};
    static const char* tips[] = {
        "The rank of the distributed job, from the log file's name",
        "Compile ids in the rank's log (one compilation_metrics record each)",
        "Graphs Dynamo captured on this rank",
        "Graph breaks on this rank",
        "Times a guard failed and torch compiled a function again",
        "Sum of the compiles' entire_frame_compile_time_s",
        "FX graph and AOTAutograd cache lookups that found the compiled artifact",
        "Cache lookups that found nothing: the rank compiled from scratch",
        "Cache lookups skipped because the graph could not be cached",
        "Compiles that failed (fail_type set)",
        "Times torch restarted an analysis (restart_reasons)"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

QString RankTableModel::why(const core::RankRow& row, int column) const {
    const auto kind = kindOf(column);
    if (!kind)
        return {};
    QStringList lines;
    for (const core::Divergence* d : ranks_.of(row.run, *kind))
        lines << QString::fromStdString(d->text);
    return lines.join("\n");
}

QVariant RankTableModel::data(const QModelIndex& index, int role) const {
    if (index.row() < 0 || index.row() >= rowCount() || index.column() < 0 ||
        index.column() >= ColumnCount)
        return {};
    const core::RankRow& r = ranks_.rows[static_cast<size_t>(index.row())];
    const int column = index.column();
    const QString divergence = why(r, column);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Rank:
            return QString::fromStdString(r.label);
        case Compiles:
            return r.compiles;
        case Graphs:
            return r.graphs;
        case Breaks:
            return r.graphBreaks;
        case Recompiles:
            return r.recompiles;
        case CompileTime:
            return QString::fromStdString(core::formatDuration(r.compileSeconds * 1e9));
        case CacheHits:
            return r.cacheHits;
        case CacheMisses:
            return r.cacheMisses;
        case CacheBypasses:
            return r.cacheBypasses;
        case Failures:
            return r.failures;
        case Restarts:
            return r.restarts;
        default:
            return {};
        }
    case SortRole:
        if (column == Rank)
            return r.rank >= 0 ? r.rank : r.run;
        if (column == CompileTime)
            return r.compileSeconds;
        return data(index, Qt::DisplayRole);
    case DivergentRole:
        return !divergence.isEmpty();
    case Qt::ToolTipRole:
        if (!divergence.isEmpty())
            return divergence;
        if (column == CompileTime)
            return tr("%1 s").arg(r.compileSeconds, 0, 'f', 3);
        if (column == Rank) {
            const core::Run* run = document_->run(r.run);
            if (run && run->trace)
                return QString::fromStdString(run->trace->path);
        }
        return {};
    case Qt::DecorationRole:
        if (column == Rank)
            return toQColor(core::runColor(document_->report(), r.run));
        return {};
    case Qt::BackgroundRole:
        if (!divergence.isEmpty())
            return QBrush(QColor(192, 57, 43, 64)); // a red tint that reads on light and dark
        return {};
    case Qt::ForegroundRole:
        if (column == Failures && r.failures > 0)
            return QBrush(QColor("#c0392b"));
        return {};
    case Qt::TextAlignmentRole:
        return column == Rank ? int(Qt::AlignLeft | Qt::AlignVCenter)
                              : int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

} // namespace cs::widgets
