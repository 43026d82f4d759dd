#include "widgets/breaks/break_map.h"

#include <QFileInfo>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>

#include "core/analysis/function_name.h"
#include "widgets/breaks/break_place.h"
#include "widgets/common/report_document.h"
#include "widgets/graph/compiled_run.h"
#include "widgets/graph/graph_terms.h"

namespace cs::widgets {

namespace {

constexpr int kMargin = 8;
constexpr int kBoxWidth = 178;
constexpr int kBreakWidth = 230;
constexpr int kLink = 22; // space between two boxes without a break
const QColor kBreakColor(0xc6, 0x28, 0x28);

// Under a break card's reason and place: the frame torch skipped for it, else
// library code, else the source line.
QString cardDetail(const core::GraphBreak& graphBreak) {
    if (const auto skipped = graphBreak.skippedFrame())
        return QObject::tr("%1 skipped: runs eagerly")
            .arg(QString::fromStdString(core::functionLabel(skipped->function)));
    const BreakPlace place = breakPlace(graphBreak);
    return place.inLibrary ? QObject::tr("in library code") : place.code;
}

int compileAttempt(const std::string& compileId) {
    // "1/2" is frame 1's third compile: a recompile.
    const auto slash = compileId.find('/');
    if (slash == std::string::npos)
        return 0;
    try {
        return std::stoi(compileId.substr(slash + 1));
    } catch (...) {
        return 0;
    }
}

} // namespace

BreakMap::BreakMap(ReportDocument* document, QWidget* parent)
    : QAbstractScrollArea(parent), document_(document) {
    setObjectName("breakMap");
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMouseTracking(true);
    setToolTip(graphBreakTerm());
    connect(document_, &ReportDocument::reportReset, this, &BreakMap::rebuild);
    connect(document_, &ReportDocument::runChanged, this, [this](int run) {
        if (run == run_ || run_ < 0)
            rebuild();
    });
    connect(document_, &ReportDocument::selectionChanged, this, [this] {
        if (compiledRunIndex(*document_) != run_)
            rebuild();
        scrollToHighlight();
        viewport()->update();
    });
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, viewport(),
            qOverload<>(&QWidget::update));
    rebuild();
}

QSize BreakMap::sizeHint() const {
    const int rows = fontMetrics().height() * 3 + 16;
    return {640, rows + 2 * kMargin + horizontalScrollBar()->sizeHint().height()};
}

QSize BreakMap::minimumSizeHint() const {
    return {200, sizeHint().height()};
}

void BreakMap::setCurrentGraph(int graph) {
    if (currentGraph_ == graph)
        return;
    currentGraph_ = graph;
    scrollToHighlight();
    viewport()->update();
}

void BreakMap::rebuild() {
    run_ = compiledRunIndex(*document_);
    tokens_.clear();
    message_.clear();
    const core::Run* run = document_->run(run_);
    if (!run) {
        message_ = document_->isEmpty()
                       ? tr("Run a model with a compile setting to see its compiled regions.")
                       : tr("Only the eager baseline ran: nothing was compiled.");
    } else if (run->graphs.empty() && run->graphBreaks.empty()) {
        message_ =
            run->finished()
                ? tr("%1 captured no graph.").arg(QString::fromStdString(run->setting.label()))
                : tr("%1: no graph captured yet…")
                      .arg(QString::fromStdString(run->setting.label()));
    }
    const int height =
        sizeHint().height() - 2 * kMargin - horizontalScrollBar()->sizeHint().height();
    int x = kMargin;
    auto add = [&](bool isBreak, int index) {
        if (!tokens_.empty() && !isBreak && !tokens_.back().isBreak)
            x += kLink;
        const int width = isBreak ? kBreakWidth : kBoxWidth;
        tokens_.push_back(
            {isBreak, index, QRect(x, kMargin, width, height),
             isBreak ? cardDetail(run->graphBreaks[static_cast<size_t>(index)]) : QString()});
        x += width;
    };
    if (run) {
        const int graphs = static_cast<int>(run->graphs.size());
        const int breaks = static_cast<int>(run->graphBreaks.size());
        const auto inRange = [&](int g) { return g >= 0 && g < graphs; };
        // A break with no graph before it (one that ended a frame before it
        // captured anything, as a "graph break in loop" does) comes just
        // before the graph after it. One tied to no graph at all had no graph
        // after it in the call (the probe ties it to the next one): it comes last.
        for (int g = 0; g < graphs; ++g) {
            for (int b = 0; b < breaks; ++b) {
                const auto& gb = run->graphBreaks[static_cast<size_t>(b)];
                if (!inRange(gb.graphBefore) && gb.graphAfter == g)
                    add(true, b);
            }
            add(false, g);
            for (int b = 0; b < breaks; ++b) {
                if (run->graphBreaks[static_cast<size_t>(b)].graphBefore == g)
                    add(true, b);
            }
        }
        for (int b = 0; b < breaks; ++b) {
            const auto& gb = run->graphBreaks[static_cast<size_t>(b)];
            if (!inRange(gb.graphBefore) && !inRange(gb.graphAfter))
                add(true, b);
        }
    }
    contentWidth_ = x + kMargin;
    horizontalScrollBar()->setRange(0, std::max(0, contentWidth_ - viewport()->width()));
    horizontalScrollBar()->setPageStep(viewport()->width());
    viewport()->update();
}

void BreakMap::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    horizontalScrollBar()->setRange(0, std::max(0, contentWidth_ - viewport()->width()));
    horizontalScrollBar()->setPageStep(viewport()->width());
}

QRect BreakMap::toViewport(const QRect& content) const {
    return content.translated(-horizontalScrollBar()->value(), 0);
}

QRect BreakMap::graphRect(int graph) const {
    for (const auto& t : tokens_) {
        if (!t.isBreak && t.index == graph)
            return toViewport(t.rect);
    }
    return {};
}

QRect BreakMap::breakRect(int graphBreak) const {
    for (const auto& t : tokens_) {
        if (t.isBreak && t.index == graphBreak)
            return toViewport(t.rect);
    }
    return {};
}

bool BreakMap::isGraphHighlighted(int graph) const {
    const Selection& s = document_->selection();
    return s.graph >= 0 ? s.graph == graph : currentGraph_ == graph;
}

bool BreakMap::isBreakHighlighted(int graphBreak) const {
    const Selection& s = document_->selection();
    if (s.graphBreak >= 0)
        return s.graphBreak == graphBreak;
    const core::Run* run = document_->run(run_);
    if (!run || s.line <= 0 || s.file.isEmpty() || graphBreak < 0 ||
        graphBreak >= static_cast<int>(run->graphBreaks.size()))
        return false;
    const BreakPlace place = breakPlace(run->graphBreaks[static_cast<size_t>(graphBreak)]);
    return place.line == s.line && place.file == s.file;
}

void BreakMap::scrollToHighlight() {
    for (const auto& t : tokens_) {
        if (t.isBreak ? isBreakHighlighted(t.index) : isGraphHighlighted(t.index)) {
            const QRect r = toViewport(t.rect);
            if (r.left() < 0 || r.right() > viewport()->width())
                horizontalScrollBar()->setValue(t.rect.center().x() - viewport()->width() / 2);
            return;
        }
    }
}

int BreakMap::tokenAt(const QPoint& pos) const {
    const QPoint content = pos + QPoint(horizontalScrollBar()->value(), 0);
    for (size_t i = 0; i < tokens_.size(); ++i) {
        if (tokens_[i].rect.contains(content))
            return static_cast<int>(i);
    }
    return -1;
}

void BreakMap::mousePressEvent(QMouseEvent* event) {
    const int i = tokenAt(event->position().toPoint());
    if (i < 0 || event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    const Token& t = tokens_[static_cast<size_t>(i)];
    if (t.isBreak)
        document_->selectBreak(run_, t.index);
    else
        document_->selectGraph(run_, t.index);
}

bool BreakMap::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int i = tokenAt(help->pos());
        if (i >= 0)
            QToolTip::showText(help->globalPos(), tooltipFor(tokens_[static_cast<size_t>(i)]),
                               viewport());
        else
            QToolTip::showText(help->globalPos(), graphBreakTerm(), viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

QString BreakMap::tooltipFor(const Token& t) const {
    const core::Run* run = document_->run(run_);
    if (!run)
        return {};
    if (t.isBreak) {
        const auto& br = run->graphBreaks[static_cast<size_t>(t.index)];
        const BreakPlace place = breakPlace(br);
        QString text = tr("<b>Graph break %1</b>: %2<br>%3:%4 in %5")
                           .arg(t.index)
                           .arg(shortReason(br).toHtmlEscaped(), place.file.toHtmlEscaped())
                           .arg(place.line)
                           .arg(place.function.toHtmlEscaped());
        if (!place.code.isEmpty())
            text += QStringLiteral("<br><code>%1</code>").arg(place.code.toHtmlEscaped());
        if (const QString skipped = skipNote(br); !skipped.isEmpty())
            text += QStringLiteral("<br>") + skipped.toHtmlEscaped();
        if (place.inLibrary)
            text += QStringLiteral("<br>") + libraryNote(place).toHtmlEscaped();
        return text + QStringLiteral("<br><i>%1</i>").arg(graphBreakTerm().toHtmlEscaped());
    }
    const auto& g = run->graphs[static_cast<size_t>(t.index)];
    QString text = tr("<b>Graph %1</b> (compile %2): %3, %4 nodes<br>%5:%6<br>Click to show it in "
                      "the Graph tab.")
                       .arg(t.index)
                       .arg(QString::fromStdString(g.compileId),
                            QString::fromStdString(core::functionLabel(g.function)).toHtmlEscaped())
                       .arg(g.nodes.size())
                       .arg(QString::fromStdString(g.file).toHtmlEscaped())
                       .arg(g.line);
    if (compileAttempt(g.compileId) > 0)
        text += QStringLiteral("<br><i>%1</i>").arg(recompileTerm().toHtmlEscaped());
    return text;
}

void BreakMap::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    if (!message_.isEmpty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(viewport()->rect(), Qt::AlignCenter, message_);
        return;
    }
    const core::Run* run = document_->run(run_);
    if (!run)
        return;
    p.translate(-horizontalScrollBar()->value(), 0);
    const QFontMetrics fm = fontMetrics();
    QFont bold = font();
    bold.setBold(true);
    const int lineH = fm.height();

    // Links first, under the boxes: the flow of execution from left to right.
    p.setPen(QPen(pal.color(QPalette::Mid), 1.5));
    for (size_t i = 1; i < tokens_.size(); ++i) {
        const QRect a = tokens_[i - 1].rect;
        const QRect b = tokens_[i].rect;
        const int y = a.center().y();
        p.drawLine(a.right(), y, b.left(), y);
        p.drawLine(b.left() - 6, y - 4, b.left(), y);
        p.drawLine(b.left() - 6, y + 4, b.left(), y);
    }

    for (const auto& t : tokens_) {
        const QRect r = t.rect;
        if (t.isBreak) {
            const auto& br = run->graphBreaks[static_cast<size_t>(t.index)];
            const BreakPlace place = breakPlace(br);
            const bool on = isBreakHighlighted(t.index);
            QColor tint = kBreakColor;
            tint.setAlpha(on ? 60 : 22);
            p.setBrush(tint);
            p.setPen(on ? QPen(kBreakColor, 3) : QPen(kBreakColor, 1, Qt::DashLine));
            p.drawRoundedRect(r.adjusted(6, 2, -6, -2), 6, 6);
            // A jagged cut marks where the compiled code stops.
            QPainterPath cut;
            const int x = r.left() + 16;
            cut.moveTo(x, r.top() + 6);
            for (int y = r.top() + 6, k = 0; y < r.bottom() - 6; y += 6, ++k)
                cut.lineTo(x + (k % 2 ? -5 : 5), y + 6);
            p.setPen(QPen(kBreakColor, 2));
            p.setBrush(Qt::NoBrush);
            p.drawPath(cut);
            const QRect text = r.adjusted(28, 6, -12, -6);
            p.setFont(bold);
            p.setPen(kBreakColor);
            p.drawText(
                QRect(text.left(), text.top(), text.width(), lineH),
                Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetrics(bold).elidedText(shortReason(br), Qt::ElideRight, text.width()));
            p.setFont(font());
            p.setPen(pal.color(QPalette::Text));
            const QString where =
                place.line > 0
                    ? QStringLiteral("%1:%2").arg(QFileInfo(place.file).fileName()).arg(place.line)
                    : tr("no location");
            p.drawText(QRect(text.left(), text.top() + lineH, text.width(), lineH),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(where, Qt::ElideMiddle, text.width()));
            p.setPen(pal.color(QPalette::PlaceholderText));
            p.drawText(QRect(text.left(), text.top() + 2 * lineH, text.width(), lineH),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(t.detail, Qt::ElideRight, text.width()));
            continue;
        }
        const auto& g = run->graphs[static_cast<size_t>(t.index)];
        const bool on = isGraphHighlighted(t.index);
        p.setBrush(pal.color(QPalette::Base));
        p.setPen(on ? QPen(pal.color(QPalette::Highlight), 3) : QPen(pal.color(QPalette::Mid), 1));
        p.drawRoundedRect(r.adjusted(1, 1, -1, -1), 6, 6);
        const QRect text = r.adjusted(10, 6, -10, -6);
        p.setFont(bold);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(text.left(), text.top(), text.width(), lineH),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(bold).elidedText(
                       tr("graph %1 · %2")
                           .arg(t.index)
                           .arg(QString::fromStdString(core::functionLabel(g.function))),
                       Qt::ElideRight, text.width()));
        p.setFont(font());
        QString second = counted(static_cast<qsizetype>(g.nodes.size()), tr("node"), tr("nodes"));
        if (compileAttempt(g.compileId) > 0)
            second += tr(" · recompile %1").arg(QString::fromStdString(g.compileId));
        p.drawText(QRect(text.left(), text.top() + lineH, text.width(), lineH),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(second, Qt::ElideRight, text.width()));
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(QRect(text.left(), text.top() + 2 * lineH, text.width(), lineH),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(QStringLiteral("%1:%2")
                                     .arg(QFileInfo(QString::fromStdString(g.file)).fileName())
                                     .arg(g.line),
                                 Qt::ElideMiddle, text.width()));
    }
}

} // namespace cs::widgets
