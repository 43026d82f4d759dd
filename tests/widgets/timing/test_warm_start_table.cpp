// The Warmup tab's cold-start table offscreen: hidden for a report with fresh
// runs only; with warm starts measured, one row per setting, each start in its
// column with its ratio against the fresh compile, blanks with their reason.
#include <QAbstractItemModel>
#include <QTableView>
#include <QTest>

#include "core/report/session.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/common/report_document.h"
#include "widgets/timing/warmup_tab.h"

using namespace cs;
using cs::test::child;

namespace {

core::Run measured(const std::string& mode, const char* start, int64_t firstCallNs) {
    core::Run run;
    run.setting.mode = mode;
    run.setting.start = start;
    run.status = core::RunStatus::Ok;
    run.sawHello = run.sawDone = true;
    run.firstCallNs = firstCallNs;
    run.compilePhases = {{"dynamo_tracing", 1e-3}, {"other", 1e-3}};
    for (int i = 0; i < 12; ++i)
        run.iterations.push_back({i, 1000 + i, 1000 + i, 0, i < 2, i == 0});
    return run;
}

core::Report threeStarts() {
    core::Report report;
    report.runs.push_back(measured("eager", core::kStartFresh, 2'000'000));
    report.runs.push_back(measured("default", core::kStartFresh, 8'000'000'000));
    report.runs.push_back(measured("default", core::kStartWarmCache, 2'000'000'000));
    core::Run artifacts = measured("default", core::kStartCacheArtifacts, 4'000'000'000);
    artifacts.cacheArtifacts =
        core::CacheArtifacts{"load", "/tmp/a.bin", 180'000, 300'000'000, {{"inductor", 1}}, ""};
    report.runs.push_back(artifacts);
    return report;
}

QString cell(QAbstractItemModel* model, int row, int column, int role = Qt::DisplayRole) {
    return model->data(model->index(row, column), role).toString();
}

} // namespace

class WarmStartTableTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void hiddenWithoutWarmStarts() {
        widgets::ReportDocument document;
        core::Report report;
        report.runs.push_back(measured("default", core::kStartFresh, 1000));
        document.showReport(report);
        widgets::WarmupTab tab(&document);
        tab.resize(1000, 700);
        tab.show();
        QVERIFY(!child<QTableView>(tab, "warmStartTable")->isVisible());
    }

    void oneRowPerSettingEachStartInItsColumn() {
        widgets::ReportDocument document;
        document.showReport(threeStarts());
        widgets::WarmupTab tab(&document);
        tab.resize(1200, 800);
        tab.show();
        auto* table = child<QTableView>(tab, "warmStartTable");
        QVERIFY(table->isVisible());
        auto* model = table->model();
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->columnCount(), 7);
        QCOMPARE(cell(model, 0, 0), QString("eager"));
        QCOMPARE(cell(model, 1, 0), QString("default"));
        QVERIFY(cell(model, 1, 1).startsWith("8.00 s"));
        QVERIFY(cell(model, 1, 2).endsWith("(4.00×)"));
        QVERIFY(cell(model, 1, 3).endsWith("(2.00×)"));
        QVERIFY(cell(model, 1, 4).startsWith("300"));
        // Eager: blank, never zero, and it says why.
        QCOMPARE(cell(model, 0, 2), QString("—"));
        QVERIFY(cell(model, 0, 2, Qt::ToolTipRole).contains("eager compiles nothing"));

        // Live: the table follows the report when it is replaced.
        core::Report fresh;
        fresh.runs.push_back(measured("default", core::kStartFresh, 1000));
        document.showReport(fresh);
        QVERIFY(!table->isVisible());
    }
};

QTEST_MAIN(WarmStartTableTest)
#include "test_warm_start_table.moc"
