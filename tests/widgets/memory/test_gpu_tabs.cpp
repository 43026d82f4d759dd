// The Memory and Kernels tabs offscreen, fed by replayed probe streams: the
// synthetic GPU runs of tests/fixtures/cupti and a real CPU run of the probe.
// Also File → Export Trace from the main window. With CS_SCREENSHOT_DIR set,
// each case saves a PNG of the tab there for a person to look at.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include <fstream>
#include <sstream>

#include "app/main_window.h"
#include "core/analysis/gpu_status.h"
#include "core/analysis/memory_timeline.h"
#include "core/events/event_parser.h"
#include "core/report/report_json.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/charts/memory_peak_chart.h"
#include "widgets/charts/memory_timeline_chart.h"
#include "widgets/charts/run_bar_chart.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/memory/kernel_runs_model.h"
#include "widgets/memory/kernel_table_model.h"
#include "widgets/memory/kernels_tab.h"
#include "widgets/memory/memory_tab.h"

using namespace cs;
using cs::test::child;

namespace {

constexpr double MiB = 1 << 20;
using RunBarChartPtr = widgets::RunBarChart*;

core::Run replayFixture(const std::string& name, const std::string& mode) {
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/" + name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    core::Setting setting;
    setting.mode = mode;
    core::Run run = core::replayStream(text.str(), setting);
    run.status = core::RunStatus::Ok;
    return run;
}

core::Report gpuReport() {
    core::Report report;
    report.generator = "test";
    report.runs.push_back(replayFixture("cupti/run_default.jsonl", "default"));
    report.runs.push_back(replayFixture("cupti/run_reduce_overhead.jsonl", "reduce-overhead"));
    report.deriveFromRuns();
    return report;
}

core::Report cpuReport() {
    core::Report report;
    report.runs.push_back(replayFixture("streams/mlp_eager_cpu.jsonl", "eager"));
    report.deriveFromRuns();
    return report;
}

QString emptyMessage(QCustomPlot* plot) {
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(plot->item(i));
        if (text && text->objectName() == "emptyMessage")
            return text->text();
    }
    return {};
}

QStringList graphNames(QCustomPlot* plot) {
    QStringList names;
    for (int i = 0; i < plot->graphCount(); ++i)
        names << plot->graph(i)->name();
    return names;
}

void screenshot(QWidget* widget, const QString& name) {
    const QString dir = qEnvironmentVariable("CS_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QTest::qWait(50); // let queued replots happen
    widget->grab().save(dir + "/" + name);
}

} // namespace

class GpuTabsTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        cs::test::installWarningGuard();
    }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void memoryTabShowsDeviceMemoryPhasesAndTorchCounters() {
        widgets::ReportDocument document;
        document.showReport(gpuReport());
        widgets::MemoryTab tab(&document);
        tab.resize(1100, 760);
        tab.show();
        document.selectRun(1); // reduce-overhead
        auto* plot = child<QCustomPlot>(tab, "memoryTimeline");
        const QStringList names = graphNames(plot);
        QVERIFY2(names.contains("device memory held (CUPTI)"), qPrintable(names.join(", ")));
        QVERIFY(names.contains("torch reserved at phase edges"));
        QVERIFY(names.contains("torch allocated at phase edges"));
        QVERIFY(!names.join(" ").contains("host")); // host RSS only when asked for
        QCOMPARE(child<widgets::MemoryTimelineChart>(tab, "memoryTimelineChart")->bandCount(), 4);
        QVERIFY(emptyMessage(plot).isEmpty());
        const auto& run = document.report().runs[1];
        // Every CUPTI sample, and the last value carried to the end of the measure phase.
        const auto& samples = run.memorySeries("device")->samples;
        QCOMPARE(plot->graph(0)->dataCount(), int(samples.size()) + 1);
        const auto last = plot->graph(0)->data()->constEnd() - 1;
        QCOMPARE(last->value, double(samples.back().second));
        QCOMPARE(last->key, double(run.phase("measure")->endNs - core::runOriginNs(run)) / 1e9);
        QCOMPARE(plot->graph(1)->dataCount(), int(run.memoryStats.size()));
        // The 86 MiB compile peak (autotune buffer) is on the chart.
        bool found = false;
        const double peak = plot->graph(0)->getValueRange(found).upper;
        QVERIFY(found);
        QCOMPARE(peak, 86 * MiB);
        QVERIFY(plot->yAxis->label().contains("device memory"));
        QVERIFY(child<QLabel>(tab, "memoryNotes")->text().contains("CUPTI"));
        QVERIFY(child<QLabel>(tab, "memoryNotes")->text().contains("Records dropped: 0"));

        screenshot(&tab, "memory_tab_gpu_fixture.png");
        child<QCheckBox>(tab, "memoryHostRss")->setChecked(true);
        QVERIFY(graphNames(plot).contains("host memory (RSS) of the probe process"));

        // Peak bars: device memory, one bar set per setting; reduce-overhead holds its 32 MiB graph
        // pool.
        auto* peaks = child<widgets::MemoryPeakChart>(tab, "memoryPeakChart");
        QCOMPARE(QString::fromStdString(peaks->kind()), QString("device"));
        QCOMPARE(child<QCustomPlot>(*peaks, "memoryPeaks")->plottableCount(), 2);
        auto* defaultBars =
            qobject_cast<QCPBars*>(child<QCustomPlot>(*peaks, "memoryPeaks")->plottable(0));
        auto* graphBars =
            qobject_cast<QCPBars*>(child<QCustomPlot>(*peaks, "memoryPeaks")->plottable(1));
        QCOMPARE(defaultBars->name(), QString("default"));
        QCOMPARE(graphBars->name(), QString("reduce-overhead"));
        QCOMPARE(defaultBars->data()->at(3)->value, 22 * MiB); // measure
        QCOMPARE(graphBars->data()->at(3)->value, 54 * MiB);   // measure
        QCOMPARE(graphBars->data()->at(1)->value, 86 * MiB);   // compile
    }

    void memoryTabOnCpuShowsHostRssAndSaysWhyNoGpu() {
        widgets::ReportDocument document;
        document.showReport(cpuReport());
        widgets::MemoryTab tab(&document);
        tab.resize(1100, 760);
        tab.show();
        auto* plot = child<QCustomPlot>(tab, "memoryTimeline");
        QCOMPARE(graphNames(plot), QStringList{"host memory (RSS) of the probe process"});
        QCOMPARE(plot->yAxis->label(), QString("host memory (RSS)"));
        QVERIFY(emptyMessage(plot).isEmpty()); // never blank: host RSS is there
        QCOMPARE(plot->graph(0)->dataCount(),
                 int(document.report().runs[0].memorySeries("host_rss")->samples.size()));
        QCOMPARE(child<widgets::MemoryTimelineChart>(tab, "memoryTimelineChart")->bandCount(), 4);
        const QString notes = child<QLabel>(tab, "memoryNotes")->text();
        QVERIFY2(notes.contains(core::kNoCudaMessage), qPrintable(notes));
        QVERIFY(notes.contains("CUPTI off: the run is on cpu, not CUDA")); // the probe's own words
        QVERIFY(notes.contains("host memory (RSS)"));
        QCOMPARE(
            QString::fromStdString(child<widgets::MemoryPeakChart>(tab, "memoryPeakChart")->kind()),
            QString("host_rss"));
        QCOMPARE(child<QCustomPlot>(tab, "memoryPeaks")->plottableCount(), 1);
        QVERIFY(
            child<QCustomPlot>(tab, "memoryPeaks")->windowTitle().contains("host memory (RSS)"));
        screenshot(&tab, "memory_tab_cpu_run.png");
    }

    void memoryTabSaysWhatEveryCallKept() {
        core::Report report = cpuReport();
        core::Run& run = report.runs[0];
        run.crosscheckBlockCalls = 100;
        run.crosscheckBlockMeansNs = {1e5, 1e5};
        run.measureHostHeld = {"malloc", 20, 100 << 20, (100 << 20) + 20 * 65'536};
        run.crosscheckHostHeld = {"malloc", 200, 102 << 20, (102 << 20) + 200 * 65'536};
        widgets::ReportDocument document;
        document.showReport(report);
        widgets::MemoryTab tab(&document);
        tab.resize(1100, 760);
        tab.show();
        QString notes = child<QLabel>(tab, "memoryNotes")->text();
        QVERIFY2(notes.contains("<b>Kept per call</b> at the same inputs: malloc's bytes in "
                                "use grew 64.0 KiB per call: +1.25 MiB over 20 measured calls, "
                                "+12.5 MiB over 200 cross-check calls."),
                 qPrintable(notes));
        QVERIFY(notes.contains("It grows with every call"));
        screenshot(&tab, "memory_tab_kept_per_call.png");

        run.crosscheckHostHeld.endBytes = run.crosscheckHostHeld.beginBytes;
        document.showReport(report);
        notes = child<QLabel>(tab, "memoryNotes")->text();
        QVERIFY2(notes.contains("Nothing kept: below 1.00 KiB per call in either window."),
                 qPrintable(notes));
        QVERIFY(!notes.contains("It grows"));

        // 1.5 KiB per call in both windows, but 16.5 KiB in all over 11 calls.
        run.measureHostHeld = {"malloc", 5, 100 << 20, (100 << 20) + 5 * 1536};
        run.crosscheckHostHeld = {"malloc", 6, 101 << 20, (101 << 20) + 6 * 1536};
        document.showReport(report);
        notes = child<QLabel>(tab, "memoryNotes")->text();
        QVERIFY2(notes.contains("Can't tell: +16.5 KiB over 11 calls in all, below 64.0 KiB"),
                 qPrintable(notes));
        QVERIFY(!notes.contains("It grows"));
    }

    void memoryTabWithoutRunsSaysWhatToDo() {
        widgets::ReportDocument document;
        widgets::MemoryTab tab(&document);
        QVERIFY(!emptyMessage(child<QCustomPlot>(tab, "memoryTimeline")).isEmpty());
        QVERIFY(!emptyMessage(child<QCustomPlot>(tab, "memoryPeaks")).isEmpty());
    }

    void kernelsTabComparesSettingsAndListsTopKernels() {
        widgets::ReportDocument document;
        document.showReport(gpuReport());
        widgets::KernelsTab tab(&document);
        tab.resize(1100, 760);
        tab.show();
        QAbstractItemModelTester runsTester(child<widgets::KernelRunsModel>(tab, "kernelRunsModel"),
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester topTester(child<widgets::KernelTableModel>(tab, "topKernelsModel"),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
        // CUDA graphs: 2 launches per iteration instead of 4, same GPU time.
        QCOMPARE(child<widgets::RunBarChart>(tab, "kernelLaunchesChart")->values(),
                 (std::vector<double>{4, 2}));
        QCOMPARE(child<widgets::RunBarChart>(tab, "kernelGpuTimeChart")->values(),
                 (std::vector<double>{110000, 110000}));
        QVERIFY(
            emptyMessage(child<QCustomPlot>(
                             *child<widgets::RunBarChart>(tab, "kernelLaunchesChart"), "barPlot"))
                .isEmpty());

        auto* runs = child<widgets::KernelRunsModel>(tab, "kernelRunsModel");
        QCOMPARE(runs->rowCount(), 2);
        QCOMPARE(runs->index(1, widgets::KernelRunsModel::Launches).data().toString(),
                 QString("2"));
        QCOMPARE(runs->index(1, widgets::KernelRunsModel::Busy).data().toString(),
                 QString("36.0 %"));
        QCOMPARE(runs->index(1, widgets::KernelRunsModel::Memcpy).data().toString(), QString("4"));
        QCOMPARE(runs->index(1, widgets::KernelRunsModel::MemcpyBytes).data().toString(),
                 QString("16.0 KiB"));
        QCOMPARE(runs->index(1, widgets::KernelRunsModel::Dropped).data().toString(),
                 QString("0")); // shown, not hidden
        QVERIFY(!child<QTableView>(tab, "kernelRunsTable")
                     ->isColumnHidden(widgets::KernelRunsModel::Dropped));

        // The top kernels of the selected setting, sortable and copyable.
        QVERIFY(child<QTableView>(tab, "topKernelsTable")->isVisible());
        QVERIFY(!child<QLabel>(tab, "kernelsEmptyReason")->isVisible());
        QCOMPARE(child<widgets::KernelTableModel>(tab, "topKernelsModel")->rowCount(), 4);
        auto* view = child<QTableView>(tab, "topKernelsTable");
        view->sortByColumn(widgets::KernelTableModel::Mean, Qt::AscendingOrder);
        QCOMPARE(view->model()->index(0, widgets::KernelTableModel::Name).data().toString(),
                 QString("triton_poi_fused_copy_0"));
        QCOMPARE(view->model()->index(0, widgets::KernelTableModel::Mean).data().toString(),
                 QString("10.0 µs"));
        view->selectAll();
        const QString copied = widgets::selectionAsText(view);
        QVERIFY(copied.startsWith("kernel\tcount\ttotal\tmean"));
        QVERIFY(copied.contains("triton_per_fused_native_layer_norm_0\t4\t160 µs\t40.0 µs"));
        QVERIFY(child<QLabel>(tab, "topKernelsTitle")->text().contains("default"));

        // Selecting the other setting in the summary table shows its kernels.
        child<QTableView>(tab, "kernelRunsTable")->selectRow(1);
        QCOMPARE(document.selection().run, 1);
        QVERIFY(child<QLabel>(tab, "topKernelsTitle")->text().contains("reduce-overhead"));
        screenshot(&tab, "kernels_tab_gpu_fixture.png");
    }

    void kernelsTabOnCpuSaysWhyItIsEmpty() {
        widgets::ReportDocument document;
        document.showReport(cpuReport());
        widgets::KernelsTab tab(&document);
        tab.resize(1100, 760);
        tab.show();
        QVERIFY(child<widgets::RunBarChart>(tab, "kernelLaunchesChart")->values().empty());
        auto said = [](RunBarChartPtr chart) {
            return emptyMessage(child<QCustomPlot>(*chart, "barPlot")).replace('\n', ' ');
        };
        QVERIFY2(said(child<widgets::RunBarChart>(tab, "kernelLaunchesChart"))
                     .startsWith(core::kNoCudaMessage),
                 qPrintable(said(child<widgets::RunBarChart>(tab, "kernelLaunchesChart"))));
        QVERIFY(said(child<widgets::RunBarChart>(tab, "kernelGpuTimeChart"))
                    .startsWith(core::kNoCudaMessage));
        QVERIFY(child<QLabel>(tab, "kernelsEmptyReason")->isVisible());
        QVERIFY(child<QLabel>(tab, "kernelsEmptyReason")->text().startsWith(core::kNoCudaMessage));
        QVERIFY(child<QLabel>(tab, "kernelsEmptyReason")
                    ->text()
                    .contains("NVIDIA GPU")); // and what would fill it
        QVERIFY(child<widgets::KernelRunsModel>(tab, "kernelRunsModel")
                    ->index(0, widgets::KernelRunsModel::Note)
                    .data()
                    .toString()
                    .startsWith(core::kNoCudaMessage));
        QVERIFY(child<widgets::KernelRunsModel>(tab, "kernelRunsModel")
                    ->index(0, widgets::KernelRunsModel::Launches)
                    .data()
                    .isNull());
        QVERIFY(child<QTableView>(tab, "kernelRunsTable")
                    ->isColumnHidden(widgets::KernelRunsModel::Launches)); // all blank
        QVERIFY(!child<QTableView>(tab, "kernelRunsTable")
                     ->isColumnHidden(widgets::KernelRunsModel::Note));
        screenshot(&tab, "kernels_tab_cpu_run.png");
    }

    void kernelsTabWithCpuAndGpuRunsDrawsBarsForTheGpuOnes() {
        core::Report report = gpuReport();
        report.runs.push_back(replayFixture("streams/mlp_eager_cpu.jsonl", "eager"));
        widgets::ReportDocument document;
        document.showReport(report);
        widgets::KernelsTab tab(&document);
        QCOMPARE(child<widgets::RunBarChart>(tab, "kernelLaunchesChart")->values(),
                 (std::vector<double>{4, 2}));
        document.selectRun(2);
        QVERIFY(child<QLabel>(tab, "kernelsEmptyReason")->text().startsWith(core::kNoCudaMessage));
    }

    void droppedRecordsAreShownInRed() {
        core::Report report = gpuReport();
        report.runs[0].kernels.dropped = 17;
        widgets::ReportDocument document;
        document.showReport(report);
        widgets::KernelsTab tab(&document);
        const auto cell = child<widgets::KernelRunsModel>(tab, "kernelRunsModel")
                              ->index(0, widgets::KernelRunsModel::Dropped);
        QCOMPARE(cell.data().toString(), QString("17"));
        QCOMPARE(cell.data(Qt::ForegroundRole).value<QBrush>().color(), QColor("#c0392b"));
        QVERIFY(child<QLabel>(tab, "topKernelsTitle")->text().contains("17 records dropped"));
    }

    void mainWindowHasTheTabsAndExportsATrace() {
        QTemporaryDir dir;
        const QString reportPath = dir.filePath("gpu.json");
        std::string error;
        QVERIFY(core::saveTextFile(reportPath.toStdString(), core::writeReportJson(gpuReport()),
                                   &error));
        app::MainWindow window;
        window.setQuiet(true);
        QSignalSpy opened(&window, &app::MainWindow::reportOpened);
        window.openPath(reportPath);
        QVERIFY(opened.wait(5000));
        QStringList tabs;
        for (int i = 0; i < window.tabs()->count(); ++i)
            tabs << window.tabs()->tabText(i);
        QVERIFY2(tabs.contains("Memory") && tabs.contains("Kernels"), qPrintable(tabs.join(", ")));
        QCOMPARE(child<widgets::RunBarChart>(window, "kernelLaunchesChart")->values(),
                 (std::vector<double>{4, 2}));

        const QString tracePath = dir.filePath("trace.json");
        QSignalSpy exported(&window, &app::MainWindow::traceExported);
        window.exportTrace(tracePath);
        QVERIFY(exported.wait(5000));
        QCOMPARE(exported.at(0).at(1).toString(), QString());
        QFile file(tracePath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto doc = QJsonDocument::fromJson(file.readAll());
        QVERIFY(doc.isObject());
        QVERIFY(doc.object().value("traceEvents").toArray().size() > 40);
        if (const QString keep = qEnvironmentVariable("CS_SCREENSHOT_DIR"); !keep.isEmpty()) {
            QFile::remove(keep + "/gpu_fixture_report.json");
            QFile::remove(keep + "/gpu_fixture_trace.json");
            QFile::copy(reportPath, keep + "/gpu_fixture_report.json");
            QFile::copy(tracePath, keep + "/gpu_fixture_trace.json");
        }

        window.exportTrace(dir.filePath("no/such/folder/trace.json"));
        QVERIFY(exported.wait(5000));
        QVERIFY(window.lastError().contains("no/such/folder"));
    }
};

QTEST_MAIN(GpuTabsTest)
#include "test_gpu_tabs.moc"
