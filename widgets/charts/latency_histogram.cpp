#include "widgets/charts/latency_histogram.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/analysis/latency_distribution.h"
#include "core/analysis/palette.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"

namespace cs::widgets {

LatencyHistogram::LatencyHistogram(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), plot_(new QCustomPlot(this)) {
    plot_->setObjectName("histogramPlot");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setupChart(plot_);
    setLogDurationAxis(plot_->xAxis, tr("latency per call (log scale)"));
    plot_->yAxis->setLabel(tr("% of measured calls"));
    // The per-call chart above it names the same colours; a legend here
    // covered the slowest bars and the axis labels under them.
    plot_->legend->setVisible(false);
    enableHoverValues(plot_, durationText,
                      [](double y) { return tr("%1% of calls").arg(y, 0, 'f', 1); });
    connect(&throttle_, &RefreshThrottle::due, this, &LatencyHistogram::refresh);
    connect(document_, &ReportDocument::reportReset, this, &LatencyHistogram::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    refresh();
}

void LatencyHistogram::refresh() {
    plot_->clearGraphs();
    const auto& report = document_->report();
    std::vector<std::vector<int64_t>> series;
    for (const auto& run : report.runs)
        series.push_back(run.measuredLatencies());
    const auto histogram = core::sharedHistogram(series);
    double top = 0;
    for (size_t r = 0; r < series.size() && !histogram.edges.empty(); ++r) {
        if (series[r].empty())
            continue;
        QColor color = toQColor(core::runColor(report, static_cast<int>(r)));
        QCPGraph* graph = plot_->addGraph();
        graph->setName(QString::fromStdString(report.runs[r].setting.label()));
        graph->setPen(QPen(color, 1.5));
        color.setAlpha(60);
        graph->setBrush(color);
        graph->setLineStyle(QCPGraph::lsStepCenter);
        const auto& fractions = histogram.fractions[r];
        for (size_t b = 0; b < fractions.size(); ++b) {
            graph->addData(histogram.center(b), fractions[b] * 100);
            top = std::max(top, fractions[b] * 100);
        }
    }
    if (plot_->graphCount() == 0) {
        setEmptyMessage(plot_, report.runs.empty()
                                   ? tr("Run a model to see how its latency is spread")
                                   : tr("No measured iterations yet"));
        plot_->xAxis->setRange(1e3, 1e7);
        plot_->yAxis->setRange(0, 100);
    } else {
        setEmptyMessage(plot_, {});
        plot_->xAxis->setRange(histogram.edges.front(), histogram.edges.back());
        plot_->yAxis->setRange(0, top * 1.12);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace cs::widgets
