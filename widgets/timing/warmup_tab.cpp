#include "widgets/timing/warmup_tab.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

#include "core/analysis/comparison.h"
#include "core/analysis/palette.h"
#include "core/analysis/warm_start.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/charts/compile_phase_chart.h"
#include "widgets/charts/first_calls_chart.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

WarmupTab::WarmupTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), summary_(new QLabel(this)),
      warmStarts_(new QTableView(this)), warmStartModel_(new QStandardItemModel(this)),
      phases_(new CompilePhaseChart(document, this)),
      firstCalls_(new FirstCallsChart(document, this)) {
    summary_->setObjectName("warmupSummary");
    phases_->setObjectName("compilePhaseChart");
    firstCalls_->setObjectName("firstCallsChart");
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setMargin(6);
    summary_->setToolTip(
        tr("Warmup ends at the first call at or below the top of the steady-state band: "
           "median ± max(3 MAD, 10%) of the measured calls (docs/measuring.md)"));
    warmStarts_->setObjectName("warmStartTable");
    warmStarts_->setToolTip(
        tr("Each setting's first call three ways: a fresh compile, a warm Inductor cache (a "
           "second start on this machine) and torch's portable cache artifacts loaded first "
           "(their load included). (N×): how many times faster than the fresh compile"));
    warmStartModel_->setHorizontalHeaderLabels(
        {tr("setting"), tr("fresh compile"), tr("warm cache"), tr("portable artifacts"),
         tr("artifacts load"), tr("artifacts size"), tr("package load")});
    setupTableView(warmStarts_, warmStartModel_);
    warmStarts_->hide();
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName("warmupSplitter");
    splitter->addWidget(warmStarts_);
    splitter->addWidget(phases_);
    splitter->addWidget(firstCalls_);
    // The table is as tall as its rows; the charts share what is left.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setStretchFactor(2, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(summary_);
    layout->addWidget(splitter, 1);
    connect(&throttle_, &RefreshThrottle::due, this, &WarmupTab::updateSummary);
    connect(&throttle_, &RefreshThrottle::due, this, &WarmupTab::updateWarmStarts);
    connect(document_, &ReportDocument::reportReset, this, &WarmupTab::updateSummary);
    connect(document_, &ReportDocument::reportReset, this, &WarmupTab::updateWarmStarts);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    updateSummary();
    updateWarmStarts();
}

namespace {

// A duration cell sorting by its ns; a blank one says why (never a zero).
QStandardItem* durationItem(int64_t ns, const QString& why = {},
                            std::optional<double> overFresh = std::nullopt) {
    auto* item = new QStandardItem;
    if (ns < 0) {
        item->setText(QStringLiteral("—"));
        item->setToolTip(why);
        item->setData(-1.0, SortRole);
        return item;
    }
    QString text = durationText(static_cast<double>(ns));
    if (overFresh)
        text += QStringLiteral(" (%1×)").arg(*overFresh, 0, 'f', 2);
    item->setText(text);
    item->setToolTip(QStringLiteral("%1 ns").arg(ns));
    item->setData(static_cast<double>(ns), SortRole);
    return item;
}

// "call 21" or "calls 21, 41": 1-based, as the chart counts.
QString callsText(const std::vector<int>& indices) {
    QStringList numbers;
    for (int i : indices)
        numbers << QString::number(i + 1);
    return (indices.size() == 1 ? QObject::tr("call %1") : QObject::tr("calls %1"))
        .arg(numbers.join(", "));
}

QStandardItem* cellItem(const core::ColdStart& cell) {
    return durationItem(cell.firstCallNs, QString::fromStdString(cell.why), cell.speedupOverFresh);
}

} // namespace

void WarmupTab::updateWarmStarts() {
    const auto& report = document_->report();
    warmStartModel_->removeRows(0, warmStartModel_->rowCount());
    const bool shown = core::hasWarmStarts(report);
    warmStarts_->setVisible(shown);
    if (!shown)
        return;
    for (const auto& row : core::warmStartTable(report)) {
        auto* label = new QStandardItem(QString::fromStdString(row.label));
        label->setData(QString::fromStdString(row.label), SortRole);
        auto* size = new QStandardItem(row.artifactsBytes >= 0
                                           ? bytesText(static_cast<double>(row.artifactsBytes))
                                           : QStringLiteral("—"));
        size->setData(static_cast<double>(row.artifactsBytes), SortRole);
        warmStartModel_->appendRow({label, cellItem(row.fresh), cellItem(row.warmCache),
                                    cellItem(row.artifacts), durationItem(row.artifactsLoadNs),
                                    size, durationItem(row.packageLoadNs)});
    }
    warmStarts_->resizeColumnsToContents();
    // Up to eight rows without scrolling, and no empty space under the last one.
    const int rows = std::min(warmStartModel_->rowCount(), 8);
    const int rowHeight = warmStarts_->verticalHeader()->defaultSectionSize();
    warmStarts_->setMaximumHeight(warmStarts_->horizontalHeader()->height() + rows * rowHeight +
                                  2 * warmStarts_->frameWidth() + 2);
}

void WarmupTab::updateSummary() {
    const auto& report = document_->report();
    QStringList lines;
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const auto& run = report.runs[r];
        const auto w = core::analyzeWarmup(run);
        QString line = QStringLiteral("<span style='color:%1'>■</span> <b>%2</b>: ")
                           .arg(QString::fromStdString(core::runColor(report, static_cast<int>(r))),
                                QString::fromStdString(run.setting.label()).toHtmlEscaped());
        if (w.firstCallNs < 0) {
            line += tr("no first call (%1)").arg(QString::fromLatin1(core::toString(run.status)));
        } else {
            line += tr("first call %1").arg(durationText(static_cast<double>(w.firstCallNs)));
            // The largest named phase says where the time went.
            const core::CompilePhase* largest = core::largestCompilePhase(w.phases);
            if (largest)
                line +=
                    tr(", most of it %1 (%2)")
                        .arg(CompilePhaseChart::phaseTitle(QString::fromStdString(largest->name)),
                             durationText(largest->seconds * 1e9));
            if (w.headerBuildNs > 0)
                line += tr(", %1 building torch's precompiled C++ header (once per machine)")
                            .arg(durationText(static_cast<double>(w.headerBuildNs)));
            if (!w.buildPhases.empty()) {
                QStringList built;
                for (const auto& p : w.buildPhases)
                    built << tr("%1 %2").arg(
                        CompilePhaseChart::phaseTitle(QString::fromStdString(p.name)),
                        durationText(p.seconds * 1e9));
                line += tr("; built once before it: %1").arg(built.join(", "));
            }
            if (w.laterSeconds() > 0) {
                QStringList later;
                for (const auto& p : w.laterPhases)
                    later << CompilePhaseChart::phaseTitle(QString::fromStdString(p.name));
                line += tr("; later warmup calls compiled %1 more (%2)")
                            .arg(durationText(w.laterSeconds() * 1e9), later.join(", "));
            }
            if (w.steadyFrom && !w.recompiledAfterSteady.empty())
                line += tr("; steady from call %1 until %2 recompiled: warmup %3 in all (%4 "
                           "beyond steady state)")
                            .arg(*w.steadyFrom + 1)
                            .arg(callsText(w.recompiledAfterSteady),
                                 durationText(static_cast<double>(w.warmupWallNs)),
                                 durationText(w.extraNs.value_or(0)));
            else if (w.steadyFrom)
                line += tr("; steady from call %1, %2 until then (%3 beyond steady state)")
                            .arg(*w.steadyFrom + 1)
                            .arg(durationText(static_cast<double>(w.warmupWallNs)),
                                 durationText(w.extraNs.value_or(0)));
            else if (w.band)
                line += tr("; never reached steady state");
            else
                line += tr("; no measured calls to define steady state");
        }
        lines << line;
    }
    summary_->setText(lines.isEmpty()
                          ? tr("Run a model to see what its first calls cost.")
                          : lines.join("<br>") +
                                tr("<br><small>◆ on the curve: where warmup ends. Dotted: the "
                                   "steady median.</small>"));
}

} // namespace cs::widgets
