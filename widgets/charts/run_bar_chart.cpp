#include "widgets/charts/run_bar_chart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "widgets/common/plot_refresh.h"

namespace cs::widgets {

namespace {

class FormattedTicker : public QCPAxisTicker {
  public:
    explicit FormattedTicker(ValueFormatter format) : format_(std::move(format)) {}

  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override { return format_(tick); }

  private:
    ValueFormatter format_;
};

// The empty message sits in a half-width chart: break it into short lines.
QString wrapped(const QString& text, int width = 46) {
    QStringList lines;
    QString line;
    for (const QString& word : text.split(' ', Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
            lines << line;
            line.clear();
        }
        line += (line.isEmpty() ? "" : " ") + word;
    }
    if (!line.isEmpty())
        lines << line;
    return lines.join('\n');
}

} // namespace

RunBarChart::RunBarChart(const QString& title, ValueFormatter format, QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), format_(std::move(format)) {
    plot_->setObjectName("barPlot");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumSize(200, 140); // never squeezed to nothing (an empty plot cannot paint)
    setupChart(plot_);
    plot_->legend->setVisible(false); // the bars are labelled on the axis
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Vertical);
    plot_->axisRect()->setRangeZoom(Qt::Vertical);
    // A title row rather than an axis label: these charts are short.
    plot_->plotLayout()->insertRow(0);
    QFont bold = plot_->font();
    bold.setBold(true);
    auto* heading = new QCPTextElement(plot_, title, bold);
    heading->setTextColor(plot_->palette().color(QPalette::Text));
    plot_->plotLayout()->addElement(0, 0, heading);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new FormattedTicker(format_)));
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    plot_->xAxis->grid()->setVisible(false);
    plot_->setWindowTitle(title);
    connect(plot_, &QCustomPlot::mouseMove, this, &RunBarChart::hover);
    setBars({}, tr("Run a model to compare settings"));
}

void RunBarChart::setBars(const std::vector<RunBar>& bars, const QString& emptyMessage) {
    bars_ = bars;
    plot_->clearPlottables();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(plot_->xAxis->ticker());
    ticker->clear();
    double maxY = 0;
    int drawn = 0;
    for (size_t i = 0; i < bars.size(); ++i) {
        ticker->addTick(static_cast<double>(i), bars[i].label);
        if (!bars[i].value)
            continue;
        auto* bar = new QCPBars(plot_->xAxis, plot_->yAxis);
        bar->setName(bars[i].label);
        bar->setPen(QPen(bars[i].color.darker(120)));
        bar->setBrush(bars[i].color);
        bar->setWidth(0.6);
        bar->addData(static_cast<double>(i), *bars[i].value);
        maxY = std::max(maxY, *bars[i].value);
        ++drawn;
    }
    setEmptyMessage(plot_, drawn ? QString() : wrapped(emptyMessage));
    plot_->yAxis->setTickLabels(drawn > 0); // no scale for nothing
    plot_->xAxis->setRange(-0.6, std::max<double>(1, static_cast<double>(bars.size())) - 0.4);
    plot_->yAxis->setRange(0, maxY > 0 ? maxY * 1.15 : 1);
    replotWhenShown(plot_);
}

std::vector<double> RunBarChart::values() const {
    std::vector<double> out;
    for (const auto& bar : bars_) {
        if (bar.value)
            out.push_back(*bar.value);
    }
    return out;
}

void RunBarChart::hover(QMouseEvent* event) {
    for (int i = 0; i < plot_->plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(plot_->plottable(i));
        if (!bars || bars->selectTest(event->pos(), false) < 0 || bars->data()->isEmpty())
            continue;
        QToolTip::showText(
            event->globalPosition().toPoint(),
            QStringLiteral("%1\n%2: %3")
                .arg(bars->name(), plot_->windowTitle(), format_(bars->data()->begin()->value)),
            plot_);
        return;
    }
    QToolTip::hideText();
}

void RunBarChart::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    replotWhenShown(plot_);
}

} // namespace cs::widgets
