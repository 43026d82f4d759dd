// The Scaling tab offscreen on hand-built batch-size walks (tests/core/scale_reports.h):
// one line per setting on each chart, the log2 batch axis, the 1× line, where memory
// ran out, the table, the empty states, and the advice jump in the main window.
// With CS_SCREENSHOT_DIR set, the walk is also written there as scaling_report.json,
// for scripts/screenshots.sh.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include "app/main_window.h"
#include "core/analysis/palette.h"
#include "tests/core/scale_reports.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/open_report.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/common/report_document.h"
#include "widgets/scaling/scaling_tab.h"
#include "widgets/scaling/scaling_table_model.h"

using namespace cs;
using cs::test::child;
using widgets::ScalingTableModel;

namespace {

// Eager and default walk 1, 4, 16; max-autotune runs out of memory at 16.
core::Report threeWalks() {
    return scale_test::report(
        {scale_test::walk("eager", {{1, 100}, {4, 200}, {16, 800}}),
         scale_test::walk("default", {{1, 120}, {4, 100}, {16, 400}}),
         scale_test::walk("max-autotune", {{1, 110}, {4, 80}},
                          {"oom", 16, "CUDA out of memory. Tried to allocate 2.00 GiB"})});
}

// A probe's report: one run with measured calls, no walk.
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

QCustomPlot* plotOf(const QWidget& tab, const char* name) {
    return child<QCustomPlot>(tab, name);
}

QList<QCPAbstractItem*> itemsNamed(QCustomPlot* plot, const QString& name) {
    QList<QCPAbstractItem*> found;
    for (int i = 0; i < plot->itemCount(); ++i) {
        if (plot->item(i)->objectName() == name)
            found << plot->item(i);
    }
    return found;
}

QString emptyMessage(QCustomPlot* plot) {
    const auto items = itemsNamed(plot, "emptyMessage");
    return items.isEmpty() ? QString() : static_cast<QCPItemText*>(items.front())->text();
}

QCPGraph* graphNamed(QCustomPlot* plot, const QString& name) {
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->name() == name)
            return plot->graph(i);
    }
    return nullptr;
}

} // namespace

class ScalingTabTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void reportWithoutAWalkSaysHowToMakeOne() {
        widgets::ReportDocument document;
        document.showReport(probeReport());
        widgets::ScalingTab tab(&document);
        tab.resize(1000, 700);
        tab.show();
        auto* empty = child<QLabel>(tab, "scalingEmpty");
        QVERIFY(empty->isVisible());
        QVERIFY(empty->text().startsWith("No batch-size walk in this report"));
        QVERIFY(empty->text().contains("compilescope-cli scale MODEL --batch-sizes 1,4,16"));
        QVERIFY(!child<QTableView>(tab, "scalingTable")->isVisible());
        QVERIFY(!plotOf(tab, "scalingThroughputPlot")->isVisible());
    }

    void chartsDrawOneLinePerSettingOnALog2BatchAxis() {
        widgets::ReportDocument document;
        document.showReport(threeWalks());
        widgets::ScalingTab tab(&document);
        tab.resize(1200, 800);
        tab.show();
        QVERIFY(!child<QLabel>(tab, "scalingEmpty")->isVisible());

        for (const char* name :
             {"scalingThroughputPlot", "scalingSpeedupPlot", "scalingMemoryPlot"}) {
            QCustomPlot* plot = plotOf(tab, name);
            QVERIFY(plot->isVisible());
            QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);
            auto ticker = qSharedPointerDynamicCast<QCPAxisTickerLog>(plot->xAxis->ticker());
            QVERIFY2(ticker, name);
            QCOMPARE(ticker->logBase(), 2.0);
            // The same range on all three, up to the size that did not fit.
            QVERIFY(plot->xAxis->range().lower < 1 && plot->xAxis->range().upper > 16);
            QVERIFY2(emptyMessage(plot).isEmpty(), name);
        }

        // Throughput: one line per setting, every point with its interval.
        QCustomPlot* throughput = plotOf(tab, "scalingThroughputPlot");
        QCOMPARE(throughput->graphCount(), 3);
        QCOMPARE(graphNamed(throughput, "eager")->dataCount(), 3);
        QCOMPARE(graphNamed(throughput, "default")->dataCount(), 3);
        QCOMPARE(graphNamed(throughput, "max-autotune")->dataCount(), 2);
        int errorBars = 0;
        for (int i = 0; i < throughput->plottableCount(); ++i) {
            auto* bars = qobject_cast<QCPErrorBars*>(throughput->plottable(i));
            if (!bars)
                continue;
            ++errorBars;
            QCOMPARE(bars->dataCount(), bars->dataPlottable()->interface1D()->dataCount());
            QVERIFY(bars->data()->at(0).errorPlus > 0);
        }
        QCOMPARE(errorBars, 3);
        // eager at 16: 16 samples per 800 µs.
        QVERIFY(qAbs(graphNamed(throughput, "eager")->data()->at(2)->value - 20000) < 200);
        // Each line in its setting's colour, as everywhere else.
        QCOMPARE(graphNamed(throughput, "default")->pen().color(),
                 QColor(QString::fromStdString(core::runColor(document.report(), 1))));

        // Speedup: the compiled settings against eager, and the 1× line.
        QCustomPlot* speedup = plotOf(tab, "scalingSpeedupPlot");
        QCOMPARE(speedup->graphCount(), 2);
        QVERIFY(!graphNamed(speedup, "eager"));
        QCOMPARE(graphNamed(speedup, "default")->dataCount(), 3);
        QVERIFY(qAbs(graphNamed(speedup, "default")->data()->at(2)->value - 2.0) < 0.05);
        const auto one = itemsNamed(speedup, "oneTimesLine");
        QCOMPARE(one.size(), 1);
        // A ratio axis: 1× in view, slowdowns as far below it as speedups above.
        QCOMPARE(speedup->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(speedup->yAxis->range().contains(1) && speedup->yAxis->range().contains(0.83));
        auto* line = static_cast<QCPItemStraightLine*>(one.front());
        QCOMPARE(line->point1->coords().y(), 1.0);
        QCOMPARE(line->point2->coords().y(), 1.0);

        // Memory: a line per setting, and the size max-autotune ran out of memory at.
        QCustomPlot* memory = plotOf(tab, "scalingMemoryPlot");
        QCOMPARE(memory->graphCount(), 3);
        QCOMPARE(graphNamed(memory, "default")->data()->at(1)->value, 4e6);
        const auto marks = itemsNamed(memory, "memoryStopMark");
        QCOMPARE(marks.size(), 1);
        QCOMPARE(static_cast<QCPItemStraightLine*>(marks.front())->point1->coords().x(), 16.0);
        const auto labels = itemsNamed(memory, "memoryStopLabel");
        QCOMPARE(labels.size(), 1);
        QCOMPARE(static_cast<QCPItemText*>(labels.front())->text(),
                 QString("max-autotune\nout of memory at 16"));
        QCOMPARE(memory->yAxis->label(), QString("peak host memory (RSS)"));

        // How each walk ended, under the table.
        const QString stops = child<QLabel>(tab, "scalingStops")->text();
        QVERIFY(stops.contains("every size measured"));
        QVERIFY(stops.contains("out of memory at batch 16: CUDA out of memory"));
        QVERIFY(child<QLabel>(tab, "scalingSummary")->text().contains("dimension 0"));
    }

    void aBudgetStopSaysTheSizeItDidNotBegin() {
        widgets::ReportDocument document;
        core::Report report = threeWalks();
        report.runs[0].scaling->stop =
            core::ScaleStop{"budget", 64, "batch 64 would take about 9.0 s"};
        document.showReport(report);
        widgets::ScalingTab tab(&document);
        const QString stops = child<QLabel>(tab, "scalingStops")->text();
        QVERIFY2(stops.contains("time budget before batch 64: batch 64 would take"),
                 qPrintable(stops));
    }

    void tableHoldsTheSameFigures() {
        widgets::ReportDocument document;
        document.showReport(threeWalks());
        widgets::ScalingTab tab(&document);
        tab.resize(1200, 800);
        tab.show();
        auto* view = child<QTableView>(tab, "scalingTable");
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(view->model());
        auto* model = qobject_cast<ScalingTableModel*>(proxy->sourceModel());
        QAbstractItemModelTester tester(model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 8);
        QCOMPARE(model->columnCount(), int(ScalingTableModel::ColumnCount));
        // Row 5: default at 16.
        auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
            return model->data(model->index(row, column), role);
        };
        QCOMPARE(cell(5, ScalingTableModel::Setting).toString(), QString("default"));
        QCOMPARE(cell(5, ScalingTableModel::Batch).toLongLong(), 16);
        QVERIFY(cell(5, ScalingTableModel::Median).toString().startsWith("400"));
        QCOMPARE(cell(5, ScalingTableModel::Throughput).toString(), QString("40,000"));
        QCOMPARE(cell(5, ScalingTableModel::Speedup).toString(), QString("2.00×"));
        QCOMPARE(cell(5, ScalingTableModel::PeakMemory).toString(), QString("15.3 MiB"));
        QCOMPARE(cell(5, ScalingTableModel::FirstCall).toString(), QString("900 ms"));
        // Eager is the baseline: no speedup of its own.
        QCOMPARE(cell(0, ScalingTableModel::Speedup).toString(), QString("—"));
        QVERIFY(cell(0, ScalingTableModel::Setting, Qt::DecorationRole).canConvert<QColor>());
        // Sorting by throughput uses the raw numbers.
        view->sortByColumn(ScalingTableModel::Throughput, Qt::DescendingOrder);
        QCOMPARE(proxy->data(proxy->index(0, ScalingTableModel::Throughput)).toString(),
                 QString("50,000")); // max-autotune at 4: 4 / 80 µs

        // A report without a walk afterwards: empty again, no stale rows.
        document.showReport(probeReport());
        QCOMPARE(model->rowCount(), 0);
        QVERIFY(child<QLabel>(tab, "scalingEmpty")->isVisible());
    }

    void speedupSaysWhyItIsEmptyWithoutEager() {
        widgets::ReportDocument document;
        document.showReport(
            scale_test::report({scale_test::walk("default", {{1, 120}, {4, 100}}),
                                scale_test::walk("max-autotune", {{1, 110}, {4, 80}})}));
        widgets::ScalingTab tab(&document);
        tab.resize(1200, 800);
        tab.show();
        QCustomPlot* speedup = plotOf(tab, "scalingSpeedupPlot");
        QCOMPARE(speedup->graphCount(), 0);
        QVERIFY(emptyMessage(speedup).contains("No eager walk"));
        QVERIFY(itemsNamed(speedup, "oneTimesLine").isEmpty());
        QCOMPARE(plotOf(tab, "scalingThroughputPlot")->graphCount(), 2);
        QVERIFY(itemsNamed(plotOf(tab, "scalingMemoryPlot"), "memoryStopMark").isEmpty());
    }

    void aHostMemoryCapAndAWalkThatNeverMeasuredAreShown() {
        widgets::ReportDocument document;
        document.showReport(scale_test::report(
            {scale_test::walk("eager", {{1, 100}, {2, 150}}, {"memory_cap", 4, ""}),
             scale_test::walk("default", {}, {"oom", 1, "CUDA out of memory"})}));
        widgets::ScalingTab tab(&document);
        tab.resize(1200, 800);
        tab.show();
        QVERIFY(!child<QLabel>(tab, "scalingEmpty")->isVisible());
        QCustomPlot* memory = plotOf(tab, "scalingMemoryPlot");
        QCOMPARE(memory->graphCount(), 1);
        QCOMPARE(itemsNamed(memory, "memoryStopMark").size(), 2);
        QStringList words;
        for (auto* item : itemsNamed(memory, "memoryStopLabel"))
            words << static_cast<QCPItemText*>(item)->text();
        QVERIFY(words.contains("eager\nmemory cap at 4"));
        QVERIFY(words.contains("default\nout of memory at 1"));
        QVERIFY(emptyMessage(plotOf(tab, "scalingSpeedupPlot")).contains("eager measured"));
    }

    void liveChangesRedrawThroughTheThrottle() {
        core::Report live = scale_test::report({scale_test::walk("eager", {{1, 100}})});
        widgets::ReportDocument document;
        document.showLive(&live);
        widgets::ScalingTab tab(&document);
        tab.resize(1200, 800);
        tab.show();
        QCustomPlot* throughput = plotOf(tab, "scalingThroughputPlot");
        QCOMPARE(throughput->graph(0)->dataCount(), 1);
        core::ScalePoint p = live.runs[0].scaling->points[0];
        p.batchSize = 4;
        live.runs[0].scaling->points.push_back(p);
        document.notifyRunChanged(0);
        QTRY_COMPARE(throughput->graph(0)->dataCount(), 2);
    }

    void mainWindowJumpsToScalingForItsFindings() {
        const core::Report report = threeWalks();
        QTemporaryDir dir;
        app::MainWindow window;
        QVERIFY(cs::test::openReportFile(window, report, dir, "scaling_report.json"));
        // The walks read back from the JSON.
        QVERIFY(window.document()->report().runs[2].scaling == report.runs[2].scaling);

        auto* scaling = child<widgets::ScalingTab>(window, "scalingTab");
        QVERIFY(window.tabs()->currentWidget() != scaling);
        window.document()->requestTab(core::EvidenceTab::Scaling);
        QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(scaling));
        QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(scaling)), QString("Scaling"));
        QVERIFY(child<QTableView>(*scaling, "scalingTable")->isVisible());
        QVERIFY(plotOf(*scaling, "scalingMemoryPlot")->isVisible());
    }
};

QTEST_MAIN(ScalingTabTest)
#include "test_scaling_tab.moc"
