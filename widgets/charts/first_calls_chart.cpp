#include "widgets/charts/first_calls_chart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>

#include "core/analysis/comparison.h"
#include "core/analysis/palette.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"

namespace cs::widgets {

FirstCallsChart::FirstCallsChart(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), plot_(new QCustomPlot(this)) {
    plot_->setObjectName("firstCallsPlot");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setupChart(plot_);
    setLogDurationAxis(plot_->yAxis, tr("latency of the call (log scale)"));
    plot_->xAxis->setLabel(tr("call (1 = the first call, where torch.compile compiles)"));
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    enableHoverValues(
        plot_, [](double x) { return tr("call %1").arg(int(std::lround(x))); }, durationText);
    connect(&throttle_, &RefreshThrottle::due, this, &FirstCallsChart::refresh);
    connect(document_, &ReportDocument::reportReset, this, &FirstCallsChart::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    refresh();
}

void FirstCallsChart::refresh() {
    plot_->clearGraphs();
    const auto& report = document_->report();
    double low = 0, high = 0;
    int calls = 0;
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const auto w = core::analyzeWarmup(report.runs[r]);
        if (w.curve.empty())
            continue;
        const QColor color = toQColor(core::runColor(report, static_cast<int>(r)));
        const QString label = QString::fromStdString(report.runs[r].setting.label());
        QCPGraph* graph = plot_->addGraph();
        graph->setName(label);
        graph->setPen(QPen(color, 1.8));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 5));
        for (const auto& c : w.curve) {
            const double v = static_cast<double>(std::max<int64_t>(c.latencyNs, 1));
            graph->addData(c.index + 1, v);
            low = low > 0 ? std::min(low, v) : v;
            high = std::max(high, v);
        }
        calls = std::max(calls, static_cast<int>(w.curve.size()));
        if (w.band) {
            // The steady median, dotted, so the distance still to go is visible.
            QCPGraph* steady = plot_->addGraph();
            steady->setName(tr("%1 steady median").arg(label));
            QPen pen(color, 1, Qt::DotLine);
            steady->setPen(pen);
            steady->addData(1, w.band->median);
            steady->addData(static_cast<double>(w.curve.size()), w.band->median);
            steady->removeFromLegend();
            steady->setSelectable(QCP::stNone);
        }
        QCPGraph* recompiled = nullptr;
        for (const auto& c : w.curve) {
            if (!c.recompiled)
                continue;
            if (recompiled == nullptr)
                recompiled = addRecompileMarks(plot_, label, color);
            recompiled->addData(c.index + 1,
                                static_cast<double>(std::max<int64_t>(c.latencyNs, 1)));
        }
        if (w.steadyFrom && *w.steadyFrom < static_cast<int>(w.curve.size())) {
            QCPGraph* end = plot_->addGraph();
            end->setName(tr("%1: steady state from this call").arg(label));
            end->setLineStyle(QCPGraph::lsNone);
            end->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond,
                                                 QPen(color.darker(150), 1.5), QBrush(color), 11));
            end->addData(*w.steadyFrom + 1,
                         static_cast<double>(std::max<int64_t>(
                             w.curve[static_cast<size_t>(*w.steadyFrom)].latencyNs, 1)));
            end->removeFromLegend();
        }
    }
    if (plot_->graphCount() == 0) {
        setEmptyMessage(plot_, report.runs.empty() ? tr("Run a model to see its first calls")
                                                   : tr("No calls measured yet"));
        plot_->xAxis->setRange(0, 21);
        plot_->yAxis->setRange(1e3, 1e9);
    } else {
        setEmptyMessage(plot_, {});
        plot_->xAxis->setRange(0.5, calls + 0.5);
        plot_->yAxis->setRange(low / 1.5, high * 1.5);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace cs::widgets
