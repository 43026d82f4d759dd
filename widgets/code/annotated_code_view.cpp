#include "widgets/code/annotated_code_view.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QToolTip>

#include <algorithm>

namespace cs::widgets {

namespace {

const QColor kBreakColor(0xc6, 0x28, 0x28);
const QColor kRecompileColor(0xef, 0x6c, 0x00);
const QColor kHeatColor(0xe5, 0x39, 0x35);
const QColor kEagerColor(0xb4, 0x5f, 0x06);
constexpr int kMarkerWidth = 16;
constexpr int kMaxMatches = 5000; // more are counted as found but not tinted

class Gutter : public QWidget {
  public:
    explicit Gutter(AnnotatedCodeView* view) : QWidget(view), view_(view) {
        setMouseTracking(true);
    }
    QSize sizeHint() const override { return {view_->gutterWidth(), 0}; }

  protected:
    void paintEvent(QPaintEvent* event) override { view_->paintGutter(event, this); }
    bool event(QEvent* event) override {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            const QString tip = view_->gutterTip(help->pos().y());
            if (tip.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), tip, this);
            return true;
        }
        return QWidget::event(event);
    }

  private:
    AnnotatedCodeView* view_;
};

} // namespace

AnnotatedCodeView::AnnotatedCodeView(QWidget* parent)
    : QPlainTextEdit(parent), gutter_(new Gutter(this)) {
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

void AnnotatedCodeView::setCode(const QString& text) {
    matches_.clear();
    current_ = -1;
    rangeFirst_ = rangeLast_ = 0;
    lines_.clear();
    setPlainText(text);
    if (!search_.isEmpty())
        setSearch(search_);
    updateHighlights();
}

void AnnotatedCodeView::setAnnotations(std::map<int, Annotation> annotations) {
    annotations_ = std::move(annotations);
    const QFontMetrics fm = fontMetrics();
    compiledWidth_ = 0;
    eagerWidth_ = 0;
    for (const auto& [line, a] : annotations_) {
        compiledWidth_ = std::max(compiledWidth_, fm.horizontalAdvance(a.compiled));
        eagerWidth_ = std::max(eagerWidth_, fm.horizontalAdvance(a.eager));
    }
    if (compiledWidth_)
        compiledWidth_ += 10;
    if (eagerWidth_)
        eagerWidth_ += 10;
    setViewportMargins(gutterWidth(), 0, 0, 0);
    const QRect r = contentsRect();
    gutter_->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
    gutter_->update();
}

void AnnotatedCodeView::setMarkers(std::map<int, int> markers, std::map<int, QString> tips) {
    markers_ = std::move(markers);
    markerTips_ = std::move(tips);
    updateHighlights();
    gutter_->update();
}

void AnnotatedCodeView::setHighlightRange(int first, int last) {
    rangeFirst_ = first;
    rangeLast_ = std::max(first, last);
    updateHighlights();
    if (first > 0) {
        // The whole range when it fits, else its start at the top.
        const QTextBlock block = document()->findBlockByNumber(first - 1);
        if (block.isValid()) {
            const int visible = std::max(1, viewport()->height() / fontMetrics().height());
            const int span = rangeLast_ - first + 1;
            const int top =
                span >= visible ? first - 1 : std::max(0, first - 1 - (visible - span) / 3);
            setTextCursor(QTextCursor(block));
            verticalScrollBar()->setValue(top);
        }
    }
    gutter_->update();
}

void AnnotatedCodeView::setHighlightLines(const std::set<int>& lines) {
    lines_ = lines;
    updateHighlights();
    gutter_->update();
}

void AnnotatedCodeView::scrollToLine(int line) {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (line > 0 && block.isValid()) {
        setTextCursor(QTextCursor(block));
        centerCursor();
    }
}

int AnnotatedCodeView::setSearch(const QString& text) {
    search_ = text;
    matches_.clear();
    current_ = -1;
    if (!text.isEmpty()) {
        const QString all = document()->toPlainText();
        for (qsizetype at = all.indexOf(text, 0, Qt::CaseInsensitive); at >= 0;
             at = all.indexOf(text, at + text.size(), Qt::CaseInsensitive))
            matches_.emplace_back(static_cast<int>(at), static_cast<int>(text.size()));
    }
    if (!matches_.empty()) {
        // The first match at or after the cursor.
        const int from = textCursor().selectionStart();
        const auto it = std::find_if(matches_.begin(), matches_.end(),
                                     [from](const auto& m) { return m.first >= from; });
        goToMatch(it == matches_.end() ? 0 : static_cast<int>(it - matches_.begin()));
    } else {
        updateHighlights();
        emit matchChanged();
    }
    return matchCount();
}

int AnnotatedCodeView::currentMatchLine() const {
    if (current_ < 0)
        return -1;
    return document()->findBlock(matches_[static_cast<size_t>(current_)].first).blockNumber() + 1;
}

void AnnotatedCodeView::findNext() {
    if (!matches_.empty())
        goToMatch((current_ + 1) % matchCount());
}

void AnnotatedCodeView::findPrevious() {
    if (!matches_.empty())
        goToMatch((current_ + matchCount() - 1) % matchCount());
}

void AnnotatedCodeView::goToMatch(int index) {
    current_ = index;
    const auto [pos, length] = matches_[static_cast<size_t>(index)];
    QTextCursor cursor(document());
    cursor.setPosition(pos);
    cursor.setPosition(pos + length, QTextCursor::KeepAnchor);
    setTextCursor(cursor);
    centerCursor();
    updateHighlights();
    emit matchChanged();
}

void AnnotatedCodeView::updateHighlights() {
    QList<QTextEdit::ExtraSelection> selections;
    auto lineTint = [&](int line, QColor color) {
        const QTextBlock block = document()->findBlockByNumber(line - 1);
        if (!block.isValid())
            return;
        QTextEdit::ExtraSelection s;
        s.format.setBackground(color);
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        s.cursor = QTextCursor(block);
        selections << s;
    };
    for (const auto& [line, kinds] : markers_) {
        QColor tint = (kinds & Break) ? kBreakColor : kRecompileColor;
        tint.setAlpha(35);
        lineTint(line, tint);
    }
    QColor highlight = palette().color(QPalette::Highlight);
    highlight.setAlpha(60);
    if (rangeFirst_ > 0) {
        for (int line = rangeFirst_; line <= rangeLast_; ++line)
            lineTint(line, highlight);
    }
    for (int line : lines_)
        lineTint(line, highlight);
    QColor match(0xff, 0xd5, 0x4f);
    match.setAlpha(150);
    for (size_t i = 0; i < matches_.size() && i < kMaxMatches; ++i) {
        QTextEdit::ExtraSelection s;
        s.format.setBackground(static_cast<int>(i) == current_ ? QColor(0xff, 0x98, 0x00) : match);
        s.cursor = QTextCursor(document());
        s.cursor.setPosition(matches_[i].first);
        s.cursor.setPosition(matches_[i].first + matches_[i].second, QTextCursor::KeepAnchor);
        selections << s;
    }
    setExtraSelections(selections);
}

int AnnotatedCodeView::gutterWidth() const {
    int digits = 1;
    for (int max = std::max(1, blockCount()); max >= 10; max /= 10)
        ++digits;
    return kMarkerWidth + compiledWidth_ + eagerWidth_ + 6 +
           fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
}

void AnnotatedCodeView::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    const QRect r = contentsRect();
    gutter_->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
}

void AnnotatedCodeView::mouseReleaseEvent(QMouseEvent* event) {
    QPlainTextEdit::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton || textCursor().hasSelection())
        return;
    emit lineClicked(cursorForPosition(event->position().toPoint()).blockNumber() + 1);
}

int AnnotatedCodeView::lineAt(int y) const {
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

QString AnnotatedCodeView::gutterTip(int y) const {
    const int line = lineAt(y);
    QStringList parts;
    if (const auto it = annotations_.find(line);
        it != annotations_.end() && !it->second.tip.isEmpty())
        parts << it->second.tip;
    if (const auto it = markerTips_.find(line); it != markerTips_.end())
        parts << it->second;
    return parts.join(QStringLiteral("\n"));
}

void AnnotatedCodeView::paintGutter(QPaintEvent* event, QWidget* gutter) {
    QPainter p(gutter);
    p.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    p.setRenderHint(QPainter::Antialiasing);
    QTextBlock block = firstVisibleBlock();
    int number = block.blockNumber() + 1;
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    const int height = fontMetrics().height();
    const int numberLeft = kMarkerWidth + compiledWidth_ + eagerWidth_;
    while (block.isValid() && top <= event->rect().bottom()) {
        const int bottom = top + qRound(blockBoundingRect(block).height());
        if (block.isVisible() && bottom >= event->rect().top()) {
            if (const auto it = markers_.find(number); it != markers_.end()) {
                p.setPen(Qt::NoPen);
                if (it->second & Break) {
                    p.setBrush(kBreakColor);
                    p.drawEllipse(QPointF(7, top + height / 2.0), 4, 4);
                }
                if (it->second & Recompile) {
                    p.setBrush(kRecompileColor);
                    const double cx = (it->second & Break) ? 12 : 7;
                    const double cy = top + height / 2.0;
                    const QPointF diamond[] = {
                        {cx, cy - 5}, {cx + 4, cy}, {cx, cy + 5}, {cx - 4, cy}};
                    p.drawPolygon(diamond, 4);
                }
            }
            if (const auto it = annotations_.find(number); it != annotations_.end()) {
                const auto& a = it->second;
                if (a.heat > 0 && compiledWidth_ > 0) {
                    QColor bar = kHeatColor;
                    bar.setAlpha(static_cast<int>(40 + 120 * std::min(1.0, a.heat)));
                    const double w = std::max(2.0, (compiledWidth_ - 4) * std::min(1.0, a.heat));
                    p.fillRect(QRectF(kMarkerWidth, top + 1, w, height - 2), bar);
                }
                p.setPen(palette().color(QPalette::Text));
                p.drawText(QRect(kMarkerWidth, top, compiledWidth_ - 6, height),
                           Qt::AlignRight | Qt::AlignVCenter, a.compiled);
                p.setPen(kEagerColor);
                p.drawText(QRect(kMarkerWidth + compiledWidth_, top, eagerWidth_ - 6, height),
                           Qt::AlignRight | Qt::AlignVCenter, a.eager);
            }
            const bool inRange = number >= rangeFirst_ && number <= rangeLast_;
            p.setPen(inRange || lines_.count(number) ? palette().color(QPalette::Text)
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
