// Read-only monospace text with a line-number gutter. Subclasses paint their
// own columns left of the numbers (markers, cost annotations), say which
// numbers stand out and what a line's tooltip is. A click on a line says which.
#pragma once

#include <QPlainTextEdit>
#include <QTextEdit>

#include <optional>

namespace cs::widgets {

class LineCodeView : public QPlainTextEdit {
    Q_OBJECT
  public:
    explicit LineCodeView(QWidget* parent = nullptr);

    // Brings a line (1-based) into the middle of the view without selecting it.
    void scrollToLine(int line);
    int gutterWidth() const;
    void paintGutter(QPaintEvent* event, QWidget* gutter);
    QString gutterTip(int y) const;

  signals:
    void lineClicked(int line);

  protected:
    // Pixels of the subclass's columns, left of the line numbers.
    virtual int gutterColumnsWidth() const = 0;
    // Paints those columns for one visible line; `row` spans the gutter's width.
    virtual void paintGutterColumns(QPainter& painter, int line, const QRect& row) const = 0;
    // Line numbers drawn in the text colour rather than the faint one.
    virtual bool emphasizedLine(int line) const = 0;
    virtual QString lineTip(int /*line*/) const { return {}; }

    // After the columns' width changed: margins, the gutter's geometry, a repaint.
    void relayoutGutter();
    void repaintGutter();
    // The whole of a line tinted; none for a line the text lacks.
    std::optional<QTextEdit::ExtraSelection> lineTint(int line, const QColor& color) const;
    int lineAt(int y) const;

    void resizeEvent(QResizeEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

  private:
    QWidget* gutter_;
};

} // namespace cs::widgets
