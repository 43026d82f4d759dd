// The Target picker and "Test connection" against a real sshd on 127.0.0.1
// (tests/support/sshd_fixture.py, its own keys and client config): the
// config's hosts are listed, a test says what the host has in one line and
// fills the interpreter list, a closed port is said in one line naming the
// host, and a remote report's source is read on its host.
#include <QComboBox>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "app/main_window.h"
#include "core/report/report_json.h"
#include "core/runner/interpreter_probe.h"
#include "core/runner/remote_host.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/fixture_report.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/breaks/breaks_tab.h"
#include "widgets/breaks/source_file_loader.h"
#include "widgets/breaks/source_pane.h"
#include "widgets/run/settings_panel.h"

using namespace cs;
using cs::test::child;

namespace {

constexpr int kConnectMs = 60000; // a first login and the interpreters' torch imports

int indexOf(const QComboBox* box, const QString& text) {
    for (int i = 0; i < box->count(); ++i) {
        if (box->itemText(i) == text)
            return i;
    }
    return -1;
}

// As a user does it: the item is chosen, so the picker's activated fires.
void pick(QComboBox* box, const QString& text) {
    const int index = indexOf(box, text);
    QVERIFY2(index >= 0, qPrintable(text + " is not in the Target picker"));
    box->setCurrentIndex(index);
    emit box->activated(index);
}

} // namespace

class RemoteTargetTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("compilescope-test");
        QCoreApplication::setApplicationName("test_remote_target");
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        qputenv("COMPILESCOPE_PYTHON", "/usr/bin/python3");
        if (!QFileInfo::exists("/usr/sbin/sshd"))
            QSKIP("no /usr/sbin/sshd (Debian's openssh-server; .ci/run installs it)");
        QVERIFY(dir_.isValid());
        sshd_.start("python3", {SSHD_FIXTURE, "serve", dir_.path()});
        QVERIFY(sshd_.waitForStarted());
        QDeadlineTimer deadline(30000);
        while (!sshd_.canReadLine() && sshd_.state() == QProcess::Running && !deadline.hasExpired())
            sshd_.waitForReadyRead(500);
        const QByteArray line = sshd_.readLine();
        QVERIFY2(!line.isEmpty(), sshd_.readAllStandardError().constData());
        info_ = QJsonDocument::fromJson(line).object();
        QVERIFY2(info_.contains("client_config"), line.constData());
        qputenv("COMPILESCOPE_SSH_CONFIG", info_["client_config"].toString().toUtf8());
        cs::test::installWarningGuard();
    }
    void cleanupTestCase() {
        if (sshd_.state() == QProcess::NotRunning)
            return;
        sshd_.closeWriteChannel(); // the fixture stops its sshd when stdin closes
        if (!sshd_.waitForFinished(15000))
            sshd_.kill();
    }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void pickerListsTheConfigsHosts() {
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        auto* target = child<QComboBox>(panel, "target");
        QCOMPARE(target->itemText(0), QString("This computer"));
        QVERIFY(indexOf(target, "127.0.0.1") > 0);
        QVERIFY(indexOf(target, "cs-test") > 0);
        QCOMPARE(target->itemText(target->count() - 1), QString("Add…"));
        QVERIFY(!child<QPushButton>(panel, "testConnection")->isEnabled());
    }

    void connectionTestSaysWhatTheHostHas() {
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        panel.resize(360, 800);
        panel.show();
        QSignalSpy tested(&panel, &widgets::SettingsPanel::connectionTested);
        auto* button = child<QPushButton>(panel, "testConnection");
        auto* info = child<QLabel>(panel, "targetInfo");

        // Picking the host asks it at once: busy, then its answer.
        pick(child<QComboBox>(panel, "target"), "cs-test");
        QCOMPARE(QString::fromStdString(panel.target()->spec()), QString("ssh://cs-test"));
        QVERIFY(!button->isEnabled());
        QVERIFY2(info->text().contains("Connecting to cs-test"), qPrintable(info->text()));
        QVERIFY(tested.wait(kConnectMs));
        QVERIFY2(info->text().startsWith("✓"), qPrintable(info->text()));
        QVERIFY(button->isEnabled());

        // A typed interpreter is asked about by the next test.
        auto* python = child<QComboBox>(panel, "python");
        QVERIFY(python->isEditable());
        python->setEditText(VENV_PYTHON);
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(button->text(), QString("Testing…"));
        QVERIFY(tested.wait(kConnectMs));
        const QString line = info->text();
        QVERIFY2(line.startsWith("✓") && !line.contains('\n'), qPrintable(line));
        const QString detail = info->toolTip();
        QVERIFY2(detail.contains(QStringLiteral(VENV_PYTHON ": ")), qPrintable(detail));
        QVERIFY2(detail.contains("torch"), qPrintable(detail));
        // Candidates the host lacks are left out: on loopback, every listed
        // interpreter is a program here.
        const QStringList listed = detail.section("Pythons:\n", 1).split('\n');
        QVERIFY(!listed.isEmpty());
        for (const QString& entry : listed)
            QVERIFY2(QFileInfo(entry.trimmed().section(": ", 0, 0)).isExecutable(),
                     qPrintable(entry));
        QCOMPARE(panel.python(), QString(VENV_PYTHON));
        QVERIFY(python->findText(VENV_PYTHON) >= 0);
        const QString pythonInfo = child<QLabel>(panel, "pythonInfo")->text();
        QVERIFY2(pythonInfo.contains("torch"), qPrintable(pythonInfo));
        // The local probe was never asked about the host's interpreter.
        QVERIFY(!interpreters.cached(VENV_PYTHON));
        if (const QString shots = qEnvironmentVariable("CS_SHOT_DIR"); !shots.isEmpty())
            panel.grab().save(shots + "/target_tested.png");

        // A typed path the host lacks is kept, with the host's answer about it.
        python->setEditText("/no/such/python");
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(tested.wait(kConnectMs));
        QCOMPARE(panel.python(), QString("/no/such/python"));
        const QString missingInfo = child<QLabel>(panel, "pythonInfo")->text();
        QVERIFY2(missingInfo.startsWith("⚠") && missingInfo.contains("/no/such/python"),
                 qPrintable(missingInfo));
        QVERIFY(python->findText(VENV_PYTHON) >= 0); // still offered

        // The connection serves the source view too.
        const auto host = panel.remoteHost();
        QVERIFY(host);
        const widgets::SourceReader reader = widgets::remoteSourceReader(host);
        const widgets::SourceText ok = reader(TEST_MODELS "/ok.py");
        QVERIFY2(ok.ok, qPrintable(ok.error));
        QFile local(TEST_MODELS "/ok.py");
        QVERIFY(local.open(QIODevice::ReadOnly | QIODevice::Text));
        QCOMPARE(ok.lines.join('\n'), QString::fromUtf8(local.readAll()).chopped(1));
        const widgets::SourceText missing = reader("/nowhere/model.py");
        QVERIFY(!missing.ok);
        QVERIFY2(missing.error.contains("cs-test") && missing.error.contains("/nowhere/model.py"),
                 qPrintable(missing.error));
    }

    void closedPortIsOneLineNamingTheHost() {
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        QSignalSpy tested(&panel, &widgets::SettingsPanel::connectionTested);
        QVERIFY(panel.addTarget("ssh://127.0.0.1:1")); // nothing listens on port 1
        QTest::mouseClick(child<QPushButton>(panel, "testConnection"), Qt::LeftButton);
        QVERIFY(tested.wait(kConnectMs));
        const QString line = child<QLabel>(panel, "targetInfo")->text();
        QVERIFY2(line.startsWith("⚠") && !line.contains('\n'), qPrintable(line));
        QVERIFY2(line.contains("127.0.0.1"), qPrintable(line));
    }

    void remoteReportReadsItsSourceOnItsHost() {
        QTemporaryDir dir;
        core::Run run = test::replayFixture("print_break_aot_eager_cpu.jsonl");
        const QString source = test::relocateSource(run, "print_break.py", QDir(dir.path()));
        core::Report report = test::reportOf({run});
        report.environment.target = "ssh://cs-test";
        const QString path = dir.filePath("remote.json");
        std::string error;
        QVERIFY(core::saveTextFile(path.toStdString(), core::writeReportJson(report), &error));

        app::MainWindow window;
        window.setQuiet(true);
        window.show();
        QSignalSpy opened(&window, &app::MainWindow::reportOpened);
        window.openReport(path);
        QVERIFY(opened.wait(20000));
        QCOMPARE(QString::fromStdString(window.settingsPanel()->target()->spec()),
                 QString("ssh://cs-test"));
        auto* breaks = window.findChild<widgets::BreaksTab*>();
        window.tabs()->setCurrentWidget(breaks);
        auto* pane = child<widgets::SourcePane>(*breaks, "sourcePane");
        QTRY_VERIFY_WITH_TIMEOUT(pane->isShowingCode(), kConnectMs);

        // Gone from the host: its words, naming the host, not a local "moved or deleted".
        QVERIFY(QFile::remove(source));
        window.openReport(path);
        QVERIFY(opened.wait(20000));
        QTRY_VERIFY_WITH_TIMEOUT(pane->message().contains("cs-test"), kConnectMs);
        QVERIFY2(!pane->message().contains("does not exist any more"), qPrintable(pane->message()));
        window.settingsPanel()->setTarget({});
    }

  private:
    QTemporaryDir dir_;
    QProcess sshd_;
    QJsonObject info_;
};

QTEST_MAIN(RemoteTargetTest)
#include "test_remote_target.moc"
