// Read-only source text with line numbers, graph-break lines marked (a red
// dot in the gutter and a tinted line) and the selected line highlighted.
// A click on a line says which line.
#pragma once

#include <QPlainTextEdit>

#include <set>

namespace cs::widgets {

class CodeTextView : public QPlainTextEdit {
    Q_OBJECT
  public:
    explicit CodeTextView(QWidget* parent = nullptr);

    void setLines(const QStringList& lines);
    void setBreakLines(const std::set<int>& lines);
    const std::set<int>& breakLines() const { return breakLines_; }
    // 1-based; -1 for none. Scrolls it into the middle of the view.
    void setCurrentLine(int line);
    int currentLine() const { return currentLine_; }
    // Brings a line into the middle of the view without selecting it.
    void scrollToLine(int line);
    int gutterWidth() const;
    void paintGutter(QPaintEvent* event, QWidget* gutter);

  signals:
    void lineClicked(int line);

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

  private:
    void updateHighlights();

    QWidget* gutter_;
    std::set<int> breakLines_;
    int currentLine_ = -1;
};

} // namespace cs::widgets
