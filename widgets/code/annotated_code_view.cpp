#include "widgets/code/annotated_code_view.h"

#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>

#include <algorithm>

namespace cs::widgets {

namespace {

const QColor kBreakColor(0xc6, 0x28, 0x28);
const QColor kRecompileColor(0xef, 0x6c, 0x00);
const QColor kHeatColor(0xe5, 0x39, 0x35);
const QColor kEagerColor(0xb4, 0x5f, 0x06);
constexpr int kMarkerWidth = 16;
constexpr int kMaxMatches = 5000; // more are counted as found but not tinted

} // namespace

AnnotatedCodeView::AnnotatedCodeView(QWidget* parent) : LineCodeView(parent) {
    relayoutGutter();
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
    relayoutGutter();
}

void AnnotatedCodeView::setMarkers(std::map<int, int> markers, std::map<int, QString> tips) {
    markers_ = std::move(markers);
    markerTips_ = std::move(tips);
    updateHighlights();
    repaintGutter();
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
    repaintGutter();
}

void AnnotatedCodeView::setHighlightLines(const std::set<int>& lines) {
    lines_ = lines;
    updateHighlights();
    repaintGutter();
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
    auto tintLine = [&](int line, const QColor& color) {
        if (auto s = lineTint(line, color))
            selections << *s;
    };
    for (const auto& [line, kinds] : markers_) {
        QColor tint = (kinds & Break) ? kBreakColor : kRecompileColor;
        tint.setAlpha(35);
        tintLine(line, tint);
    }
    QColor highlight = palette().color(QPalette::Highlight);
    highlight.setAlpha(60);
    if (rangeFirst_ > 0) {
        for (int line = rangeFirst_; line <= rangeLast_; ++line)
            tintLine(line, highlight);
    }
    for (int line : lines_)
        tintLine(line, highlight);
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

int AnnotatedCodeView::gutterColumnsWidth() const {
    return kMarkerWidth + compiledWidth_ + eagerWidth_;
}

bool AnnotatedCodeView::emphasizedLine(int line) const {
    return (line >= rangeFirst_ && line <= rangeLast_) || lines_.count(line);
}

QString AnnotatedCodeView::lineTip(int line) const {
    QStringList parts;
    if (const auto it = annotations_.find(line);
        it != annotations_.end() && !it->second.tip.isEmpty())
        parts << it->second.tip;
    if (const auto it = markerTips_.find(line); it != markerTips_.end())
        parts << it->second;
    return parts.join(QStringLiteral("\n"));
}

void AnnotatedCodeView::paintGutterColumns(QPainter& p, int line, const QRect& row) const {
    const int top = row.top();
    const int height = row.height();
    if (const auto it = markers_.find(line); it != markers_.end()) {
        p.setPen(Qt::NoPen);
        if (it->second & Break) {
            p.setBrush(kBreakColor);
            p.drawEllipse(QPointF(7, top + height / 2.0), 4, 4);
        }
        if (it->second & Recompile) {
            p.setBrush(kRecompileColor);
            const double cx = (it->second & Break) ? 12 : 7;
            const double cy = top + height / 2.0;
            const QPointF diamond[] = {{cx, cy - 5}, {cx + 4, cy}, {cx, cy + 5}, {cx - 4, cy}};
            p.drawPolygon(diamond, 4);
        }
    }
    const auto it = annotations_.find(line);
    if (it == annotations_.end())
        return;
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

} // namespace cs::widgets
