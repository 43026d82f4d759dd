#include "widgets/charts/iteration_chart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>

#include "core/analysis/measurement_check.h"
#include "core/analysis/palette.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"

namespace cs::widgets {

IterationChart::IterationChart(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), plot_(new QCustomPlot(this)) {
    plot_->setObjectName("iterationPlot");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setupChart(plot_);
    setDurationAxis(plot_, tr("latency per call"));
    plot_->xAxis->setLabel(tr("measured call"));
    plot_->legend->setSelectableParts(QCPLegend::spItems);
    // Spikes (a recompile, a disturbance) reach the top, where an inset legend
    // would hide them: the legend goes under the chart, in one row.
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->addElement(1, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setMargins(QMargins(6, 2, 6, 2));
    plot_->legend->setBorderPen(Qt::NoPen);
    enableHoverValues(
        plot_, [](double x) { return tr("measured call %1").arg(int(std::lround(x))); },
        durationText);
    connect(&throttle_, &RefreshThrottle::due, this, &IterationChart::refresh);
    connect(document_, &ReportDocument::reportReset, this, &IterationChart::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    refresh();
}

void IterationChart::refresh() {
    plot_->clearGraphs();
    const auto& report = document_->report();
    double maxY = 0;
    int maxX = 0;
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const auto& run = report.runs[r];
        const auto samples = run.measuredLatencies();
        if (samples.empty())
            continue;
        const QColor color = toQColor(core::runColor(report, static_cast<int>(r)));
        const QString label = QString::fromStdString(run.setting.label());
        QCPGraph* graph = plot_->addGraph();
        graph->setName(label);
        QPen pen(color);
        pen.setWidthF(1.5);
        graph->setPen(pen);
        // Measured calls are numbered from 1, as the advice numbers them;
        // dropped unsettled calls keep their numbers by leaving a gap.
        const int first = run.droppedUnsettled + 1;
        QVector<double> keys(static_cast<int>(samples.size())),
            values(static_cast<int>(samples.size()));
        for (size_t i = 0; i < samples.size(); ++i) {
            keys[static_cast<int>(i)] = static_cast<double>(first + static_cast<int>(i));
            values[static_cast<int>(i)] = static_cast<double>(samples[i]);
            maxY = std::max(maxY, values[static_cast<int>(i)]);
        }
        maxX = std::max(maxX, first + static_cast<int>(samples.size()) - 1);
        graph->setData(keys, values, true);
        markRecompiledCalls(run, label, color);
    }
    if (plot_->graphCount() == 0) {
        setEmptyMessage(plot_, report.runs.empty() ? tr("Run a model to see its latency per call")
                                                   : tr("No measured iterations yet"));
        plot_->xAxis->setRange(0, 100);
        plot_->yAxis->setRange(0, 1e6);
    } else {
        setEmptyMessage(plot_, {});
        plot_->xAxis->setRange(1, std::max(2, maxX));
        plot_->yAxis->setRange(0, maxY * 1.08);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

// A triangle on each measured call that recompiled: a spike with a cause.
void IterationChart::markRecompiledCalls(const core::Run& run, const QString& label,
                                         const QColor& color) {
    const auto calls = core::recompiledMeasuredCalls(run);
    QCPGraph* marks = nullptr;
    for (const auto& call : calls) {
        if (call.measuredCall <= run.droppedUnsettled)
            continue;
        if (marks == nullptr)
            marks = addRecompileMarks(plot_, label, color);
        marks->addData(call.measuredCall, static_cast<double>(call.latencyNs));
    }
}

} // namespace cs::widgets
