// The source view of a remote run reads through the reader the document
// carries: a fake reader stands for the host here (tests/app/test_remote_target.cpp
// reads over a real sshd). Its text and its errors are shown; a read begun
// under one reader never lands after another took over; a local report after
// a remote one reads local files again.
#include <QDir>
#include <QFile>
#include <QScopeGuard>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <memory>

#include "tests/widgets/find_child.h"
#include "tests/widgets/fixture_report.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/breaks/breaks_tab.h"
#include "widgets/breaks/source_file_loader.h"
#include "widgets/breaks/source_pane.h"
#include "widgets/common/report_document.h"

using namespace cs;
using cs::test::child;

namespace {

// A host that has one file, and says which host it is when asked for another.
widgets::SourceReader fakeHost(const QString& path, const QStringList& lines,
                               const std::shared_ptr<std::atomic<int>>& calls = nullptr) {
    return [path, lines, calls](const QString& asked) {
        if (calls)
            ++*calls;
        widgets::SourceText text;
        text.path = asked;
        if (asked == path) {
            text.ok = true;
            text.lines = lines;
        } else {
            text.error = QStringLiteral("Cannot read %1 on gpu-box: No such file").arg(asked);
        }
        return text;
    };
}

} // namespace

class RemoteSourceTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void loaderReadsThroughTheReader() {
        auto calls = std::make_shared<std::atomic<int>>(0);
        widgets::SourceFileLoader loader;
        loader.setReader(fakeHost("/srv/model.py", {"import torch", "x = 1"}, calls));
        QSignalSpy loaded(&loader, &widgets::SourceFileLoader::loaded);
        QVERIFY(!loader.get("/srv/model.py")); // not on this computer: no local read
        QTRY_COMPARE(loaded.count(), 1);
        const widgets::SourceText* text = loader.get("/srv/model.py");
        QVERIFY(text && text->ok);
        QCOMPARE(text->lines, QStringList({"import torch", "x = 1"}));
        QCOMPARE(text->path, QString("/srv/model.py"));
        QCOMPARE(calls->load(), 1); // kept: asked once

        QVERIFY(!loader.get("/srv/gone.py"));
        QTRY_COMPARE(loaded.count(), 2);
        text = loader.get("/srv/gone.py");
        QVERIFY(text && !text->ok);
        QVERIFY(text->error.contains("gpu-box"));
        QVERIFY(text->error.contains("/srv/gone.py"));
    }

    void readUnderAnOldReaderIsDropped() {
        auto release = std::make_shared<QSemaphore>();
        // Never leave a pool thread waiting, whatever fails below.
        const auto unblock = qScopeGuard([release] { release->release(); });
        widgets::SourceFileLoader loader;
        loader.setReader([release](const QString& path) {
            release->acquire(); // the old host answers late
            widgets::SourceText text;
            text.path = path;
            text.ok = true;
            text.lines = {"old host"};
            return text;
        });
        QSignalSpy loaded(&loader, &widgets::SourceFileLoader::loaded);
        QVERIFY(!loader.get("/srv/model.py"));
        loader.setReader(fakeHost("/srv/model.py", {"new host"}));
        QVERIFY(!loader.get("/srv/model.py"));
        QTRY_COMPARE(loaded.count(), 1);
        release->release();
        QTest::qWait(100); // the late answer arrives and must be ignored
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loader.get("/srv/model.py")->lines, QStringList({"new host"}));
    }

    void setReaderForgetsWhatWasRead() {
        QTemporaryDir dir;
        QFile file(dir.filePath("here.py"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("local = True\n");
        file.close();
        widgets::SourceFileLoader loader;
        QSignalSpy loaded(&loader, &widgets::SourceFileLoader::loaded);
        QVERIFY(!loader.get(file.fileName()));
        QTRY_COMPARE(loaded.count(), 1);
        QCOMPARE(loader.get(file.fileName())->lines, QStringList({"local = True"}));
        loader.setReader(fakeHost(file.fileName(), {"remote = True"}));
        QVERIFY(!loader.get(file.fileName()));
        QTRY_COMPARE(loaded.count(), 2);
        QCOMPARE(loader.get(file.fileName())->lines, QStringList({"remote = True"}));
    }

    void remoteReportShowsTheHostsSourceThenALocalOneReadsHere() {
        QTemporaryDir dir;
        core::Run run = test::replayFixture("print_break_aot_eager_cpu.jsonl");
        const QString path = test::relocateSource(run, "print_break.py", QDir(dir.path()));
        QFile original(path);
        QVERIFY(original.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(original.readAll()).split('\n');
        original.close();
        QVERIFY(QFile::remove(path)); // only "the host" has it now

        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        tab.resize(1200, 700);
        tab.show();
        core::Report remote = test::reportOf({run});
        remote.environment.target = "ssh://gpu-box";
        document.setSourceReader(fakeHost(path, lines));
        document.showReport(remote);
        auto* pane = child<widgets::SourcePane>(tab, "sourcePane");
        QTRY_VERIFY(pane->isShowingCode());
        QCOMPARE(pane->shownFile(), path);

        // A local report after it: the same path is looked for here, and is not.
        document.setSourceReader({});
        document.showReport(test::reportOf({run}));
        QTRY_VERIFY(pane->message().contains("does not exist any more"));

        // A host that lacks the file: its error, naming the host, is what is shown.
        document.setSourceReader(fakeHost("/elsewhere.py", {}));
        document.showReport(remote);
        QTRY_VERIFY2(pane->message().contains("on gpu-box"), qPrintable(pane->message()));
    }
};

QTEST_MAIN(RemoteSourceTest)
#include "test_remote_source.moc"
