// The CLI's progress line: rewritten in place on a terminal, one line per
// change of phase otherwise (CI logs stay readable).
#pragma once

#include <QElapsedTimer>
#include <QString>
#include <QTimer>

namespace cs::core {
class SessionRunner;
}

namespace cs::app {

// "[ 40%] default (2/2) — compiling (first call: tracing)  01:35"
QString progressLine(double fraction, const QString& text, qint64 elapsedMs);

// What a progress text is doing, less what changes within it: torch's compile
// stage, a counter, the long compile's hint. Off a terminal a line is printed
// when this changes (a model of 28 graphs printed 250 lines of compile stages).
QString progressStage(const QString& text);

class CliProgress {
  public:
    explicit CliProgress(const core::SessionRunner& runner);
    void update();
    void finishLine();

  private:
    const core::SessionRunner& runner_;
    bool terminal_;
    QString lastShown_;
    QElapsedTimer sinceLast_;
    // Events stop while torch compiles a big graph: the clock ticks on its own.
    QTimer tick_;
};

} // namespace cs::app
