#include "widgets/graph/graph_view.h"

#include <QContextMenuEvent>
#include <QGraphicsScene>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "widgets/graph/graph_canvas_item.h"

namespace cs::widgets {

namespace {
constexpr double kMaxZoom = 4.0;
constexpr double kLegibleZoom = 0.6;
} // namespace

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent), canvas_(new GraphCanvasItem) {
    setObjectName("graphView");
    auto* scene = new QGraphicsScene(this);
    scene->setItemIndexMethod(QGraphicsScene::NoIndex); // one item; it culls itself
    scene->addItem(canvas_);
    setScene(scene);
    canvas_->setFont(font());
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState |
                         QGraphicsView::DontAdjustForAntialiasing);
    setRenderHint(QPainter::TextAntialiasing, true);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
}

void GraphView::setPicture(std::shared_ptr<const GraphPicture> picture) {
    canvas_->setPicture(std::move(picture));
    const QRectF bounds = canvas_->boundingRect();
    scene()->setSceneRect(bounds.isEmpty() ? QRectF(0, 0, 1, 1) : bounds);
    if (canvas_->picture())
        message_.clear();
    viewport()->update();
}

void GraphView::setMessage(const QString& message) {
    message_ = message;
    viewport()->update();
}

double GraphView::zoom() const {
    return transform().m11();
}

void GraphView::zoomBy(double factor) {
    const double target = std::clamp(zoom() * factor, 1e-4, kMaxZoom);
    const double applied = target / zoom();
    scale(applied, applied);
}

void GraphView::fitAll() {
    const QRectF bounds = canvas_->boundingRect();
    if (bounds.isEmpty())
        return;
    fitInView(bounds, Qt::KeepAspectRatio);
    if (zoom() > 1.0) // small graphs are not blown up
        setTransform(QTransform());
    centerOn(bounds.center());
}

void GraphView::showStart() {
    const QRectF bounds = canvas_->boundingRect();
    if (bounds.isEmpty())
        return;
    const QSizeF view = viewport()->size();
    const double fit = std::min(view.width() / bounds.width(), view.height() / bounds.height());
    if (fit >= kLegibleZoom) {
        fitAll();
        return;
    }
    const double widthFit = std::min(1.0, std::max(kLegibleZoom, view.width() / bounds.width()));
    setTransform(QTransform::fromScale(widthFit, widthFit));
    const double visibleHeight = view.height() / widthFit;
    // Tall and narrow: start where the graph starts (its first box), not in the middle.
    double x = bounds.center().x();
    if (const auto* picture = canvas_->picture(); picture && !picture->items.empty()) {
        const auto top = std::min_element(
            picture->items.begin(), picture->items.end(),
            [](const auto& a, const auto& b) { return a.rect.top() < b.rect.top(); });
        x = top->rect.center().x();
    }
    centerOn(x, bounds.top() + visibleHeight / 2);
}

void GraphView::centreOnItem(int item) {
    const QRectF rect = canvas_->itemRect(item);
    if (rect.isEmpty())
        return;
    if (zoom() < GraphCanvasItem::kDetailScale) {
        const double factor = kLegibleZoom;
        setTransform(QTransform::fromScale(factor, factor));
    }
    centerOn(rect.center());
}

void GraphView::centreOnRect(const QRectF& rect) {
    if (rect.isEmpty())
        return;
    const QSizeF view = viewport()->size();
    if (rect.width() * zoom() > view.width() || rect.height() * zoom() > view.height()) {
        const double fit =
            std::min(view.width() / rect.width(), view.height() / rect.height()) * 0.95;
        const double factor = std::clamp(fit, GraphCanvasItem::kDetailScale, 1.0);
        setTransform(QTransform::fromScale(factor, factor));
    }
    const double visibleHeight = viewport()->height() / zoom();
    // A tall frame shows its top, where its title is.
    if (rect.height() > visibleHeight)
        centerOn(rect.center().x(), rect.top() + visibleHeight / 2);
    else
        centerOn(rect.center());
}

void GraphView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ShiftModifier) { // shift+wheel scrolls sideways
        QGraphicsView::wheelEvent(event);
        return;
    }
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0)
        return;
    zoomBy(std::pow(1.2, steps));
    event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event) {
    pressed_ = event->button() == Qt::LeftButton;
    pressPos_ = event->position().toPoint();
    QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
    QGraphicsView::mouseMoveEvent(event);
    if (event->buttons() != Qt::NoButton)
        return;
    const int item = canvas_->itemAt(mapToScene(event->position().toPoint()));
    if (item != canvas_->hovered()) {
        canvas_->setHovered(item);
        emit itemHovered(item);
    }
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
    QGraphicsView::mouseReleaseEvent(event);
    if (!pressed_ || event->button() != Qt::LeftButton)
        return;
    pressed_ = false;
    if ((event->position().toPoint() - pressPos_).manhattanLength() > 4)
        return; // that was a drag
    emit itemClicked(canvas_->itemAt(mapToScene(event->position().toPoint())));
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
    const QPointF pos = mapToScene(event->position().toPoint());
    const int item = canvas_->itemAt(pos);
    if (item >= 0) {
        emit itemDoubleClicked(item);
    } else if (const int cluster = canvas_->clusterTitleAt(pos); cluster >= 0) {
        emit clusterDoubleClicked(cluster);
    }
    event->accept();
}

void GraphView::contextMenuEvent(QContextMenuEvent* event) {
    const QPointF pos = mapToScene(event->pos());
    emit contextMenuRequested(canvas_->itemAt(pos), canvas_->clusterTitleAt(pos),
                              event->globalPos());
}

void GraphView::leaveEvent(QEvent* event) {
    QGraphicsView::leaveEvent(event);
    if (canvas_->hovered() >= 0) {
        canvas_->setHovered(-1);
        emit itemHovered(-1);
    }
}

void GraphView::drawForeground(QPainter* painter, const QRectF& rect) {
    QGraphicsView::drawForeground(painter, rect);
    if (message_.isEmpty())
        return;
    painter->save();
    painter->resetTransform();
    painter->setPen(palette().color(QPalette::PlaceholderText));
    painter->drawText(viewport()->rect().adjusted(24, 24, -24, -24),
                      Qt::AlignCenter | Qt::TextWordWrap, message_);
    painter->restore();
}

bool GraphView::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int item = canvas_->itemAt(mapToScene(help->pos()));
        const QString text = tooltipFor(item);
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QGraphicsView::viewportEvent(event);
}

QString GraphView::tooltipFor(int item) const {
    const GraphPicture* picture = canvas_->picture();
    if (!picture || item < 0 || item >= static_cast<int>(picture->items.size()))
        return {};
    const auto& it = picture->items[static_cast<size_t>(item)];
    if (it.group) {
        const auto& g = picture->hierarchy->group(it.index);
        return tr("<b>%1</b><br>%2 nodes: %3<br>Double-click to open this group.")
            .arg(QString::fromStdString(g.path.empty() ? g.label : g.path).toHtmlEscaped())
            .arg(g.nodeCount)
            .arg(QString::fromStdString(picture->hierarchy->kindSummary(it.index)).toHtmlEscaped());
    }
    const auto& node = picture->hierarchy->node(it.index);
    QString text =
        QStringLiteral("<b>%1</b><br>%2 %3<br>%4")
            .arg(QString::fromStdString(node.name).toHtmlEscaped(),
                 QString::fromStdString(node.op).toHtmlEscaped(),
                 QString::fromStdString(node.target).toHtmlEscaped(), it.shape.toHtmlEscaped());
    if (!node.file.empty())
        text += QStringLiteral("<br>%1:%2")
                    .arg(QString::fromStdString(node.file).toHtmlEscaped())
                    .arg(node.line);
    return text;
}

} // namespace cs::widgets
