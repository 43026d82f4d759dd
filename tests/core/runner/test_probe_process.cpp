// The runner against a fake probe: every way a child process can end.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <optional>

#include "core/events/event_parser.h"
#include "core/runner/interpreter_probe.h"
#include "core/runner/probe_process.h"
#include "core/runner/session_runner.h"

using namespace cs::core;

namespace {

char readState(const QString& pid) {
    QFile stat("/proc/" + pid + "/stat");
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray text = stat.readAll();
    const auto close = text.lastIndexOf(')');
    return close >= 0 && close + 2 < text.size() ? text.at(close + 2) : char(0);
}

QString status(const Run& run) {
    return QString::fromLatin1(toString(run.status));
}

ProbeLaunch fakeLaunch(const std::string& behaviour,
                       const std::string& python = "/usr/bin/python3") {
    ProbeOptions options;
    options.python = python;
    options.probeRoot = FAKE_PROBE_ROOT;
    Setting setting;
    setting.mode = "eager";
    return buildProbeLaunch("fake:" + behaviour, setting, options);
}

// Runs the fake probe to its end and returns the settled run.
Run runFake(const std::string& behaviour, int timeoutSeconds = 30, int cancelAfterMs = -1) {
    Run run;
    ProbeProcess process(&run, fakeLaunch(behaviour), timeoutSeconds);
    QSignalSpy finished(&process, &ProbeProcess::finished);
    process.start();
    if (cancelAfterMs >= 0) {
        QTest::qWait(cancelAfterMs);
        process.cancel();
    }
    if (finished.isEmpty())
        finished.wait(60000);
    return run;
}

} // namespace

class ProbeProcessTest : public QObject {
    Q_OBJECT
  private slots:
    void aBatchWalkShowsHowMuchOfItIsDone() {
        // hello at 1 s, the walk from 6 s on the probe's clock: 65 s after
        // the probe started, the walk has spent 60 s of its 120.
        const std::string stream =
            R"({"type":"hello","t_ns":1000000000,"protocol":1}
{"type":"phase","t_ns":2000000000,"name":"load","edge":"begin"}
{"type":"phase","t_ns":5000000000,"name":"load","edge":"end"}
{"type":"phase","t_ns":6000000000,"name":"scale","edge":"begin"}
{"type":"scale_plan","t_ns":6000000001,"batch_source":"dim0","sizes":[],"auto":true,"dynamic":false,"budget_s":120,"memory_cap_bytes":0}
{"type":"scale_point","t_ns":7000000000,"batch_size":1,"first_call_ns":5000,"latency_ns":[10,11,12],"peak_memory_bytes":2048,"memory_kind":"host_rss","recompiles":0}
{"type":"scale_point","t_ns":8000000000,"batch_size":2,"first_call_ns":5000,"latency_ns":[10,11,12],"peak_memory_bytes":2048,"memory_kind":"host_rss","recompiles":0}
)";
        Run run = replayStream(stream);
        const auto share = walkFraction(run, 65000);
        QVERIFY(share);
        QCOMPARE(*share, 0.5);
        QCOMPARE(describeProgress(run, 65000),
                 std::string("batch-size walk: batch 4, 2 measured (budget 120 s)"));
        QCOMPARE(*walkFraction(run, 500000), 0.99); // never full while it runs
        // A listed walk: its sizes.
        run.scaling->requested = {1, 2, 4, 8};
        QCOMPARE(*walkFraction(run, 65000), 0.5);
        QCOMPARE(describeProgress(run, 65000),
                 std::string("batch-size walk: batch 4 (size 3 of 4), 2 measured"));
        // Outside a walk, the calls tell the progress.
        QVERIFY(!walkFraction(Run{}, 65000));
    }

    void okRunIsOk() {
        Run run = runFake("ok");
        QCOMPARE(status(run), QString("ok"));
        QCOMPARE(run.measuredLatencies().size(), size_t(5));
        QVERIFY(run.sawHello);
        QVERIFY(QString::fromStdString(run.console).contains("model output goes to the console"));
        QVERIFY(!run.error);
    }

    void reportedFailureIsFailed() {
        Run run = runFake("fail");
        QCOMPARE(status(run), QString("failed"));
        QVERIFY(run.error);
        QCOMPARE(QString::fromStdString(run.error->kind), QString("model_raised"));
        QCOMPARE(run.exitCode.value_or(-1), 3);
    }

    void crashKeepsIterations() {
        Run run = runFake("crash");
        QCOMPARE(status(run), QString("crashed"));
        QCOMPARE(run.measuredLatencies().size(), size_t(5));
        QVERIFY(run.error);
        QVERIFY(QString::fromStdString(run.error->message).contains("exited with code 7"));
        QVERIFY(QString::fromStdString(run.error->message).contains("5 measured iterations"));
    }

    void signalIsCrash() {
        Run run = runFake("segv");
        QCOMPARE(status(run), QString("crashed"));
        QCOMPARE(run.measuredLatencies().size(), size_t(5));
    }

    void hangTimesOut() {
        QElapsedTimer clock;
        clock.start();
        Run run = runFake("hang", 2);
        QCOMPARE(status(run), QString("timeout"));
        QCOMPARE(run.measuredLatencies().size(), size_t(5));
        QVERIFY(clock.elapsed() < 10000);
        QVERIFY(QString::fromStdString(run.error->message).contains("2 s"));
    }

    void cancelEndsWithinTwoSeconds() {
        Run run;
        ProbeProcess process(&run, fakeLaunch("ignore_term"), 60);
        QSignalSpy finished(&process, &ProbeProcess::finished);
        process.start();
        QTRY_VERIFY_WITH_TIMEOUT(run.measuredLatencies().size() == 5, 20000);
        QElapsedTimer clock;
        clock.start();
        process.cancel(); // the fake ignores SIGTERM: the SIGKILL fallback must end it
        QVERIFY(finished.wait(5000));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(status(run), QString("cancelled"));
        QCOMPARE(run.measuredLatencies().size(), size_t(5));
    }

    // SIGKILL leaves the probe no way to clean up: the runner ends what is
    // left of its group and removes the folder it gave for the fresh cache.
    void killedProbeLeavesNoCacheNorWorker() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QByteArray previous = qgetenv("TMPDIR");
        qputenv("TMPDIR", root.path().toUtf8()); // the probe's and the runner's temp root
        Run run = runFake("killed_with_cache");
        qputenv("TMPDIR", previous);
        QCOMPARE(status(run), QString("crashed"));
        QVERIFY(QDir(root.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty());
        QCOMPARE(run.logs.size(), size_t(1));
        const QString worker = QString::fromStdString(run.logs.front().message).section(' ', 1, 1);
        QVERIFY(worker.toLongLong() > 0);
        // Gone, or a zombie its new parent has not reaped yet.
        QTRY_VERIFY_WITH_TIMEOUT(
            !QFile::exists("/proc/" + worker + "/stat") || readState(worker) == 'Z', 5000);
    }

    // Killed between making its cache and saying so in hello.
    void probeKilledBeforeHelloLeavesNoCache() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QByteArray previous = qgetenv("TMPDIR");
        qputenv("TMPDIR", root.path().toUtf8());
        Run run = runFake("killed_before_hello");
        qputenv("TMPDIR", previous);
        QCOMPARE(status(run), QString("crashed"));
        QVERIFY(QDir(root.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty());
    }

    // The quiet measure phase sends chunks; a probe that dies between two of
    // them keeps every call of the chunks it sent.
    void crashBetweenChunksKeepsEverySentCall() {
        Run run = runFake("chunks_crash");
        QCOMPARE(status(run), QString("crashed"));
        const auto measured = run.measuredLatencies();
        QCOMPARE(measured.size(), size_t(8));
        for (size_t i = 0; i < measured.size(); ++i) {
            QCOMPARE(measured[i], int64_t(2000 + i));
            QCOMPARE(run.iterations[i].index, int(i));
        }
        QCOMPARE(run.appCpuMeasureNs, int64_t(-1)); // the measure phase never ended
    }

    void chunksMoveProgressAndMeasureTheAppsCpu() {
        Run run;
        run.setting.iters = 60;
        ProbeProcess process(&run, fakeLaunch("chunks_slow"), 30);
        QSignalSpy finished(&process, &ProbeProcess::finished);
        std::vector<size_t> seen;
        QObject::connect(&process, &ProbeProcess::updated, &process,
                         [&] { seen.push_back(run.measuredLatencies().size()); });
        process.start();
        QTRY_VERIFY_WITH_TIMEOUT(run.measuredLatencies().size() >= 20, 20000);
        QCOMPARE(describeProgress(run),
                 "measuring " + std::to_string(run.measuredLatencies().size()) + "/60");
        QVERIFY(finished.wait(20000));
        QCOMPARE(status(run), QString("ok"));
        QCOMPARE(run.measuredLatencies().size(), size_t(60));
        // progress moved chunk by chunk, not all at the end
        QVERIFY(std::count_if(seen.begin(), seen.end(), [](size_t n) { return n > 0 && n < 60; }) >=
                2);
        QVERIFY(run.appCpuMeasureNs >= 0);
        QVERIFY(run.blockEstimateNs());
    }

    void cancelDuringChunksKeepsWhatArrived() {
        Run run;
        ProbeProcess process(&run, fakeLaunch("chunks_slow"), 30);
        QSignalSpy finished(&process, &ProbeProcess::finished);
        process.start();
        QTRY_VERIFY_WITH_TIMEOUT(run.measuredLatencies().size() >= 20, 20000);
        process.cancel();
        QVERIFY(finished.wait(5000));
        QCOMPARE(status(run), QString("cancelled"));
        const auto kept = run.measuredLatencies().size();
        QVERIFY2(kept >= 20 && kept < 60 && kept % 10 == 0, qPrintable(QString::number(kept)));
    }

    void garbageLinesAreReportedAndSkipped() {
        Run run = runFake("garbage");
        QCOMPARE(status(run), QString("ok"));
        QCOMPARE(run.parseProblems.size(), size_t(2));
        QCOMPARE(run.measuredLatencies().size(), size_t(6));
        QCOMPARE(run.unknownEvents.size(), size_t(1));
    }

    void partialLastLineIsReported() {
        Run run = runFake("partial");
        QCOMPARE(status(run), QString("crashed"));
        QCOMPARE(run.parseProblems.size(), size_t(1));
        QVERIFY(QString::fromStdString(run.parseProblems[0].message).contains("incomplete"));
    }

    void missingInterpreterSaysWhich() {
        Run run;
        ProbeProcess process(&run, fakeLaunch("ok", "/nonexistent/python"), 10);
        QSignalSpy finished(&process, &ProbeProcess::finished);
        process.start();
        QVERIFY(finished.wait(5000));
        QCOMPARE(status(run), QString("failed"));
        QVERIFY(QString::fromStdString(run.error->message).contains("/nonexistent/python"));
    }

    // The interpreter picker's describer (the GUI's settings dock) says the
    // same as a run: a folder, no execute permission, a Python 2.
    void interpreterDescriberSaysWhatIsWrong() {
        QTemporaryDir dir;
        const QString folder = dir.filePath("env");
        QVERIFY(QDir().mkpath(folder + "/bin"));
        QVERIFY(QFile::link("/usr/bin/python3", folder + "/bin/python"));
        const QString noExec = dir.filePath("python-no-x");
        QFile(noExec).open(QIODevice::WriteOnly);
        const QString python2 = dir.filePath("python2");
        {
            QFile script(python2);
            QVERIFY(script.open(QIODevice::WriteOnly));
            script.write(
                "#!/bin/sh\n"
                "if [ \"$1\" = \"--version\" ]; then echo 'Python 2.7.18' >&2; exit 0; fi\n"
                "echo 'SyntaxError: invalid syntax' >&2; exit 1\n");
        }
        QFile::setPermissions(python2, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        InterpreterProbe describer;
        const QList<QPair<QString, QString>> cases = {
            {folder, "\"" + folder + "/bin/python\""},
            {noExec, "chmod +x"},
            {python2, "is Python 2.7"},
        };
        std::optional<InterpreterDescription> last;
        connect(&describer, &InterpreterProbe::described, this,
                [&last](const InterpreterDescription& d) { last = d; });
        for (const auto& [path, said] : cases) {
            last.reset();
            describer.describe(path);
            QTRY_VERIFY_WITH_TIMEOUT(last.has_value(), 10000);
            const InterpreterDescription d = *last;
            QVERIFY(!d.ok);
            QVERIFY2(d.problem.contains(path) && d.problem.contains(said), qPrintable(d.problem));
        }
    }

    void sessionCancelKeepsFinishedRuns() {
        SessionRunner runner;
        SessionRequest request;
        request.modelSpec = "fake:ok";
        request.probe.python = "/usr/bin/python3";
        request.probe.probeRoot = FAKE_PROBE_ROOT;
        Setting s;
        s.mode = "eager";
        request.settings = {s, s, s};
        QSignalSpy done(&runner, &SessionRunner::sessionFinished);
        QObject::connect(&runner, &SessionRunner::runFinished, &runner, [&](int index) {
            if (index == 0)
                runner.cancel(); // nothing running between runs: next one must not start
        });
        runner.start(request);
        QVERIFY(done.wait(30000));
        QCOMPARE(status(runner.report().runs[0]), QString("ok"));
        QCOMPARE(status(runner.report().runs[2]), QString("cancelled"));
    }
};

QTEST_GUILESS_MAIN(ProbeProcessTest)
#include "test_probe_process.moc"
