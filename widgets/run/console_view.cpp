#include "widgets/run/console_view.h"

#include <QFontDatabase>
#include <QScrollBar>

#include "widgets/common/report_document.h"

namespace cs::widgets {

namespace {

QString captureWarningLine(const core::CaptureWarning& warning) {
    return ConsoleView::tr("capture warning: %1 missing under torch %2: %3")
        .arg(QString::fromStdString(warning.what), QString::fromStdString(warning.torch),
             QString::fromStdString(warning.error));
}

} // namespace

ConsoleView::ConsoleView(ReportDocument* document, QWidget* parent)
    : QPlainTextEdit(parent), document_(document) {
    setReadOnly(true);
    setMaximumBlockCount(50000);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setPlaceholderText(
        tr("The model's own output (print, warnings) and the probe's log appear here."));
    connect(document_, &ReportDocument::reportReset, this, [this] {
        warningsShown_.clear();
        logsShown_.clear();
        if (!document_->isLive())
            showSavedConsole();
    });
    connect(document_, &ReportDocument::runChanged, this, &ConsoleView::showNewCaptureWarnings);
}

void ConsoleView::showSavedConsole() {
    clear();
    lastRun_ = -1;
    const auto& runs = document_->report().runs;
    for (size_t i = 0; i < runs.size(); ++i) {
        showNewCaptureWarnings(static_cast<int>(i));
        if (!runs[i].console.empty())
            appendOutput(static_cast<int>(i), QString::fromStdString(runs[i].console));
    }
}

void ConsoleView::showNewCaptureWarnings(int run) {
    const auto* r = document_->run(run);
    if (!r)
        return;
    if (warningsShown_.size() <= static_cast<size_t>(run))
        warningsShown_.resize(static_cast<size_t>(run) + 1, 0);
    size_t& shown = warningsShown_[static_cast<size_t>(run)];
    for (; shown < r->captureWarnings.size(); ++shown) {
        startSection(run);
        appendNotice(captureWarningLine(r->captureWarnings[shown]));
    }
    if (logsShown_.size() <= static_cast<size_t>(run))
        logsShown_.resize(static_cast<size_t>(run) + 1, 0);
    size_t& looked = logsShown_[static_cast<size_t>(run)];
    for (; looked < r->logs.size(); ++looked) {
        const auto& line = r->logs[looked];
        if (line.level != "warning")
            continue; // info is the probe's narration; errors have their own views
        startSection(run);
        appendNotice(tr("probe warning: %1").arg(QString::fromStdString(line.message)));
    }
}

void ConsoleView::startSection(int run) {
    if (run == lastRun_)
        return;
    lastRun_ = run;
    const auto* r = document_->run(run);
    appendNotice(QStringLiteral("── %1 ──")
                     .arg(r ? QString::fromStdString(r->setting.label()) : QString::number(run)));
}

void ConsoleView::appendOutput(int run, const QString& text) {
    startSection(run);
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
