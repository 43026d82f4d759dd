#include "widgets/timing/warmup_tab.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/analysis/comparison.h"
#include "core/analysis/palette.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/charts/compile_phase_chart.h"
#include "widgets/charts/first_calls_chart.h"
#include "widgets/common/report_document.h"

namespace cs::widgets {

WarmupTab::WarmupTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), summary_(new QLabel(this)),
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
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName("warmupSplitter");
    splitter->addWidget(phases_);
    splitter->addWidget(firstCalls_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(summary_);
    layout->addWidget(splitter, 1);
    connect(&throttle_, &RefreshThrottle::due, this, &WarmupTab::updateSummary);
    connect(document_, &ReportDocument::reportReset, this, &WarmupTab::updateSummary);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    updateSummary();
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
            const core::CompilePhase* largest = nullptr;
            for (const auto& p : w.phases) {
                if (p.name != "other" && p.seconds > 0 &&
                    (!largest || p.seconds > largest->seconds))
                    largest = &p;
            }
            if (largest)
                line +=
                    tr(", most of it %1 (%2)")
                        .arg(CompilePhaseChart::phaseTitle(QString::fromStdString(largest->name)),
                             durationText(largest->seconds * 1e9));
            if (w.laterSeconds() > 0) {
                QStringList later;
                for (const auto& p : w.laterPhases)
                    later << CompilePhaseChart::phaseTitle(QString::fromStdString(p.name));
                line += tr("; later warmup calls compiled %1 more (%2)")
                            .arg(durationText(w.laterSeconds() * 1e9), later.join(", "));
            }
            if (w.steadyFrom)
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
