// Opening reports in the main window: a newer version, not a report, a big
// report read with progress in the status bar and cancelled with Esc, and
// File → Diff Reports on two reports.
#include <QFile>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

#include "app/main_window.h"
#include "core/report/report_json.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/common/report_document.h"
#include "widgets/compare/report_diff_model.h"
#include "widgets/compare/report_diff_view.h"
#include "widgets/run/settings_panel.h"

using namespace cs;

namespace {

core::Report smallReport(int64_t medianNs) {
    core::Report report;
    report.generator = "test_report_open";
    core::Run run;
    run.setting.mode = "default";
    run.status = core::RunStatus::Ok;
    for (int i = 0; i < 60; ++i)
        run.iterations.push_back({i, medianNs + int64_t{i % 5} * 1000, medianNs, 0, i < 3, i == 0});
    report.runs.push_back(run);
    return report;
}

void writeFile(const QString& path, const std::string& text) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text.data(), static_cast<qint64>(text.size()));
}

// A report of `iterations` calls written as text (a DOM of it would cost the test more than the
// read).
void writeBigReport(const QString& path, int iterations) {
    std::string text = core::writeReportJson(smallReport(1000000), -1);
    const std::string marker = "\"iterations\":[";
    const size_t at = text.find(marker) + marker.size();
    std::FILE* f = std::fopen(path.toLocal8Bit().constData(), "wb");
    QVERIFY(f);
    std::fwrite(text.data(), 1, at, f);
    for (int i = 0; i < iterations; ++i)
        std::fprintf(f,
                     "{\"first_call\":false,\"index\":%d,\"latency_ns\":%d,\"t_ns\":%d,\"wall_ns\":"
                     "%d,\"warmup\":false},",
                     i + 100, 1000000 + i % 991, i, 1000000);
    std::fwrite(text.data() + at, 1, text.size() - at,
                f); // the small report's own iterations close the list
    std::fclose(f);
}

} // namespace

class ReportOpenTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        cs::test::installWarningGuard();
    }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void newerVersionOpensWithWhatIsKnown() {
        QTemporaryDir dir;
        auto doc = nlohmann::json::parse(core::writeReportJson(smallReport(1000000)));
        doc["version"] = 7;
        doc["runs"][0]["field_from_version_7"] = {1, 2, 3};
        const QString path = dir.filePath("future.json");
        writeFile(path, doc.dump());
        app::MainWindow window;
        window.setQuiet(true);
        QSignalSpy opened(&window, &app::MainWindow::reportOpened);
        window.openPath(path);
        QVERIFY(opened.wait(10000));
        QVERIFY2(window.statusText().contains("report version 7"), qPrintable(window.statusText()));
        QVERIFY(window.statusText().contains("Update compilescope"));
        QCOMPARE(window.document()->report().runs.size(), size_t(1));
    }

    void jsonThatIsNotAReportIsRefused() {
        QTemporaryDir dir;
        const QString path = dir.filePath("package.json");
        writeFile(path, R"({"name": "left-pad", "version": "1.3.0"})");
        app::MainWindow window;
        window.setQuiet(true);
        window.openPath(path);
        QTRY_VERIFY_WITH_TIMEOUT(window.lastError().contains("not a compilescope report"), 10000);
        QVERIFY(window.lastError().contains("package.json"));
        QVERIFY(window.document()->isEmpty());
        QVERIFY(!window.progressBar()->isVisible());
    }

    void bigReportShowsProgressAndOpens() {
        QTemporaryDir dir;
        const QString path = dir.filePath("big.json");
        writeBigReport(path, 250000); // about 25 MB
        app::MainWindow window;
        window.setQuiet(true);
        window.show();
        QList<int> seen;
        connect(window.progressBar(), &QProgressBar::valueChanged, this,
                [&seen](int v) { seen << v; });
        QSignalSpy opened(&window, &app::MainWindow::reportOpened);
        window.openPath(path);
        QVERIFY(window.progressBar()->isVisible());
        QVERIFY(opened.wait(60000));
        QVERIFY2(seen.size() >= 5,
                 qPrintable(QString("progress values seen: %1").arg(seen.size())));
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QVERIFY(!window.progressBar()->isVisible());
        QCOMPARE(window.document()->report().runs.at(0).iterations.size(), size_t(250000 + 60));
    }

    void escCancelsAnOpenInProgress() {
        QTemporaryDir dir;
        const QString path = dir.filePath("big.json");
        writeBigReport(path, 600000); // about 60 MB: long enough to cancel mid-way
        app::MainWindow window;
        window.setQuiet(true);
        window.show();
        QSignalSpy opened(&window, &app::MainWindow::reportOpened);
        window.openPath(path);
        QTRY_VERIFY_WITH_TIMEOUT(window.progressBar()->value() > 0, 30000);
        QVERIFY(window.progressBar()->value() < 1000);
        QTest::keyClick(&window, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(window.statusText().contains("cancelled"), 30000);
        QCOMPARE(opened.count(), 0);
        QVERIFY(window.document()->isEmpty());
        QVERIFY(!window.progressBar()->isVisible());
    }

    void diffReportsOpensTheDiffWindow() {
        QTemporaryDir dir;
        const QString a = dir.filePath("a.json"), b = dir.filePath("b.json");
        writeFile(a, core::writeReportJson(smallReport(1000000)));
        writeFile(b, core::writeReportJson(smallReport(1500000))); // 50% slower
        app::MainWindow window;
        window.setQuiet(true);
        QSignalSpy opened(&window, &app::MainWindow::diffOpened);
        window.openDiff(a, b);
        QVERIFY(opened.wait(10000));
        auto* view = window.diffView();
        QVERIFY(view && view->isVisible());
        using M = widgets::ReportDiffModel;
        QCOMPARE(cs::test::child<widgets::ReportDiffModel>(*view, "diffModel")
                     ->index(0, M::MedianChange)
                     .data(M::ChangeRole)
                     .toString(),
                 QString("regression"));
        // Median and warmup both 50% slower.
        QVERIFY2(window.statusText().contains("2 regressions"), qPrintable(window.statusText()));

        window.openDiff(a, dir.filePath("missing.json"));
        QTRY_VERIFY_WITH_TIMEOUT(window.lastError().contains("missing.json"), 10000);
    }

    void anOpenedReportsSettingsFillTheRunPanel() {
        core::Report report;
        for (const char* mode : {"eager", "default", "reduce-overhead", "max-autotune"}) {
            core::Run run = smallReport(1000000).runs.front();
            run.setting.mode = mode;
            run.setting.backend = "aot_eager";
            run.setting.warmup = 4;
            run.setting.iters = 77;
            report.runs.push_back(run);
        }
        QTemporaryDir dir;
        const QString path = dir.filePath("four.json");
        writeFile(path, core::writeReportJson(report));
        app::MainWindow window;
        window.setQuiet(true);
        auto* panel = window.findChild<widgets::SettingsPanel*>();
        QVERIFY(panel);
        panel->setModeChecked("eager", true);
        panel->setModeChecked("default", true);
        panel->setModeChecked("max-autotune-no-cudagraphs", true);
        QSignalSpy opened(&window, &app::MainWindow::reportOpened);
        window.openPath(path);
        QVERIFY(opened.wait(10000));
        // Run now repeats what the report ran, not what was ticked before.
        QStringList modes;
        for (const auto& s : panel->settings()) {
            modes << QString::fromStdString(s.mode);
            QCOMPARE(QString::fromStdString(s.backend), QString("aot_eager"));
            QCOMPARE(s.warmup, 4);
            QCOMPARE(s.iters, 77);
        }
        QCOMPARE(modes, QStringList({"eager", "default", "reduce-overhead", "max-autotune"}));
    }
};

QTEST_MAIN(ReportOpenTest)
#include "test_report_open.moc"
