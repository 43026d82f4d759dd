// The graph canvas in a QGraphicsView: wheel zooms around the cursor, drag
// pans, Fit shows everything; hover, click and double-click come out as
// signals with item indices of the current picture. Says what it is doing
// (laying out, nothing to show) in the middle when there is no picture.
#pragma once

#include <QGraphicsView>

#include <memory>

#include "widgets/graph/graph_picture.h"

namespace cs::widgets {

class GraphCanvasItem;

class GraphView : public QGraphicsView {
    Q_OBJECT
  public:
    explicit GraphView(QWidget* parent = nullptr);

    GraphCanvasItem* canvas() const { return canvas_; }
    void setPicture(std::shared_ptr<const GraphPicture> picture);
    void setMessage(const QString& message);
    QString message() const { return message_; }

    void fitAll();
    // A readable first view: everything when it fits at a legible size, else the top at full width.
    void showStart();
    void centreOnItem(int item);
    void centreOnRect(const QRectF& rect);
    void zoomBy(double factor);
    double zoom() const;

  signals:
    void itemHovered(int item); // -1 when the mouse leaves the boxes
    void itemClicked(int item); // -1 for empty space
    void itemDoubleClicked(int item);
    void clusterDoubleClicked(int cluster);
    void contextMenuRequested(int item, int cluster, const QPoint& globalPos);

  protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    bool viewportEvent(QEvent* event) override;

  private:
    QString tooltipFor(int item) const;

    GraphCanvasItem* canvas_;
    QString message_;
    QPoint pressPos_;
    bool pressed_ = false;
};

} // namespace cs::widgets
