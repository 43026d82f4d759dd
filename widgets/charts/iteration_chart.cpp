#include "widgets/charts/iteration_chart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

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
    plot_->xAxis->setLabel(tr("measured iteration"));
    plot_->legend->setSelectableParts(QCPLegend::spItems);
    enableHoverValues(
        plot_, [](double x) { return tr("iteration %1").arg(int(x)); }, durationText);
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
        const auto samples = report.runs[r].measuredLatencies();
        if (samples.empty())
            continue;
        QCPGraph* graph = plot_->addGraph();
        graph->setName(QString::fromStdString(report.runs[r].setting.label()));
        QPen pen(toQColor(core::runColor(report, static_cast<int>(r))));
        pen.setWidthF(1.5);
        graph->setPen(pen);
        QVector<double> keys(static_cast<int>(samples.size())),
            values(static_cast<int>(samples.size()));
        for (size_t i = 0; i < samples.size(); ++i) {
            keys[static_cast<int>(i)] = static_cast<double>(i);
            values[static_cast<int>(i)] = static_cast<double>(samples[i]);
            maxY = std::max(maxY, values[static_cast<int>(i)]);
        }
        maxX = std::max(maxX, static_cast<int>(samples.size()));
        graph->setData(keys, values, true);
    }
    if (plot_->graphCount() == 0) {
        setEmptyMessage(plot_, report.runs.empty() ? tr("Run a model to see its latency per call")
                                                   : tr("No measured iterations yet"));
        plot_->xAxis->setRange(0, 100);
        plot_->yAxis->setRange(0, 1e6);
    } else {
        setEmptyMessage(plot_, {});
        plot_->xAxis->setRange(0, std::max(1, maxX - 1));
        plot_->yAxis->setRange(0, maxY * 1.08);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace cs::widgets
