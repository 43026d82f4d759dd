#include "app/cli_progress.h"

#include <QRegularExpression>

#include <cstdio>
#include <unistd.h>

#include "core/runner/session_runner.h"

namespace cs::app {

QString progressLine(double fraction, const QString& text, qint64 elapsedMs) {
    const qint64 seconds = elapsedMs / 1000;
    return QStringLiteral("[%1%] %2  %3:%4")
        .arg(static_cast<int>(fraction * 100), 3)
        .arg(text)
        .arg(seconds / 60, 2, 10, QChar('0'))
        .arg(seconds % 60, 2, 10, QChar('0'));
}

QString progressStage(const QString& text) {
    // "warmup 2/5, compiling (tracing)" is the warmup; "compiling (first
    // call: tracing)" is compiling.
    static const QRegularExpression compileWithin(QStringLiteral(R"(,\scompiling \([^)]*\))"));
    static const QRegularExpression compileStage(QStringLiteral(R"(compiling \([^)]*\))"));
    static const QRegularExpression trailingCounter(QStringLiteral(R"(\s\d+/\d+$)"));
    static const QString dash = QStringLiteral(" — ");
    QString stage = text;
    const qsizetype first = stage.indexOf(dash);
    const qsizetype hint = first < 0 ? -1 : stage.indexOf(dash, first + dash.size());
    if (hint >= 0)
        stage.truncate(hint);
    stage.replace(compileWithin, QString());
    stage.replace(compileStage, QStringLiteral("compiling"));
    stage.replace(trailingCounter, QString());
    return stage;
}

CliProgress::CliProgress(const core::SessionRunner& runner)
    : runner_(runner), terminal_(::isatty(STDERR_FILENO) == 1) {
    sinceLast_.start();
    tick_.setInterval(1000);
    QObject::connect(&tick_, &QTimer::timeout, [this] { update(); });
    tick_.start();
}

void CliProgress::update() {
    const QString text = runner_.progressText();
    if (text.isEmpty())
        return;
    const QString line = progressLine(runner_.progressFraction(), text, runner_.currentElapsedMs());
    if (terminal_) {
        std::fprintf(stderr, "\r\033[K%s", line.toLocal8Bit().constData());
    } else {
        // Off a terminal, print when the stage changes or every 10 s at most.
        if (progressStage(text) == progressStage(lastShown_) && sinceLast_.elapsed() < 10000)
            return;
        std::fprintf(stderr, "%s\n", line.toLocal8Bit().constData());
        sinceLast_.restart();
    }
    lastShown_ = text;
    std::fflush(stderr);
}

void CliProgress::finishLine() {
    if (terminal_)
        std::fprintf(stderr, "\r\033[K");
    lastShown_.clear();
}

} // namespace cs::app
