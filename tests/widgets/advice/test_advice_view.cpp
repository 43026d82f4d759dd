// The Advice tab offscreen: findings of real probe streams, what a click
// selects, the tab it asks for, the options, and the empty states.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableView>
#include <QTest>

#include <fstream>
#include <sstream>

#include "core/events/event_parser.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/advice/advice_detail.h"
#include "widgets/advice/advice_model.h"
#include "widgets/advice/advice_view.h"
#include "widgets/common/report_document.h"

using namespace cs;
using cs::test::child;

namespace {

core::Run fixtureRun(const std::string& name, const core::Setting& setting) {
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/streams/" + name, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    core::Run run = core::replayStream(text.str(), setting);
    run.status = run.doneStatus == "ok" ? core::RunStatus::Ok : core::RunStatus::Failed;
    return run;
}

core::Report breakAndSweepReport() {
    core::Setting setting;
    setting.backend = "aot_eager";
    core::Setting sweep = setting;
    sweep.dynamic = "false";
    sweep.sweep = true;
    core::Report report;
    report.runs = {fixtureRun("advice_print_break.jsonl", setting),
                   fixtureRun("advice_variable_length_static_sweep.jsonl", sweep)};
    return report;
}

// Eager 100 µs, default 90 µs after a 10.01 ms first call: break-even 1,001 calls.
core::Report slowWarmupReport() {
    auto timed = [](const std::string& mode, int64_t first, int64_t steady) {
        core::Run run;
        run.setting.mode = mode;
        run.status = core::RunStatus::Ok;
        run.iterations.push_back({0, first, first, 0, true, true});
        for (int i = 1; i <= 30; ++i)
            run.iterations.push_back({i, steady, steady, 0, false, false});
        return run;
    };
    core::Report report;
    report.runs = {timed("eager", 100'000, 100'000), timed("default", 10'100'000, 90'000)};
    return report;
}

} // namespace

class AdviceViewTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void listsFindingsBySeverityAndShowsTheFirst() {
        widgets::ReportDocument document;
        widgets::AdviceView view(&document);
        QAbstractItemModelTester tester(child<widgets::AdviceModel>(view, "adviceModel"),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        document.showReport(breakAndSweepReport());
        QCOMPARE(child<widgets::AdviceModel>(view, "adviceModel")->rowCount(), 2);
        QCOMPARE(child<widgets::AdviceModel>(view, "adviceModel")
                     ->index(0, widgets::AdviceModel::Where)
                     .data()
                     .toString(),
                 QString("print_break.py:21"));
        QCOMPARE(child<widgets::AdviceModel>(view, "adviceModel")
                     ->index(1, widgets::AdviceModel::Where)
                     .data()
                     .toString(),
                 QString("variable_length.py:30"));
        QCOMPARE(child<widgets::AdviceModel>(view, "adviceModel")
                     ->index(0, widgets::AdviceModel::Severity)
                     .data()
                     .toString(),
                 QString("warning"));
        QVERIFY(child<QLabel>(view, "adviceSummary")->text().contains("2 findings"));
        // The most important finding is shown without a click.
        const QString shown = child<widgets::AdviceDetail>(view, "adviceDetail")->toPlainText();
        QVERIFY2(shown.contains("print() in forward breaks the graph"), qPrintable(shown));
        QVERIFY(shown.contains("What to change"));
        QVERIFY(shown.contains("reorderable_logging_functions"));
        // ...and without moving the shared selection.
        QCOMPARE(document.selection().graphBreak, -1);
    }

    void clickSelectsTheBreakAndActivationAsksForItsTab() {
        widgets::ReportDocument document;
        widgets::AdviceView view(&document);
        document.showReport(breakAndSweepReport());
        QSignalSpy tabs(&document, &widgets::ReportDocument::tabRequested);
        view.selectRow(1); // the recompile: a source line, no break
        QCOMPARE(document.selection().run, 1);
        QCOMPARE(document.selection().line, 30);
        QVERIFY(document.selection().file.endsWith("variable_length.py"));
        view.selectRow(0);
        QCOMPARE(document.selection().run, 0);
        QCOMPARE(document.selection().graphBreak, 0);
        QCOMPARE(document.selection().line, 21);
        QVERIFY(tabs.isEmpty());
        view.openEvidence();
        QCOMPARE(tabs.size(), 1);
        QCOMPARE(tabs.at(0).at(0).value<core::EvidenceTab>(), core::EvidenceTab::Breaks);
        // The link in the detail does the same.
        emit child<widgets::AdviceDetail>(view, "adviceDetail")->anchorClicked(QUrl("evidence:"));
        QCOMPARE(tabs.size(), 2);
    }

    void expectedCallsRecomputeAndMarkTheReportModified() {
        widgets::ReportDocument document;
        widgets::AdviceView view(&document);
        core::Report report = slowWarmupReport();
        for (auto& run : report.runs)
            run.setting.backend = "inductor";
        document.showReport(report);
        QCOMPARE(child<widgets::AdviceModel>(view, "adviceModel")->rowCount(), 1);
        QCOMPARE(QString::fromStdString(
                     child<widgets::AdviceModel>(view, "adviceModel")->finding(0)->rule),
                 QString("perf.warmup"));
        QVERIFY(!document.isModified());
        child<QSpinBox>(view, "adviceExpectedCalls")
            ->setValue(1001); // break-even is 1,001 calls: pays back now
        QCOMPARE(document.adviceOptions().expectedCalls, 1001);
        QCOMPARE(document.report().adviceOptions.expectedCalls, 1001); // saved with the report
        QVERIFY(document.isModified());
        QCOMPARE(child<widgets::AdviceModel>(view, "adviceModel")->rowCount(), 0);
        child<QSpinBox>(view, "adviceExpectedCalls")->setValue(1000);
        QCOMPARE(child<widgets::AdviceModel>(view, "adviceModel")->rowCount(), 1);
    }

    void optionsFromAnOpenedReportShowInTheSpinBox() {
        widgets::ReportDocument document;
        widgets::AdviceView view(&document);
        core::Report report = slowWarmupReport();
        report.adviceOptions.expectedCalls = 77;
        document.showReport(report);
        QCOMPARE(child<QSpinBox>(view, "adviceExpectedCalls")->value(), 77);
    }

    void emptyStatesSayWhy() {
        widgets::ReportDocument document;
        widgets::AdviceView view(&document);
        auto* empty = view.findChild<QLabel*>("adviceEmpty");
        QVERIFY(empty);
        QVERIFY(empty->text().contains("Run a model"));
        core::Setting setting;
        setting.backend = "aot_eager";
        core::Report clean;
        clean.runs = {fixtureRun("advice_clean.jsonl", setting)};
        document.showReport(clean);
        QCOMPARE(child<widgets::AdviceModel>(view, "adviceModel")->rowCount(), 0);
        QVERIFY2(empty->text().contains("No findings in 1 setting:"), qPrintable(empty->text()));
        QVERIFY(child<widgets::AdviceDetail>(view, "adviceDetail")->toPlainText().isEmpty() ||
                !child<widgets::AdviceDetail>(view, "adviceDetail")->isVisible());
    }
};

QTEST_MAIN(AdviceViewTest)
#include "test_advice_view.moc"
