// A probe that floods its event stream (issue 19): garbage lines, valid events
// at full speed, one line past the parser's bound. While it is read, a 10 ms
// timer on the same event loop measures the stall (the longest gap between two
// ticks), and the app's resident memory is sampled.
//
// COMPILESCOPE_FLOOD_MB sets the size of each flood (default 200 MiB, the CI
// form; benchmarks/flooding_probe.sh runs 1024). Every case prints one
// "flood:" line with its figures (docs/BENCHMARKS.md, "Flooding probe").
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cstdio>

#include "core/runner/probe_process.h"
#include "tests/support/self_rss.h"

using namespace cs::core;

namespace {

double rssMiB() {
    return cs::test::selfRssMiB();
}

double floodMiB() {
    bool ok = false;
    const double mib = qEnvironmentVariable("COMPILESCOPE_FLOOD_MB").toDouble(&ok);
    return ok && mib > 0 ? mib : 200.0;
}

struct Flood {
    cs::core::Run run;
    double seconds = 0;
    qint64 worstGapMs = 0;
    double rssBefore = 0;
    double rssPeak = 0;
    double rssAfter = 0;
};

// Reads the fake probe's `behaviour` to its end, ticking every 10 ms.
void readFlood(const std::string& behaviour, Flood& out, double mib = floodMiB()) {
    qputenv("COMPILESCOPE_FAKE_FLOOD_MB", QByteArray::number(floodMiB()));
    ProbeOptions options;
    options.python = "/usr/bin/python3";
    options.probeRoot = FAKE_PROBE_ROOT;
    Setting setting;
    setting.mode = "eager";
    out.rssBefore = rssMiB();
    out.rssPeak = out.rssBefore;
    {
        ProbeProcess process(&out.run, buildProbeLaunch("fake:" + behaviour, setting, options),
                             600);
        QSignalSpy finished(&process, &ProbeProcess::finished);
        QElapsedTimer sinceTick;
        QTimer tick;
        tick.setTimerType(Qt::PreciseTimer);
        QObject::connect(&tick, &QTimer::timeout, [&] {
            out.worstGapMs = std::max(out.worstGapMs, sinceTick.restart());
            out.rssPeak = std::max(out.rssPeak, rssMiB());
        });
        QElapsedTimer clock;
        clock.start();
        sinceTick.start();
        tick.start(10);
        process.start();
        QVERIFY(finished.wait(600'000));
        out.seconds = static_cast<double>(clock.elapsed()) / 1000.0;
    }
    out.rssPeak = std::max(out.rssPeak, rssMiB());
    out.rssAfter = rssMiB();
    std::printf("flood: %s, %.0f MiB in %.1f s (%.0f MiB/s): worst event-loop gap %lld ms; RSS "
                "%.0f MiB before, %.0f MiB peak, %.0f MiB after\n",
                behaviour.c_str(), mib, out.seconds, mib / out.seconds,
                static_cast<long long>(out.worstGapMs), out.rssBefore, out.rssPeak, out.rssAfter);
    std::fflush(stdout);
}

// Generous bounds for a shared CI machine; the figures printed are the claim.
constexpr qint64 kMaxStallMs = 500;
constexpr double kMaxGrowthMiB = 64;

} // namespace

class FloodTest : public QObject {
    Q_OBJECT
  private slots:
    void garbageIsRefusedLineByLineInBoundedMemory() {
        Flood f;
        readFlood("flood_garbage", f);
        QCOMPARE(QString::fromLatin1(toString(f.run.status)), QString("ok"));
        QCOMPARE(f.run.measuredLatencies().size(), size_t(5)); // the calls after the flood
        QCOMPARE(f.run.parseProblems.size(), kMaxKeptProblems + 1);
        QVERIFY(QString::fromStdString(f.run.parseProblems.back().message)
                    .contains("more problems follow"));
        QCOMPARE(f.run.parseProblems.front().line, int64_t{3}); // hello, phase, then garbage
        QVERIFY2(f.worstGapMs < kMaxStallMs, qPrintable(QString::number(f.worstGapMs)));
        QVERIFY2(f.rssPeak - f.rssBefore < kMaxGrowthMiB, qPrintable(QString::number(f.rssPeak)));
    }

    void validEventsAtFullSpeedKeepTheLoopResponsive() {
        Flood f;
        readFlood("flood_events", f);
        QCOMPARE(QString::fromLatin1(toString(f.run.status)), QString("ok"));
        QCOMPARE(f.run.measuredLatencies().size(), size_t(5));
        QVERIFY(f.run.parseProblems.empty());
        QCOMPARE(f.run.unknownEvents.size(), kMaxKeptUnknownEvents + 1);
        QCOMPARE(f.run.logs.size(), kMaxKeptLogs + 1);
        QVERIFY(QString::fromStdString(f.run.logs.back().message).contains("more log lines"));
        QCOMPARE(QString::fromStdString(f.run.compileStage), QString("tracing"));
        QVERIFY2(f.worstGapMs < kMaxStallMs, qPrintable(QString::number(f.worstGapMs)));
        QVERIFY2(f.rssPeak - f.rssBefore < kMaxGrowthMiB, qPrintable(QString::number(f.rssPeak)));
    }

    void aLinePastTheBoundIsRefusedByNumber() {
        Flood f;
        readFlood("long_line", f, 65); // the fake writes 65 MiB, then a newline
        QCOMPARE(QString::fromLatin1(toString(f.run.status)), QString("ok"));
        QCOMPARE(f.run.measuredLatencies().size(), size_t(5));
        QCOMPARE(f.run.parseProblems.size(), size_t(1));
        QCOMPARE(f.run.parseProblems.front().line, int64_t{3});
        QVERIFY2(QString::fromStdString(f.run.parseProblems.front().message)
                     .contains("line 3 is longer than"),
                 f.run.parseProblems.front().message.c_str());
        // At most the bound itself is ever held, never the whole line.
        const double boundMiB = static_cast<double>(kMaxEventLineBytes >> 20);
        QVERIFY2(f.rssPeak - f.rssBefore < boundMiB + kMaxGrowthMiB,
                 qPrintable(QString::number(f.rssPeak)));
        QVERIFY2(f.worstGapMs < kMaxStallMs, qPrintable(QString::number(f.worstGapMs)));
    }
};

QTEST_GUILESS_MAIN(FloodTest)
#include "test_flood.moc"
