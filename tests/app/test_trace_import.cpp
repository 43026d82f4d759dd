// File → Import TORCH_TRACE in the main window: a real trace opens as an
// imported run, a directory without a trace says what to do, a big log shows
// progress and Esc cancels it.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QInputDialog>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "app/main_window.h"
#include "core/report/report_json.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/common/report_document.h"
#include "widgets/run/settings_panel.h"

using namespace cs;

namespace {

QString fixtureDir() {
    return QStringLiteral(COMPILESCOPE_FIXTURES) + "/trace/one_process";
}

QByteArray fixtureLog() {
    const QStringList logs = QDir(fixtureDir()).entryList({"*.log"});
    QFile file(fixtureDir() + "/" + logs.value(0));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TraceImportTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        cs::test::installWarningGuard();
    }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void importsARealTraceAsAnImportedRun() {
        app::MainWindow window;
        window.setQuiet(true);
        QSignalSpy imported(&window, &app::MainWindow::traceImported);
        window.openPath(fixtureDir()); // a directory opens as a trace
        QVERIFY(imported.wait(30000));
        const core::Report& report = window.document()->report();
        QCOMPARE(report.runs.size(), size_t(1));
        QCOMPARE(report.runs[0].status, core::RunStatus::Imported);
        QCOMPARE(report.runs[0].graphs.size(), size_t(4));
        QCOMPARE(report.runs[0].graphBreaks.size(), size_t(2));
        QVERIFY2(window.statusText().startsWith("Imported"), qPrintable(window.statusText()));
        QVERIFY(window.document()->path().isEmpty()); // Save asks where
    }

    void savedImportReopensWithoutTouchingTheRunSettings() {
        QTemporaryDir dir;
        const QString path = dir.filePath("imported.json");
        {
            app::MainWindow window;
            window.setQuiet(true);
            QSignalSpy imported(&window, &app::MainWindow::traceImported);
            window.importTrace(fixtureDir());
            QVERIFY(imported.wait(30000));
            std::string error;
            QVERIFY(core::saveTextFile(path.toStdString(),
                                       core::writeReportJson(window.document()->report()), &error));
        }
        app::MainWindow window;
        window.setQuiet(true);
        auto* panel = window.findChild<widgets::SettingsPanel*>();
        QVERIFY(panel);
        const QString before = panel->modelSpec();
        QSignalSpy opened(&window, &app::MainWindow::reportOpened);
        window.openPath(path);
        QVERIFY(opened.wait(10000));
        QCOMPARE(window.document()->report().runs.at(0).status, core::RunStatus::Imported);
        // The log is no model to run again: the panel keeps what it had.
        QCOMPARE(panel->modelSpec(), before);
    }

    void directoryWithSeveralRunsAsksWhichOne() {
        QTemporaryDir dir;
        QByteArray later = fixtureLog();
        later.replace("V1130 18:", "V1130 19:"); // the same job an hour later: a second run
        for (const auto& [name, text] : {std::pair{"dedicated_log_torch_trace_a.log", fixtureLog()},
                                         std::pair{"dedicated_log_torch_trace_b.log", later}}) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        }
        app::MainWindow window;
        window.setQuiet(true);
        QStringList offered;
        QTimer::singleShot(0, this, [&offered] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            offered = dialog->comboBoxItems();
            dialog->setTextValue(offered.value(0)); // the older run
            dialog->accept();
        });
        QSignalSpy imported(&window, &app::MainWindow::traceImported);
        window.importTrace(dir.path());
        QVERIFY(imported.wait(30000));
        QCOMPARE(offered.size(), 2);
        QVERIFY2(offered[0].contains("started 1130 18:"), qPrintable(offered.join(" | ")));
        QVERIFY(offered[1].contains("started 1130 19:"));
        QCOMPARE(window.document()->report().runs.at(0).trace->started.substr(5, 2),
                 std::string("18"));
    }

    void directoryWithoutATraceSaysWhatToDo() {
        QTemporaryDir dir;
        app::MainWindow window;
        window.setQuiet(true);
        window.importTrace(dir.path());
        QVERIFY2(window.lastError().contains("the directory is empty"),
                 qPrintable(window.lastError()));
        QVERIFY(window.lastError().contains("TORCH_TRACE="));
        QVERIFY(window.document()->isEmpty());
    }

    void bigLogShowsProgressAndEscCancels() {
        QTemporaryDir dir;
        const QByteArray log = fixtureLog();
        QVERIFY(!log.isEmpty());
        QFile big(dir.filePath("dedicated_log_torch_trace_big.log"));
        QVERIFY(big.open(QIODevice::WriteOnly));
        for (int i = 0; i < 100; ++i) // about 140 MB of real records
            big.write(log);
        big.close();
        app::MainWindow window;
        window.setQuiet(true);
        window.show();
        QSignalSpy imported(&window, &app::MainWindow::traceImported);
        window.importTrace(dir.path());
        QVERIFY(window.progressBar()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(window.progressBar()->value() > 0, 30000);
        QVERIFY(window.progressBar()->value() < 1000);
        QTest::keyClick(&window, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(window.statusText().contains("cancelled"), 30000);
        QCOMPARE(imported.count(), 0);
        QVERIFY(window.document()->isEmpty());
        QVERIFY(!window.progressBar()->isVisible());
    }
};

QTEST_MAIN(TraceImportTest)
#include "test_trace_import.moc"
