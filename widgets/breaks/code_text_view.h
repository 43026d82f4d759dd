// Read-only source text with line numbers, graph-break lines marked (a red
// dot in the gutter and a tinted line) and the selected line highlighted.
// A click on a line says which line.
#pragma once

#include "widgets/common/line_code_view.h"

#include <set>

namespace cs::widgets {

class CodeTextView : public LineCodeView {
    Q_OBJECT
  public:
    explicit CodeTextView(QWidget* parent = nullptr);

    void setLines(const QStringList& lines);
    void setBreakLines(const std::set<int>& lines);
    const std::set<int>& breakLines() const { return breakLines_; }
    // 1-based; -1 for none. Scrolls it into the middle of the view.
    void setCurrentLine(int line);
    int currentLine() const { return currentLine_; }

  protected:
    int gutterColumnsWidth() const override { return 14; }
    void paintGutterColumns(QPainter& painter, int line, const QRect& row) const override;
    bool emphasizedLine(int line) const override { return line == currentLine_; }

  private:
    void updateHighlights();

    std::set<int> breakLines_;
    int currentLine_ = -1;
};

} // namespace cs::widgets
