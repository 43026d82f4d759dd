#include "widgets/charts/memory_timeline_chart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/analysis/gpu_status.h"
#include "core/analysis/memory_timeline.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/charts/phase_bands.h"
#include "widgets/common/plot_refresh.h"

namespace cs::widgets {

namespace {

// The x axis is in seconds; ticks read as durations ("250 ms", "1.50 s").
class SecondsTicker : public QCPAxisTicker {
  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return tick == 0 ? QStringLiteral("0") : durationText(tick * 1e9);
    }
};

QCPGraph* addSeries(QCustomPlot* plot, const QString& name, const QColor& color,
                    Qt::PenStyle style = Qt::SolidLine) {
    QCPGraph* graph = plot->addGraph();
    graph->setName(name);
    QPen pen(color);
    pen.setWidthF(1.8);
    pen.setStyle(style);
    graph->setPen(pen);
    return graph;
}

QCPGraph* addPoints(QCustomPlot* plot, const QString& name, const QColor& color,
                    const QCPScatterStyle& style) {
    QCPGraph* graph = plot->addGraph();
    graph->setName(name);
    QPen pen(color);
    pen.setWidthF(1.5);
    graph->setPen(pen);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(style);
    return graph;
}

} // namespace

MemoryTimelineChart::MemoryTimelineChart(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)) {
    plot_->setObjectName("memoryTimeline");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumSize(200, 140); // never squeezed to nothing (an empty plot cannot paint)
    setupChart(plot_);
    plot_->xAxis->setLabel(tr("time since the probe started"));
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new SecondsTicker));
    // The legend in a row under the chart: memory grows from the bottom, where an inset would cover
    // it.
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, plot_->legend);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    // The phase by name in the hover: a short band's label may be hidden.
    enableHoverValues(
        plot_,
        [this](double s) {
            const QString phase = phaseAt(plot_, s);
            const QString t = tr("t = %1").arg(durationText(s * 1e9));
            return phase.isEmpty() ? t : tr("%1 (%2)").arg(t, phase);
        },
        bytesText);
    showRun(nullptr, {}, false);
}

void MemoryTimelineChart::showRun(const core::Run* run, const std::string& color, bool hostRss) {
    plot_->clearGraphs();
    plot_->clearItems();
    bands_ = 0;
    const core::MemorySeries* device = run ? run->memorySeries("device") : nullptr;
    if (device && device->samples.empty())
        device = nullptr;
    const core::MemorySeries* host = run ? run->memorySeries("host_rss") : nullptr;
    if (host && host->samples.empty())
        host = nullptr;
    const auto stats =
        run ? core::memoryStatsTimeline(*run) : std::vector<core::MemoryStatsPoint>{};
    if (!device && stats.empty())
        hostRss = true; // nothing from the GPU: host memory is what there is

    if (!run || (!device && stats.empty() && !host)) {
        setBytesAxis(plot_, tr("memory"));
        setEmptyMessage(plot_, !run ? tr("Run a model to see its memory over time")
                                    : tr("No memory samples in this run yet"));
        plot_->xAxis->setRange(0, 1);
        plot_->yAxis->setRange(0, 1 << 30);
        replotWhenShown(plot_);
        return;
    }
    setEmptyMessage(plot_, {});
    const int64_t origin = core::runOriginNs(*run);
    auto seconds = [origin](int64_t t) { return static_cast<double>(t - origin) / 1e9; };
    double maxX = 0, maxY = 0;
    auto fill = [&](QCPGraph* graph, const std::vector<std::pair<int64_t, int64_t>>& samples) {
        QVector<double> keys, values;
        keys.reserve(static_cast<int>(samples.size()));
        values.reserve(static_cast<int>(samples.size()));
        for (const auto& [t, bytes] : samples) {
            keys << seconds(t);
            values << static_cast<double>(bytes);
            maxX = std::max(maxX, keys.back());
            maxY = std::max(maxY, values.back());
        }
        graph->setData(keys, values); // sorts by time: two threads sample RSS
    };
    const QColor runColor = color.empty() ? QColor(Qt::darkBlue) : toQColor(color);
    if (device) {
        QCPGraph* graph = addSeries(plot_, tr("device memory held (CUPTI)"), runColor);
        graph->setLineStyle(QCPGraph::lsStepLeft);
        QColor area = runColor;
        area.setAlpha(40);
        graph->setBrush(area);
        fill(graph, device->samples);
    }
    if (!stats.empty()) {
        // Reserved as a hollow diamond around allocated's dot: the two are often close.
        QCPGraph* reserved =
            addPoints(plot_, tr("torch reserved at phase edges"), QColor(0xc0, 0x39, 0x2b),
                      QCPScatterStyle(QCPScatterStyle::ssDiamond, QColor(0xc0, 0x39, 0x2b), 12));
        QCPGraph* allocated =
            addPoints(plot_, tr("torch allocated at phase edges"), QColor(0x29, 0x80, 0xb9),
                      QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0x29, 0x80, 0xb9), 6));
        std::vector<std::pair<int64_t, int64_t>> r, a;
        for (const auto& p : stats) {
            r.emplace_back(p.tNs, p.stats.reserved);
            a.emplace_back(p.tNs, p.stats.allocated);
        }
        fill(reserved, r);
        fill(allocated, a);
    }
    if (host && hostRss) {
        QCPGraph* graph = addSeries(plot_, tr("host memory (RSS) of the probe process"),
                                    device || !stats.empty() ? QColor(0x7f, 0x8c, 0x8d) : runColor,
                                    device || !stats.empty() ? Qt::DashLine : Qt::SolidLine);
        fill(graph, host->samples);
    }
    setBytesAxis(plot_, device || !stats.empty() ? tr("device memory") : tr("host memory (RSS)"));
    bands_ = drawPhaseBands(plot_, *run, origin);
    double lastPhaseEnd = 0;
    for (const auto& span : run->phases)
        lastPhaseEnd = std::max(lastPhaseEnd, seconds(std::max(span.beginNs, span.endNs)));
    maxX = std::max(maxX, lastPhaseEnd);
    if (device) {
        // Bytes stay held until the next record: carry the last value to the last phase's end.
        QCPGraph* graph = plot_->graph(0);
        if (!graph->data()->isEmpty() && (graph->data()->constEnd() - 1)->key < lastPhaseEnd)
            graph->addData(lastPhaseEnd, (graph->data()->constEnd() - 1)->value);
    }
    plot_->xAxis->setRange(0, std::max(maxX * 1.02, 1e-3));
    plot_->yAxis->setRange(0, std::max(maxY * 1.25, 1024.0)); // room for the phase names
    replotWhenShown(plot_);
}

void MemoryTimelineChart::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    replotWhenShown(plot_);
}

} // namespace cs::widgets
