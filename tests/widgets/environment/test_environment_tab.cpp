// The Environment tab offscreen: what ran where, and the torch variables the
// probes started with (where each came from, which void the measurement). With
// CS_SCREENSHOT_DIR set, the report is also written there as
// environment_report.json, for scripts/screenshots.sh.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "app/main_window.h"
#include "core/advice/advice.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/open_report.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/common/report_document.h"
#include "widgets/environment/environment_tab.h"
#include "widgets/environment/torch_variables_model.h"

using namespace cs;
using cs::test::child;
using widgets::TorchVariablesModel;

namespace {

core::Run measuredRun(const std::string& mode, const std::string& torch,
                      std::map<std::string, std::string> variables) {
    core::Run run;
    run.setting.mode = mode;
    run.status = core::RunStatus::Ok;
    run.sawHello = true;
    run.probe.torch = torch;
    run.probe.python = "3.11.2";
    run.probe.device = "cpu";
    run.probe.host = "build-box";
    run.probe.pythonExecutable = "/home/me/venv/bin/python";
    run.probe.torchEnvironment = std::move(variables);
    run.probe.torchEnvironmentKnown = true;
    for (int i = 0; i < 20; ++i)
        run.iterations.push_back({i, 1000 + i, 1000 + i, 0, i < 3, i == 0});
    return run;
}

// Eager and default from a shell with TORCH_LOGS set, --env OMP_NUM_THREADS,
// and a max-autotune setting that made its launches blocking with env=.
core::Report variablesReport() {
    core::Report report;
    report.model.spec = "gallery/convnet.py";
    report.model.name = "ConvNet";
    report.model.parameters = 61706;
    report.environment.probeEnvironment = {{"OMP_NUM_THREADS", "2"}};
    const std::map<std::string, std::string> shell{{"TORCH_LOGS", "+dynamo"},
                                                   {"OMP_NUM_THREADS", "2"}};
    report.runs.push_back(measuredRun("eager", "2.5.1", shell));
    report.runs.push_back(measuredRun("default", "2.5.1", shell));
    auto blocking = shell;
    blocking["CUDA_LAUNCH_BLOCKING"] = "1";
    report.runs.push_back(measuredRun("max-autotune", "2.5.1", blocking));
    report.runs.back().setting.environment = {{"CUDA_LAUNCH_BLOCKING", "1"}};
    report.deriveFromRuns();
    return report;
}

int rowOf(const QAbstractItemModel* model, const QString& name) {
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->index(row, 0).data().toString() == name)
            return row;
    }
    return -1;
}

} // namespace

class EnvironmentTabTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void factsAndVariablesSayWhatRanWhereAndWhatCameFromWhere() {
        widgets::ReportDocument document;
        document.showReport(variablesReport());
        widgets::EnvironmentTab tab(&document);
        tab.resize(1200, 800);
        tab.show();

        auto* facts = child<QTableView>(tab, "environmentFacts");
        const int model = rowOf(facts->model(), "model");
        QVERIFY(model >= 0);
        QCOMPARE(facts->model()->index(model, 1).data().toString(), QString("gallery/convnet.py"));
        QCOMPARE(facts->model()->index(rowOf(facts->model(), "torch"), 1).data().toString(),
                 QString("2.5.1"));
        // Unknown is a dash, not a blank that reads as "nothing there".
        QCOMPARE(facts->model()->index(rowOf(facts->model(), "CUDA"), 1).data().toString(),
                 QString("—"));
        QVERIFY(!child<QLabel>(tab, "environmentVersions")->isVisible());
        QCOMPARE(child<QTableView>(tab, "environmentProbes")->model()->rowCount(), 3);

        auto* table = child<QTableView>(tab, "torchVariables");
        QVERIFY(table->isVisible());
        QVERIFY(!child<QLabel>(tab, "torchVariablesNote")->isVisible());
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(table->model());
        auto* variables = qobject_cast<TorchVariablesModel*>(proxy->sourceModel());
        QVERIFY(variables);
        QAbstractItemModelTester tester(variables,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(variables->rowCount(), 3);
        auto cell = [&](const QString& name, int column, int role = Qt::DisplayRole) {
            return variables->index(rowOf(variables, name), column).data(role);
        };
        QCOMPARE(cell("TORCH_LOGS", TorchVariablesModel::From).toString(),
                 QString("inherited from the shell"));
        QCOMPARE(cell("TORCH_LOGS", TorchVariablesModel::Effect).toString(),
                 QString("turns torch's compile logging on"));
        QCOMPARE(cell("TORCH_LOGS", TorchVariablesModel::Settings).toString(), QString("all"));
        QCOMPARE(cell("OMP_NUM_THREADS", TorchVariablesModel::From).toString(), QString("--env"));
        QCOMPARE(cell("OMP_NUM_THREADS", TorchVariablesModel::Effect).toString(), QString("—"));
        QCOMPARE(cell("CUDA_LAUNCH_BLOCKING", TorchVariablesModel::From).toString(),
                 QString("the setting's env="));
        QVERIFY(cell("CUDA_LAUNCH_BLOCKING", TorchVariablesModel::Settings)
                    .toString()
                    .startsWith("max-autotune"));
        // Blocking launches void a GPU measurement: red, the others in the usual colour.
        QVERIFY(cell("CUDA_LAUNCH_BLOCKING", TorchVariablesModel::Variable, Qt::ForegroundRole)
                    .isValid());
        QVERIFY(!cell("TORCH_LOGS", TorchVariablesModel::Variable, Qt::ForegroundRole).isValid());

        // Copy (Ctrl+C, the context menu) gives the selected rows as tab-separated text.
        table->selectRow(
            proxy->mapFromSource(variables->index(rowOf(variables, "TORCH_LOGS"), 0)).row());
        QAction* copy = nullptr;
        for (QAction* action : table->actions()) {
            if (action->shortcut() == QKeySequence::Copy)
                copy = action;
        }
        QVERIFY(copy);
        copy->trigger();
        const QString copied = QApplication::clipboard()->text();
        QVERIFY2(copied.startsWith("Variable\tValue\tFrom"), qPrintable(copied));
        QVERIFY2(copied.contains("TORCH_LOGS\t+dynamo\tinherited from the shell"),
                 qPrintable(copied));
    }

    // Each probe's row; one that ran another torch or interpreter than the
    // first is marked, and different torch versions are said under the facts.
    void probesUnlikeTheFirstAreMarked() {
        core::Report report = variablesReport();
        report.runs[1].probe.torch = "2.4.0";
        report.runs[2].probe.pythonExecutable = "/usr/bin/python3";
        widgets::ReportDocument document;
        document.showReport(report);
        widgets::EnvironmentTab tab(&document);
        tab.show();
        auto* note = child<QLabel>(tab, "environmentVersions");
        QVERIFY(note->isVisible());
        QVERIFY2(note->text().contains("2.4.0, 2.5.1"), qPrintable(note->text()));

        auto* probes = child<QTableView>(tab, "environmentProbes");
        QVERIFY(probes->isVisible());
        const QAbstractItemModel* model = probes->model();
        QCOMPARE(model->rowCount(), 3);
        QCOMPARE(model->headerData(1, Qt::Horizontal).toString(), QString("Interpreter"));
        QCOMPARE(model->index(0, 1).data().toString(), QString("/home/me/venv/bin/python"));
        QCOMPARE(model->index(2, 1).data().toString(), QString("/usr/bin/python3"));
        const auto marked = [&](int row, int column) {
            return model->index(row, column).data(Qt::ForegroundRole).isValid();
        };
        QVERIFY(!marked(0, 1) && !marked(0, 3));
        QVERIFY(marked(1, 3));  // torch 2.4.0
        QVERIFY(!marked(1, 1)); // its interpreter is the first's
        QVERIFY(marked(2, 1));
        QVERIFY(!marked(2, 3));
    }

    // None set says so; a report that never said (older, or imported) says that
    // instead of claiming there were none.
    void noVariablesAndUnknownVariablesReadDifferently() {
        core::Report report = variablesReport();
        for (auto& run : report.runs) {
            run.probe.torchEnvironment.clear();
            run.setting.environment.clear();
        }
        report.environment.probeEnvironment.clear();
        widgets::ReportDocument document;
        document.showReport(report);
        widgets::EnvironmentTab tab(&document);
        tab.show();
        auto* note = child<QLabel>(tab, "torchVariablesNote");
        QVERIFY(note->isVisible());
        QVERIFY(!child<QTableView>(tab, "torchVariables")->isVisible());
        QVERIFY2(note->text().startsWith("None:"), qPrintable(note->text()));

        for (auto& run : report.runs)
            run.probe.torchEnvironmentKnown = false;
        document.showReport(report);
        QVERIFY2(note->text().contains("No probe of this report said"), qPrintable(note->text()));
    }

    // While a session runs, each probe's hello fills the tab in as it comes.
    void aLiveSessionFillsInAsProbesSayHello() {
        core::Report live;
        live.runs.resize(2);
        live.runs[0].setting.mode = "eager";
        live.runs[1].setting.mode = "default";
        widgets::ReportDocument document;
        document.showLive(&live);
        widgets::EnvironmentTab tab(&document);
        tab.show();
        auto* facts = child<QTableView>(tab, "environmentFacts");
        auto* probes = child<QTableView>(tab, "environmentProbes");
        QCOMPARE(facts->model()->index(rowOf(facts->model(), "torch"), 1).data().toString(),
                 QString("—"));
        QVERIFY(!probes->isVisible());

        live.runs[0] = measuredRun("eager", "2.5.1", {{"TORCH_LOGS", "+dynamo"}});
        live.runs[0].model.spec = "gallery/convnet.py";
        document.notifyRunChanged(0);
        QTRY_COMPARE(facts->model()->index(rowOf(facts->model(), "torch"), 1).data().toString(),
                     QString("2.5.1"));
        QCOMPARE(facts->model()->index(rowOf(facts->model(), "model"), 1).data().toString(),
                 QString("gallery/convnet.py"));
        QVERIFY(probes->isVisible());
        QCOMPARE(probes->model()->rowCount(), 1);
        QCOMPARE(child<QTableView>(tab, "torchVariables")->model()->rowCount(), 1);
        document.freezeLive();
    }

    // env.inherited points at the Environment tab; the main window has it.
    void theInheritedFindingOpensTheEnvironmentTab() {
        const core::Report report = variablesReport();
        QTemporaryDir dir;
        app::MainWindow window;
        QVERIFY(cs::test::openReportFile(window, report, dir, "environment_report.json"));
        QVERIFY(window.document()->report().runs == report.runs);

        core::EvidenceTab inheritedTab = core::EvidenceTab::None;
        for (const auto& f : core::advise(window.document()->report())) {
            if (f.rule == "env.inherited")
                inheritedTab = f.tab;
        }
        QCOMPARE(inheritedTab, core::EvidenceTab::Environment);
        auto* environment = child<widgets::EnvironmentTab>(window, "environmentTab");
        window.document()->requestTab(inheritedTab);
        QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(environment));
        QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(environment)),
                 QString("Environment"));
        auto* variables = child<QTableView>(*environment, "torchVariables");
        QVERIFY(variables->isVisible());
        QCOMPARE(variables->model()->rowCount(), 3);
    }
};

QTEST_MAIN(EnvironmentTabTest)
#include "test_environment_tab.moc"
