// Read-only code with line numbers and, per line, what the Code tab knows of it:
// a cost annotation in the gutter (a heat bar with the compiled share and time,
// the eager time beside it), markers (graph break, recompile), a highlighted
// range (the selected kernel's source) or set of lines (a kernel's user lines),
// and the matches of a search. A click on a line says which line.
#pragma once

#include "widgets/common/line_code_view.h"

#include <map>
#include <set>

namespace cs::widgets {

class AnnotatedCodeView : public LineCodeView {
    Q_OBJECT
  public:
    struct Annotation {
        QString compiled; // "12.3 % 1.20 ms"
        QString eager;    // "0.90 ms"
        double heat = 0;  // 0..1: the bar's length
        QString tip;
    };
    enum Marker { Break = 1, Recompile = 2 };

    explicit AnnotatedCodeView(QWidget* parent = nullptr);

    void setCode(const QString& text);
    void setAnnotations(std::map<int, Annotation> annotations);
    const std::map<int, Annotation>& annotations() const { return annotations_; }
    void setMarkers(std::map<int, int> markers, std::map<int, QString> tips = {});
    const std::map<int, int>& markers() const { return markers_; }

    // 1-based, inclusive; scrolls the range's start into view. 0: none.
    void setHighlightRange(int first, int last);
    int highlightFirst() const { return rangeFirst_; }
    int highlightLast() const { return rangeLast_; }
    // Lines tinted as belonging to the selection (no scrolling).
    void setHighlightLines(const std::set<int>& lines);
    const std::set<int>& highlightLines() const { return lines_; }

    // Search (case-insensitive): every match tinted, the current one selected.
    int setSearch(const QString& text);
    int matchCount() const { return static_cast<int>(matches_.size()); }
    int currentMatch() const { return current_; } // 0-based; -1 none
    int currentMatchLine() const;
    void findNext();
    void findPrevious();

  signals:
    void matchChanged();

  protected:
    int gutterColumnsWidth() const override;
    void paintGutterColumns(QPainter& painter, int line, const QRect& row) const override;
    bool emphasizedLine(int line) const override;
    QString lineTip(int line) const override;

  private:
    void updateHighlights();
    void goToMatch(int index);

    std::map<int, Annotation> annotations_;
    std::map<int, int> markers_;
    std::map<int, QString> markerTips_;
    int compiledWidth_ = 0; // pixels of the annotation columns; 0 without annotations
    int eagerWidth_ = 0;
    int rangeFirst_ = 0;
    int rangeLast_ = 0;
    std::set<int> lines_;
    QString search_;
    std::vector<std::pair<int, int>> matches_; // position, length
    int current_ = -1;
};

} // namespace cs::widgets
