// The GUI as ssh's askpass helper: secrets are typed hidden, host-key
// questions in clear; the answer and a newline go to ssh, cancel is exit 1.
#include <QAbstractButton>
#include <QApplication>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QTest>
#include <QTextStream>
#include <QTimer>
#include <functional>

#include "app/askpass.h"
#include "tests/widgets/qt_warning_guard.h"

using namespace cs;

namespace {

// Answers the dialog askpass() is about to show, once it is up.
void answerLater(const std::function<void(QWidget*)>& answer) {
    QTimer::singleShot(0, [answer] {
        QTRY_VERIFY(QApplication::activeModalWidget());
        answer(QApplication::activeModalWidget());
    });
}

} // namespace

class AskpassTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void secretsAreHidden() {
        QVERIFY(app::isSecretPrompt("root@127.0.0.1's password: "));
        QVERIFY(app::isSecretPrompt("Enter passphrase for key '/home/me/.ssh/id_ed25519': "));
        QVERIFY(app::isSecretPrompt("Enter PIN for ED25519-SK key /home/me/.ssh/id_sk: "));
        QVERIFY(!app::isSecretPrompt(
            "Are you sure you want to continue connecting (yes/no/[fingerprint])? "));
    }

    void passwordIsWrittenForSsh() {
        QString written;
        QTextStream out(&written);
        QLineEdit::EchoMode echo = QLineEdit::Normal;
        QString label;
        answerLater([&](QWidget* widget) {
            auto* dialog = qobject_cast<QInputDialog*>(widget);
            QVERIFY(dialog);
            echo = dialog->textEchoMode();
            label = dialog->labelText();
            dialog->setTextValue("s3cret pass");
            dialog->accept();
        });
        QCOMPARE(app::askpass("bob@gpu's password: ", {}, out), 0);
        QCOMPARE(echo, QLineEdit::Password);
        QCOMPARE(label, QString("bob@gpu's password: "));
        QCOMPARE(written, QString("s3cret pass\n"));
    }

    void hostKeyQuestionIsInClearText() {
        QString written;
        QTextStream out(&written);
        QLineEdit::EchoMode echo = QLineEdit::Password;
        answerLater([&](QWidget* widget) {
            auto* dialog = qobject_cast<QInputDialog*>(widget);
            QVERIFY(dialog);
            echo = dialog->textEchoMode();
            dialog->setTextValue("yes");
            dialog->accept();
        });
        QCOMPARE(app::askpass("Are you sure you want to continue connecting (yes/no)? ", {}, out),
                 0);
        QCOMPARE(echo, QLineEdit::Normal);
        QCOMPARE(written, QString("yes\n"));
    }

    void cancelIsExitOneAndWritesNothing() {
        QString written;
        QTextStream out(&written);
        answerLater([](QWidget* widget) { qobject_cast<QDialog*>(widget)->reject(); });
        QCOMPARE(app::askpass("Password: ", {}, out), 1);
        QVERIFY(written.isEmpty());
    }

    void confirmIsAnsweredByTheExitCode() {
        QString written;
        QTextStream out(&written);
        answerLater([](QWidget* widget) {
            auto* box = qobject_cast<QMessageBox*>(widget);
            QVERIFY(box);
            box->button(QMessageBox::No)->click();
        });
        QCOMPARE(app::askpass("Allow use of key /home/me/.ssh/id_sk?", "confirm", out), 1);
        QVERIFY(written.isEmpty());
    }
};

QTEST_MAIN(AskpassTest)
#include "test_askpass.moc"
