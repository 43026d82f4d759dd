#include "widgets/charts/latency_box_plot.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/analysis/latency_distribution.h"
#include "core/analysis/palette.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"

namespace cs::widgets {

LatencyBoxPlot::LatencyBoxPlot(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), plot_(new QCustomPlot(this)) {
    plot_->setObjectName("boxPlot");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setupChart(plot_);
    plot_->legend->setVisible(false); // the axis names each box
    plot_->axisRect()->setRangeDrag(Qt::Vertical);
    plot_->axisRect()->setRangeZoom(Qt::Vertical);
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        showHover(event->pos(), event->globalPosition().toPoint());
    });
    connect(&throttle_, &RefreshThrottle::due, this, &LatencyBoxPlot::refresh);
    connect(document_, &ReportDocument::reportReset, this, &LatencyBoxPlot::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    refresh();
}

void LatencyBoxPlot::refresh() {
    plot_->clearPlottables();
    const auto& report = document_->report();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double low = 0, high = 0;
    int boxes = 0;
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const auto box = core::boxSummary(report.runs[r].measuredLatencies());
        if (!box)
            continue; // a setting that measured nothing has no box; the table says why
        const double key = ++boxes;
        ticker->addTick(key, QString::fromStdString(report.runs[r].setting.label()));
        QColor color = toQColor(core::runColor(report, static_cast<int>(r)));
        auto* plottable = new QCPStatisticalBox(plot_->xAxis, plot_->yAxis);
        plottable->setName(QString::fromStdString(report.runs[r].setting.label()));
        plottable->setPen(QPen(color, 1.5));
        plottable->setWhiskerPen(QPen(color, 1.2, Qt::DashLine));
        plottable->setWhiskerBarPen(QPen(color, 1.5));
        plottable->setMedianPen(QPen(color.darker(160), 2.5));
        plottable->setOutlierStyle(QCPScatterStyle(QCPScatterStyle::ssCross, color, 5));
        QColor fill = color;
        fill.setAlpha(70);
        plottable->setBrush(fill);
        plottable->setWidth(0.5);
        plottable->addData(key, box->lowerWhisker, box->q1, box->median, box->q3, box->upperWhisker,
                           QVector<double>(box->outliers.begin(), box->outliers.end()));
        const double runLow = box->outliers.empty()
                                  ? box->lowerWhisker
                                  : std::min(box->lowerWhisker, box->outliers.front());
        const double runHigh = box->outliers.empty()
                                   ? box->upperWhisker
                                   : std::max(box->upperWhisker, box->outliers.back());
        low = plot_->plottableCount() == 1 ? runLow : std::min(low, runLow);
        high = std::max(high, runHigh);
    }
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setSubTicks(false);
    plot_->xAxis->grid()->setVisible(false);
    plot_->xAxis->setRange(0.4, std::max(1, boxes) + 0.6);
    // Settings a factor apart (or far outliers) read better on a log axis.
    const bool logScale = low > 0 && high / low > 20;
    if (logScale)
        setLogDurationAxis(plot_->yAxis, tr("latency per call (log scale)"));
    else {
        plot_->yAxis->setScaleType(QCPAxis::stLinear);
        setDurationAxis(plot_, tr("latency per call"));
    }
    if (plot_->plottableCount() == 0) {
        setEmptyMessage(plot_, report.runs.empty() ? tr("Run a model to compare latency spreads")
                                                   : tr("No measured iterations yet"));
        plot_->yAxis->setRange(logScale ? 1e3 : 0, 1e6);
    } else {
        setEmptyMessage(plot_, {});
        if (logScale)
            plot_->yAxis->setRange(low / 1.3, high * 1.3);
        else
            plot_->yAxis->setRange(std::max(0.0, low - (high - low) * 0.1),
                                   high + (high - low) * 0.1 + 1);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LatencyBoxPlot::showHover(const QPoint& pos, const QPoint& globalPos) {
    for (int i = 0; i < plot_->plottableCount(); ++i) {
        auto* box = qobject_cast<QCPStatisticalBox*>(plot_->plottable(i));
        if (!box || box->data()->isEmpty() || box->selectTest(pos, false) < 0)
            continue;
        const auto it = box->data()->constBegin();
        QToolTip::showText(globalPos,
                           tr("%1\nmedian %2\nquartiles %3 – %4\nwhiskers %5 – %6\n%7 outliers")
                               .arg(box->name(), durationText(it->median),
                                    durationText(it->lowerQuartile),
                                    durationText(it->upperQuartile), durationText(it->minimum),
                                    durationText(it->maximum))
                               .arg(it->outliers.size()),
                           plot_);
        return;
    }
    QToolTip::hideText();
}

} // namespace cs::widgets
