// The main window when a save fails and when paths are hostile: a save to a
// full disk keeps the report open and marked unsaved, says why, leaves the
// previous file as it was, and closing still asks; reports under hostile paths
// (tests/support/hostile_names.py) open, and the title and the recent-files
// menu show their names on one line, "&" included.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/resource.h>

#include "app/main_window.h"
#include "core/report/report_json.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/common/report_document.h"

using namespace cs;

namespace {

core::Report reportWithCalls(int calls) {
    core::Report report;
    report.generator = "test_save_failures";
    core::Run run;
    run.setting.mode = "eager";
    run.status = core::RunStatus::Ok;
    for (int i = 0; i < calls; ++i)
        run.iterations.push_back(
            {i, 1'000'000 + int64_t{i % 7} * 1000, 1'000'000, 0, i < 3, i == 0});
    report.runs.push_back(run);
    return report;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void saveOrFail(const QString& path, const core::Report& report) {
    std::string error;
    QVERIFY2(core::saveTextFile(path.toStdString(), core::writeReportJson(report), &error),
             error.c_str());
}

} // namespace

class SaveFailuresTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        cs::test::installWarningGuard();
    }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    // A 64 KiB tmpfs mounted here (CI runs as root); where mounting is refused,
    // a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes the write fail
    // the same way, with EFBIG: the test says which it used (CS_FAKE_NO_MOUNT=1
    // takes the second way where mounting works).
    void aFailedSaveKeepsTheReportOpenAndUnsaved() {
        QTemporaryDir dir;
        const QString disk = dir.filePath("small disk");
        QVERIFY(QDir().mkpath(disk));
        const bool mounted =
            qEnvironmentVariableIsEmpty("CS_FAKE_NO_MOUNT") &&
            QProcess::execute("mount", {"-t", "tmpfs", "-o", "size=64k", "tmpfs", disk}) == 0;
        struct Unmount {
            QString path;
            bool mounted;
            ~Unmount() {
                if (mounted)
                    QProcess::execute("umount", {path});
            }
        } unmount{disk, mounted};
        rlimit before{};
        ::getrlimit(RLIMIT_FSIZE, &before);
        if (!mounted) {
            qInfo("cannot mount a tmpfs here: a file-size limit stands in for the full disk");
            std::signal(SIGXFSZ, SIG_IGN);
        }
        const QString path = disk + "/report.json";
        saveOrFail(path, reportWithCalls(10)); // a few KiB: fits
        const QByteArray previous = readAll(path);
        const QString opened = dir.filePath("big.json");
        saveOrFail(opened, reportWithCalls(3000)); // hundreds of KiB: does not
        app::MainWindow window;
        window.setQuiet(true);
        QSignalSpy loaded(&window, &app::MainWindow::reportOpened);
        window.openPath(opened);
        QVERIFY(loaded.wait(10000));
        window.document()->setModified(true); // as after a run or a change of options
        QVERIFY(window.windowTitle().contains('*'));
        if (!mounted) {
            rlimit small = before;
            small.rlim_cur = 4096;
            QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
        }
        window.saveReport(path);
        QTRY_VERIFY_WITH_TIMEOUT(!window.lastError().isEmpty(), 10000);
        if (!mounted)
            ::setrlimit(RLIMIT_FSIZE, &before);
        const QString error = window.lastError();
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY2(error.contains(mounted ? "the disk is full (ENOSPC)" : "(EFBIG)"),
                 qPrintable(error));
        QVERIFY2(error.contains("the previous file is unchanged"), qPrintable(error));
        QVERIFY2(window.statusText().contains("still open and unsaved"),
                 qPrintable(window.statusText()));
        // The report is still there, still unsaved, and closing would ask.
        QCOMPARE(window.document()->report().runs.at(0).iterations.size(), size_t(3000));
        QVERIFY(window.document()->isModified());
        QVERIFY(window.windowTitle().contains('*'));
        QVERIFY(window.hasUnsavedResults());
        QCOMPARE(window.document()->path(), opened);
        QCOMPARE(readAll(path), previous);
        QCOMPARE(QDir(disk).entryList(QDir::Files | QDir::Hidden), QStringList{"report.json"});
        // A save that works then clears the mark.
        window.saveReport(dir.filePath("saved.json"));
        QTRY_VERIFY_WITH_TIMEOUT(!window.document()->isModified(), 10000);
        QVERIFY(!window.windowTitle().contains('*'));
        QVERIFY(!window.hasUnsavedResults());
    }

    void reportsUnderHostilePathsOpenAndShowTheirNames() {
        QTemporaryDir dir;
        const QString marker = dir.filePath("pwned");
        QProcess names;
        names.start("python3", {HOSTILE_NAMES, marker});
        QVERIFY(names.waitForFinished(30000));
        const QJsonObject cases = QJsonDocument::fromJson(names.readAllStandardOutput()).object();
        QVERIFY2(cases.size() >= 8, "tests/support/hostile_names.py gave too few names");
        app::MainWindow window;
        window.setQuiet(true);
        QSignalSpy loaded(&window, &app::MainWindow::reportOpened);
        for (auto it = cases.begin(); it != cases.end(); ++it) {
            const QString path = dir.filePath("reports/" + it.value().toString() + ".json");
            QVERIFY(QDir().mkpath(QFileInfo(path).path()));
            saveOrFail(path, reportWithCalls(10));
            window.openPath(path);
            QVERIFY2(loaded.wait(10000), qPrintable(it.key()));
            QCOMPARE(window.document()->path(), path);
            QVERIFY(window.lastError().isEmpty());
            const QString title = window.windowTitle();
            QVERIFY2(!title.contains('\n'), qPrintable(it.key()));
            QString shown = QFileInfo(path).fileName();
            shown.replace('\n', QChar(0x21B5));
            QVERIFY2(title.startsWith(shown + " — "), qPrintable(it.key() + ": " + title));
            auto* recent = cs::test::child<QMenu>(window, "recentMenu");
            const auto actions = recent->actions();
            QVERIFY(!actions.isEmpty());
            QCOMPARE(actions.first()->data().toString(), path);
            QVERIFY(!actions.first()->text().contains('\n'));
            // The menu shows "&" as itself ("&&" in an action's text).
            QCOMPARE(QString(actions.first()->text()).replace("&&", "&"),
                     QString(path).replace('\n', QChar(0x21B5)));
        }
        QVERIFY2(!QFile::exists(marker), "a hostile name was run as a command");
    }
};

QTEST_MAIN(SaveFailuresTest)
#include "test_save_failures.moc"
