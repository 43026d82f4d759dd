// The main window offscreen against the fake probe: run, progress, cancel,
// save and reopen a report, bad report files.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "app/main_window.h"
#include "core/report/report_json.h"
#include "core/runner/app_paths.h"
#include "core/runner/probe_command.h"
#include "core/runner/session_runner.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/breaks/breaks_tab.h"
#include "widgets/common/report_document.h"
#include "widgets/compare/compare_tab.h"
#include "widgets/compare/comparison_model.h"
#include "widgets/memory/memory_tab.h"
#include "widgets/run/settings_panel.h"
#include "widgets/timing/latency_tab.h"
#include "widgets/timing/runs_model.h"

using namespace cs;
using cs::test::child;

class MainWindowTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        qputenv("COMPILESCOPE_PROBE_ROOT", FAKE_PROBE_ROOT);
        qputenv("COMPILESCOPE_PYTHON", "/usr/bin/python3");
        QStandardPaths::setTestModeEnabled(true);
        cs::test::installWarningGuard();
    }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void runShowsProgressAndResults() {
        app::MainWindow window;
        window.setQuiet(true);
        window.show();
        window.settingsPanel()->setModelSpec(TEST_MODELS "/slow.py");
        window.settingsPanel()->setModeChecked("eager", true);
        window.settingsPanel()->setModeChecked("default", false);
        auto* latency = window.findChild<widgets::LatencyTab*>();
        QVERIFY(latency);
        QAbstractItemModelTester tester(child<widgets::RunsModel>(*latency, "runsModel"),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy finished(&window, &app::MainWindow::sessionFinished);
        window.tabs()->setCurrentWidget(latency);
        window.startRun();
        QVERIFY(window.runner()->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(window.progressBar()->value() > 100, 20000);
        QVERIFY(window.statusText().contains("eager"));
        QVERIFY(window.windowTitle().contains('*'));
        QVERIFY(finished.wait(30000));
        const auto& run = window.document()->report().runs.at(0);
        QCOMPARE(QString(core::toString(run.status)), QString("ok"));
        QCOMPARE(run.measuredLatencies().size(), size_t(200));
        QCOMPARE(child<widgets::RunsModel>(*latency, "runsModel")->rowCount(), 1);
        QCOMPARE(child<widgets::RunsModel>(*latency, "runsModel")
                     ->index(0, widgets::RunsModel::Status)
                     .data()
                     .toString(),
                 QString("ok"));
        // Advice is the first tab, and the one shown when a session finishes.
        QCOMPARE(window.tabs()->tabText(0), QString("Advice"));
        QCOMPARE(window.tabs()->currentIndex(), 0);
    }

    void findingsOpenTheirTabWhateverItsTitle() {
        app::MainWindow window;
        window.setQuiet(true);
        auto* breaks = window.findChild<widgets::BreaksTab*>();
        auto* memory = window.findChild<widgets::MemoryTab*>();
        QVERIFY(breaks && memory);
        // A translated title must not matter: navigation goes by EvidenceTab.
        window.tabs()->setTabText(window.tabs()->indexOf(breaks), "Unterbrechungen");
        window.document()->requestTab(core::EvidenceTab::Breaks);
        QCOMPARE(window.tabs()->currentWidget(), breaks);
        window.document()->requestTab(core::EvidenceTab::Memory);
        QCOMPARE(window.tabs()->currentWidget(), memory);
        // The console is a dock, not a tab: the current tab stays.
        window.document()->requestTab(core::EvidenceTab::Console);
        QCOMPARE(window.tabs()->currentWidget(), memory);
    }

    void cancelStopsTheProbeAndKeepsData() {
        app::MainWindow window;
        window.setQuiet(true);
        window.settingsPanel()->setModelSpec(TEST_MODELS "/slow.py");
        window.settingsPanel()->setModeChecked("eager", true);
        window.settingsPanel()->setModeChecked("default", true);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QSignalSpy finished(&window, &app::MainWindow::sessionFinished);
        window.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(window.runner()->report().runs[0].measuredLatencies().size() > 20,
                                 20000);
        QElapsedTimer clock;
        clock.start();
        QTest::keyClick(&window, Qt::Key_Escape);
        QVERIFY(finished.wait(5000));
        QVERIFY(clock.elapsed() < 2000);
        const auto& runs = window.document()->report().runs;
        QCOMPARE(QString(core::toString(runs[0].status)), QString("cancelled"));
        QVERIFY(runs[0].measuredLatencies().size() > 20);
        QCOMPARE(QString(core::toString(runs[1].status)), QString("cancelled"));
        QVERIFY(!window.runner()->isRunning());
    }

    void compareAllModesAndCancelKeepsFinishedSettings() {
        app::MainWindow window;
        window.setQuiet(true);
        window.settingsPanel()->setModelSpec(TEST_MODELS "/slow.py");
        // Only eager is checked in the panel: Compare all modes runs every mode anyway.
        window.settingsPanel()->setModeChecked("eager", true);
        window.settingsPanel()->setModeChecked("default", false);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QSignalSpy finished(&window, &app::MainWindow::sessionFinished);
        window.startCompareAll();
        QVERIFY(window.runner()->isRunning());
        auto* compare = window.findChild<widgets::CompareTab*>();
        QVERIFY(compare);
        QCOMPARE(window.tabs()->currentWidget(), compare);
        const auto& runs = window.runner()->report().runs;
        // Every mode but as-written: slow.py makes no torch.compile call of its own.
        std::vector<std::string> modes = core::knownModes();
        modes.erase(std::find(modes.begin(), modes.end(), core::kAsWritten));
        QCOMPARE(runs.size(), modes.size());
        for (size_t i = 0; i < runs.size(); ++i)
            QCOMPARE(runs[i].setting.mode, modes[i]);
        // Cancel while the second setting measures: the first stays whole.
        QTRY_VERIFY_WITH_TIMEOUT(runs[1].measuredLatencies().size() > 20, 30000);
        QTest::keyClick(&window, Qt::Key_Escape);
        QVERIFY(finished.wait(5000));
        const auto& kept = window.document()->report().runs;
        QCOMPARE(QString(core::toString(kept[0].status)), QString("ok"));
        QCOMPARE(kept[0].measuredLatencies().size(), size_t(200));
        QCOMPARE(QString(core::toString(kept[1].status)), QString("cancelled"));
        QVERIFY(kept[1].measuredLatencies().size() > 20);
        for (size_t i = 2; i < kept.size(); ++i)
            QCOMPARE(QString(core::toString(kept[i].status)), QString("cancelled"));
        // Every setting keeps its row in the comparison, the finished eager as its baseline.
        child<widgets::ComparisonModel>(*compare, "comparisonModel")->recompute();
        QCOMPARE(child<widgets::ComparisonModel>(*compare, "comparisonModel")->rowCount(),
                 static_cast<int>(kept.size()));
        QCOMPARE(child<widgets::ComparisonModel>(*compare, "comparisonModel")
                     ->index(0, widgets::ComparisonModel::Speedup)
                     .data()
                     .toString(),
                 QString("baseline"));
        QCOMPARE(child<widgets::ComparisonModel>(*compare, "comparisonModel")
                     ->index(1, widgets::ComparisonModel::Status)
                     .data()
                     .toString(),
                 QString("cancelled"));
    }

    // The panel's "probes" box: every setting probed twice, in rounds; the
    // Compare tab names each setting's probes in its notes.
    void repeatedProbesShowInTheComparison() {
        app::MainWindow window;
        window.setQuiet(true);
        window.settingsPanel()->setModelSpec(TEST_MODELS "/ok.py");
        window.settingsPanel()->setModeChecked("eager", true);
        window.settingsPanel()->setModeChecked("default", true);
        window.settingsPanel()->setRepeat(2);
        QSignalSpy finished(&window, &app::MainWindow::sessionFinished);
        window.startRun();
        QVERIFY(finished.wait(30000));
        window.settingsPanel()->setRepeat(1); // the panel's state outlives the test
        window.settingsPanel()->saveState();
        const auto& runs = window.document()->report().runs;
        QCOMPARE(runs.size(), size_t(2));
        for (const auto& run : runs) {
            QCOMPARE(run.repeats.size(), size_t(1));
            QCOMPARE(run.repeats[0].status, core::RunStatus::Ok);
        }
        auto* compare = window.findChild<widgets::CompareTab*>();
        auto* model = child<widgets::ComparisonModel>(*compare, "comparisonModel");
        model->recompute();
        const QString notes =
            model->index(1, widgets::ComparisonModel::Notes).data(Qt::ToolTipRole).toString();
        QVERIFY2(notes.contains("measured by 2 probes"), qPrintable(notes));
        // The Latency tab's median is the first probe's; its tooltip names the others.
        auto* latency = window.findChild<widgets::LatencyTab*>();
        const QString median = child<widgets::RunsModel>(*latency, "runsModel")
                                   ->index(0, widgets::RunsModel::Median)
                                   .data(Qt::ToolTipRole)
                                   .toString();
        QVERIFY2(median.contains("the first probe's") && median.contains("measured by 2 probes"),
                 qPrintable(median));
    }

    void saveAndReopenShowsTheSameReport() {
        QTemporaryDir dir;
        const QString path = dir.filePath("report.json");
        core::Report saved;
        {
            app::MainWindow window;
            window.setQuiet(true);
            window.settingsPanel()->setModelSpec(TEST_MODELS "/crash.py");
            window.settingsPanel()->setModeChecked("eager", true);
            window.settingsPanel()->setModeChecked("default", false);
            QSignalSpy finished(&window, &app::MainWindow::sessionFinished);
            window.startRun();
            QVERIFY(finished.wait(30000));
            QCOMPARE(QString(core::toString(window.document()->report().runs[0].status)),
                     QString("crashed"));
            window.saveReport(path);
            QTRY_VERIFY_WITH_TIMEOUT(!window.document()->isModified(), 5000);
            QVERIFY(!window.windowTitle().contains('*'));
            saved = window.document()->report();
        }
        app::MainWindow reopened;
        reopened.setQuiet(true);
        QSignalSpy opened(&reopened, &app::MainWindow::reportOpened);
        reopened.openPath(path);
        QVERIFY(opened.wait(5000));
        QCOMPARE(core::writeReportJson(reopened.document()->report()),
                 core::writeReportJson(saved));
        auto* latency = reopened.findChild<widgets::LatencyTab*>();
        QCOMPARE(child<widgets::RunsModel>(*latency, "runsModel")
                     ->index(0, widgets::RunsModel::Status)
                     .data()
                     .toString(),
                 QString("crashed"));
        QCOMPARE(child<widgets::RunsModel>(*latency, "runsModel")
                     ->index(0, widgets::RunsModel::Calls)
                     .data()
                     .toInt(),
                 5);
    }

    void badReportsSaySoAndKeepTheWindow() {
        QTemporaryDir dir;
        const QString truncated = dir.filePath("truncated.json");
        QFile file(truncated);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"compilescope.report\", \"version\": 1, \"runs\": [{\"sta");
        file.close();
        app::MainWindow window;
        window.setQuiet(true);
        window.openPath(truncated);
        QTRY_VERIFY_WITH_TIMEOUT(!window.lastError().isEmpty(), 5000);
        QVERIFY(window.lastError().contains("truncated.json"));
        QVERIFY(window.lastError().contains("truncated"));
        QVERIFY(window.document()->isEmpty());

        const QString notJson = dir.filePath("notes.json");
        QFile notes(notJson);
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("these are notes, not JSON");
        notes.close();
        window.openPath(notJson);
        QTRY_VERIFY_WITH_TIMEOUT(window.lastError().contains("notes.json"), 5000);
    }

    void aModelWithASweepGetsItTickedByDefault() {
        app::MainWindow window;
        window.setQuiet(true);
        auto* panel = window.findChild<widgets::SettingsPanel*>();
        QVERIFY(panel);
        auto* sweep = child<QCheckBox>(window, "sweepCheck");
        const QDir gallery = QFileInfo(QString::fromStdString(core::demoModelPath())).dir();
        panel->setModelSpec(gallery.filePath("variable_length.py")); // defines get_input_sweep()
        QVERIFY(sweep->isEnabled());
        QVERIFY(sweep->isChecked());
        QVERIFY2(sweep->toolTip().contains("defines get_input_sweep()"),
                 qPrintable(sweep->toolTip()));
        QVERIFY(panel->settings().front().sweep);
        panel->setModelSpec(gallery.filePath("mlp.py")); // defines none
        QVERIFY(!sweep->isEnabled());
        QVERIFY(!sweep->isChecked());
        QVERIFY(sweep->toolTip().contains("no get_input_sweep()"));
        QVERIFY(!panel->settings().front().sweep);
    }
};

QTEST_MAIN(MainWindowTest)
#include "test_main_window.moc"
