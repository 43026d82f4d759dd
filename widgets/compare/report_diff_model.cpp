#include "widgets/compare/report_diff_model.h"

#include "core/analysis/units.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include "widgets/charts/chart_setup.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

namespace {

enum class Unit { Duration, Bytes };

QString valueText(const std::optional<double>& v, Unit unit) {
    if (!v)
        return QStringLiteral("—");
    return unit == Unit::Bytes ? bytesText(*v) : durationText(*v);
}

QString percentText(const core::MetricDelta& d) {
    if (!d.percent)
        return d.a || d.b ? QStringLiteral("—") : QString();
    return QStringLiteral("%1%2%").arg(*d.percent >= 0 ? "+" : "").arg(*d.percent, 0, 'f', 1);
}

QString changeKind(bool regression, bool improvement) {
    return regression    ? QStringLiteral("regression")
           : improvement ? QStringLiteral("improvement")
                         : QString();
}

} // namespace

ReportDiffModel::ReportDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void ReportDiffModel::setDiff(core::ReportDiff diff) {
    beginResetModel();
    diff_ = std::move(diff);
    endResetModel();
}

void ReportDiffModel::setThreshold(double percent) {
    core::markRegressions(diff_, percent);
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int ReportDiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(diff_.settings.size());
}

int ReportDiffModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReportDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* names[] = {
        "setting",          "status A → B",  "median A",      "median B",
        "median Δ",         "p99 A",         "p99 B",         "p99 Δ",
        "warmup A",         "warmup B",      "warmup Δ",      "breaks A → B",
        "recompiles A → B", "peak memory A", "peak memory B", "peak memory Δ",
        "outputs A → B"};
    static const char* tips[] = {
        "Settings are matched by label",
        "How each run ended",
        "Median latency per call in A (with --repeat, the first probe's)",
        "Median latency per call in B (with --repeat, the first probe's)",
        "Change of B over A; a regression only when the medians' 95% intervals do not overlap",
        "99th percentile in A",
        "99th percentile in B",
        "Change of the p99 (shown, never a regression alone)",
        "Total time of the warmup calls in A (the compiling call included)",
        "The same in B",
        "Change of the warmup time",
        "Graph breaks: more in B is a regression",
        "Recompiles: more in B is a regression",
        "Peak memory of A (device, or host RSS on CPU)",
        "Peak memory of B",
        "Change of the peak memory",
        "Outputs against eager's on the same inputs: outputs that came to differ are a regression"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

QVariant ReportDiffModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const core::SettingDiff& s = diff_.settings[static_cast<size_t>(index.row())];
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return column <= Status ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                : int(Qt::AlignRight | Qt::AlignVCenter);

    // Which metric a column shows, if any.
    const core::MetricDelta* metric = nullptr;
    Unit unit = Unit::Duration;
    int part = 0; // 0: A, 1: B, 2: change
    switch (column) {
    case MedianA:
    case MedianB:
    case MedianChange:
        metric = &s.median;
        part = column - MedianA;
        break;
    case P99A:
    case P99B:
    case P99Change:
        metric = &s.p99;
        part = column - P99A;
        break;
    case WarmupA:
    case WarmupB:
    case WarmupChange:
        metric = &s.warmup;
        part = column - WarmupA;
        break;
    case PeakA:
    case PeakB:
    case PeakChange:
        metric = &s.peakMemory;
        part = column - PeakA;
        unit = Unit::Bytes;
        break;
    default:
        break;
    }
    const core::CountDelta* count = column == Breaks       ? &s.breaks
                                    : column == Recompiles ? &s.recompiles
                                                           : nullptr;

    QString change;
    if (metric && part == 2)
        change = changeKind(metric->regression, metric->improvement);
    else if (count)
        change = changeKind(count->regression, count->b < count->a);
    else if (column == Status)
        change = changeKind(s.statusRegression, false);
    else if (column == Outputs)
        change = changeKind(s.outputsRegression, false);
    if (role == ChangeRole)
        return change;
    if (role == Qt::BackgroundRole && !change.isEmpty())
        return QBrush(change == "regression" ? QColor(192, 57, 43, 70) : QColor(39, 174, 96, 60));
    if (role == Qt::FontRole && change == "regression") {
        QFont font;
        font.setBold(true);
        return font;
    }

    if (role == Qt::ToolTipRole) {
        if (metric && part == 2 && !metric->note.empty())
            return QString::fromStdString(metric->note);
        if (metric && part < 2) {
            const auto& v = part == 0 ? metric->a : metric->b;
            if (!v)
                return {};
            QString tip = QStringLiteral("%1 %2")
                              .arg(QString::fromStdString(core::formatCount(*v)))
                              .arg(unit == Unit::Bytes ? "bytes" : "ns");
            // With --repeat the median is the first probe's; the others are
            // what a change has to clear.
            const auto& probes = part == 0 ? s.probesA : s.probesB;
            if (metric == &s.median && probes)
                tip += tr("\nthe first probe's median; this report's probes (--repeat) "
                          "measured medians from %1 to %2")
                           .arg(QString::fromStdString(core::formatDuration(probes->first)),
                                QString::fromStdString(core::formatDuration(probes->second)));
            return tip;
        }
        if (column == Setting && !s.regressions.empty()) {
            QStringList lines;
            for (const auto& r : s.regressions)
                lines << QString::fromStdString(r);
            return lines.join('\n');
        }
        return {};
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};

    if (column == Setting) {
        const QString label = QString::fromStdString(s.label);
        if (!s.inB)
            return label + tr(" (only in A)");
        if (!s.inA)
            return label + tr(" (only in B)");
        return label;
    }
    if (column == Status) {
        const QString a = s.inA ? QString::fromStdString(s.statusA) : QStringLiteral("—");
        const QString b = s.inB ? QString::fromStdString(s.statusB) : QStringLiteral("—");
        return a + QStringLiteral(" → ") + b;
    }
    if (column == Outputs) {
        if (s.outputsA.empty() && s.outputsB.empty())
            return QString();
        return QString::fromStdString((s.outputsA.empty() ? "—" : s.outputsA) + " → " +
                                      (s.outputsB.empty() ? "—" : s.outputsB));
    }
    if (count) {
        if (role == SortRole)
            return count->b - count->a;
        return s.inA && s.inB ? QStringLiteral("%1 → %2").arg(count->a).arg(count->b) : QString();
    }
    if (metric) {
        if (part == 2) {
            if (role == SortRole)
                return metric->percent ? *metric->percent : 0.0;
            return percentText(*metric);
        }
        const auto& v = part == 0 ? metric->a : metric->b;
        if (role == SortRole)
            return v ? *v : -1.0;
        return valueText(v, unit);
    }
    return {};
}

} // namespace cs::widgets
