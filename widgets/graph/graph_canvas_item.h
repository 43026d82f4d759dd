// Paints a whole GraphPicture as one scene item: only what intersects the
// exposed rectangle, and with less detail the further out the view is zoomed
// (labels and curves close up; batched rectangles and straight lines far out),
// so tens of thousands of boxes pan smoothly. Hit tests are linear scans,
// well under a millisecond at 50,000 boxes.
#pragma once

#include <QFont>
#include <QGraphicsItem>

#include <cstdint>
#include <memory>
#include <vector>

#include "widgets/graph/graph_picture.h"

namespace cs::widgets {

class GraphCanvasItem : public QGraphicsItem {
  public:
    enum Mark : uint8_t {
        Match = 1,
        CurrentMatch = 2,
        Selected = 4,
        LineMatch = 8, // comes from the selected source line
        Hovered = 16,
        KernelMatch = 32, // in the kernel selected in the Code tab
    };
    // Below this scale boxes lose their labels and edges become straight lines.
    static constexpr double kDetailScale = 0.45;

    GraphCanvasItem();

    void setPicture(std::shared_ptr<const GraphPicture> picture);
    const GraphPicture* picture() const { return picture_.get(); }
    void setFont(const QFont& font) { font_ = font; }
    void setMarks(std::vector<uint8_t> marks);
    uint8_t marks(int item) const;
    void setHovered(int item);
    int hovered() const { return hovered_; }

    int itemAt(const QPointF& scenePos) const;
    // A frame of an expanded group whose title bar is under the point (the innermost).
    int clusterTitleAt(const QPointF& scenePos) const;
    QRectF itemRect(int item) const;

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    int paintCount() const { return paintCount_; }
    double lastPaintMs() const { return lastPaintMs_; }

  private:
    void paintClusters(QPainter* painter, const QRectF& exposed, double scale,
                       const QPalette& palette) const;
    void paintEdges(QPainter* painter, const QRectF& exposed, double scale,
                    const QPalette& palette) const;
    void paintBoxes(QPainter* painter, const QRectF& exposed, double scale) const;
    void paintMarks(QPainter* painter, const QRectF& exposed, double scale,
                    const QPalette& palette) const;

    std::shared_ptr<const GraphPicture> picture_;
    std::vector<uint8_t> marks_;
    int hovered_ = -1;
    QFont font_;
    int paintCount_ = 0;
    double lastPaintMs_ = 0;
};

} // namespace cs::widgets
