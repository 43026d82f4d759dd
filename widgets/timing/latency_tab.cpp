#include "widgets/timing/latency_tab.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/analysis/measurement_check.h"
#include "core/analysis/page_faults.h"
#include "core/analysis/palette.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/units.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/charts/iteration_chart.h"
#include "widgets/charts/latency_box_plot.h"
#include "widgets/charts/latency_histogram.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/timing/runs_model.h"

namespace cs::widgets {

LatencyTab::LatencyTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), chart_(new IterationChart(document, this)),
      histogram_(new LatencyHistogram(document, this)),
      boxPlot_(new LatencyBoxPlot(document, this)), overhead_(new QLabel(this)),
      crosscheck_(new QLabel(this)), dropUnsettled_(new QCheckBox(this)),
      table_(new QTableView(this)), model_(new RunsModel(document, this)),
      imported_(new QLabel(this)) {
    chart_->setObjectName("iterationChart");
    histogram_->setObjectName("latencyHistogram");
    boxPlot_->setObjectName("latencyBoxPlot");
    table_->setObjectName("latencyRunsTable");
    model_->setObjectName("runsModel");
    auto* distribution = new QSplitter(Qt::Horizontal, this);
    distribution->setObjectName("latencyDistributionSplitter");
    distribution->addWidget(histogram_);
    distribution->addWidget(boxPlot_);
    distribution->setSizes({560, 440});
    auto* bottom = new QWidget(this);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    overhead_->setObjectName("harnessOverhead");
    overhead_->setWordWrap(true);
    overhead_->setTextFormat(Qt::RichText);
    overhead_->setToolTip(
        tr("The same timing loop around a function that does nothing (median of 200 calls). "
           "It is part of every measured latency and is not subtracted."));
    bottomLayout->addWidget(overhead_);
    crosscheck_->setObjectName("crosscheck");
    crosscheck_->setWordWrap(true);
    crosscheck_->setTextFormat(Qt::RichText);
    bottomLayout->addWidget(crosscheck_);
    dropUnsettled_->setObjectName("dropUnsettled");
    dropUnsettled_->setToolTip(
        tr("Leave the first measured calls that sit above the steady-state band (still warming "
           "up, or recompiling) out of the statistics. The report records how many were left "
           "out."));
    connect(dropUnsettled_, &QCheckBox::toggled, document_,
            [this](bool drop) { document_->setDropUnsettled(drop); });
    bottomLayout->addWidget(dropUnsettled_);
    bottomLayout->addWidget(table_, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName("latencySplitter");
    splitter->addWidget(chart_);
    splitter->addWidget(distribution);
    splitter->addWidget(bottom);
    splitter->setSizes({320, 320, 200}); // the table would take it all by its size hint
    body_ = splitter;
    imported_->setObjectName("latencyImported");
    imported_->setText(tr("This report was imported from a TORCH_TRACE log: it records compiles, "
                          "not calls, so there is no latency to show. See the Ranks tab."));
    imported_->setWordWrap(true);
    imported_->setAlignment(Qt::AlignCenter);
    imported_->setEnabled(false); // the palette's muted text colour
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(imported_);
    layout->addWidget(splitter);
    auto* proxy = setupTableView(table_, model_);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [document, proxy](const QModelIndex& current) {
                if (current.isValid())
                    document->selectRun(proxy->mapToSource(current).row());
            });
    connect(document_, &ReportDocument::reportReset, this, &LatencyTab::updateOverhead);
    connect(document_, &ReportDocument::runChanged, this, &LatencyTab::updateOverhead);
    connect(document_, &ReportDocument::reportReset, this, &LatencyTab::updateChecks);
    connect(document_, &ReportDocument::runChanged, this, &LatencyTab::updateChecks);
    connect(document_, &ReportDocument::reportReset, this, &LatencyTab::updateImported);
    updateOverhead();
    updateChecks();
    updateImported();
}

void LatencyTab::updateImported() {
    const bool imported = core::allRunsImported(document_->report());
    imported_->setVisible(imported);
    body_->setVisible(!imported);
}

namespace {

QString bold(const QString& text) {
    return "<b>" + text.toHtmlEscaped() + "</b>";
}

} // namespace

// One short line per run (the cross-check and the rest of the machine), the
// full figures in the tooltip: with four settings the tab has no room for more.
void LatencyTab::updateChecks() {
    const auto& report = document_->report();
    QStringList lines;
    QStringList details;
    int unsettled = 0;
    int warming = 0;     // runs whose unsettled calls were warmup
    int recompiling = 0; // runs whose unsettled calls were compiles
    bool dropped = false;
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const auto& run = report.runs[r];
        if (const auto u = core::unsettledCalls(run)) {
            unsettled += u->calls;
            ++(core::unsettledByRecompiles(run, *u) ? recompiling : warming);
        }
        dropped = dropped || run.droppedUnsettled > 0;
        const QString label = QString::fromStdString(run.setting.label()).toHtmlEscaped();
        QStringList parts;
        if (const auto check = core::crosscheck(run)) {
            const QString verdict = QString::fromStdString(core::crosscheckVerdict(*check));
            parts << tr("cross-check %1%: %2")
                         .arg(QString::asprintf("%+.1f", 100 * check->difference()),
                              check->disagrees() ? bold(verdict) + tr(" (see Advice)")
                                                 : verdict.toHtmlEscaped());
            details << label + tr(" cross-check, blocks of calls against the per-call median: ") +
                           QString::fromStdString(core::crosscheckText(*check)).toHtmlEscaped();
        }
        if (const auto load = core::machineLoad(run, report.environment)) {
            const QString verdict = QString::fromStdString(core::machineLoadVerdict(*load));
            parts << tr("the rest of the machine: %1: %2")
                         .arg(QString::fromStdString(core::machineLoadShortText(*load))
                                  .toHtmlEscaped(),
                              load->contended() ? bold(verdict) + tr(" (see Advice)")
                                                : verdict.toHtmlEscaped());
            details << label + tr(" while it measured, ") +
                           QString::fromStdString(core::machineLoadText(*load)).toHtmlEscaped();
        }
        if (const auto drift = core::hostDriftWithin(run); drift && core::hostDrifted(*drift))
            parts << bold(tr("the machine changed speed")) + tr(" (see Advice)");
        if (const std::string reference = core::hostReferenceText(run); !reference.empty())
            details << label + tr(" host reference (a fixed CPU workload): ") +
                           QString::fromStdString(reference).toHtmlEscaped();
        if (const auto faults = core::pageFaults(run)) {
            if (faults->costly())
                parts << bold(
                             tr("%1 page faults per call")
                                 .arg(QString::fromStdString(core::formatCount(faults->perCall)))) +
                             tr(" (see Advice)");
            details << label + tr(" page faults while measuring: ") +
                           QString::fromStdString(core::pageFaultsText(*faults)).toHtmlEscaped();
        }
        if (!parts.isEmpty())
            lines << QStringLiteral("<span style='color:%1'>■</span> %2 ")
                             .arg(QString::fromStdString(
                                      core::runColor(report, static_cast<int>(r))),
                                  label) +
                         parts.join(QStringLiteral(" · "));
    }
    crosscheck_->setVisible(!lines.isEmpty());
    crosscheck_->setText(lines.join(QStringLiteral("<br>")));
    crosscheck_->setToolTip(
        tr("After measuring, the probe times the same calls in blocks, as torch.utils.benchmark's "
           "blocked_autorange does: on a quiet machine the block estimate and the per-call median "
           "agree within 5%. A load that lasts through the measure phase slows both alike; the "
           "CPU time of the probe's CPUs shows it (the rest of the machine). Page faults: pages "
           "the calls took from the OS again each time, and the kernel's CPU for them.") +
        (details.isEmpty() ? QString() : "<br><br>" + details.join(QStringLiteral("<br>"))));
    const QSignalBlocker block(dropUnsettled_);
    dropUnsettled_->setChecked(dropped);
    const QString why = recompiling == 0 ? tr("still warming up")
                        : warming == 0   ? tr("they recompiled")
                                         : tr("still warming up or recompiling");
    dropUnsettled_->setText(tr("Leave out %n unsettled measured call(s)", "", unsettled) + " (" +
                            why + ")");
    dropUnsettled_->setVisible(unsettled > 0);
    dropUnsettled_->setEnabled(!document_->isLive());
}

void LatencyTab::updateOverhead() {
    const auto& report = document_->report();
    QStringList parts;
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const auto& run = report.runs[r];
        if (run.harnessOverheadNs < 0)
            continue;
        parts << QStringLiteral("<span style='color:%1'>■</span> %2 %3")
                     .arg(QString::fromStdString(core::runColor(report, static_cast<int>(r))),
                          QString::fromStdString(run.setting.label()).toHtmlEscaped(),
                          durationText(static_cast<double>(run.harnessOverheadNs)));
    }
    overhead_->setText(
        parts.isEmpty()
            ? tr("Harness overhead per call: measured after the last measured call.")
            : tr("Harness overhead per call (an empty function through the same timing loop; "
                 "not subtracted): ") +
                  parts.join(QStringLiteral(" &nbsp; ")));
}

} // namespace cs::widgets
