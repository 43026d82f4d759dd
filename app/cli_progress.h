// The CLI's progress line: rewritten in place on a terminal, one line per
// change of phase otherwise (CI logs stay readable).
#pragma once

#include <QElapsedTimer>
#include <QString>

namespace cs::core {
class SessionRunner;
}

namespace cs::app {

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
};

} // namespace cs::app
