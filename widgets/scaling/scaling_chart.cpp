#include "widgets/scaling/scaling_chart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "core/analysis/palette.h"
#include "core/analysis/units.h"
#include "widgets/charts/bytes_ticker.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/plot_refresh.h"

namespace cs::widgets {

namespace {

QString countText(double count) {
    return QString::fromStdString(core::formatCount(count));
}

// Batch sizes at powers of two, labelled as whole numbers.
class BatchTicker : public QCPAxisTickerLog {
  public:
    BatchTicker() {
        setLogBase(2);
        setSubTickCount(0); // a tick between 2^n and 2^(n+1) would read as a size
    }

  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return countText(tick);
    }
};

// Speedups as ratios at powers of two: 0.25×, 0.5×, 1×, 2×, 4×.
class RatioTicker : public QCPAxisTickerLog {
  public:
    RatioTicker() {
        setLogBase(2);
        setSubTickCount(0);
    }

  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return QString::number(tick, 'g', 3) + QStringLiteral("×");
    }
};

// Samples per second in whole numbers with thousands separators.
class CountTicker : public QCPAxisTicker {
  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return countText(tick);
    }
};

QString stopWords(const core::ScaleStop& stop) {
    return stop.reason == "oom"
               ? QObject::tr("out of memory at batch %1").arg(stop.batchSize)
               : QObject::tr("host-memory cap reached at batch %1").arg(stop.batchSize);
}

// The same, short enough to sit beside the mark in a narrow chart.
QString stopShort(const core::ScaleStop& stop) {
    return stop.reason == "oom" ? QObject::tr("out of memory at %1").arg(stop.batchSize)
                                : QObject::tr("memory cap at %1").arg(stop.batchSize);
}

bool stoppedForMemory(const core::ScaleCurve& curve) {
    return curve.stop && (curve.stop->reason == "oom" || curve.stop->reason == "memory_cap") &&
           curve.stop->batchSize > 0;
}

// What the walk's peaks measured: "cuda_allocated" or "host_rss" (the first point that says).
std::string memoryKind(const core::Report& report, const core::ScaleCurve& curve) {
    const auto& scaling = report.runs[curve.runIndex].scaling;
    if (scaling) {
        for (const auto& p : scaling->points) {
            if (!p.memoryKind.empty())
                return p.memoryKind;
        }
    }
    return {};
}

QColor colorOf(const core::Report& report, const core::ScaleCurve& curve) {
    return toQColor(core::runColor(report, static_cast<int>(curve.runIndex)));
}

QCPGraph* addLine(QCustomPlot* plot, const core::Report& report, const core::ScaleCurve& curve) {
    const QColor color = colorOf(report, curve);
    QCPGraph* graph = plot->addGraph();
    graph->setName(QString::fromStdString(curve.label));
    graph->setPen(QPen(color, 1.8));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 6));
    graph->setProperty("run", static_cast<int>(curve.runIndex));
    return graph;
}

} // namespace

ScalingChart::ScalingChart(Kind kind, QWidget* parent)
    : QWidget(parent), kind_(kind), plot_(new QCustomPlot(this)) {
    static const char* names[] = {"scalingThroughputPlot", "scalingSpeedupPlot",
                                  "scalingMemoryPlot"};
    plot_->setObjectName(names[static_cast<int>(kind)]);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumSize(220, 180); // never squeezed to nothing (an empty plot cannot paint)
    setupChart(plot_);
    plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->xAxis->setTicker(QSharedPointer<BatchTicker>::create());
    plot_->xAxis->setLabel(tr("batch size (log₂ scale)"));
    // The legend in a row under the chart: inside, it covers the steep lines
    // that matter most (three charts side by side leave little room).
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, plot_->legend);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setWrap(3);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    QFont small = plot_->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    plot_->legend->setFont(small);
    plot_->legend->setIconSize(18, 10);
    plot_->plotLayout()->insertRow(0);
    QFont bold = plot_->font();
    bold.setBold(true);
    title_ = new QCPTextElement(plot_, QString(), bold);
    title_->setTextColor(plot_->palette().color(QPalette::Text));
    plot_->plotLayout()->addElement(0, 0, title_);
    switch (kind) {
    case Kind::Throughput:
        title_->setText(tr("Throughput"));
        plot_->yAxis->setTicker(QSharedPointer<CountTicker>::create());
        plot_->yAxis->setLabel(tr("samples per second"));
        break;
    case Kind::Speedup:
        title_->setText(tr("Speedup over eager"));
        // A ratio: on a log axis 2× faster and 2× slower sit as far from 1×.
        plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
        plot_->yAxis->setTicker(QSharedPointer<RatioTicker>::create());
        plot_->yAxis->setLabel(tr("speedup over eager, same batch (log₂)"));
        break;
    case Kind::Memory:
        title_->setText(tr("Peak memory"));
        setBytesAxis(plot_, tr("peak memory"));
        break;
    }
    plot_->setWindowTitle(title_->text());
    connect(plot_, &QCustomPlot::mouseMove, this, &ScalingChart::hover);
    showCurves({}, {});
}

void ScalingChart::showCurves(const core::Report& report,
                              const std::vector<core::ScaleCurve>& curves) {
    plot_->clearPlottables();
    plot_->clearItems(); // the 1× line, memory marks and the empty message
    tips_.clear();
    stopTips_.clear();
    // The same batch range on every chart, the sizes where memory ran out included,
    // so the charts read across.
    double low = 0, high = 0;
    for (const auto& curve : curves) {
        for (const auto& row : curve.rows) {
            const double b = static_cast<double>(row.batchSize);
            low = low > 0 ? std::min(low, b) : b;
            high = std::max(high, b);
        }
        if (stoppedForMemory(curve))
            high = std::max(high, static_cast<double>(curve.stop->batchSize));
    }
    if (low <= 0) {
        low = 1;
        high = 16;
    }
    plot_->xAxis->setRange(low / 1.5, high * 1.5);
    switch (kind_) {
    case Kind::Throughput:
        drawThroughput(report, curves);
        break;
    case Kind::Speedup:
        drawSpeedup(report, curves);
        break;
    case Kind::Memory:
        drawMemory(report, curves);
        break;
    }
    replotWhenShown(plot_);
}

void ScalingChart::drawThroughput(const core::Report& report,
                                  const std::vector<core::ScaleCurve>& curves) {
    double top = 0;
    for (const auto& curve : curves) {
        QVector<double> keys, values, below, above;
        QStringList tips;
        for (const auto& row : curve.rows) {
            if (row.throughput <= 0)
                continue;
            keys << static_cast<double>(row.batchSize);
            values << row.throughput;
            below << std::max(0.0, row.throughput - row.throughputLow);
            above << std::max(0.0, row.throughputHigh - row.throughput);
            top = std::max(top, row.throughputHigh);
            tips << tr("%1, batch %2\n%3 samples/s (95% interval %4 – %5)\nmedian call %6")
                        .arg(QString::fromStdString(curve.label))
                        .arg(row.batchSize)
                        .arg(countText(row.throughput), countText(row.throughputLow),
                             countText(row.throughputHigh),
                             row.latency ? durationText(row.latency->median) : QString("—"));
        }
        if (keys.isEmpty())
            continue;
        QCPGraph* graph = addLine(plot_, report, curve);
        graph->setData(keys, values, true);
        tips_[graph] = tips;
        // The interval of each point: from the median's 95% interval.
        auto* bars = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
        bars->setName(graph->name() + tr(" interval"));
        bars->setDataPlottable(graph);
        bars->setData(below, above);
        bars->setPen(QPen(colorOf(report, curve).darker(130), 1.2));
        bars->setWhiskerWidth(8);
        bars->removeFromLegend();
        bars->setSelectable(QCP::stNone);
    }
    plot_->yAxis->setRange(0, top > 0 ? top * 1.15 : 1000);
    setEmptyMessage(plot_, plot_->graphCount() ? QString() : tr("No call measured yet"));
}

void ScalingChart::drawSpeedup(const core::Report& report,
                               const std::vector<core::ScaleCurve>& curves) {
    const auto eager =
        std::find_if(curves.begin(), curves.end(), [](const auto& c) { return c.eager; });
    double bottom = 1, top = 1; // 1× always in view
    for (const auto& curve : curves) {
        if (curve.eager)
            continue;
        QVector<double> keys, values;
        QStringList tips;
        for (const auto& row : curve.rows) {
            if (!row.speedup)
                continue;
            keys << static_cast<double>(row.batchSize);
            values << *row.speedup;
            if (*row.speedup > 0) {
                bottom = std::min(bottom, *row.speedup);
                top = std::max(top, *row.speedup);
            }
            QString medians;
            for (const auto& base : eager->rows) {
                if (base.batchSize == row.batchSize && base.latency && row.latency)
                    medians = tr("\nmedian %1 against eager's %2")
                                  .arg(durationText(row.latency->median),
                                       durationText(base.latency->median));
            }
            tips << tr("%1, batch %2\n%3× eager%4")
                        .arg(QString::fromStdString(curve.label))
                        .arg(row.batchSize)
                        .arg(*row.speedup, 0, 'f', 2)
                        .arg(medians);
        }
        if (keys.isEmpty())
            continue;
        QCPGraph* graph = addLine(plot_, report, curve);
        graph->setData(keys, values, true);
        tips_[graph] = tips;
    }
    plot_->yAxis->setRange(bottom / 1.6, top * 1.6);
    if (plot_->graphCount() == 0) {
        QString why = tr("No walk yet");
        if (!curves.empty() && eager == curves.end())
            why = tr("No eager walk to compare with:\nadd eager to --settings");
        else if (!curves.empty() && curves.size() == 1)
            why = tr("Only eager walked:\nadd a compiled setting to --settings");
        else if (!curves.empty())
            why = tr("No compiled setting measured\na batch size eager measured");
        setEmptyMessage(plot_, why);
        return;
    }
    setEmptyMessage(plot_, {});
    // Above the line compile pays; below it eager is faster.
    auto* one = new QCPItemStraightLine(plot_);
    one->setObjectName("oneTimesLine");
    one->point1->setCoords(1, 1);
    one->point2->setCoords(2, 1);
    one->setPen(QPen(plot_->palette().color(QPalette::PlaceholderText), 1.2, Qt::DashLine));
    one->setSelectable(false);
    auto* label = new QCPItemText(plot_);
    label->setObjectName("oneTimesLabel");
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label->position->setCoords(0.98, 1);
    // Under the line on the right: where compile pays the curves run above it.
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    label->setText(tr("1×: as fast as eager"));
    label->setColor(plot_->palette().color(QPalette::PlaceholderText));
    label->setSelectable(false);
}

void ScalingChart::drawMemory(const core::Report& report,
                              const std::vector<core::ScaleCurve>& curves) {
    double top = 0;
    std::string kind;
    for (const auto& curve : curves) {
        const std::string curveKind = memoryKind(report, curve);
        if (kind.empty())
            kind = curveKind;
        QVector<double> keys, values;
        QStringList tips;
        for (const auto& row : curve.rows) {
            if (row.peakMemoryBytes < 0)
                continue;
            const double bytes = static_cast<double>(row.peakMemoryBytes);
            keys << static_cast<double>(row.batchSize);
            values << bytes;
            top = std::max(top, bytes);
            tips << tr("%1, batch %2\npeak %3 (%4 bytes%5)")
                        .arg(QString::fromStdString(curve.label))
                        .arg(row.batchSize)
                        .arg(bytesText(bytes), countText(bytes),
                             curveKind == "cuda_allocated" ? tr(", CUDA allocated")
                             : curveKind == "host_rss"     ? tr(", host resident set")
                                                           : QString());
        }
        if (keys.isEmpty())
            continue;
        QCPGraph* graph = addLine(plot_, report, curve);
        graph->setData(keys, values, true);
        tips_[graph] = tips;
    }
    plot_->yAxis->setLabel(kind == "cuda_allocated" ? tr("peak CUDA memory allocated")
                           : kind == "host_rss"     ? tr("peak host memory (RSS)")
                                                    : tr("peak memory"));
    plot_->yAxis->setRange(0, top > 0 ? top * 1.25 : double(1 << 30));
    // Where a walk ran out of memory: a dashed line at the size that did not
    // fit, in the setting's colour, named low on its left where a growing curve
    // leaves room; the full words are in the tooltip and under the table.
    int marks = 0;
    for (const auto& curve : curves) {
        if (!stoppedForMemory(curve))
            continue;
        const double b = static_cast<double>(curve.stop->batchSize);
        const QColor color = colorOf(report, curve);
        auto* line = new QCPItemStraightLine(plot_);
        line->setObjectName("memoryStopMark");
        line->point1->setCoords(b, 0);
        line->point2->setCoords(b, 1);
        line->setPen(QPen(color, 1.6, Qt::DashLine));
        line->setSelectable(false);
        const QString words = QString::fromStdString(curve.label) + ": " + stopWords(*curve.stop);
        auto* text = new QCPItemText(plot_);
        text->setObjectName("memoryStopLabel");
        text->position->setTypeX(QCPItemPosition::ptPlotCoords);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(b, 0.97 - 0.16 * marks++);
        text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        text->setTextAlignment(Qt::AlignRight);
        text->setPadding(QMargins(0, 0, 4, 0));
        text->setText(QString::fromStdString(curve.label) + "\n" + stopShort(*curve.stop));
        text->setColor(color.darker(120));
        text->setSelectable(false);
        QString tip = words;
        if (!curve.stop->message.empty())
            tip += "\n" + QString::fromStdString(curve.stop->message);
        stopTips_.emplace_back(b, tip);
    }
    if (plot_->graphCount() == 0 && marks == 0)
        setEmptyMessage(plot_, curves.empty() ? tr("No walk yet") : tr("No peak memory measured"));
    else
        setEmptyMessage(plot_, {});
}

void ScalingChart::hover(QMouseEvent* event) {
    const QPointF pos = event->position();
    double best = 12; // pixels
    QString tip;
    for (const auto& [plottable, tips] : tips_) {
        const auto* graph = qobject_cast<const QCPGraph*>(plottable);
        if (!graph || !graph->visible())
            continue;
        int i = 0;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it, ++i) {
            const QPointF point = graph->coordsToPixels(it->key, it->value);
            const double distance = QLineF(point, pos).length();
            if (distance < best && i < tips.size()) {
                best = distance;
                tip = tips[i];
            }
        }
    }
    if (tip.isEmpty()) {
        for (const auto& [batch, words] : stopTips_) {
            if (std::abs(plot_->xAxis->coordToPixel(batch) - pos.x()) < 5)
                tip = words;
        }
    }
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), tip, plot_);
}

void ScalingChart::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    replotWhenShown(plot_);
}

} // namespace cs::widgets
