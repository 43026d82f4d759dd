#include "widgets/charts/chart_setup.h"

#include <algorithm>
#include <cmath>

#include <QContextMenuEvent>
#include <QFileDialog>
#include <QMenu>
#include <QSvgGenerator>
#include <QToolTip>
#include <qcustomplot.h>

#include "core/analysis/units.h"
#include "widgets/charts/bytes_ticker.h"

namespace cs::widgets {

namespace {

class UnitTicker : public QCPAxisTicker {
  public:
    explicit UnitTicker(ValueFormatter format) : format_(std::move(format)) {}

  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override { return format_(tick); }

  private:
    ValueFormatter format_;
};

class LogUnitTicker : public QCPAxisTickerLog {
  public:
    explicit LogUnitTicker(ValueFormatter format) : format_(std::move(format)) {}

  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override { return format_(tick); }
    // Under 1.6 decades QCustomPlot falls back to evenly spaced values, which
    // on a log axis crowd at the top (1.00 ms, 1.25 ms, 1.50 ms run together).
    // 1, 2, 3 and 5 times a power of ten are about evenly spaced on it instead.
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
        if (!(range.lower > 0) || std::log10(range.upper / range.lower) >= 1.6)
            return QCPAxisTickerLog::createTickVector(tickStep, range);
        QVector<double> ticks;
        for (int exponent = static_cast<int>(std::floor(std::log10(range.lower)));
             exponent <= static_cast<int>(std::ceil(std::log10(range.upper))); ++exponent) {
            for (double mantissa : {1.0, 2.0, 3.0, 5.0}) {
                const double tick = mantissa * std::pow(10.0, exponent);
                if (range.contains(tick))
                    ticks << tick;
            }
        }
        return ticks.size() >= 2 ? ticks : QCPAxisTickerLog::createTickVector(tickStep, range);
    }

  private:
    ValueFormatter format_;
};

QCPItemText* emptyLabel(QCustomPlot* plot) {
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(plot->item(i));
        if (text && text->objectName() == "emptyMessage")
            return text;
    }
    return nullptr;
}

} // namespace

bool categoryLabelsFit(QCPAxis* axis) {
    const auto text = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
    if (!text)
        return true;
    const QFontMetricsF metrics(axis->tickLabelFont());
    double previousEnd = -1e9;
    for (auto it = text->ticks().cbegin(); it != text->ticks().cend(); ++it) {
        if (!axis->range().contains(it.key()))
            continue;
        const double centre = axis->coordToPixel(it.key());
        const double half = metrics.horizontalAdvance(it.value()) / 2;
        if (centre - half < previousEnd + kCategoryGapPx)
            return false;
        previousEnd = centre + half;
    }
    return true;
}

QString durationText(double ns) {
    return QString::fromStdString(core::formatDuration(ns));
}

QString bytesText(double bytes) {
    return QString::fromStdString(core::formatBytes(bytes));
}

QCPGraph* addRecompileMarks(QCustomPlot* plot, const QString& label, const QColor& color) {
    QCPGraph* marks = plot->addGraph();
    marks->setName(QObject::tr("%1: recompiled").arg(label));
    marks->setLineStyle(QCPGraph::lsNone);
    marks->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle,
                                           QPen(color.darker(160), 1.5), QBrush(color), 10));
    return marks;
}

QColor toQColor(const std::string& hex) {
    return QColor(QString::fromStdString(hex));
}

void setupChart(QCustomPlot* plot) {
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectPlottables);
    plot->legend->setVisible(true);
    plot->legend->setBrush(QBrush(QColor(255, 255, 255, 200)));
    plot->setNoAntialiasingOnDrag(true);
    const QPalette palette = plot->palette();
    plot->setBackground(palette.color(QPalette::Base));
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        axis->setBasePen(QPen(palette.color(QPalette::Text)));
        axis->setTickPen(QPen(palette.color(QPalette::Text)));
        axis->setSubTickPen(QPen(palette.color(QPalette::Text)));
        axis->setTickLabelColor(palette.color(QPalette::Text));
        axis->setLabelColor(palette.color(QPalette::Text));
    }
    // As many value ticks as the height holds: a short chart (the Memory tab's
    // peaks on a laptop screen) stacked its five labels on top of each other.
    // Ticks are laid out before afterLayout, so a change takes one more replot.
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
        const int wanted = std::clamp(plot->axisRect()->height() / kPixelsPerValueTick, 2, 5);
        bool changed = false;
        if (plot->yAxis->ticker()->tickCount() != wanted) {
            plot->yAxis->ticker()->setTickCount(wanted);
            changed = true;
        }
        // Named categories (settings, phases) turn aslant where side by side
        // they would run into each other ("reduce-overheadmax-autotune").
        const double angle = categoryLabelsFit(plot->xAxis) ? 0 : kAslantDegrees;
        if (plot->xAxis->tickLabelRotation() != angle) {
            plot->xAxis->setTickLabelRotation(angle);
            changed = true;
        }
        if (changed)
            plot->replot(QCustomPlot::rpQueuedReplot);
    });
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot](const QPoint& pos) {
        QMenu menu(plot);
        menu.addAction(QObject::tr("Reset zoom"), plot, [plot] {
            plot->rescaleAxes();
            plot->replot();
        });
        menu.addAction(QObject::tr("Save as PNG…"), plot, [plot] {
            const QString path = QFileDialog::getSaveFileName(
                plot, QObject::tr("Save chart"), "chart.png", QObject::tr("PNG image (*.png)"));
            if (!path.isEmpty())
                plot->savePng(path, 0, 0, 2.0);
        });
        menu.addAction(QObject::tr("Save as SVG…"), plot, [plot] {
            const QString path = QFileDialog::getSaveFileName(
                plot, QObject::tr("Save chart"), "chart.svg", QObject::tr("SVG image (*.svg)"));
            if (!path.isEmpty())
                saveChartSvg(plot, path);
        });
        menu.exec(plot->mapToGlobal(pos));
    });
}

void setDurationAxis(QCustomPlot* plot, const QString& label) {
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new UnitTicker(durationText)));
    plot->yAxis->setLabel(label);
}

void setBytesAxis(QCustomPlot* plot, const QString& label) {
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BytesTicker)); // bytes_ticker.h
    plot->yAxis->setLabel(label);
}

void setLogDurationAxis(QCPAxis* axis, const QString& label) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new LogUnitTicker(durationText)));
    axis->setLabel(label);
}

void enableHoverValues(QCustomPlot* plot, const ValueFormatter& xText,
                       const ValueFormatter& yText) {
    QObject::connect(plot, &QCustomPlot::mouseMove, plot, [=](QMouseEvent* event) {
        QCPGraph* best = nullptr;
        double bestDistance = 12; // pixels
        double bestKey = 0, bestValue = 0;
        for (int i = 0; i < plot->graphCount(); ++i) {
            QCPGraph* graph = plot->graph(i);
            if (!graph->visible() || graph->data()->isEmpty())
                continue;
            const double key = graph->keyAxis()->pixelToCoord(event->pos().x());
            auto it = graph->data()->findBegin(key, true);
            for (int step = 0; step < 2 && it != graph->data()->constEnd(); ++step, ++it) {
                const QPointF point = graph->coordsToPixels(it->key, it->value);
                const double distance = QLineF(point, event->pos()).length();
                if (distance < bestDistance) {
                    bestDistance = distance;
                    best = graph;
                    bestKey = it->key;
                    bestValue = it->value;
                }
            }
        }
        if (!best) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(
            event->globalPosition().toPoint(),
            QStringLiteral("%1\n%2: %3").arg(best->name(), xText(bestKey), yText(bestValue)), plot);
    });
}

void setEmptyMessage(QCustomPlot* plot, const QString& message) {
    QCPItemText* label = emptyLabel(plot);
    if (message.isEmpty()) {
        if (label)
            plot->removeItem(label);
        return;
    }
    if (!label) {
        label = new QCPItemText(plot);
        label->setObjectName("emptyMessage");
        label->setPositionAlignment(Qt::AlignCenter);
        label->position->setType(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0.5, 0.5);
        label->setClipToAxisRect(false);
        QFont font = plot->font();
        font.setPointSizeF(font.pointSizeF() * 1.2);
        label->setFont(font);
        label->setColor(plot->palette().color(QPalette::PlaceholderText));
    }
    label->setText(message);
}

bool saveChartSvg(QCustomPlot* plot, const QString& path) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(plot->size());
    generator.setViewBox(plot->rect());
    generator.setTitle(plot->windowTitle());
    QCPPainter painter;
    if (!painter.begin(&generator))
        return false;
    plot->toPainter(&painter, plot->width(), plot->height());
    painter.end();
    return true;
}

} // namespace cs::widgets
