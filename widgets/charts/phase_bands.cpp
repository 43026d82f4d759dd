#include "widgets/charts/phase_bands.h"

#include <qcustomplot.h>

#include "core/analysis/memory_timeline.h"

namespace cs::widgets {

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
        // Short phases next to each other take turns at two heights.
        label->position->setCoords(atRight ? x1 : x0, drawn % 2 ? 0.07 : 0.01);
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

} // namespace cs::widgets
