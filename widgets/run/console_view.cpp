#include "widgets/run/console_view.h"

#include <QFontDatabase>
#include <QScrollBar>

#include "widgets/common/report_document.h"

namespace cs::widgets {

ConsoleView::ConsoleView(ReportDocument* document, QWidget* parent)
    : QPlainTextEdit(parent), document_(document) {
    setReadOnly(true);
    setMaximumBlockCount(50000);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setPlaceholderText(
        tr("The model's own output (print, warnings) and the probe's log appear here."));
    connect(document_, &ReportDocument::reportReset, this, [this] {
        if (!document_->isLive())
            showSavedConsole();
    });
}

void ConsoleView::showSavedConsole() {
    clear();
    lastRun_ = -1;
    const auto& runs = document_->report().runs;
    for (size_t i = 0; i < runs.size(); ++i) {
        if (!runs[i].console.empty())
            appendOutput(static_cast<int>(i), QString::fromStdString(runs[i].console));
    }
}

void ConsoleView::appendOutput(int run, const QString& text) {
    if (run != lastRun_) {
        lastRun_ = run;
        const auto* r = document_->run(run);
        appendNotice(
            QStringLiteral("── %1 ──")
                .arg(r ? QString::fromStdString(r->setting.label()) : QString::number(run)));
    }
    const bool atEnd = verticalScrollBar()->value() == verticalScrollBar()->maximum();
    moveCursor(QTextCursor::End);
    insertPlainText(text);
    if (atEnd)
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

void ConsoleView::appendNotice(const QString& text) {
    moveCursor(QTextCursor::End);
    if (!toPlainText().isEmpty() && !toPlainText().endsWith('\n'))
        insertPlainText("\n");
    insertPlainText(text + "\n");
}

} // namespace cs::widgets
