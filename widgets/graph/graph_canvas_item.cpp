#include "widgets/graph/graph_canvas_item.h"

#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>
#include <QWidget>

#include <array>
#include <cmath>

namespace cs::widgets {

namespace {

constexpr double kLabelScale = 0.3; // cluster titles and box titles from here on

QPainterPath curvePath(const QPolygonF& curve) {
    QPainterPath path(curve.first());
    for (qsizetype i = 1; i + 2 < curve.size(); i += 3)
        path.cubicTo(curve[i], curve[i + 1], curve[i + 2]);
    return path;
}

void drawArrowHead(QPainter* painter, const QPolygonF& curve) {
    if (curve.size() < 2)
        return;
    const QPointF tip = curve.back();
    QPointF from = curve[curve.size() - 2];
    for (qsizetype i = curve.size() - 2; i >= 0 && QLineF(from, tip).length() < 1; --i)
        from = curve[i];
    QLineF line(tip, from);
    if (line.length() < 0.01)
        return;
    line.setLength(8);
    QLineF left = line;
    left.setAngle(line.angle() + 22);
    QLineF right = line;
    right.setAngle(line.angle() - 22);
    painter->drawPolygon(QPolygonF{tip, left.p2(), right.p2()});
}

} // namespace

GraphCanvasItem::GraphCanvasItem() {
    setFlag(QGraphicsItem::ItemUsesExtendedStyleOption, true); // for exposedRect
    setAcceptHoverEvents(false);                               // the view tracks the mouse
}

void GraphCanvasItem::setPicture(std::shared_ptr<const GraphPicture> picture) {
    prepareGeometryChange();
    picture_ = std::move(picture);
    marks_.assign(picture_ ? picture_->items.size() : 0, 0);
    hovered_ = -1;
    update();
}

void GraphCanvasItem::setMarks(std::vector<uint8_t> marks) {
    marks_ = std::move(marks);
    if (picture_)
        marks_.resize(picture_->items.size(), 0);
    update();
}

uint8_t GraphCanvasItem::marks(int item) const {
    return item >= 0 && item < static_cast<int>(marks_.size()) ? marks_[static_cast<size_t>(item)]
                                                               : 0;
}

void GraphCanvasItem::setHovered(int item) {
    if (item == hovered_)
        return;
    const QRectF before = itemRect(hovered_);
    hovered_ = item;
    update(before.adjusted(-4, -4, 4, 4));
    update(itemRect(item).adjusted(-4, -4, 4, 4));
}

QRectF GraphCanvasItem::itemRect(int item) const {
    if (!picture_ || item < 0 || item >= static_cast<int>(picture_->items.size()))
        return {};
    return picture_->items[static_cast<size_t>(item)].rect;
}

int GraphCanvasItem::itemAt(const QPointF& pos) const {
    if (!picture_)
        return -1;
    const auto& items = picture_->items;
    for (size_t i = items.size(); i-- > 0;) {
        if (items[i].rect.contains(pos))
            return static_cast<int>(i);
    }
    return -1;
}

int GraphCanvasItem::clusterTitleAt(const QPointF& pos) const {
    if (!picture_)
        return -1;
    const double title = QFontMetricsF(font_).height() + 8;
    const auto& clusters = picture_->clusters;
    for (size_t c = clusters.size(); c-- > 0;) { // pre-order: later ones are nested deeper
        const QRectF& r = clusters[c].rect;
        if (QRectF(r.left(), r.top(), r.width(), title).contains(pos))
            return static_cast<int>(c);
    }
    return -1;
}

QRectF GraphCanvasItem::boundingRect() const {
    return picture_ ? picture_->bounds : QRectF();
}

void GraphCanvasItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                            QWidget* widget) {
    if (!picture_)
        return;
    QElapsedTimer clock;
    clock.start();
    const double scale = option->levelOfDetailFromTransform(painter->worldTransform());
    const QRectF exposed = option->exposedRect.isValid() ? option->exposedRect : boundingRect();
    const QPalette palette = widget ? widget->palette() : option->palette;
    painter->setRenderHint(QPainter::Antialiasing, scale >= kDetailScale);
    painter->setFont(font_);
    paintClusters(painter, exposed, scale, palette);
    paintEdges(painter, exposed, scale, palette);
    paintBoxes(painter, exposed, scale);
    paintMarks(painter, exposed, scale, palette);
    ++paintCount_;
    lastPaintMs_ = static_cast<double>(clock.nsecsElapsed()) / 1e6;
}

void GraphCanvasItem::paintClusters(QPainter* painter, const QRectF& exposed, double scale,
                                    const QPalette& palette) const {
    QColor fill = palette.color(QPalette::Text);
    fill.setAlpha(14);
    QColor border = palette.color(QPalette::Mid);
    painter->setPen(QPen(border, 0));
    painter->setBrush(fill);
    for (const auto& c : picture_->clusters) {
        if (c.rect.intersects(exposed))
            painter->drawRoundedRect(c.rect, 6, 6);
    }
    if (scale < kLabelScale)
        return;
    painter->setPen(palette.color(QPalette::Text));
    const QFontMetricsF fm(font_);
    for (const auto& c : picture_->clusters) {
        if (!c.rect.intersects(exposed))
            continue;
        const QRectF title(c.rect.left() + 8, c.rect.top() + 3, c.rect.width() - 16, fm.height());
        painter->drawText(
            title, Qt::AlignLeft | Qt::AlignVCenter,
            fm.elidedText(QStringLiteral("▾ ") + c.label, Qt::ElideRight, title.width()));
    }
}

void GraphCanvasItem::paintEdges(QPainter* painter, const QRectF& exposed, double scale,
                                 const QPalette& palette) const {
    QColor color = palette.color(QPalette::Text);
    color.setAlpha(scale >= kDetailScale ? 150 : 90);
    if (scale < kDetailScale) {
        // Far out: one batched call of straight lines.
        std::vector<QLineF> lines;
        lines.reserve(picture_->edges.size());
        for (const auto& e : picture_->edges) {
            if (e.bounds.intersects(exposed))
                lines.emplace_back(e.curve.first(), e.curve.back());
        }
        painter->setPen(QPen(color, 0));
        painter->drawLines(lines.data(), static_cast<int>(lines.size()));
        return;
    }
    painter->setBrush(color);
    for (const auto& e : picture_->edges) {
        if (!e.bounds.adjusted(-8, -8, 8, 8).intersects(exposed) || e.curve.size() < 2)
            continue;
        painter->setPen(QPen(color, e.count > 1 ? 1.0 + std::min(3.0, std::log2(e.count)) : 1.0));
        painter->setBrush(Qt::NoBrush);
        painter->drawPath(curvePath(e.curve));
        painter->setPen(Qt::NoPen);
        painter->setBrush(color);
        drawArrowHead(painter, e.curve);
        if (e.count > 1) {
            painter->setPen(palette.color(QPalette::Text));
            painter->drawText(e.curve[e.curve.size() / 2] + QPointF(4, 0),
                              QStringLiteral("×%1").arg(e.count));
        }
    }
}

void GraphCanvasItem::paintBoxes(QPainter* painter, const QRectF& exposed, double scale) const {
    const auto& items = picture_->items;
    if (scale < kDetailScale) {
        std::array<std::vector<QRectF>, static_cast<size_t>(NodeKind::Count)> byKind;
        for (const auto& item : items) {
            if (item.rect.intersects(exposed))
                byKind[static_cast<size_t>(item.kind)].push_back(item.rect);
        }
        painter->setPen(Qt::NoPen);
        for (size_t k = 0; k < byKind.size(); ++k) {
            if (byKind[k].empty())
                continue;
            painter->setBrush(nodeKindColor(static_cast<NodeKind>(k)));
            painter->drawRects(byKind[k].data(), static_cast<int>(byKind[k].size()));
        }
        if (scale < kLabelScale)
            return;
        const QFontMetricsF fm(font_);
        painter->setPen(Qt::black);
        for (const auto& item : items) {
            if (item.rect.intersects(exposed))
                painter->drawText(
                    item.rect, Qt::AlignCenter,
                    fm.elidedText(item.title, Qt::ElideMiddle, item.rect.width() - 8));
        }
        return;
    }
    const QFontMetricsF fm(font_);
    const QPen border(QColor(0, 0, 0, 110), 1);
    const QColor secondary(0x40, 0x40, 0x40);
    for (const auto& item : items) {
        if (!item.rect.intersects(exposed))
            continue;
        const QColor fill = nodeKindColor(item.kind);
        painter->setPen(border);
        painter->setBrush(fill);
        if (item.group) // a collapsed group looks like a stack of cards
            painter->drawRoundedRect(item.rect.translated(3, 3), 5, 5);
        painter->drawRoundedRect(item.rect, 5, 5);
        const double width = item.rect.width() - 12;
        const double line = fm.height();
        const double top = item.rect.top() + (item.rect.height() - 3 * line) / 2;
        QRectF row(item.rect.left() + 6, top, width, line);
        painter->setPen(Qt::black);
        painter->drawText(row, Qt::AlignHCenter | Qt::AlignVCenter,
                          fm.elidedText(item.title, Qt::ElideMiddle, width));
        row.translate(0, line);
        painter->setPen(secondary);
        painter->drawText(row, Qt::AlignHCenter | Qt::AlignVCenter,
                          fm.elidedText(item.detail, Qt::ElideRight, width));
        row.translate(0, line);
        painter->drawText(row, Qt::AlignHCenter | Qt::AlignVCenter,
                          fm.elidedText(item.shape, Qt::ElideRight, width));
    }
}

void GraphCanvasItem::paintMarks(QPainter* painter, const QRectF& exposed, double scale,
                                 const QPalette& palette) const {
    const auto& items = picture_->items;
    // Far out, a mark grows so that it stays visible (a few pixels around the box).
    const double grow = scale < kDetailScale ? 3.0 / std::max(scale, 1e-4) : 3.0;
    painter->setBrush(Qt::NoBrush);
    auto outline = [&](const QRectF& rect, const QPen& pen) {
        painter->setPen(pen);
        painter->drawRoundedRect(rect.adjusted(-grow, -grow, grow, grow), 6, 6);
    };
    auto pen = [](const QColor& color, double width, Qt::PenStyle style = Qt::SolidLine) {
        QPen p(color, width, style);
        p.setCosmetic(true); // the same on screen at any zoom
        return p;
    };
    const QPen match = pen(QColor(0xff, 0x98, 0x00), 2.5);
    const QPen current = pen(QColor(0xe6, 0x37, 0x00), 4);
    const QPen selected = pen(palette.color(QPalette::Highlight), 4);
    const QPen line = pen(QColor(0x8e, 0x24, 0xaa), 3, Qt::DashLine);
    const QPen hover = pen(QColor(0x30, 0x30, 0x30), 1.5);
    const QPen kernel = pen(QColor(0x00, 0x89, 0x7b), 3.5);
    for (size_t i = 0; i < marks_.size() && i < items.size(); ++i) {
        const uint8_t m = marks_[i];
        if (!m || !items[i].rect.adjusted(-grow, -grow, grow, grow).intersects(exposed))
            continue;
        if (m & LineMatch)
            outline(items[i].rect, line);
        if (m & KernelMatch)
            outline(items[i].rect.adjusted(-1, -1, 1, 1), kernel);
        if (m & Match)
            outline(items[i].rect, match);
        if (m & CurrentMatch)
            outline(items[i].rect, current);
        if (m & Selected)
            outline(items[i].rect.adjusted(-2, -2, 2, 2), selected);
    }
    if (hovered_ >= 0 && hovered_ < static_cast<int>(items.size()))
        outline(items[static_cast<size_t>(hovered_)].rect, hover);
}

} // namespace cs::widgets
