#include "widgets/breaks/code_text_view.h"

#include <QFontDatabase>
#include <QMouseEvent>
#include <QPainter>
#include <QTextBlock>

namespace cs::widgets {

namespace {

const QColor kBreakColor(0xc6, 0x28, 0x28);

// The gutter only forwards painting to the view, which knows the blocks.
class Gutter : public QWidget {
  public:
    explicit Gutter(CodeTextView* view) : QWidget(view), view_(view) {}
    QSize sizeHint() const override { return {view_->gutterWidth(), 0}; }

  protected:
    void paintEvent(QPaintEvent* event) override { view_->paintGutter(event, this); }

  private:
    CodeTextView* view_;
};

} // namespace

CodeTextView::CodeTextView(QWidget* parent) : QPlainTextEdit(parent), gutter_(new Gutter(this)) {
    setObjectName("codeView");
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    connect(this, &QPlainTextEdit::blockCountChanged, this,
            [this] { setViewportMargins(gutterWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy)
            gutter_->scroll(0, dy);
        else
            gutter_->update(0, rect.y(), gutter_->width(), rect.height());
    });
    setViewportMargins(gutterWidth(), 0, 0, 0);
}

int CodeTextView::gutterWidth() const {
    int digits = 1;
    for (int max = std::max(1, blockCount()); max >= 10; max /= 10)
        ++digits;
    return 22 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
}

void CodeTextView::setLines(const QStringList& lines) {
    setPlainText(lines.join('\n'));
    updateHighlights();
}

void CodeTextView::setBreakLines(const std::set<int>& lines) {
    breakLines_ = lines;
    updateHighlights();
    gutter_->update();
}

void CodeTextView::setCurrentLine(int line) {
    currentLine_ = line;
    updateHighlights();
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (line > 0 && block.isValid()) {
        QTextCursor cursor(block);
        setTextCursor(cursor);
        centerCursor();
    }
    gutter_->update();
}

void CodeTextView::scrollToLine(int line) {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (line > 0 && block.isValid()) {
        setTextCursor(QTextCursor(block));
        centerCursor();
    }
}

void CodeTextView::updateHighlights() {
    QList<QTextEdit::ExtraSelection> selections;
    for (int line : breakLines_) {
        const QTextBlock block = document()->findBlockByNumber(line - 1);
        if (!block.isValid())
            continue;
        QTextEdit::ExtraSelection s;
        QColor tint = kBreakColor;
        tint.setAlpha(40);
        s.format.setBackground(tint);
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        s.cursor = QTextCursor(block);
        selections << s;
    }
    if (const QTextBlock block = document()->findBlockByNumber(currentLine_ - 1);
        currentLine_ > 0 && block.isValid()) {
        QTextEdit::ExtraSelection s;
        QColor highlight = palette().color(QPalette::Highlight);
        highlight.setAlpha(90);
        s.format.setBackground(highlight);
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        s.cursor = QTextCursor(block);
        selections << s;
    }
    setExtraSelections(selections);
}

void CodeTextView::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    const QRect r = contentsRect();
    gutter_->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
}

void CodeTextView::mouseReleaseEvent(QMouseEvent* event) {
    QPlainTextEdit::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton || textCursor().hasSelection())
        return;
    const int line = cursorForPosition(event->position().toPoint()).blockNumber() + 1;
    emit lineClicked(line);
}

void CodeTextView::paintGutter(QPaintEvent* event, QWidget* gutter) {
    QPainter p(gutter);
    p.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    p.setRenderHint(QPainter::Antialiasing);
    QTextBlock block = firstVisibleBlock();
    int number = block.blockNumber() + 1;
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    const int height = fontMetrics().height();
    while (block.isValid() && top <= event->rect().bottom()) {
        const int bottom = top + qRound(blockBoundingRect(block).height());
        if (block.isVisible() && bottom >= event->rect().top()) {
            if (breakLines_.count(number)) {
                p.setPen(Qt::NoPen);
                p.setBrush(kBreakColor);
                p.drawEllipse(QPointF(8, top + height / 2.0), 4, 4);
            }
            p.setPen(number == currentLine_ ? palette().color(QPalette::Text)
                                            : palette().color(QPalette::PlaceholderText));
            p.drawText(QRect(14, top, gutter->width() - 18, height),
                       Qt::AlignRight | Qt::AlignVCenter, QString::number(number));
        }
        block = block.next();
        top = bottom;
        ++number;
    }
}

} // namespace cs::widgets
