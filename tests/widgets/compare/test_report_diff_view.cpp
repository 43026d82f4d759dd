// The diff window on two hand-made reports with a known regression: the model
// marks it, the threshold re-marks, the break lists, and a screenshot.
#include <QAbstractItemModelTester>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

#include "core/analysis/report_diff.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/compare/report_diff_model.h"
#include "widgets/compare/report_diff_view.h"

using namespace cs;
using cs::test::child;

namespace {

constexpr int64_t kMs = 1000000;

core::Run run(const std::string& mode, int64_t medianNs, int breaks, int64_t peakBytes) {
    core::Run r;
    r.setting.mode = mode;
    r.status = core::RunStatus::Ok;
    int index = 0;
    r.iterations.push_back({index++, 900 * kMs, 900 * kMs, 0, true, true});
    for (int i = 0; i < 100; ++i) {
        const int64_t ns = medianNs - medianNs / 100 + (medianNs / 50) * i / 99;
        r.iterations.push_back({index++, ns, ns, 0, false, false});
    }
    for (int b = 0; b < breaks; ++b) {
        core::GraphBreak gb;
        gb.reason = b == 0 ? "print\nExplanation: Dynamo does not trace print" : "Tensor.item()";
        gb.frames.push_back(
            {"/src/model.py", 10 + 10 * b, "forward", b == 0 ? "print(x)" : "n = x.item()", true});
        gb.userFrame = 0;
        r.graphBreaks.push_back(gb);
    }
    r.memory.push_back({"host_rss", {{1, peakBytes}}, {}});
    return r;
}

core::ReportDiff knownRegression() {
    core::Report a, b;
    a.environment.torch = "2.14.0";
    b.environment.torch = "2.15.0";
    a.runs = {run("eager", 10 * kMs, 0, 100 << 20), run("default", 5 * kMs, 1, 200 << 20)};
    b.runs = {run("eager", 10 * kMs, 0, 100 << 20), run("default", 6 * kMs, 2, 210 << 20)};
    return core::diffReports(a, b, {10.0});
}

} // namespace

class ReportDiffViewTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void marksTheRegressionAndListsTheNewBreak() {
        widgets::ReportDiffView view;
        QAbstractItemModelTester tester(child<widgets::ReportDiffModel>(view, "diffModel"),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setDiff(knownRegression(), "/reports/before.json", "/reports/after.json");
        view.resize(1200, 560);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto* model = child<widgets::ReportDiffModel>(view, "diffModel");
        QCOMPARE(model->rowCount(), 2);
        using M = widgets::ReportDiffModel;
        QCOMPARE(model->index(0, M::Setting).data().toString(), QString("eager"));
        QCOMPARE(model->index(1, M::MedianChange).data().toString(), QString("+20.0%"));
        QCOMPARE(model->index(1, M::MedianChange).data(M::ChangeRole).toString(),
                 QString("regression"));
        QCOMPARE(model->index(1, M::Breaks).data().toString(), QString("1 → 2"));
        QCOMPARE(model->index(1, M::Breaks).data(M::ChangeRole).toString(), QString("regression"));
        QCOMPARE(model->index(1, M::PeakChange).data(M::ChangeRole).toString(),
                 QString()); // +5% < 10%
        QCOMPARE(model->index(0, M::MedianChange).data(M::ChangeRole).toString(), QString());
        QVERIFY(model->index(1, M::Setting)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("median latency +20.0%"));
        QVERIFY(view.summaryText().contains("2 regressions"));
        // The new break is listed under its setting.
        QCOMPARE(child<QTreeWidget>(view, "diffBreaks")->topLevelItemCount(), 1);
        auto* setting = child<QTreeWidget>(view, "diffBreaks")->topLevelItem(0);
        QCOMPARE(setting->text(0), QString("default"));
        QCOMPARE(setting->childCount(), 1);
        QVERIFY(setting->child(0)->text(0).contains("new in B: model.py:20"));
        QCOMPARE(setting->child(0)->text(2), QString("n = x.item()"));
        QVERIFY(view.diffText().contains("REGRESSION"));
        QVERIFY(view.windowTitle().contains("before.json"));

        // With CS_SHOT_DIR set, saves what it looks like (for a person to look at).
        if (const QString dir = qEnvironmentVariable("CS_SHOT_DIR"); !dir.isEmpty())
            QVERIFY(view.grab().save(dir + "/report_diff_view.png"));
    }

    // Outputs that came to differ from eager's: red at any threshold.
    void outputsThatCameToDifferAreMarked() {
        core::Report a, b;
        a.runs = {run("default", 5 * kMs, 0, 200 << 20)};
        b.runs = {run("default", 5 * kMs, 0, 200 << 20)};
        core::OutputLeaf leaf;
        leaf.path = "output";
        leaf.kind = "values";
        leaf.relative = 1e-7;
        a.runs[0].outputsCheck.status = "match";
        a.runs[0].outputsCheck.worst = {leaf};
        leaf.relative = 0.78;
        leaf.differs = true;
        b.runs[0].outputsCheck.status = "differ";
        b.runs[0].outputsCheck.worst = {leaf};
        widgets::ReportDiffModel model;
        model.setDiff(core::diffReports(a, b, {1000.0}));
        using M = widgets::ReportDiffModel;
        QCOMPARE(model.index(0, M::Outputs).data().toString(), QString("agree → differ 78%"));
        QCOMPARE(model.index(0, M::Outputs).data(M::ChangeRole).toString(), QString("regression"));
        QCOMPARE(model.headerData(M::Outputs, Qt::Horizontal).toString(), QString("outputs A → B"));
    }

    void thresholdReMarks() {
        widgets::ReportDiffView view;
        view.setDiff(knownRegression(), "a.json", "b.json");
        using M = widgets::ReportDiffModel;
        view.setThreshold(25.0); // +20% no longer counts; the new break still does
        QCOMPARE(child<widgets::ReportDiffModel>(view, "diffModel")
                     ->index(1, M::MedianChange)
                     .data(M::ChangeRole)
                     .toString(),
                 QString());
        QVERIFY(view.summaryText().contains("1 regression"));
        view.setThreshold(2.0); // +5% memory now counts
        QCOMPARE(child<widgets::ReportDiffModel>(view, "diffModel")
                     ->index(1, M::PeakChange)
                     .data(M::ChangeRole)
                     .toString(),
                 QString("regression"));
        QVERIFY(view.summaryText().contains("3 regressions"));
    }

    // With --repeat the median cell is the first probe's: its tooltip names
    // the spread of that report's probes, which a change has to clear.
    void aRepeatedSettingsMedianNamesItsProbes() {
        core::Report a, b;
        a.runs = {run("default", 5 * kMs, 0, 200 << 20)};
        b.runs = {run("default", 6 * kMs, 0, 200 << 20)};
        core::RepeatProbe again;
        again.round = 1;
        again.status = core::RunStatus::Ok;
        again.latencyNs.assign(50, 7 * kMs);
        a.runs[0].repeats = {again};
        widgets::ReportDiffView view;
        view.setDiff(core::diffReports(a, b, {10.0}), "a.json", "b.json");
        using M = widgets::ReportDiffModel;
        auto* model = child<widgets::ReportDiffModel>(view, "diffModel");
        const QString tipA = model->index(0, M::MedianA).data(Qt::ToolTipRole).toString();
        QVERIFY2(tipA.contains("probes (--repeat) measured medians from 5.00 ms to 7.00 ms"),
                 qPrintable(tipA));
        const QString tipB = model->index(0, M::MedianB).data(Qt::ToolTipRole).toString();
        QVERIFY2(!tipB.contains("--repeat"), qPrintable(tipB)); // B probed once
    }

    void sortsByRawValues() {
        widgets::ReportDiffView view;
        view.setDiff(knownRegression(), "a.json", "b.json");
        child<QTableView>(view, "diffTable")
            ->sortByColumn(widgets::ReportDiffModel::MedianA, Qt::DescendingOrder);
        QCOMPARE(child<QTableView>(view, "diffTable")->model()->index(0, 0).data().toString(),
                 QString("eager")); // 10 ms > 5 ms
    }
};

QTEST_MAIN(ReportDiffViewTest)
#include "test_report_diff_view.moc"
