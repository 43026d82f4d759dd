#include "widgets/charts/memory_peak_chart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/analysis/memory_timeline.h"
#include "core/analysis/palette.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/plot_refresh.h"

namespace cs::widgets {

MemoryPeakChart::MemoryPeakChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    plot_->setObjectName("memoryPeaks");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumSize(200, 140); // never squeezed to nothing (an empty plot cannot paint)
    setupChart(plot_);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Vertical);
    plot_->axisRect()->setRangeZoom(Qt::Vertical);
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    plot_->xAxis->grid()->setVisible(false);
    // The legend in a row under the chart, where it covers no bar.
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, plot_->legend);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    plot_->plotLayout()->insertRow(0);
    QFont bold = plot_->font();
    bold.setBold(true);
    title_ = new QCPTextElement(plot_, QString(), bold);
    title_->setTextColor(plot_->palette().color(QPalette::Text));
    plot_->plotLayout()->addElement(0, 0, title_);
    connect(plot_, &QCustomPlot::mouseMove, this, &MemoryPeakChart::hover);
    showReport({});
}

void MemoryPeakChart::showReport(const core::Report& report) {
    plot_->clearPlottables();
    kind_.clear();
    for (const auto& run : report.runs) {
        if (const auto* s = run.memorySeries("device"); s && !s->samples.empty())
            kind_ = "device";
    }
    if (kind_.empty()) {
        for (const auto& run : report.runs) {
            if (const auto* s = run.memorySeries("host_rss"); s && !s->samples.empty())
                kind_ = "host_rss";
        }
    }
    const auto phases = core::phaseOrder(report);
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(plot_->xAxis->ticker());
    ticker->clear();
    for (size_t i = 0; i < phases.size(); ++i)
        ticker->addTick(static_cast<double>(i), QString::fromStdString(phases[i]));
    setBytesAxis(plot_, tr("peak"));
    title_->setText(kind_ == "device" ? tr("Peak per phase: device memory held (CUPTI)")
                    : kind_.empty()   ? tr("Peak per phase")
                                    : tr("Peak per phase: host memory (RSS) of the probe process"));
    plot_->setWindowTitle(title_->text());

    auto* group = new QCPBarsGroup(plot_);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(2);
    double maxY = 0;
    int shown = 0;
    const int runs = static_cast<int>(report.runs.size());
    for (int r = 0; r < runs && !kind_.empty(); ++r) {
        const core::Run& run = report.runs[static_cast<size_t>(r)];
        const core::MemorySeries* series = run.memorySeries(kind_);
        if (!series || series->samples.empty())
            continue;
        const auto peaks = core::phasePeaks(*series, run);
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setName(QString::fromStdString(run.setting.label()));
        const QColor color = toQColor(core::runColor(report, r));
        bars->setPen(QPen(color.darker(120)));
        bars->setBrush(color);
        bars->setWidth(0.8 / std::max(1, runs));
        bars->setBarsGroup(group);
        bars->setProperty("run", r);
        for (size_t i = 0; i < phases.size(); ++i) {
            auto it = peaks.find(phases[i]);
            if (it == peaks.end())
                continue;
            bars->addData(static_cast<double>(i), static_cast<double>(it->second));
            maxY = std::max(maxY, static_cast<double>(it->second));
        }
        ++shown;
    }
    if (!shown) {
        setEmptyMessage(plot_, report.runs.empty()
                                   ? tr("Run a model to see its peak memory per phase")
                                   : tr("No memory samples yet"));
        plot_->xAxis->setRange(-0.5, 3.5);
        plot_->yAxis->setRange(0, 1 << 30);
    } else {
        setEmptyMessage(plot_, {});
        plot_->xAxis->setRange(-0.6, static_cast<double>(phases.size()) - 0.4);
        plot_->yAxis->setRange(0, maxY * 1.15);
    }
    replotWhenShown(plot_);
}

void MemoryPeakChart::hover(QMouseEvent* event) {
    for (int i = 0; i < plot_->plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(plot_->plottable(i));
        QVariant details;
        if (!bars || bars->selectTest(event->pos(), false, &details) < 0)
            continue;
        const auto selection = details.value<QCPDataSelection>();
        if (selection.isEmpty())
            continue;
        const auto it = bars->data()->at(selection.dataRange().begin());
        const auto ticks = qSharedPointerCast<QCPAxisTickerText>(plot_->xAxis->ticker())->ticks();
        QToolTip::showText(event->globalPosition().toPoint(),
                           tr("%1, %2\npeak %3 (%4 bytes)")
                               .arg(bars->name(), ticks.value(it->key), bytesText(it->value))
                               .arg(static_cast<qint64>(it->value)),
                           plot_);
        return;
    }
    QToolTip::hideText();
}

void MemoryPeakChart::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    replotWhenShown(plot_);
}

} // namespace cs::widgets
