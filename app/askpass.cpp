#include "app/askpass.h"

#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QTextStream>

namespace cs::app {

bool isAskpassInvocation() {
    return qEnvironmentVariable("COMPILESCOPE_ASKPASS") == QLatin1String("1");
}

bool isSecretPrompt(const QString& prompt) {
    // ssh's own wording: "user@host's password:", "Enter passphrase for key ...:",
    // "Verification code:" (keyboard-interactive) and PIN prompts of security keys.
    for (const char* word : {"password", "passphrase", "pin", "verification code", "otp"}) {
        if (prompt.contains(QLatin1String(word), Qt::CaseInsensitive))
            return true;
    }
    return false;
}

int askpass(const QString& prompt, const QByteArray& kind, QTextStream& out) {
    const QString title = QObject::tr("compilescope: ssh asks");
    if (kind == "confirm") {
        const auto answer = QMessageBox::question(nullptr, title, prompt);
        return answer == QMessageBox::Yes ? 0 : 1;
    }
    if (kind == "none") {
        QMessageBox::information(nullptr, title, prompt);
        return 0;
    }
    QInputDialog dialog;
    dialog.setWindowTitle(title);
    dialog.setLabelText(prompt.isEmpty() ? QObject::tr("ssh asks for an answer:") : prompt);
    // Host key questions ("yes/no/[fingerprint]") are answered in clear text.
    dialog.setTextEchoMode(isSecretPrompt(prompt) ? QLineEdit::Password : QLineEdit::Normal);
    dialog.setInputMode(QInputDialog::TextInput);
    if (dialog.exec() != QDialog::Accepted)
        return 1;
    out << dialog.textValue() << '\n';
    out.flush();
    return 0;
}

} // namespace cs::app
