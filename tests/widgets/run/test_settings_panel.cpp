// The run settings' TORCH_TRACE option: off by default, its directory field
// usable only when ticked, a ticked box with no directory does not run, and
// the choice survives a restart. The Target picker without a host to reach:
// what it lists, "Add…"'s validation, the remote interpreter field and the
// model line, and what survives a restart (tests/app/test_remote_target.cpp
// connects to a real sshd).
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>

#include "core/report/session.h"
#include "core/runner/interpreter_probe.h"
#include "core/runner/probe_command.h"
#include "core/runner/session_runner.h"
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

    // "warm starts": each compiled setting three ways, eager once, no sweep;
    // the warm-cache box steps aside (warm starts measure it themselves).
    void warmStartsRunEachCompiledSettingThreeWays() {
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        for (const auto& mode : core::knownModes())
            child<QCheckBox>(panel, mode.c_str())->setChecked(mode == "eager" || mode == "default");
        auto* warmStarts = child<QCheckBox>(panel, "warmStarts");
        warmStarts->setChecked(false);
        QCOMPARE(panel.settings().size(), size_t(2));
        warmStarts->setChecked(true);
        QVERIFY(warmStarts->toolTip().contains("portable cache artifacts"));
        const auto settings = panel.settings();
        QCOMPARE(settings.size(), size_t(4));
        QCOMPARE(settings[0].mode, std::string("eager"));
        QCOMPARE(settings[1].start, std::string(core::kStartFresh));
        QCOMPARE(settings[2].start, std::string(core::kStartWarmCache));
        QCOMPARE(settings[3].start, std::string(core::kStartCacheArtifacts));
        for (const auto& s : settings)
            QVERIFY(!s.sweep);
        warmStarts->setChecked(false);
    }

    // dynamic "compare all three": each compiled mode under auto, true and
    // false, eager once; "Compare all modes" the same; the choice is kept.
    void dynamicCompareRunsEachCompiledModeThreeWays() {
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        for (const auto& mode : core::knownModes())
            child<QCheckBox>(panel, mode.c_str())->setChecked(mode == "eager" || mode == "default");
        auto* dynamic = child<QComboBox>(panel, "dynamic");
        QVERIFY(dynamic->toolTip().contains("compare all three"));
        dynamic->setCurrentIndex(dynamic->findData(QStringLiteral("compare")));
        std::vector<std::string> labels;
        for (const auto& s : panel.settings())
            labels.push_back(s.label());
        QCOMPARE(labels,
                 (std::vector<std::string>{"eager", "default", "default dyn", "default static"}));
        size_t compiled = 0;
        for (const auto& s : panel.allModeSettings())
            compiled += s.mode != "eager" && s.mode != "aoti";
        // Not as-written: no model file here makes a torch.compile call of its own.
        QCOMPARE(compiled, 3 * (core::knownModes().size() - 3));
        panel.saveState();
        widgets::SettingsPanel restored(&interpreters);
        restored.restoreState();
        QCOMPARE(child<QComboBox>(restored, "dynamic")->currentData().toString(),
                 QStringLiteral("compare"));
        dynamic->setCurrentText("auto");
        panel.saveState();
    }

    // autocast "compare none and bf16": every ticked mode, eager too, without
    // and with; the choice is kept.
    void autocastCompareRunsEachModeBothWays() {
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        for (const auto& mode : core::knownModes())
            child<QCheckBox>(panel, mode.c_str())->setChecked(mode == "eager" || mode == "default");
        auto* autocast = child<QComboBox>(panel, "autocast");
        QVERIFY(panel.compareAutocast().isEmpty());
        autocast->setCurrentIndex(autocast->findData(QStringLiteral("compare:bf16")));
        QCOMPARE(autocast->currentText(), QString("compare none and bf16"));
        QCOMPARE(panel.compareAutocast(), QString("bf16"));
        std::vector<std::string> labels;
        for (const auto& s : panel.settings())
            labels.push_back(s.label());
        QCOMPARE(labels,
                 (std::vector<std::string>{"eager", "eager bf16", "default", "default bf16"}));
        panel.saveState();
        widgets::SettingsPanel restored(&interpreters);
        restored.restoreState();
        QCOMPARE(restored.compareAutocast(), QString("bf16"));
        autocast->setCurrentText("none");
        panel.saveState();
    }

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

    // The environment field: NAME=VALUE words for every probe; one that
    // cannot be set is named under the field and holds the run back.
    void environmentFieldSetsVariablesOrSaysWhatIsWrong() {
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        panel.setModelSpec("model.py");
        auto* field = child<QLineEdit>(panel, "probeEnvironment");
        auto* error = child<QLabel>(panel, "probeEnvironmentError");
        auto* run = child<QPushButton>(panel, "run");
        QVERIFY(panel.probeEnvironment().empty());
        QVERIFY(run->isEnabled());
        field->setText("  MALLOC_MMAP_THRESHOLD_=33554432   MALLOC_TRIM_THRESHOLD_=1073741824 ");
        QCOMPARE(panel.probeEnvironment(),
                 (std::map<std::string, std::string>{{"MALLOC_MMAP_THRESHOLD_", "33554432"},
                                                     {"MALLOC_TRIM_THRESHOLD_", "1073741824"}}));
        QVERIFY(error->isHidden());
        QVERIFY(run->isEnabled());
        field->setText("OMP_PROC_BIND=close PYTHONPATH=/elsewhere");
        QVERIFY(!error->isHidden());
        QVERIFY(error->text().contains("PYTHONPATH is set by compilescope"));
        QVERIFY(!run->isEnabled());
        QVERIFY(!child<QPushButton>(panel, "compareAll")->isEnabled());
        // A value with a blank in double quotes; an unclosed quote is named.
        field->setText("LD_PRELOAD=\"/opt/my libs/libjemalloc.so\"\tOMP_PROC_BIND=close");
        QVERIFY(error->isHidden());
        QCOMPARE(panel.probeEnvironment(),
                 (std::map<std::string, std::string>{{"LD_PRELOAD", "/opt/my libs/libjemalloc.so"},
                                                     {"OMP_PROC_BIND", "close"}}));
        field->setText("LD_PRELOAD=\"/opt/my libs");
        QVERIFY(!error->isHidden());
        QVERIFY(error->text().contains("is not closed"));
        QVERIFY(!run->isEnabled());
        field->setText("OMP_PROC_BIND=close");
        QVERIFY(error->isHidden());
        QVERIFY(run->isEnabled());
        panel.saveState();
        widgets::SettingsPanel restored(&interpreters);
        restored.restoreState();
        QCOMPARE(restored.probeEnvironment(),
                 (std::map<std::string, std::string>{{"OMP_PROC_BIND", "close"}}));
        restored.setProbeEnvironment(QString());
        restored.saveState();
    }

    // Torch variables the probes would inherit from the app's environment are
    // said before the run; in red when one turns compile off; one set in the
    // field overrides it; a remote probe inherits the host's, not these.
    void inheritedTorchVariablesAreSaidBeforeTheRun() {
        QTemporaryDir dir;
        writeSshConfig(dir);
        qputenv("TORCH_COMPILE_DISABLE", "1");
        qputenv("TORCH_LOGS", "+dynamo");
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        auto* note = child<QLabel>(panel, "inheritedEnvironment");
        QVERIFY(note->isVisibleTo(&panel));
        QVERIFY2(note->text().contains("TORCH_COMPILE_DISABLE=1 (turns torch.compile off"),
                 qPrintable(note->text()));
        QVERIFY(note->text().contains("TORCH_LOGS=+dynamo"));
        QVERIFY(note->styleSheet().contains("#c0392b"));
        child<QLineEdit>(panel, "probeEnvironment")->setText("TORCH_COMPILE_DISABLE=0");
        QVERIFY(!note->text().contains("TORCH_COMPILE_DISABLE"));
        QVERIFY(note->isVisibleTo(&panel));
        QVERIFY(note->styleSheet().isEmpty());
        child<QComboBox>(panel, "target")->setCurrentIndex(1);
        QVERIFY(!note->isVisibleTo(&panel));
        qunsetenv("TORCH_COMPILE_DISABLE");
        qunsetenv("TORCH_LOGS");
        widgets::SettingsPanel clean(&interpreters);
        QVERIFY(!child<QLabel>(clean, "inheritedEnvironment")->isVisibleTo(&clean));
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

    // The GUI's --timeout: a compile longer than the default limit had no
    // remedy in the GUI, whose timeout message says to raise the limit.
    void timeLimitIsMinutesAndSurvivesARestart() {
        {
            core::InterpreterProbe interpreters;
            widgets::SettingsPanel panel(&interpreters);
            QCOMPARE(panel.timeoutSeconds(), core::kDefaultProbeTimeoutSeconds);
            child<QSpinBox>(panel, "timeLimit")->setValue(40);
            QCOMPARE(panel.timeoutSeconds(), 2400);
            panel.saveState();
        }
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        panel.restoreState();
        QCOMPARE(panel.timeoutSeconds(), 2400);
        child<QSpinBox>(panel, "timeLimit")->setValue(15);
        panel.saveState();
    }

    void targetPickerListsTheConfigsHosts() {
        QTemporaryDir dir;
        writeSshConfig(dir);
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        auto* target = child<QComboBox>(panel, "target");
        QCOMPARE(itemTexts(target),
                 QStringList({"This computer", "gpu-box", "alice-gpu", "included", "Add…"}));
        QCOMPARE(target->currentIndex(), 0);
        QVERIFY(!panel.target());
        QVERIFY(!child<QPushButton>(panel, "testConnection")->isEnabled());
        QVERIFY(!child<QLabel>(panel, "modelSource")->isVisibleTo(&panel));
        QVERIFY(!child<QComboBox>(panel, "modelPlacement")->isVisibleTo(&panel));
        // Keyboard order follows the layout: target, its test, then the model.
        QCOMPARE(target->nextInFocusChain(), child<QPushButton>(panel, "testConnection"));
    }

    void addValidatesAndPicksTheTarget() {
        QTemporaryDir dir;
        writeSshConfig(dir);
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        QString error;
        QVERIFY(!panel.addTarget("ssh://gpu:notaport", &error));
        QVERIFY2(!error.isEmpty(), "a bad target says why");
        QVERIFY(!panel.target());
        QVERIFY(panel.addTarget("ssh://bob@gpu2.example:2222", &error));
        QVERIFY(panel.target());
        QCOMPARE(panel.target()->host, std::string("gpu2.example"));
        QCOMPARE(panel.target()->port, 2222);
        auto* target = child<QComboBox>(panel, "target");
        QCOMPARE(target->itemText(target->count() - 1), QString("Add…"));
        QVERIFY(child<QPushButton>(panel, "testConnection")->isEnabled());
        // Adding it again picks the one already there.
        const int count = target->count();
        QVERIFY(panel.addTarget("bob@gpu2.example:2222"));
        QCOMPARE(target->count(), count);
    }

    void addAsksUntilTheAnswerIsATargetOrCancelled() {
        QTemporaryDir dir;
        writeSshConfig(dir);
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        auto* target = child<QComboBox>(panel, "target");
        // Picking a target tests it at once: a closed local port fails fast, off the network.
        QStringList answers{"ssh://gpu:port", "ssh://dana@127.0.0.1:1"};
        QStringList warnings;
        // The dialogs are modal: answer each once it is up (a bad target, its
        // warning, a good one).
        std::function<void()> answer = [&] {
            QWidget* modal = QApplication::activeModalWidget();
            if (auto* input = qobject_cast<QInputDialog*>(modal)) {
                input->setTextValue(answers.takeFirst());
                input->accept();
            } else if (auto* box = qobject_cast<QMessageBox*>(modal)) {
                warnings << box->text();
                box->accept();
            }
            if (!answers.isEmpty())
                QTimer::singleShot(10, answer);
        };
        QTimer::singleShot(10, answer);
        const int add = target->count() - 1;
        target->setCurrentIndex(add);
        emit target->activated(add);
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings[0].contains("ssh://gpu:port"), qPrintable(warnings[0]));
        QVERIFY(panel.target());
        QCOMPARE(panel.target()->host, std::string("127.0.0.1"));
        QCOMPARE(panel.target()->user, std::string("dana"));

        // Cancelled: the target picked before stays.
        QTimer::singleShot(10, [] {
            if (auto* input = qobject_cast<QInputDialog*>(QApplication::activeModalWidget()))
                input->reject();
        });
        const int before = target->currentIndex();
        target->setCurrentIndex(target->count() - 1);
        emit target->activated(target->count() - 1);
        QCOMPARE(target->currentIndex(), before);
        QCOMPARE(panel.target()->port, 1);
    }

    // "Compare all modes" runs as-written only for a model file that calls
    // torch.compile itself: elsewhere it could only fail.
    void compareAllRunsAsWrittenOnlyWhereTheFileCompiles() {
        QTemporaryDir dir;
        auto write = [&](const QString& name, const QByteArray& text) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        };
        write("own.py", "import torch\n\n@torch.compile\ndef f(x):\n    return x\n");
        write("parts.py", "def get_model():\n    m = Net()\n    m.block.compile(mode='default')\n");
        write("plain.py", "import re\nPATTERN = re.compile(r'x')\n");
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        auto modes = [&] {
            std::vector<std::string> out;
            for (const auto& s : panel.allModeSettings())
                out.push_back(s.mode);
            return out;
        };
        auto hasAsWritten = [&] {
            const auto m = modes();
            return std::find(m.begin(), m.end(), core::kAsWritten) != m.end();
        };
        panel.setModelSpec(dir.filePath("own.py"));
        QVERIFY(hasAsWritten());
        panel.setModelSpec(dir.filePath("parts.py"));
        QVERIFY(hasAsWritten());
        panel.setModelSpec(dir.filePath("plain.py"));
        QVERIFY2(!hasAsWritten(), "re.compile is no torch.compile");
        panel.setModelSpec("torchvision:resnet18");
        QVERIFY(!hasAsWritten());
        QVERIFY(child<QCheckBox>(panel, "as-written")->toolTip().contains("own torch.compile"));
    }

    void remoteTargetTakesATypedInterpreterAndSaysWhereTheModelIs() {
        QTemporaryDir dir;
        writeSshConfig(dir);
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        const QString local = panel.python();
        auto* pythonBox = child<QComboBox>(panel, "python");
        QVERIFY(!pythonBox->isEditable());
        panel.setModelSpec("/srv/models/not_here.py");
        panel.setTarget("ssh://gpu-box");
        QCOMPARE(panel.target()->host, std::string("gpu-box"));
        QVERIFY2(pythonBox->isEditable(), "a remote target takes a typed interpreter path");
        pythonBox->setEditText("/opt/conda/bin/python");
        QCOMPARE(panel.python(), QString("/opt/conda/bin/python"));
        auto* source = child<QLabel>(panel, "modelSource");
        QVERIFY(source->isVisibleTo(&panel));
        QVERIFY2(source->text().contains("gpu-box"), qPrintable(source->text()));
        const QString remoteLine = source->text();
        panel.setModelSpec("torchvision:resnet18");
        QVERIFY(source->text() != remoteLine);
        panel.setModelPlacement(core::ModelPlacement::Remote);
        QCOMPARE(panel.modelPlacement(), core::ModelPlacement::Remote);
        // Home again: the local interpreter, not editable, no model line.
        panel.setTarget({});
        QVERIFY(!pythonBox->isEditable());
        QCOMPARE(panel.python(), local);
        QVERIFY(!source->isVisibleTo(&panel));
    }

    void targetSurvivesARestart() {
        QTemporaryDir dir;
        writeSshConfig(dir);
        {
            core::InterpreterProbe interpreters;
            widgets::SettingsPanel panel(&interpreters);
            QVERIFY(panel.addTarget("ssh://carol@kept.example:2200"));
            panel.setPython("/home/carol/venv/bin/python");
            panel.setModelPlacement(core::ModelPlacement::Local);
            panel.saveState();
        }
        core::InterpreterProbe interpreters;
        widgets::SettingsPanel panel(&interpreters);
        QVERIFY(!panel.target());
        panel.restoreState();
        QVERIFY(panel.target());
        QCOMPARE(QString::fromStdString(panel.target()->spec()),
                 QString("ssh://carol@kept.example:2200"));
        QCOMPARE(panel.python(), QString("/home/carol/venv/bin/python"));
        QCOMPARE(panel.modelPlacement(), core::ModelPlacement::Local);
        // Restored without connecting: nothing asked yet.
        QVERIFY(child<QPushButton>(panel, "testConnection")->isEnabled());
        QVERIFY(child<QLabel>(panel, "targetInfo")->text().contains("Not tested"));
        // The local interpreter was not replaced by the remote path.
        QVERIFY(QSettings().value("run/python").toString() != "/home/carol/venv/bin/python");
        panel.setTarget({});
        panel.saveState();
    }

  private:
    // A client config with two hosts on one line, a pattern (not listed) and an Include.
    static void writeSshConfig(const QTemporaryDir& dir) {
        QFile included(dir.filePath("included.conf"));
        QVERIFY(included.open(QIODevice::WriteOnly));
        included.write("Host included\n    HostName 10.0.0.3\n");
        included.close();
        QFile config(dir.filePath("config"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QStringLiteral("Host gpu-box alice-gpu\n    HostName 10.0.0.2\n"
                                    "Host *.internal\n    User me\n"
                                    "Include %1\n")
                         .arg(included.fileName())
                         .toUtf8());
        config.close();
        qputenv("COMPILESCOPE_SSH_CONFIG", config.fileName().toUtf8());
    }

    static QStringList itemTexts(const QComboBox* box) {
        QStringList out;
        for (int i = 0; i < box->count(); ++i)
            out << box->itemText(i);
        return out;
    }
};

QTEST_MAIN(SettingsPanelTest)
#include "test_settings_panel.moc"
