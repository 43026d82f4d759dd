// The compiled regions (graphs) of one run as boxes in execution order, with
// each graph break as a marked gap between them, labelled by its reason.
// Clicking a box selects that graph; clicking a gap selects the break (and
// with it its source line). One row, scrolled sideways when long.
#pragma once

#include <QAbstractScrollArea>

#include <vector>

namespace cs::widgets {

class ReportDocument;

class BreakMap : public QAbstractScrollArea {
    Q_OBJECT
  public:
    struct Token {
        bool isBreak = false;
        int index = 0;  // graph index, or break index
        QRect rect;     // in content coordinates
        QString detail; // a break card's third line, parsed once here, not per paint
    };

    explicit BreakMap(ReportDocument* document, QWidget* parent = nullptr);

    int run() const { return run_; }
    const std::vector<Token>& tokens() const { return tokens_; }
    // The graph another view shows, outlined when no graph is selected.
    void setCurrentGraph(int graph);
    // Where a token is on screen (viewport coordinates), for tests and scrolling.
    QRect graphRect(int graph) const;
    QRect breakRect(int graphBreak) const;
    bool isGraphHighlighted(int graph) const;
    bool isBreakHighlighted(int graphBreak) const;
    QString message() const { return message_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool viewportEvent(QEvent* event) override;

  private:
    void rebuild();
    void scrollToHighlight();
    int tokenAt(const QPoint& viewportPos) const;
    QString tooltipFor(const Token& token) const;
    QRect toViewport(const QRect& content) const;

    ReportDocument* document_;
    int run_ = -1;
    int currentGraph_ = -1;
    std::vector<Token> tokens_;
    int contentWidth_ = 0;
    QString message_;
};

} // namespace cs::widgets
