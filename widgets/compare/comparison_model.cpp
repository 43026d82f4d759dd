#include "widgets/compare/comparison_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <limits>

#include "core/analysis/comparison_text.h"
#include "core/analysis/palette.h"
#include "core/analysis/units.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

namespace {

// The column of core's best-value flags that a table column shows, if any.
std::optional<core::CompareColumn> bestColumn(int column) {
    using C = core::CompareColumn;
    switch (column) {
    case ComparisonModel::Graphs:
        return C::Graphs;
    case ComparisonModel::Breaks:
        return C::Breaks;
    case ComparisonModel::Recompiles:
        return C::Recompiles;
    case ComparisonModel::Warmup:
        return C::Warmup;
    case ComparisonModel::Sweep:
        return C::Sweep;
    case ComparisonModel::Median:
        return C::Median;
    case ComparisonModel::P99:
        return C::P99;
    case ComparisonModel::Speedup:
        return C::Speedup;
    case ComparisonModel::BreakEven:
        return C::BreakEven;
    case ComparisonModel::Memory:
        return C::Memory;
    default:
        return std::nullopt;
    }
}

QString modeExplanation(const std::string& mode) {
    if (mode == "eager")
        return QObject::tr(
            "eager: no torch.compile; the baseline every speedup is measured against.");
    if (mode == "reduce-overhead")
        return QObject::tr(
            "reduce-overhead: records CUDA graphs so a call replays all its kernels with one "
            "launch; it cuts per-call CPU overhead, holds more memory, and does nothing on CPU.");
    if (mode == "max-autotune")
        return QObject::tr(
            "max-autotune: benchmarks kernel choices while compiling (slow to compile) and uses "
            "CUDA graphs like reduce-overhead.");
    if (mode == "max-autotune-no-cudagraphs")
        return QObject::tr("max-autotune-no-cudagraphs: autotunes kernels without CUDA graphs.");
    if (mode == "as-written")
        return QObject::tr(
            "as-written: the model as its file compiles it, each of its own torch.compile "
            "calls with its own options; every other setting undoes those calls.");
    if (mode == "aoti")
        return QObject::tr(
            "aoti: torch.export, then an AOTInductor package run from C++ without Python "
            "(compilescope-aoti-runner); its first call is the package load plus the first "
            "call, what a deployed service pays at start.");
    return QObject::tr("default: Inductor's default options, a balance of compile time and speed.");
}

} // namespace

ComparisonModel::ComparisonModel(ReportDocument* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
    connect(&throttle_, &RefreshThrottle::due, this, &ComparisonModel::recompute);
    connect(document_, &ReportDocument::reportReset, this, &ComparisonModel::recompute);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    recompute();
}

void ComparisonModel::recompute() {
    auto next = core::compareRuns(document_->report());
    if (next.rows.size() == comparison_.rows.size()) {
        comparison_ = std::move(next);
        if (!comparison_.rows.empty())
            emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    } else {
        beginResetModel();
        comparison_ = std::move(next);
        endResetModel();
    }
    emit recomputed();
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(comparison_.rows.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    // Short headers keep the table within 1280 px; the tooltips say it in full.
    static const char* names[] = {"setting", "status",     "graphs",   "breaks", "recomp.",
                                  "warmup",  "sweep",      "median",   "p99",    "speedup",
                                  "outputs", "break-even", "peak mem", "notes"};
    static const char* tips[] = {
        "How the model was compiled; each setting keeps its colour in every chart",
        "ok, failed, crashed, timeout or cancelled",
        "FX graphs Dynamo captured: one means the whole model compiled as one piece",
        "Graph breaks: places where Dynamo stopped tracing and fell back to Python",
        "Recompiles: times a guard failed (a new shape or value) and torch compiled again",
        "Wall time of the first calls until latency enters the steady-state band",
        "Wall time of the input sweep after measuring: its shapes and recompiles, not in warmup",
        "Median latency per call in steady state",
        "99th percentile latency per call in steady state",
        "Eager median ÷ this median; hover a cell for its interval and whether it clears the noise",
        "Outputs against eager's on the same inputs, after the timed calls; hover for the gap",
        "Calls until the time saved per call pays back the extra warmup over eager; hover a cell",
        "Peak memory held: the device allocator's reserved bytes on CUDA, the process RSS on CPU",
        "What went wrong, or what torch did differently from what the setting asked"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

QVariant ComparisonModel::display(const core::ComparisonRow& r, int column) const {
    auto duration = [](std::optional<double> ns) -> QVariant {
        return ns ? durationText(*ns) : QString("—");
    };
    switch (column) {
    case Setting:
        return QString::fromStdString(r.label);
    case Status:
        return QString::fromLatin1(core::toString(r.status));
    case Graphs:
        return r.dynamo ? QVariant(r.graphs) : QVariant(QStringLiteral("—"));
    case Breaks:
        return r.dynamo ? QVariant(r.breaks) : QVariant(QStringLiteral("—"));
    case Recompiles:
        return r.dynamo ? QVariant(r.recompiles) : QVariant(QStringLiteral("—"));
    case Warmup:
        return duration(r.warmupWallNs ? std::optional<double>(static_cast<double>(*r.warmupWallNs))
                                       : std::nullopt);
    case Sweep:
        return duration(r.sweepWallNs ? std::optional<double>(static_cast<double>(*r.sweepWallNs))
                                      : std::nullopt);
    case Median:
        return duration(r.stats ? std::optional(r.stats->median) : std::nullopt);
    case P99:
        return duration(r.stats ? std::optional(r.stats->p99) : std::nullopt);
    case Speedup: // the interval is in the tooltip
        if (r.speedup && !r.isBaseline)
            return QStringLiteral("%1×").arg(r.speedup->value, 0, 'f', 2);
        return QString::fromStdString(core::speedupText(r));
    case BreakEven:
        return QString::fromStdString(core::breakEvenText(r));
    case Memory:
        return r.peakMemoryBytes ? bytesText(static_cast<double>(*r.peakMemoryBytes))
                                 : QString("—");
    case Outputs:
        return r.outputs.empty() ? QString("—") : QString::fromStdString(r.outputs);
    case Notes:
        if (r.error && r.status != core::RunStatus::Ok)
            return QString::fromStdString(r.error->message).section('\n', 0, 0);
        if (!r.notes.empty())
            return QString::fromStdString(r.notes.front());
        return {};
    default:
        return {};
    }
}

QVariant ComparisonModel::sortValue(const core::ComparisonRow& r, int column) const {
    switch (column) {
    case Graphs:
        return r.graphs;
    case Breaks:
        return r.breaks;
    case Recompiles:
        return r.recompiles;
    case Warmup:
        return r.warmupWallNs ? QVariant(static_cast<double>(*r.warmupWallNs)) : QVariant();
    case Sweep:
        return r.sweepWallNs ? QVariant(static_cast<double>(*r.sweepWallNs)) : QVariant();
    case Median:
        return r.stats ? QVariant(r.stats->median) : QVariant();
    case P99:
        return r.stats ? QVariant(r.stats->p99) : QVariant();
    case Speedup:
        if (r.isBaseline)
            return 1.0;
        return r.speedup ? QVariant(r.speedup->value) : QVariant();
    case BreakEven:
        if (r.noSignificantGain()) // after every real figure, before "never"
            return std::numeric_limits<double>::max();
        if (r.breakEven)
            return *r.breakEven;
        if (r.speedup && !r.saves)
            return std::numeric_limits<double>::infinity(); // never: after every number
        return QVariant();
    case Memory:
        return r.peakMemoryBytes ? QVariant(static_cast<double>(*r.peakMemoryBytes)) : QVariant();
    default:
        return display(r, column);
    }
}

QVariant ComparisonModel::toolTip(const core::ComparisonRow& r, int column) const {
    QString tip;
    switch (column) {
    case Setting: {
        // A label with variables (env=) is elided in its cell: the tooltip has it whole.
        const core::Setting& setting = document_->report().runs[static_cast<size_t>(r.run)].setting;
        tip = modeExplanation(setting.mode);
        if (!setting.environment.empty())
            tip = QString::fromStdString(setting.label()) + QStringLiteral("\n\n") + tip;
        break;
    }
    case Warmup:
        if (r.warmupNs)
            tip = tr("%1 of warmup: the calls until steady state, and any later warmup call "
                     "that recompiled; %2 beyond what those calls cost in steady state (the "
                     "warmup cost break-even pays back)")
                      .arg(durationText(static_cast<double>(r.warmupWallNs.value_or(0))),
                           durationText(*r.warmupNs));
        break;
    case Sweep:
        if (r.sweepWallNs)
            tip = QString::fromStdString(core::sweepText(r));
        break;
    case Median:
    case P99:
        if (r.stats)
            tip = tr("%1 ns over %2 measured calls; median 95% CI %3 – %4")
                      .arg(QString::fromStdString(core::formatCount(
                               column == Median ? r.stats->median : r.stats->p99)),
                           QString::fromStdString(
                               core::formatCount(static_cast<double>(r.stats->count))))
                      .arg(durationText(r.stats->medianCiLow), durationText(r.stats->medianCiHigh));
        break;
    case Speedup:
        if (r.speedup)
            tip = QString::fromStdString(core::speedupText(r) + " — " +
                                         core::speedupBasis(*r.speedup));
        break;
    case BreakEven:
        if (r.isBaseline)
            tip = tr("Eager is the baseline: it has nothing to pay back");
        else if (r.noSignificantGain())
            tip = QString::fromStdString(core::breakEvenDetail(r));
        else if (r.breakEven)
            tip =
                tr("After %1 calls the extra warmup over eager is paid back by %2 saved per call")
                    .arg(QString::fromStdString(core::formatCount(*r.breakEven)))
                    .arg(durationText(
                        comparison_.rows[static_cast<size_t>(comparison_.baseline)].stats->median -
                        r.stats->median));
        else if (r.speedup && !r.saves)
            tip = tr("Never: this setting is not faster than eager per call, so its warmup is "
                     "never paid back");
        else
            tip = tr("Needs a finished eager run and measured calls");
        break;
    case Memory:
        if (r.peakMemoryBytes)
            tip = tr("%1 bytes (%2)")
                      .arg(*r.peakMemoryBytes)
                      .arg(QString::fromStdString(r.memoryKind));
        break;
    case Outputs:
        tip = QString::fromStdString(r.outputsDetail);
        break;
    case Status:
    case Notes: {
        QStringList lines;
        if (r.error)
            lines << QString::fromStdString(r.error->message);
        for (const auto& note : r.notes)
            lines << QString::fromStdString(note);
        tip = lines.join("\n\n");
        break;
    }
    default:
        break;
    }
    if (auto best = bestColumn(column); best && r.isBest(*best))
        tip = tip.isEmpty() ? tr("Best of this column") : tip + "\n" + tr("Best of this column");
    return tip.isEmpty() ? QVariant() : QVariant(tip);
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const auto& r = comparison_.rows[static_cast<size_t>(index.row())];
    const int column = index.column();
    const auto best = bestColumn(column);
    const bool isBest = best && r.isBest(*best);
    switch (role) {
    case Qt::DisplayRole:
        return display(r, column);
    case SortRole:
        return sortValue(r, column);
    case Qt::ToolTipRole:
        return toolTip(r, column);
    case BestRole:
        return isBest;
    case Qt::DecorationRole:
        if (column == Setting)
            return toQColor(core::runColor(document_->report(), r.run));
        return {};
    case Qt::FontRole:
        if (isBest) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::BackgroundRole:
        if (isBest)
            return QBrush(
                QColor(46, 160, 67, 56)); // a green tint that reads on light and dark palettes
        return {};
    case Qt::ForegroundRole:
        if ((column == Status || column == Notes) && r.status != core::RunStatus::Ok &&
            r.status != core::RunStatus::Running && r.status != core::RunStatus::Pending)
            return QBrush(QColor("#c0392b"));
        if (column == Outputs && r.outputsDiffer)
            return QBrush(QColor("#c0392b"));
        return {};
    case Qt::TextAlignmentRole:
        return column <= Status || column == Notes ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                                   : int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

} // namespace cs::widgets
