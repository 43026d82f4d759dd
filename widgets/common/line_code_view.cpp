#include "widgets/common/line_code_view.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QTextBlock>
#include <QToolTip>

#include <algorithm>

namespace cs::widgets {

namespace {

// The gutter forwards painting and tooltips to the view, which knows the blocks.
class Gutter : public QWidget {
  public:
    explicit Gutter(LineCodeView* view) : QWidget(view), view_(view) { setMouseTracking(true); }
    QSize sizeHint() const override { return {view_->gutterWidth(), 0}; }

  protected:
    void paintEvent(QPaintEvent* event) override { view_->paintGutter(event, this); }
    bool event(QEvent* event) override {
        if (event->type() != QEvent::ToolTip)
            return QWidget::event(event);
        auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = view_->gutterTip(help->pos().y());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }

  private:
    LineCodeView* view_;
};

} // namespace

LineCodeView::LineCodeView(QWidget* parent) : QPlainTextEdit(parent), gutter_(new Gutter(this)) {
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
    // The subclass's columns are not known yet: its constructor calls relayoutGutter().
}

int LineCodeView::gutterWidth() const {
    int digits = 1;
    for (int max = std::max(1, blockCount()); max >= 10; max /= 10)
        ++digits;
    return gutterColumnsWidth() + 8 +
           fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
}

void LineCodeView::relayoutGutter() {
    setViewportMargins(gutterWidth(), 0, 0, 0);
    const QRect r = contentsRect();
    gutter_->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
    gutter_->update();
}

void LineCodeView::repaintGutter() {
    gutter_->update();
}

void LineCodeView::scrollToLine(int line) {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (line > 0 && block.isValid()) {
        setTextCursor(QTextCursor(block));
        centerCursor();
    }
}

std::optional<QTextEdit::ExtraSelection> LineCodeView::lineTint(int line,
                                                                const QColor& color) const {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (line <= 0 || !block.isValid())
        return std::nullopt;
    QTextEdit::ExtraSelection s;
    s.format.setBackground(color);
    s.format.setProperty(QTextFormat::FullWidthSelection, true);
    s.cursor = QTextCursor(block);
    return s;
}

void LineCodeView::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    const QRect r = contentsRect();
    gutter_->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
}

void LineCodeView::mouseReleaseEvent(QMouseEvent* event) {
    QPlainTextEdit::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton || textCursor().hasSelection())
        return;
    emit lineClicked(cursorForPosition(event->position().toPoint()).blockNumber() + 1);
}

int LineCodeView::lineAt(int y) const {
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    while (block.isValid()) {
        const int bottom = top + qRound(blockBoundingRect(block).height());
        if (y >= top && y < bottom)
            return block.blockNumber() + 1;
        block = block.next();
        top = bottom;
    }
    return -1;
}

QString LineCodeView::gutterTip(int y) const {
    const int line = lineAt(y);
    return line > 0 ? lineTip(line) : QString();
}

void LineCodeView::paintGutter(QPaintEvent* event, QWidget* gutter) {
    QPainter p(gutter);
    p.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    p.setRenderHint(QPainter::Antialiasing);
    QTextBlock block = firstVisibleBlock();
    int number = block.blockNumber() + 1;
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    const int height = fontMetrics().height();
    const int numberLeft = gutterColumnsWidth();
    while (block.isValid() && top <= event->rect().bottom()) {
        const int bottom = top + qRound(blockBoundingRect(block).height());
        if (block.isVisible() && bottom >= event->rect().top()) {
            paintGutterColumns(p, number, QRect(0, top, gutter->width(), height));
            p.setPen(emphasizedLine(number) ? palette().color(QPalette::Text)
                                            : palette().color(QPalette::PlaceholderText));
            p.drawText(QRect(numberLeft, top, gutter->width() - numberLeft - 4, height),
                       Qt::AlignRight | Qt::AlignVCenter, QString::number(number));
        }
        block = block.next();
        top = bottom;
        ++number;
    }
}

} // namespace cs::widgets
