// The run settings' TORCH_TRACE option: off by default, its directory field
// usable only when ticked, a ticked box with no directory does not run, and
// the choice survives a restart.
#include <QCheckBox>
#include <QCoreApplication>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTest>

#include "core/runner/interpreter_probe.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/run/settings_panel.h"

using namespace cs;
using cs::test::child;

class SettingsPanelTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        qputenv("COMPILESCOPE_PYTHON", "/usr/bin/python3");
        QCoreApplication::setOrganizationName("compilescope-test");
        QCoreApplication::setApplicationName("test_settings_panel");
        QStandardPaths::setTestModeEnabled(true);
        cs::test::installWarningGuard();
    }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void torchTraceIsOffByDefault() {
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        auto* box = child<QCheckBox>(panel, "torchTrace");
        QVERIFY(!box->isChecked());
        QVERIFY(!child<QLineEdit>(panel, "torchTraceDir")->isEnabled());
        QVERIFY(!child<QPushButton>(panel, "torchTraceBrowse")->isEnabled());
        QVERIFY(panel.torchTraceDir().isEmpty());
        QVERIFY(box->toolTip().contains("tlparse"));
        QVERIFY(box->toolTip().contains("Import TORCH_TRACE"));
    }

    void tickingEnablesTheDirectory() {
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        panel.setModelSpec("model.py");
        auto* dir = child<QLineEdit>(panel, "torchTraceDir");
        child<QCheckBox>(panel, "torchTrace")->setChecked(true);
        QVERIFY(dir->isEnabled());
        QVERIFY(child<QPushButton>(panel, "torchTraceBrowse")->isEnabled());
        dir->setText("/tmp/traces here");
        QCOMPARE(panel.torchTraceDir(), QString("/tmp/traces here"));
        dir->setText("relative/traces");
        QCOMPARE(panel.torchTraceDir(), QDir::current().absoluteFilePath("relative/traces"));

        // Ticked with no directory: nothing to run until one is given or the box unticked.
        auto* run = child<QPushButton>(panel, "run");
        QVERIFY(run->isEnabled());
        dir->clear();
        QVERIFY(!run->isEnabled());
        QVERIFY(!child<QPushButton>(panel, "compareAll")->isEnabled());
        child<QCheckBox>(panel, "torchTrace")->setChecked(false);
        QVERIFY(run->isEnabled());
        QVERIFY(panel.torchTraceDir().isEmpty());
        QVERIFY(!dir->isEnabled());
    }

    void choiceSurvivesARestart() {
        {
            core::InterpreterProbe interpreters;
            widgets::SettingsPanel panel(&interpreters);
            panel.setTorchTrace(true, "/tmp/kept-traces");
            panel.saveState();
        }
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        QVERIFY(panel.torchTraceDir().isEmpty());
        panel.restoreState();
        QCOMPARE(panel.torchTraceDir(), QString("/tmp/kept-traces"));
        QVERIFY(child<QLineEdit>(panel, "torchTraceDir")->isEnabled());
    }
};

QTEST_MAIN(SettingsPanelTest)
#include "test_settings_panel.moc"
