// The console view shows the probe's capture warnings and warning log lines:
// live as each arrives (once, however often the run changes) and from a
// report that is opened.
#include <QTest>

#include "core/report/session.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/common/report_document.h"
#include "widgets/run/console_view.h"

using namespace cs;

namespace {

core::Run runWithLabel(const char* mode) {
    core::Run run;
    run.setting.mode = mode;
    return run;
}

const core::CaptureWarning kCounters{
    "torch._dynamo.utils.counters", "AttributeError: module has no attribute 'counters'", "2.11.0"};
const core::CaptureWarning kMetrics{"torch._inductor.metrics", "ImportError: metrics", "2.11.0"};

const QString kCountersLine = "capture warning: torch._dynamo.utils.counters missing under torch "
                              "2.11.0: AttributeError: module has no attribute 'counters'";
const QString kMetricsLine =
    "capture warning: torch._inductor.metrics missing under torch 2.11.0: ImportError: metrics";

} // namespace

class ConsoleViewTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void showsCaptureWarningsOfAnOpenedReport() {
        widgets::ReportDocument document;
        widgets::ConsoleView console(&document);
        core::Report report;
        report.runs = {runWithLabel("default"), runWithLabel("max-autotune")};
        report.runs[1].captureWarnings = {kCounters, kMetrics};
        report.runs[1].console = "model output\n";
        document.showReport(report);
        const QStringList lines = console.toPlainText().split('\n');
        QCOMPARE(lines.count(kCountersLine), 1);
        QCOMPARE(lines.count(kMetricsLine), 1);
        // In the run's own section, before its output.
        const qsizetype header = lines.indexOf(
            QStringLiteral("── %1 ──").arg(QString::fromStdString(report.runs[1].setting.label())));
        QVERIFY(header >= 0);
        QVERIFY(header < lines.indexOf(kCountersLine));
        QVERIFY(lines.indexOf(kMetricsLine) < lines.indexOf("model output"));
    }

    void showsEachLiveCaptureWarningOnce() {
        widgets::ReportDocument document;
        widgets::ConsoleView console(&document);
        core::Report live;
        live.runs = {runWithLabel("default")};
        document.showLive(&live);
        QVERIFY(!console.toPlainText().contains("capture warning"));

        live.runs[0].captureWarnings.push_back(kCounters);
        document.notifyRunChanged(0);
        document.notifyRunChanged(0);
        QCOMPARE(console.toPlainText().count(kCountersLine), 1);
        QVERIFY(!console.toPlainText().contains(kMetricsLine));

        live.runs[0].captureWarnings.push_back(kMetrics);
        document.notifyRunChanged(0);
        QCOMPARE(console.toPlainText().count(kCountersLine), 1);
        QCOMPARE(console.toPlainText().count(kMetricsLine), 1);

        // The session ends: the console is rebuilt from the report, each line still once.
        document.freezeLive();
        QCOMPARE(console.toPlainText().count(kCountersLine), 1);
        QCOMPARE(console.toPlainText().count(kMetricsLine), 1);
    }

    // The probe's warning log lines (here the model that grew its own
    // inputs), each once, live and from the report; its info lines are not shown.
    void showsTheProbesWarningsOnceAndNotItsInfo() {
        widgets::ReportDocument document;
        widgets::ConsoleView console(&document);
        core::Report live;
        live.runs = {runWithLabel("default")};
        document.showLive(&live);
        live.runs[0].logs.push_back({1, "info", "mode default narrates"});
        live.runs[0].logs.push_back({2, "warning", "the model changed its own inputs' shapes"});
        document.notifyRunChanged(0);
        document.notifyRunChanged(0);
        const QString line = "probe warning: the model changed its own inputs' shapes";
        QCOMPARE(console.toPlainText().count(line), 1);
        QVERIFY(!console.toPlainText().contains("narrates"));
        document.freezeLive();
        QCOMPARE(console.toPlainText().count(line), 1);
    }
};

QTEST_MAIN(ConsoleViewTest)
#include "test_console_view.moc"
