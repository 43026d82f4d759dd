// The GUI binary doubles as ssh's SSH_ASKPASS helper: RemoteHost starts ssh
// with COMPILESCOPE_ASKPASS=1 and SSH_ASKPASS=<this binary>, and ssh runs it
// with the prompt as its argument whenever it must ask the user something.
#pragma once

#include <QByteArray>
#include <QString>

class QTextStream;

namespace cs::app {

// Whether this process was started by ssh as its askpass helper.
bool isAskpassInvocation();

// Whether the answer to `prompt` is a secret (hidden while typed).
bool isSecretPrompt(const QString& prompt);

// Asks the user (a QApplication must exist) and writes the answer and a
// newline to `out`. `kind` is ssh's SSH_ASKPASS_PROMPT: "confirm" is a yes/no
// question answered by the exit code, "none" a notice (touch your security
// key) that ssh closes itself, anything else a question answered in words.
// Returns the process's exit code: 0 answered, 1 cancelled.
int askpass(const QString& prompt, const QByteArray& kind, QTextStream& out);

} // namespace cs::app
