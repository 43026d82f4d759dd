// A comparison session against the fake probe: Cancel in the middle keeps
// every finished setting, and a setting past its time limit is `timeout`
// with what it measured; the comparison keeps a row for each.
#include <QSignalSpy>
#include <QTest>

#include <algorithm>

#include "core/analysis/comparison.h"
#include "core/runner/session_runner.h"

using namespace cs::core;

namespace {

SessionRequest compareRequest(const std::string& behaviour, int timeoutSeconds) {
    SessionRequest request;
    request.modelSpec = "fake:" + behaviour;
    request.probe.python = "/usr/bin/python3";
    request.probe.probeRoot = FAKE_PROBE_ROOT;
    request.timeoutSeconds = timeoutSeconds;
    for (const char* mode : {"eager", "default", "reduce-overhead"}) {
        Setting s;
        s.mode = mode;
        request.settings.push_back(s);
    }
    return request;
}

QString status(const Run& run) {
    return QString::fromLatin1(toString(run.status));
}

} // namespace

class CompareSessionTest : public QObject {
    Q_OBJECT
  private slots:
    void cancelMidSettingKeepsFinishedOnes() {
        SessionRunner runner;
        QSignalSpy done(&runner, &SessionRunner::sessionFinished);
        bool cancelled = false;
        // Cancel once the second setting is measuring (the fake "slow" probe takes ~4 s).
        QObject::connect(&runner, &SessionRunner::runUpdated, &runner, [&](int index) {
            if (index == 1 && !cancelled &&
                runner.report().runs[1].measuredLatencies().size() >= 10) {
                cancelled = true;
                runner.cancel();
            }
        });
        runner.start(compareRequest("slow", 60));
        QVERIFY(done.wait(60000));
        const auto& runs = runner.report().runs;
        QCOMPARE(status(runs[0]), QString("ok"));
        QCOMPARE(runs[0].measuredLatencies().size(), size_t(200));
        QCOMPARE(status(runs[1]), QString("cancelled"));
        QVERIFY(runs[1].measuredLatencies().size() >= 10); // what it measured is kept
        QCOMPARE(status(runs[2]), QString("cancelled"));
        QVERIFY(runs[2].measuredLatencies().empty()); // never started

        const auto comparison = compareRuns(runner.report());
        QCOMPARE(comparison.rows.size(), size_t(3));
        QCOMPARE(comparison.baseline, 0);
        QVERIFY(comparison.rows[1].stats);   // partial statistics of the cancelled setting
        QVERIFY(comparison.rows[1].speedup); // still compared, marked by its status
        QCOMPARE(comparison.rows[1].status, RunStatus::Cancelled);
        QVERIFY(comparison.rows[2].error);
        QVERIFY(!comparison.rows[2].stats);
    }

    void timeoutKeepsWhatWasMeasured() {
        SessionRunner runner;
        QSignalSpy done(&runner, &SessionRunner::sessionFinished);
        auto request = compareRequest("slow", 1);
        request.settings.resize(2);
        runner.start(request);
        QVERIFY(done.wait(60000));
        for (const auto& run : runner.report().runs) {
            QCOMPARE(status(run), QString("timeout"));
            QVERIFY(run.measuredLatencies().size() >= 5);
            QVERIFY(run.error);
        }
        const auto comparison = compareRuns(runner.report());
        QCOMPARE(comparison.rows.size(), size_t(2));
        QCOMPARE(comparison.baseline, -1); // a timed-out eager run is no baseline
        QVERIFY(comparison.rows[0].stats);
        QCOMPARE(comparison.rows[0].status, RunStatus::Timeout);
    }

    // A warm-cache compiling setting is first run once, unmeasured, with one
    // call; eager is not; the measured run says its cache was primed.
    void warmCacheSettingIsPrimedFirst() {
        SessionRunner runner;
        QSignalSpy done(&runner, &SessionRunner::sessionFinished);
        std::vector<std::pair<int, Setting>> primings;
        QObject::connect(&runner, &SessionRunner::primingFinished, &runner,
                         [&](int index, const Run& primed) {
                             QCOMPARE(primed.status, RunStatus::Ok);
                             primings.emplace_back(index, primed.setting);
                         });
        auto request = compareRequest("ok", 60);
        request.settings.resize(2);
        for (auto& s : request.settings)
            s.start = kStartWarmCache;
        runner.start(request);
        QVERIFY(done.wait(60000));
        QCOMPARE(primings.size(), size_t(1));
        QCOMPARE(primings[0].first, 1);
        QCOMPARE(primings[0].second.iters, 1);
        QCOMPARE(primings[0].second.warmup, 1);
        const auto& runs = runner.report().runs;
        QCOMPARE(status(runs[1]), QString("ok"));
        QCOMPARE(runs[1].setting.iters, 100); // the measured run keeps its own setting
        QCOMPARE(runs[1].measuredLatencies().size(),
                 size_t(5)); // the priming's calls are not in it
        auto primedNote = [](const Run& run) {
            return std::any_of(run.logs.begin(), run.logs.end(), [](const LogLine& l) {
                return l.message.rfind("compile cache primed", 0) == 0;
            });
        };
        QVERIFY(primedNote(runs[1]));
        QVERIFY(!primedNote(runs[0]));
    }

    void cancelWhilePrimingMeasuresNothing() {
        SessionRunner runner;
        QSignalSpy done(&runner, &SessionRunner::sessionFinished);
        QObject::connect(&runner, &SessionRunner::runUpdated, &runner, [&](int index) {
            if (index == 1 && runner.isPriming())
                runner.cancel();
        });
        auto request = compareRequest("slow", 60);
        for (auto& s : request.settings)
            s.start = kStartWarmCache;
        runner.start(request);
        QVERIFY(done.wait(60000));
        const auto& runs = runner.report().runs;
        QCOMPARE(status(runs[0]), QString("ok"));
        QCOMPARE(status(runs[1]), QString("cancelled"));
        QVERIFY(runs[1].measuredLatencies().empty());
        QVERIFY(runs[1].error && runs[1].error->message.find("priming") != std::string::npos);
        QCOMPARE(status(runs[2]), QString("cancelled"));
    }

    // --repeat 3: every setting once, then each again, in rounds; a repeat
    // keeps its measured calls in the run it repeats, and the comparison
    // judges the speedup over the three rounds.
    void repeatRunsRoundsInterleaved() {
        SessionRunner runner;
        QSignalSpy done(&runner, &SessionRunner::sessionFinished);
        std::vector<std::string> order;
        QObject::connect(&runner, &SessionRunner::runFinished, &runner,
                         [&](int index) { order.push_back("run " + std::to_string(index)); });
        QObject::connect(&runner, &SessionRunner::repeatFinished, &runner, [&](int index) {
            order.push_back("repeat " + std::to_string(index) + " round " +
                            std::to_string(runner.round()));
            QVERIFY(runner.progressFraction() < 1.0 || runner.round() == 2);
        });
        auto request = compareRequest("ok", 60);
        request.settings.resize(2);
        request.repeat = 3;
        runner.start(request);
        QVERIFY(done.wait(60000));
        const std::vector<std::string> expected = {
            "run 0",           "run 1", "repeat 0 round 1", "repeat 1 round 1", "repeat 0 round 2",
            "repeat 1 round 2"};
        QCOMPARE(order, expected);
        for (const auto& run : runner.report().runs) {
            QCOMPARE(status(run), QString("ok"));
            QCOMPARE(run.repeats.size(), size_t(2));
            QCOMPARE(run.repeats[0].round, 1);
            QCOMPARE(run.repeats[1].round, 2);
            QCOMPARE(run.repeats[1].status, RunStatus::Ok);
            QCOMPARE(run.repeats[1].latencyNs.size(), size_t(5));
        }
        QCOMPARE(runner.progressFraction(), 1.0);
        const auto comparison = compareRuns(runner.report());
        QVERIFY(comparison.rows[1].speedup);
        QCOMPARE(comparison.rows[1].speedup->rounds, 3);
    }

    // A setting whose first probe failed is not probed again; the others are.
    void repeatSkipsAFailedSetting() {
        SessionRunner runner;
        QSignalSpy done(&runner, &SessionRunner::sessionFinished);
        auto request = compareRequest("fail_compiled", 60);
        request.repeat = 2;
        runner.start(request);
        QVERIFY(done.wait(60000));
        const auto& runs = runner.report().runs;
        QCOMPARE(status(runs[0]), QString("ok"));
        QCOMPARE(runs[0].repeats.size(), size_t(1));
        QCOMPARE(status(runs[1]), QString("failed"));
        QVERIFY(runs[1].repeats.empty());
        QVERIFY(runs[2].repeats.empty());
    }

    // Cancel during a repeat: the first round's runs stay as measured, the
    // cancelled repeat says so and adds no calls.
    void cancelDuringARepeatKeepsTheFirstRound() {
        SessionRunner runner;
        QSignalSpy done(&runner, &SessionRunner::sessionFinished);
        QObject::connect(&runner, &SessionRunner::runUpdated, &runner, [&](int) {
            if (runner.round() == 1)
                runner.cancel();
        });
        auto request = compareRequest("slow", 60);
        request.settings.resize(2);
        request.repeat = 2;
        runner.start(request);
        QVERIFY(done.wait(90000));
        const auto& runs = runner.report().runs;
        QCOMPARE(status(runs[0]), QString("ok"));
        QCOMPARE(runs[0].measuredLatencies().size(), size_t(200));
        QCOMPARE(runs[0].repeats.size(), size_t(1));
        QCOMPARE(runs[0].repeats[0].status, RunStatus::Cancelled);
        QVERIFY(runs[0].repeats[0].latencyNs.empty());
        QCOMPARE(status(runs[1]), QString("ok"));
        QVERIFY(runs[1].repeats.empty()); // its round never started
    }

    // A repeat probe times the same calls and keeps nothing else.
    void repeatProbeKeepsOnlyTheTiming() {
        ProbeOptions options;
        options.torchTraceDir = "/tmp/traces";
        options.cacheArtifacts = "load:/tmp/a.bin";
        const ProbeOptions repeat = repeatOptions(options);
        QVERIFY(repeat.torchTraceDir.empty());
        QVERIFY(repeat.cacheArtifacts.empty());
        QCOMPARE(repeat.profileCalls, 0);
        QVERIFY(!repeat.keepCode);
        Setting s;
        s.sweep = true;
        s.iters = 77;
        QVERIFY(!repeatSetting(s).sweep);
        QCOMPARE(repeatSetting(s).iters, 77);
    }

    // The unmeasured priming run writes no TORCH_TRACE log; the rest of the
    // options stay as the session asked, the kernel profile's calls too: they
    // set an Inductor option in the cache key, and a priming run without them
    // filled entries the measured run missed.
    void primingRunWritesNoTorchTrace() {
        ProbeOptions options;
        options.python = "/usr/bin/python3";
        options.torchTraceDir = "/tmp/traces";
        options.cupti = false;
        options.profileCalls = 50;
        const ProbeOptions primed = primingOptions(options);
        QVERIFY(primed.torchTraceDir.empty());
        QCOMPARE(primed.python, options.python);
        QCOMPARE(primed.cupti, false);
        QCOMPARE(primed.profileCalls, 50);
    }
};

QTEST_GUILESS_MAIN(CompareSessionTest)
#include "test_compare_session.moc"
