#include "widgets/charts/phase_bands.h"

#include <qcustomplot.h>

#include <algorithm>
#include <vector>

#include "core/analysis/memory_timeline.h"

namespace cs::widgets {

namespace {

constexpr size_t kPhaseLabelRows = 3;
constexpr double kLabelGapPx = 4;
const char* const kLabelName = "phaseLabel";

} // namespace

QColor phaseColor(const std::string& phase) {
    if (phase == "load")
        return QColor(0x88, 0x88, 0x88);
    if (phase == "compile")
        return QColor(0xe6, 0x7e, 0x22);
    if (phase == "warmup")
        return QColor(0xf1, 0xc4, 0x0f);
    if (phase == "measure")
        return QColor(0x27, 0xae, 0x60);
    return QColor(0x8e, 0x44, 0xad);
}

int drawPhaseBands(QCustomPlot* plot, const core::Run& run, int64_t originNs) {
    if (!plot->layer("phaseBands"))
        plot->addLayer("phaseBands", plot->layer("grid"), QCustomPlot::limBelow);
    if (!plot->property("arrangesPhaseLabels").toBool()) {
        plot->setProperty("arrangesPhaseLabels", true);
        QObject::connect(plot, &QCustomPlot::afterLayout, plot,
                         [plot] { arrangePhaseLabels(plot); });
    }
    const int64_t openEnd = core::runEndNs(run);
    // Labels of phases in the run's right part end at their band's right edge,
    // so the short last phases (warmup, measure) are not cut off by the axis.
    const double rightPart = static_cast<double>(openEnd - originNs) / 1e9 * 0.6;
    int drawn = 0;
    for (const auto& span : run.phases) {
        if (span.beginNs < 0)
            continue;
        const int64_t end = span.endNs >= 0 ? span.endNs : std::max(openEnd, span.beginNs);
        const double x0 = static_cast<double>(span.beginNs - originNs) / 1e9;
        const double x1 = static_cast<double>(end - originNs) / 1e9;
        QColor color = phaseColor(span.name);
        auto* band = new QCPItemRect(plot);
        band->setLayer("phaseBands");
        band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->topLeft->setCoords(x0, 0);
        band->bottomRight->setCoords(x1, 1);
        band->setPen(Qt::NoPen);
        color.setAlpha(45);
        band->setBrush(color);
        band->setSelectable(false);
        band->setObjectName(QString::fromStdString("phase:" + span.name));

        auto* label = new QCPItemText(plot);
        label->setLayer("phaseBands");
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        const bool atRight = x0 > rightPart;
        label->setObjectName(kLabelName);
        label->position->setCoords(atRight ? x1 : x0, 0); // its row: arrangePhaseLabels
        label->setPositionAlignment((atRight ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        label->setPadding(QMargins(3, 1, 3, 1));
        label->setText(QString::fromStdString(span.name + (span.endNs < 0 ? " (not ended)" : "")));
        color.setAlpha(255);
        label->setColor(color.darker(130));
        label->setSelectable(false);
        label->setClipToAxisRect(true);
        ++drawn;
    }
    return drawn;
}

int arrangePhaseLabels(QCustomPlot* plot) {
    // Pixel intervals taken in each row; labels come in time order.
    std::vector<std::vector<std::pair<double, double>>> taken(kPhaseLabelRows);
    const double rectHeight = std::max(1, plot->axisRect()->height());
    int shown = 0;
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* label = qobject_cast<QCPItemText*>(plot->item(i));
        if (!label || label->objectName() != kLabelName)
            continue;
        const QFontMetricsF metrics(label->font());
        const double width = metrics.horizontalAdvance(label->text()) + label->padding().left() +
                             label->padding().right();
        const double anchor = plot->xAxis->coordToPixel(label->position->coords().x());
        const bool right = label->positionAlignment() & Qt::AlignRight;
        const double left = right ? anchor - width : anchor;
        const double end = left + width;
        size_t row = 0;
        for (; row < taken.size(); ++row) {
            const bool free = std::none_of(
                taken[row].begin(), taken[row].end(), [&](const std::pair<double, double>& t) {
                    return left < t.second + kLabelGapPx && t.first < end + kLabelGapPx;
                });
            if (free)
                break;
        }
        label->setVisible(row < taken.size());
        if (row == taken.size())
            continue;
        taken[row].emplace_back(left, end);
        // Rows a label's height apart, from the top of the axis rect.
        const double rowHeight =
            metrics.height() + label->padding().top() + label->padding().bottom() + 1;
        label->position->setCoords(label->position->coords().x(),
                                   (2 + static_cast<double>(row) * rowHeight) / rectHeight);
        ++shown;
    }
    return shown;
}

QString phaseAt(QCustomPlot* plot, double seconds) {
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* band = qobject_cast<QCPItemRect*>(plot->item(i));
        if (band && band->objectName().startsWith("phase:") &&
            seconds >= band->topLeft->coords().x() && seconds < band->bottomRight->coords().x())
            return band->objectName().mid(6);
    }
    return {};
}

} // namespace cs::widgets
