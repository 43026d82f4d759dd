// The Ranks tab offscreen on hand-built imported ranks (tests/core/rank_reports.h),
// and the one line the Latency and Memory tabs show for an imported report.
// With CS_SCREENSHOT_DIR set, the two-rank report is also written there as
// ranks_report.json, for scripts/screenshots.sh.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "app/main_window.h"
#include "tests/core/rank_reports.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/open_report.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/ranks/compiles_model.h"
#include "widgets/ranks/rank_table_model.h"
#include "widgets/ranks/ranks_tab.h"

using namespace cs;
using cs::test::child;
using widgets::RankTableModel;

namespace {

// A probe's report: one run with measured calls.
core::Report probeReport() {
    core::Run run;
    run.setting.mode = "default";
    run.status = core::RunStatus::Ok;
    for (int i = 0; i < 20; ++i)
        run.iterations.push_back({i, 1000 + i, 1000 + i, 0, i < 3, i == 0});
    core::Report report;
    report.runs.push_back(run);
    return report;
}

// The two divergent ranks, with enough compiles on rank 0 to sort (binary fractions of a
// second: they survive the report JSON exactly).
core::Report twoRanks() {
    core::Report report = rank_test::divergentTwoRanks();
    for (int i = 2; i < 12; ++i)
        report.runs[0].compiles.push_back(rank_test::compileOf(
            std::to_string(i) + "/0", "layer_" + std::to_string(i), 0.125 * i));
    report.runs[1].compiles[1].failType = "BackendCompilerFailed";
    report.runs[1].compiles[1].failReason = "backend='inductor' raised: out of resource";
    return report;
}

} // namespace

class RanksTabTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void probeReportSaysThereAreNoRanks() {
        widgets::ReportDocument document;
        document.showReport(probeReport());
        widgets::RanksTab tab(&document);
        tab.resize(1000, 700);
        tab.show();
        QVERIFY(child<QLabel>(tab, "ranksEmpty")->isVisible());
        QVERIFY(child<QLabel>(tab, "ranksEmpty")->text().contains("TORCH_TRACE"));
        QVERIFY(!child<QTableView>(tab, "ranksTable")->isVisible());
    }

    void divergentCellsAreMarkedWithWhy() {
        widgets::ReportDocument document;
        document.showReport(twoRanks());
        widgets::RanksTab tab(&document);
        tab.resize(1200, 800);
        tab.show();
        QVERIFY(!child<QLabel>(tab, "ranksEmpty")->isVisible());
        auto* table = child<QTableView>(tab, "ranksTable");
        QVERIFY(table->isVisible());
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(table->model());
        QVERIFY(proxy);
        auto* model = qobject_cast<RankTableModel*>(proxy->sourceModel());
        QVERIFY(model);
        QAbstractItemModelTester tester(model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->data(model->index(1, RankTableModel::Rank)).toString(), QString("rank 1"));
        for (int column = 0; column < RankTableModel::ColumnCount; ++column)
            QVERIFY(!model->data(model->index(0, column), RankTableModel::DivergentRole).toBool());
        for (int column : {RankTableModel::Graphs, RankTableModel::Recompiles,
                           RankTableModel::CompileTime, RankTableModel::CacheMisses}) {
            const QModelIndex cell = model->index(1, column);
            QVERIFY2(model->data(cell, RankTableModel::DivergentRole).toBool(),
                     qPrintable(QString::number(column)));
            QVERIFY(model->data(cell, Qt::BackgroundRole).isValid());
            QVERIFY(model->data(cell, Qt::ToolTipRole).toString().startsWith("rank 1 "));
        }
        QVERIFY(model->data(model->index(1, RankTableModel::Graphs), Qt::ToolTipRole)
                    .toString()
                    .contains("captured 3 graphs against 2 on rank 0"));
        QVERIFY(!model->data(model->index(1, RankTableModel::Breaks), RankTableModel::DivergentRole)
                     .toBool());
        const QString summary = child<QLabel>(tab, "ranksSummary")->text();
        QVERIFY2(summary.contains("1.8×"), qPrintable(summary));
        QVERIFY(summary.contains("Where ranks differ"));
    }

    void selectingARankShowsItsCompilesSortable() {
        widgets::ReportDocument document;
        document.showReport(twoRanks());
        widgets::RanksTab tab(&document);
        tab.resize(1200, 800);
        tab.show();
        auto* compiles = child<QTableView>(tab, "compilesTable");
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(compiles->model());
        auto* model = qobject_cast<widgets::CompilesModel*>(proxy->sourceModel());
        QVERIFY(model);
        QAbstractItemModelTester tester(model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The document selects the first run of a new report: its compiles.
        QCOMPARE(document.selection().run, 0);
        QCOMPARE(model->rowCount(), 12);
        QVERIFY(child<QLabel>(tab, "compilesTitle")->text().contains("rank 0"));
        // One column per phase, between the time and the failure.
        QCOMPARE(model->headerData(widgets::CompilesModel::FirstPhase, Qt::Horizontal).toString(),
                 QString("dynamo_tracing"));
        QCOMPARE(model->failColumn(), widgets::CompilesModel::FirstPhase + 2);

        // Compile ids sort as numbers: 11/0 after 2/0.
        compiles->sortByColumn(widgets::CompilesModel::CompileId, Qt::DescendingOrder);
        QCOMPARE(proxy->index(0, 0).data().toString(), QString("11/0"));
        compiles->sortByColumn(widgets::CompilesModel::Time, Qt::DescendingOrder);
        QCOMPARE(proxy->index(0, 0).data().toString(), QString("0/0"));

        auto* ranks = child<QTableView>(tab, "ranksTable");
        ranks->setCurrentIndex(ranks->model()->index(1, 0));
        QCOMPARE(document.selection().run, 1);
        QCOMPARE(model->rowCount(), 3);
        QVERIFY(child<QLabel>(tab, "compilesTitle")->text().contains("rank 1"));
        int failed = -1;
        for (int row = 0; row < model->rowCount(); ++row) {
            if (!model->data(model->index(row, model->failColumn())).toString().isEmpty())
                failed = row;
        }
        QVERIFY(failed >= 0);
        QVERIFY(model->data(model->index(failed, model->failColumn()))
                    .toString()
                    .startsWith("BackendCompilerFailed: backend='inductor'"));
        QCOMPARE(model->data(model->index(0, model->restartsColumn())).toInt(), 1);
        QVERIFY(model->data(model->index(0, model->restartsColumn()), Qt::ToolTipRole)
                    .toString()
                    .contains("graph break in forward"));
        QCOMPARE(model->data(model->index(0, model->cacheColumn())).toString(),
                 QString("fx_graph miss"));
        QVERIFY(model->data(model->index(0, model->cacheColumn()), Qt::ForegroundRole).isValid());

        // A probe report afterwards: empty again, no stale rows.
        document.showReport(probeReport());
        QCOMPARE(model->rowCount(), 0);
        QVERIFY(child<QLabel>(tab, "ranksEmpty")->isVisible());
    }

    void mainWindowHasRanksAndSaysLatencyAndMemoryAreAbsent() {
        const core::Report report = twoRanks();
        QTemporaryDir dir;
        app::MainWindow window;
        QVERIFY(cs::test::openReportFile(window, report, dir, "ranks_report.json"));
        // The report read back from its JSON: the ranks, their compiles and caches survive.
        QVERIFY(window.document()->report().runs == report.runs);

        auto* ranks = child<widgets::RanksTab>(window, "ranksTab");
        window.document()->requestTab(core::EvidenceTab::Ranks);
        QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(ranks));
        QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(ranks)), QString("Ranks"));
        QVERIFY(child<QTableView>(*ranks, "ranksTable")->isVisible());

        // Each label sits directly in its tab; a page not shown is hidden, so ask against it.
        auto* latencyNote = child<QLabel>(window, "latencyImported");
        auto* memoryNote = child<QLabel>(window, "memoryImported");
        QWidget* latency = latencyNote->parentWidget();
        QWidget* memory = memoryNote->parentWidget();
        for (QLabel* label : {latencyNote, memoryNote}) {
            QVERIFY2(label->isVisibleTo(label->parentWidget()), qPrintable(label->objectName()));
            QVERIFY(label->text().contains("TORCH_TRACE"));
        }
        QVERIFY(!child<QWidget>(window, "iterationChart")->isVisibleTo(latency));
        QVERIFY(!child<QWidget>(window, "memoryTimelineChart")->isVisibleTo(memory));
        // Compare: one line, no table of imported rows.
        auto* compareTable = child<QTableView>(window, "compareTable");
        QWidget* compare = compareTable->parentWidget();
        QVERIFY(!compareTable->isVisibleTo(compare));
        QVERIFY(child<QLabel>(window, "compareSummary")->text().contains("TORCH_TRACE"));

        // A probe's report brings the charts back.
        window.document()->showReport(probeReport());
        QVERIFY(!latencyNote->isVisibleTo(latency));
        QVERIFY(!memoryNote->isVisibleTo(memory));
        QVERIFY(child<QWidget>(window, "iterationChart")->isVisibleTo(latency));
        QVERIFY(child<QWidget>(window, "memoryTimelineChart")->isVisibleTo(memory));
        QVERIFY(compareTable->isVisibleTo(compare));
    }
};

QTEST_MAIN(RanksTabTest)
#include "test_ranks_tab.moc"
