#include "widgets/breaks/code_text_view.h"

#include <QPainter>
#include <QTextBlock>

namespace cs::widgets {

namespace {

const QColor kBreakColor(0xc6, 0x28, 0x28);

} // namespace

CodeTextView::CodeTextView(QWidget* parent) : LineCodeView(parent) {
    setObjectName("codeView");
    relayoutGutter();
}

void CodeTextView::setLines(const QStringList& lines) {
    setPlainText(lines.join('\n'));
    updateHighlights();
}

void CodeTextView::setBreakLines(const std::set<int>& lines) {
    breakLines_ = lines;
    updateHighlights();
    repaintGutter();
}

void CodeTextView::setCurrentLine(int line) {
    currentLine_ = line;
    updateHighlights();
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (line > 0 && block.isValid()) {
        setTextCursor(QTextCursor(block));
        centerCursor();
    }
    repaintGutter();
}

void CodeTextView::updateHighlights() {
    QList<QTextEdit::ExtraSelection> selections;
    QColor tint = kBreakColor;
    tint.setAlpha(40);
    for (int line : breakLines_) {
        if (auto s = lineTint(line, tint))
            selections << *s;
    }
    QColor highlight = palette().color(QPalette::Highlight);
    highlight.setAlpha(90);
    if (auto s = lineTint(currentLine_, highlight))
        selections << *s;
    setExtraSelections(selections);
}

void CodeTextView::paintGutterColumns(QPainter& painter, int line, const QRect& row) const {
    if (!breakLines_.count(line))
        return;
    painter.setPen(Qt::NoPen);
    painter.setBrush(kBreakColor);
    painter.drawEllipse(QPointF(8, row.top() + row.height() / 2.0), 4, 4);
}

} // namespace cs::widgets
