// The Compare, Warmup and Latency tabs offscreen on a saved report from a
// real CPU comparison (eager, default, reduce-overhead on the gallery MLP),
// with a crashed setting added: every value checked against core.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QTest>
#include <qcustomplot.h>

#include "core/analysis/comparison_text.h"
#include "core/analysis/measurement_check.h"
#include "core/analysis/palette.h"
#include "core/report/report_json.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/fixture_report.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/charts/compile_phase_chart.h"
#include "widgets/charts/first_calls_chart.h"
#include "widgets/charts/latency_box_plot.h"
#include "widgets/charts/latency_histogram.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/compare/compare_tab.h"
#include "widgets/compare/comparison_model.h"
#include "widgets/timing/latency_tab.h"
#include "widgets/timing/runs_model.h"
#include "widgets/timing/warmup_tab.h"

using namespace cs;
using cs::test::child;
using widgets::ComparisonModel;

namespace {

const char* kFixture = COMPILESCOPE_FIXTURES "/reports/compare_mlp_cpu.json";

core::Report fixtureWithACrash() {
    auto read = core::readReportFile(kFixture);
    if (!read.ok)
        qFatal("%s", read.error.c_str());
    core::Run crashed;
    crashed.setting = read.report.runs.front().setting;
    crashed.setting.mode = "max-autotune";
    crashed.status = core::RunStatus::Crashed;
    crashed.error =
        core::ErrorInfo{"crashed", "The probe exited with code -9 after 0 measured iterations.",
                        "Traceback (most recent call last):\n  ..."};
    read.report.runs.push_back(crashed);
    return read.report;
}

int rowOf(const ComparisonModel& model, const QString& label) {
    for (int r = 0; r < model.rowCount(); ++r) {
        if (model.index(r, ComparisonModel::Setting).data().toString() == label)
            return r;
    }
    return -1;
}

} // namespace

class CompareTabTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void tableMatchesCore() {
        widgets::ReportDocument document;
        widgets::CompareTab tab(&document);
        QAbstractItemModelTester tester(child<ComparisonModel>(tab, "comparisonModel"),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const core::Report report = fixtureWithACrash();
        document.showReport(report, kFixture);
        tab.resize(1100, 500);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));

        const ComparisonModel& model = *child<ComparisonModel>(tab, "comparisonModel");
        const auto expected = core::compareRuns(report);
        QCOMPARE(model.rowCount(), 4);
        const int eager = rowOf(model, "eager");
        const int compiled = rowOf(model, "default");
        const int cudaGraphs = rowOf(model, "reduce-overhead");
        const int crash = rowOf(model, "max-autotune");
        QVERIFY(eager >= 0 && compiled >= 0 && cudaGraphs >= 0 && crash >= 0);
        auto cell = [&](int row, int column) { return model.index(row, column).data().toString(); };

        QCOMPARE(cell(eager, ComparisonModel::Speedup), QString("baseline"));
        QCOMPARE(cell(eager, ComparisonModel::BreakEven), QString("baseline"));
        const auto& row = expected.rows[static_cast<size_t>(compiled)];
        // The cell holds the point estimate; the interval is in the tooltip.
        QVERIFY(row.speedup);
        QCOMPARE(cell(compiled, ComparisonModel::Speedup),
                 QStringLiteral("%1×").arg(row.speedup->value, 0, 'f', 2));
        QVERIFY(model.index(compiled, ComparisonModel::Speedup)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QString::fromStdString(core::speedupText(row))));
        // Break-even: "no significant gain" when the interval includes 1×, a
        // number of calls when default saves time per call, "never" when it does not.
        const double eagerMedian = expected.rows[static_cast<size_t>(eager)].stats->median;
        if (row.noSignificantGain())
            QCOMPARE(cell(compiled, ComparisonModel::BreakEven), QString("no significant gain"));
        else if (row.stats->median < eagerMedian)
            QVERIFY(cell(compiled, ComparisonModel::BreakEven).endsWith("calls") ||
                    cell(compiled, ComparisonModel::BreakEven).endsWith("call"));
        else
            QCOMPARE(cell(compiled, ComparisonModel::BreakEven), QString("never"));
        QCOMPARE(model.index(compiled, ComparisonModel::Graphs).data().toInt(), row.graphs);
        QVERIFY(row.graphs >= 1);

        // What torch did on CPU for reduce-overhead is said in its row.
        QVERIFY(cell(cudaGraphs, ComparisonModel::Notes).contains("CUDA graphs"));
        QVERIFY(model.index(cudaGraphs, ComparisonModel::Setting)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("CUDA graphs"));

        // A setting with its own variables: its whole label is in the tooltip.
        core::Report withEnv = report;
        withEnv.runs[1].setting.environment = {{"MALLOC_TRIM_THRESHOLD_", "1073741824"}};
        widgets::ReportDocument envDocument;
        ComparisonModel envModel(&envDocument);
        envDocument.showReport(withEnv);
        const QString label = QString::fromStdString(withEnv.runs[1].setting.label());
        const int tuned = rowOf(envModel, label);
        QVERIFY(tuned >= 0);
        QVERIFY(envModel.index(tuned, ComparisonModel::Setting)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(label + "\n"));

        // The crashed setting keeps its row and its error; its numbers are empty, not zero.
        QCOMPARE(cell(crash, ComparisonModel::Status), QString("crashed"));
        QVERIFY(cell(crash, ComparisonModel::Notes).contains("exited with code -9"));
        QCOMPARE(cell(crash, ComparisonModel::Median), QString("—"));
        QVERIFY(!model.index(crash, ComparisonModel::Median).data(widgets::SortRole).isValid());

        // The best of each column is marked, as core says.
        for (int r = 0; r < model.rowCount(); ++r) {
            const auto& er = expected.rows[static_cast<size_t>(r)];
            QCOMPARE(
                model.index(r, ComparisonModel::Median).data(ComparisonModel::BestRole).toBool(),
                er.isBest(core::CompareColumn::Median));
            QCOMPARE(model.index(r, ComparisonModel::Median).data(Qt::FontRole).isValid(),
                     er.isBest(core::CompareColumn::Median));
        }
        int bestMedians = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            bestMedians +=
                model.index(r, ComparisonModel::Median).data(ComparisonModel::BestRole).toBool();
        QVERIFY(bestMedians >= 1);

        // Each setting keeps its colour.
        for (int r = 0; r < model.rowCount(); ++r) {
            QCOMPARE(
                model.index(r, ComparisonModel::Setting).data(Qt::DecorationRole).value<QColor>(),
                QColor(QString::fromStdString(core::runColor(report, r))));
        }

        // Sorting by median puts the fastest first and the crashed (no median) last.
        child<QTableView>(tab, "compareTable")
            ->sortByColumn(ComparisonModel::Median, Qt::AscendingOrder);
        auto* proxy =
            qobject_cast<QSortFilterProxyModel*>(child<QTableView>(tab, "compareTable")->model());
        QVERIFY(proxy);
        double previous = 0;
        for (int r = 0; r < 3; ++r) {
            const double v =
                proxy->index(r, ComparisonModel::Median).data(widgets::SortRole).toDouble();
            QVERIFY(v >= previous);
            previous = v;
        }
        QCOMPARE(proxy->index(3, ComparisonModel::Setting).data().toString(),
                 QString("max-autotune"));

        // Selecting the crashed row shows its error and traceback; selecting another hides them.
        child<QTableView>(tab, "compareTable")->selectRow(3);
        QCOMPARE(document.selection().run, crash);
        QVERIFY(child<QPlainTextEdit>(tab, "compareDetails")->isVisible());
        QVERIFY(child<QPlainTextEdit>(tab, "compareDetails")->toPlainText().contains("Traceback"));
        child<QTableView>(tab, "compareTable")->selectRow(0);
        QVERIFY(!child<QPlainTextEdit>(tab, "compareDetails")->isVisible());

        QVERIFY(child<QLabel>(tab, "compareSummary")->text().contains("than eager per call"));
        QVERIFY(child<QLabel>(tab, "compareSummary")
                    ->text()
                    .contains("max-autotune did not finish (crashed)"));
        QVERIFY(child<QLabel>(tab, "compareSummary")
                    ->text()
                    .contains("Note — reduce-overhead: mode reduce-overhead asks for CUDA"));
        if (!qEnvironmentVariableIsEmpty("CS_SHOT_DIR"))
            tab.grab().save(qEnvironmentVariable("CS_SHOT_DIR") + "/compare_tab.png");
    }

    // At 1280x800 with the settings dock open the table gets about 910
    // pixels: every column fits with its title whole, and the column the user
    // sorts by gets the room for its arrow.
    void theTableFitsTheSmallestWindow() {
        widgets::ReportDocument document;
        widgets::CompareTab tab(&document);
        document.showReport(fixtureWithACrash(), kFixture);
        tab.resize(912, 500);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        auto* table = child<QTableView>(tab, "compareTable");
        auto* header = table->horizontalHeader();
        QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
        const int margin = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
        auto titleFits = [&](int c) {
            const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
            return table->columnWidth(c) >=
                   header->fontMetrics().horizontalAdvance(title) + 2 * margin;
        };
        for (int c = 0; c < ComparisonModel::Notes; ++c) {
            if (!table->isColumnHidden(c))
                QVERIFY2(titleFits(c), qPrintable(QString::number(c)));
        }
        const int unsorted = table->columnWidth(ComparisonModel::Graphs);
        table->sortByColumn(ComparisonModel::Graphs, Qt::DescendingOrder);
        QCOMPARE(table->columnWidth(ComparisonModel::Graphs),
                 header->sectionSizeHint(ComparisonModel::Graphs));
        QVERIFY(table->columnWidth(ComparisonModel::Graphs) > unsorted);
        QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
    }

    // The sweep column shows only when a setting swept its inputs (--sweep),
    // with its figure, its recompiles in the tooltip, and the best marked.
    void theSweepColumnShowsOnlyWhenASettingSwept() {
        widgets::ReportDocument document;
        widgets::CompareTab tab(&document);
        core::Report report = fixtureWithACrash();
        document.showReport(report, kFixture);
        auto* table = child<QTableView>(tab, "compareTable");
        QVERIFY(table->isColumnHidden(ComparisonModel::Sweep));

        for (auto& run : report.runs) {
            if (run.status == core::RunStatus::Ok)
                run.phases.push_back(
                    {"sweep", 1'000,
                     1'000 + (run.setting.mode == "eager" ? 5'000'000 : 700'000'000)});
        }
        core::Recompile recompile;
        recompile.phase = "sweep";
        report.runs[1].recompiles.push_back(recompile);
        document.showReport(report, kFixture);
        QVERIFY(!table->isColumnHidden(ComparisonModel::Sweep));
        const ComparisonModel& model = *child<ComparisonModel>(tab, "comparisonModel");
        const int eager = rowOf(model, "eager");
        const int compiled = rowOf(model, QString::fromStdString(report.runs[1].setting.label()));
        QCOMPARE(model.index(eager, ComparisonModel::Sweep).data().toString(), QString("5.00 ms"));
        QVERIFY(
            model.index(eager, ComparisonModel::Sweep).data(ComparisonModel::BestRole).toBool());
        QCOMPARE(model.index(compiled, ComparisonModel::Sweep).data().toString(),
                 QString("700 ms"));
        QVERIFY2(
            model.index(compiled, ComparisonModel::Sweep)
                .data(Qt::ToolTipRole)
                .toString()
                .contains("input sweep 700 ms, 1 recompile in it"),
            qPrintable(
                model.index(compiled, ComparisonModel::Sweep).data(Qt::ToolTipRole).toString()));
        QCOMPARE(model.headerData(ComparisonModel::Sweep, Qt::Horizontal).toString(),
                 QString("sweep"));
    }

    // The outputs check's cell: its words, the leaf and figures in the
    // tooltip, red only for a difference float64 does not excuse.
    void theOutputsColumnShowsTheCheck() {
        widgets::ReportDocument document;
        widgets::CompareTab tab(&document);
        core::Report report = fixtureWithACrash();
        core::OutputLeaf leaf;
        leaf.path = "output";
        leaf.kind = "values";
        leaf.relative = 0.071;
        leaf.mismatched = 79;
        leaf.differs = true;
        core::OutputsCheck check;
        check.status = "differ";
        check.precision = "bfloat16";
        check.tolerance = 0.05;
        check.worst = {leaf};
        check.float64EagerError = 0.069;
        check.float64CompiledError = 0.003;
        report.runs[1].outputsCheck = check;
        check.float64CompiledError = 0.2; // now the compiled side is the farther
        report.runs[2].outputsCheck = check;
        document.showReport(report, kFixture);
        const ComparisonModel& model = *child<ComparisonModel>(tab, "comparisonModel");
        auto cell = [&](const core::Run& run, int role) {
            return model
                .index(rowOf(model, QString::fromStdString(run.setting.label())),
                       ComparisonModel::Outputs)
                .data(role);
        };
        QCOMPARE(model.headerData(ComparisonModel::Outputs, Qt::Horizontal).toString(),
                 QString("outputs"));
        QCOMPARE(cell(report.runs[1], Qt::DisplayRole).toString(),
                 QString("differ 7.1%, nearer exact"));
        const QString tip = cell(report.runs[1], Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("output: largest difference 7.1% of its largest value (5.0% "
                              "allowed in bfloat16)") &&
                     tip.contains("eager's own rounding"),
                 qPrintable(tip));
        QVERIFY(!cell(report.runs[1], Qt::ForegroundRole).isValid());
        QCOMPARE(cell(report.runs[2], Qt::DisplayRole).toString(), QString("differ 7.1%"));
        QVERIFY(cell(report.runs[2], Qt::ForegroundRole).isValid());
        QCOMPARE(cell(report.runs[0], Qt::DisplayRole).toString(), QString("—"));
    }

    void warmupTabDrawsPhasesAndCurves() {
        widgets::ReportDocument document;
        widgets::WarmupTab tab(&document);
        const core::Report report = fixtureWithACrash();
        document.showReport(report, kFixture);
        tab.resize(1000, 700);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        QCustomPlot* bars = child<QCustomPlot>(tab, "compilePhasePlot");
        // One stacked bar series per phase that holds time; all stacked on one another.
        QVERIFY(bars->plottableCount() >= 2);
        double firstCallsTotal = 0;
        for (const auto& run : report.runs) {
            const auto w = core::analyzeWarmup(run);
            firstCallsTotal +=
                std::max<double>(0, static_cast<double>(w.firstCallNs)) + w.laterSeconds() * 1e9;
        }
        double drawn = 0;
        for (int i = 0; i < bars->plottableCount(); ++i) {
            auto* b = qobject_cast<QCPBars*>(bars->plottable(i));
            QVERIFY(b);
            if (i > 0)
                QVERIFY(b->barBelow());
            for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it)
                drawn += it->value;
        }
        // The stacks add up to the first call's wall time (phases with "other") plus what
        // later warmup calls compiled.
        QVERIFY2(std::abs(drawn - firstCallsTotal) <= 1e-6 * firstCallsTotal,
                 qPrintable(QString("%1 vs %2").arg(drawn).arg(firstCallsTotal)));
        // A curve per setting with calls (the crashed one has none), on a log axis.
        QCustomPlot* curves = child<QCustomPlot>(tab, "firstCallsPlot");
        QCOMPARE(curves->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(curves->legend->itemCount(), 3);
        QVERIFY(child<QLabel>(tab, "warmupSummary")->text().contains("steady from call"));
        if (!qEnvironmentVariableIsEmpty("CS_SHOT_DIR")) {
            tab.grab().save(qEnvironmentVariable("CS_SHOT_DIR") + "/warmup_tab.png");
            child<QCustomPlot>(tab, "compilePhasePlot")
                ->savePng(qEnvironmentVariable("CS_SHOT_DIR") + "/phases2x.png", 0, 0, 2.0);
        }
    }

    void aHeaderBuildIsNamedNotBlamed() {
        auto read = core::readReportFile(kFixture);
        QVERIFY(read.ok);
        core::Run* compiled = nullptr;
        for (auto& run : read.report.runs)
            if (run.setting.mode == "default")
                compiled = &run;
        QVERIFY(compiled);
        // A header build larger than any other phase, taken out of the C++ compile.
        double total = 0;
        for (auto& p : compiled->compilePhases)
            if (p.name != "other")
                total += p.seconds;
        for (auto& p : compiled->compilePhases)
            if (p.name == "cpp_triton_compile")
                p.seconds = 0;
        compiled->compilePhases.push_back({"precompiled_header", total});

        widgets::ReportDocument document;
        widgets::WarmupTab tab(&document);
        document.showReport(read.report, kFixture);
        const QString summary = child<QLabel>(tab, "warmupSummary")->text();
        QVERIFY2(summary.contains("building torch's precompiled C++ header (once per machine)"),
                 qPrintable(summary));
        QVERIFY2(!summary.contains("most of it torch's precompiled"), qPrintable(summary));

        widgets::ComparisonModel model(&document);
        const int row = rowOf(model, QString::fromStdString(compiled->setting.label()));
        QVERIFY(row >= 0);
        const QString notes =
            model.index(row, ComparisonModel::Notes).data(Qt::ToolTipRole).toString();
        QVERIFY2(notes.contains("left out of its warmup cost and break-even"), qPrintable(notes));
    }

    void latencyTabDrawsDistributions() {
        widgets::ReportDocument document;
        widgets::LatencyTab tab(&document);
        const core::Report report = fixtureWithACrash();
        document.showReport(report, kFixture);
        tab.resize(1000, 900);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        QCOMPARE(child<QCustomPlot>(tab, "histogramPlot")->graphCount(), 3);
        QCOMPARE(child<QCustomPlot>(tab, "boxPlot")->plottableCount(), 3);
        auto* box =
            qobject_cast<QCPStatisticalBox*>(child<QCustomPlot>(tab, "boxPlot")->plottable(0));
        QVERIFY(box);
        const auto stats = core::computeStats(report.runs[0].measuredLatencies());
        QCOMPARE(box->data()->constBegin()->median, stats->median);
        QCOMPARE(static_cast<size_t>(box->data()->constBegin()->outliers.size()), stats->outliers);
        QVERIFY(
            child<QLabel>(tab, "harnessOverhead")->text().contains("Harness overhead per call"));
        const QString overhead = child<widgets::RunsModel>(tab, "runsModel")
                                     ->index(0, widgets::RunsModel::Overhead)
                                     .data()
                                     .toString();
        QVERIFY2(report.runs[0].harnessOverheadNs > 0 && !overhead.isEmpty(), qPrintable(overhead));
        if (!qEnvironmentVariableIsEmpty("CS_SHOT_DIR"))
            tab.grab().save(qEnvironmentVariable("CS_SHOT_DIR") + "/latency_tab.png");
    }

    // The cross-check line and the choice to leave unsettled calls out.
    void latencyTabShowsCrosscheckAndDropsUnsettledOnRequest() {
        core::Report report = fixtureWithACrash();
        core::Run& run = report.runs[0];
        const auto all = run.measuredLatencies();
        QVERIFY(all.size() >= 10);
        const int64_t median = static_cast<int64_t>(core::computeStats(all)->median);
        int seen = 0;
        for (auto& it : run.iterations) { // the first three measured calls: still warming up
            if (!it.warmup && seen++ < 3)
                it.latencyNs = 40 * median;
        }
        run.crosscheckBlockCalls = 20;
        run.crosscheckBlockMeansNs = std::vector<double>(3, 0.8 * static_cast<double>(median));
        widgets::ReportDocument document;
        widgets::LatencyTab tab(&document);
        document.showReport(report, kFixture);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        const QString check = child<QLabel>(tab, "crosscheck")->text();
        QVERIFY2(check.contains("disagree"), qPrintable(check));
        // A load through the whole phase: the machine's line says the probe shared its CPUs.
        QVERIFY2(!check.contains("the rest of the machine"), qPrintable(check));
        core::Report busy = report;
        busy.runs[0].probe.threads = 2;
        busy.runs[0].measureMachineCpu = {2, 2'000'000'000, 3'000'000'000,
                                          0, 1'900'000'000, 10'000'000};
        document.showReport(busy, kFixture);
        const QString shared = child<QLabel>(tab, "crosscheck")->text();
        QVERIFY2(shared.contains("the rest of the machine: others kept 0.55 of its 2 CPUs busy") &&
                     shared.contains("the probe shared its CPUs"),
                 qPrintable(shared));
        const QString detail = child<QLabel>(tab, "crosscheck")->toolTip();
        QVERIFY2(detail.contains("other processes kept 0.55 of the probe's 2 CPUs busy (the "
                                 "probe 0.95, 2 threads)"),
                 qPrintable(detail));
        // Costly page faults: named on the line, their figures in the tooltip.
        core::Report faulting = report;
        const int calls = static_cast<int>(all.size());
        faulting.runs[0].measureHostFaults = {
            calls, 4735LL * calls, 0, median * calls, median * calls, 4096, "glibc", {}};
        document.showReport(faulting, kFixture);
        const QString faults = child<QLabel>(tab, "crosscheck")->text();
        QVERIFY2(faults.contains("4,735 page faults per call</b> (see Advice)"),
                 qPrintable(faults));
        QVERIFY2(child<QLabel>(tab, "crosscheck")
                     ->toolTip()
                     .contains("page faults while measuring: 4,735 page faults per call (18.5 MiB "
                               "of fresh pages)"),
                 qPrintable(child<QLabel>(tab, "crosscheck")->toolTip()));
        document.showReport(report, kFixture);
        QVERIFY(!child<QLabel>(tab, "crosscheck")->text().contains("page faults"));
        // what core finds: at least the three made slow, maybe a real call after them
        int total = 0, runsWithSome = 0;
        for (const auto& r : report.runs) {
            if (const auto u = core::unsettledCalls(r)) {
                total += u->calls;
                ++runsWithSome;
            }
        }
        const int first = core::unsettledCalls(run)->calls;
        QVERIFY(first >= 3);
        auto* drop = child<QCheckBox>(tab, "dropUnsettled");
        QVERIFY(drop->isVisible() && drop->isEnabled() && !drop->isChecked());
        QVERIFY2(drop->text().contains(QString::number(total) + " unsettled"),
                 qPrintable(drop->text()));
        QSignalSpy changed(&document, &widgets::ReportDocument::runChanged);
        drop->setChecked(true);
        QCOMPARE(document.report().runs[0].droppedUnsettled, first);
        QCOMPARE(document.report().runs[0].measuredLatencies().size(),
                 all.size() - static_cast<size_t>(first));
        QVERIFY(document.isModified());
        QCOMPARE(changed.count(), runsWithSome);
        drop->setChecked(false);
        QCOMPARE(document.report().runs[0].droppedUnsettled, 0);
    }

    // A guard that fails every 20 calls (recorded): a triangle on each call
    // that recompiled, on the call numbers the advice and the Recompiles tab use.
    void aWarmupRecompileAfterSteadyStateIsNamedInTheSummary() {
        core::Run run;
        run.setting.mode = "default";
        run.status = core::RunStatus::Ok;
        const std::vector<int64_t> warmupNs{5'000'000, 100'000, 100'000, 2'000'000, 100'000};
        for (int i = 0; i < 25; ++i) {
            const bool warm = i < static_cast<int>(warmupNs.size());
            const int64_t ns = warm ? warmupNs[static_cast<size_t>(i)] : 100'000;
            run.iterations.push_back({i, ns, ns, 0, warm, i == 0});
        }
        core::Recompile rc;
        rc.function = "forward";
        rc.phase = "warmup";
        rc.callIndex = 3;
        run.recompiles.push_back(rc);
        core::Report report;
        report.runs.push_back(run);
        widgets::ReportDocument document;
        widgets::WarmupTab warmup(&document);
        document.showReport(report);
        const QString text = child<QLabel>(warmup, "warmupSummary")->text();
        // Call 4 paid 1.9 ms beyond steady state, on top of the first call's 4.9 ms.
        QVERIFY2(text.contains("steady from call 2 until call 4 recompiled: warmup 7.00 ms in all "
                               "(6.80 ms beyond steady state)"),
                 qPrintable(text));
    }

    void recompiledCallsAreMarkedOnBothCharts() {
        core::Setting setting;
        setting.backend = "eager";
        setting.warmup = 21;
        core::Run run = test::replayFixture("recompiles_mid_measure.jsonl", setting);
        run.status = core::RunStatus::Ok;
        core::Report report;
        report.runs.push_back(run);
        widgets::ReportDocument document;
        widgets::LatencyTab latency(&document);
        widgets::WarmupTab warmup(&document);
        document.showReport(report);
        const auto marks = [](QCustomPlot* plot) {
            QList<QPair<double, double>> points;
            for (int g = 0; g < plot->graphCount(); ++g) {
                if (!plot->graph(g)->name().endsWith(": recompiled"))
                    continue;
                for (auto it = plot->graph(g)->data()->constBegin();
                     it != plot->graph(g)->data()->constEnd(); ++it)
                    points.append({it->key, it->value});
            }
            return points;
        };
        const auto measured = run.measuredLatencies();
        const auto onLatency = marks(child<QCustomPlot>(latency, "iterationPlot"));
        QCOMPARE(onLatency.size(), 3);
        for (const auto& [key, value] : onLatency) {
            QVERIFY2(key == 19 || key == 39 || key == 59, qPrintable(QString::number(key)));
            QCOMPARE(value, static_cast<double>(measured[static_cast<size_t>(key) - 1]));
        }
        // The warmup chart counts every call from 1: warmup call 20 compiled,
        // and measured call 19 is call 40 of the run.
        const auto onWarmup = marks(child<QCustomPlot>(warmup, "firstCallsPlot"));
        QVERIFY(!onWarmup.isEmpty());
        QCOMPARE(onWarmup[0].first, 20.0);
        QCOMPARE(onWarmup[0].second, static_cast<double>(run.iterations[19].latencyNs));
        if (onWarmup.size() > 1)
            QCOMPARE(onWarmup[1].first, 40.0);
        // Nothing to mark, nothing drawn.
        run.recompiles.clear();
        report.runs[0] = run;
        document.showReport(report);
        QVERIFY(marks(child<QCustomPlot>(latency, "iterationPlot")).isEmpty());
        QVERIFY(marks(child<QCustomPlot>(warmup, "firstCallsPlot")).isEmpty());
    }
};

QTEST_MAIN(CompareTabTest)
#include "test_compare_tab.moc"
