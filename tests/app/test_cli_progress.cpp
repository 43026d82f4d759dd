// The CLI's progress line while torch compiles: the compile stage the probe
// reports, the clock, and what to do about a long compile.
#include <QtTest>

#include <utility>
#include <vector>

#include "app/cli_progress.h"
#include "core/events/event_parser.h"
#include "core/runner/session_runner.h"

using namespace cs;

namespace {

core::Run runIn(const std::string& phase) {
    core::Setting setting;
    setting.mode = "default";
    return core::replayStream("{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
                              "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"" +
                                  phase + "\",\"edge\":\"begin\"}\n",
                              setting);
}

core::Run runAfter(const std::string& phase) {
    core::Setting setting;
    setting.mode = "default";
    return core::replayStream("{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
                              "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"" +
                                  phase + "\",\"edge\":\"begin\"}\n" +
                                  "{\"type\":\"phase\",\"t_ns\":3,\"name\":\"" + phase +
                                  "\",\"edge\":\"end\"}\n",
                              setting);
}

core::Run compilingRun(bool withStage, const std::string& mode = "default") {
    core::Setting setting;
    setting.mode = mode;
    std::string stream =
        "{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
        "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"compile\",\"edge\":\"begin\"}\n";
    if (withStage)
        stream += "{\"type\":\"compile_progress\",\"t_ns\":3,\"stage\":\"tracing\"}\n"
                  "{\"type\":\"compile_progress\",\"t_ns\":4,\"stage\":\"Inductor codegen\"}\n";
    return core::replayStream(stream, setting);
}

} // namespace

class TestCliProgress : public QObject {
    Q_OBJECT
  private slots:
    void showsTheLatestStage() {
        const auto text = core::describeProgress(compilingRun(true), 5'000);
        QCOMPARE(QString::fromStdString(text), QString("compiling (first call: Inductor codegen)"));
        QCOMPARE(QString::fromStdString(core::describeProgress(compilingRun(false), 5'000)),
                 QString("compiling (first call)"));
        // aoti's compile phase is the C++ runner's: the package was built before it.
        QCOMPARE(QString::fromStdString(core::describeProgress(compilingRun(false, "aoti"), 5'000)),
                 QString("loading the package, first call"));
    }

    void aLongCompileSaysWhatToDo() {
        const QString text =
            QString::fromStdString(core::describeProgress(compilingRun(true), 95'000));
        QVERIFY2(text.startsWith("compiling (first call: Inductor codegen) — a long compile"),
                 qPrintable(text));
        for (const char* lever : {"smaller inputs", "--backend aot_eager", "--timeout"})
            QVERIFY2(text.contains(lever), qPrintable(text));
        // Symbolic shapes lengthen a first compile: dynamic=True is no lever.
        QVERIFY2(!text.contains("dynamic=True"), qPrintable(text));
        const QString line = app::progressLine(0.25, text, 95'000);
        QVERIFY2(line.startsWith("[ 25%] compiling (first call: Inductor codegen)"),
                 qPrintable(line));
        QVERIFY2(line.endsWith("  01:35"), qPrintable(line));
    }

    // Each phase's own words (tests/support/probe_killer.py reads them live).
    void eachPhaseIsNamed() {
        const std::vector<std::pair<std::string, QString>> expected = {
            {"load", "loading the model"},
            {"warmup", "warmup 0/"},
            {"measure", "measuring 0/"},
            {"crosscheck", "cross-checking the median"},
            {"profile", "profiling the kernels"},
            {"outputs", "comparing the outputs with eager's"},
            {"sweep", "input sweep"},
            {"scale", "batch-size walk"}};
        for (const auto& [phase, words] : expected) {
            const QString text =
                QString::fromStdString(core::describeProgress(runIn(phase), 1'000));
            QVERIFY2(text.startsWith(words),
                     qPrintable(QString::fromStdString(phase) + ": " + text));
        }
    }

    // Between two phases the line says what the probe does there; a bare
    // "running" printed a line of noise after every phase.
    void theGapsBetweenPhasesAreNamed() {
        const std::vector<std::pair<std::string, QString>> expected = {
            {"load", "preparing the first call"},
            {"compile", "after the first call"},
            {"warmup", "after warmup"},
            {"measure", "after measuring"},
            {"crosscheck", "after the cross-check"},
            {"outputs", "after comparing the outputs"},
            {"profile", "finishing the run (after profile)"}};
        for (const auto& [phase, words] : expected) {
            const QString text =
                QString::fromStdString(core::describeProgress(runAfter(phase), 1'000));
            QVERIFY2(text.startsWith(words),
                     qPrintable(QString::fromStdString(phase) + ": " + text));
        }
    }

    // Which sweep item runs and how many of them recompiled: a long sweep
    // (each new size a fresh compile) had read a bare "input sweep" for minutes.
    void theSweepSaysWhichInputAndItsRecompiles() {
        core::Setting setting;
        setting.mode = "default";
        const std::string head =
            "{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
            "{\"type\":\"recompile\",\"t_ns\":2,\"function\":\"forward\",\"reason\":\"r\"}\n"
            "{\"type\":\"phase\",\"t_ns\":3,\"name\":\"sweep\",\"edge\":\"begin\"}\n"
            "{\"type\":\"log\",\"t_ns\":4,\"level\":\"info\",\"message\":\"sweep 1/3: inputs "
            "(2, 16)\",\"code\":\"sweep_inputs\",\"detail\":\"(2, 16)\"}\n"
            "{\"type\":\"log\",\"t_ns\":5,\"level\":\"info\",\"message\":\"sweep 2/3: inputs "
            "(2, 64)\",\"code\":\"sweep_inputs\",\"detail\":\"(2, 64)\"}\n";
        const auto second = core::replayStream(head, setting);
        // The recompile before the sweep (the warmup's) is not the sweep's.
        QCOMPARE(QString::fromStdString(core::describeProgress(second, 1'000)),
                 QString("input sweep 2/3: inputs (2, 64)"));
        const std::string recompile =
            "{\"type\":\"recompile\",\"t_ns\":6,\"function\":\"forward\",\"reason\":\"r\"}\n";
        QCOMPARE(QString::fromStdString(
                     core::describeProgress(core::replayStream(head + recompile, setting), 1'000)),
                 QString("input sweep 2/3: inputs (2, 64), 1 recompile so far"));
        QCOMPARE(QString::fromStdString(core::describeProgress(
                     core::replayStream(head + recompile + recompile, setting), 1'000)),
                 QString("input sweep 2/3: inputs (2, 64), 2 recompiles so far"));
        // While torch compiles the new size: its stage, until the frame's end ("").
        const std::string stage =
            "{\"type\":\"compile_progress\",\"t_ns\":7,\"stage\":\"tracing\"}\n";
        QCOMPARE(QString::fromStdString(core::describeProgress(
                     core::replayStream(head + recompile + stage, setting), 1'000)),
                 QString("input sweep 2/3: inputs (2, 64), 1 recompile so far, compiling "
                         "(tracing)"));
        const std::string ended = "{\"type\":\"compile_progress\",\"t_ns\":8,\"stage\":\"\"}\n";
        QCOMPARE(QString::fromStdString(core::describeProgress(
                     core::replayStream(head + recompile + stage + ended, setting), 1'000)),
                 QString("input sweep 2/3: inputs (2, 64), 1 recompile so far"));
    }

    // The walk names the size under way and torch's compile of it: each size
    // compiles anew, and "2 size(s) measured" read as hung while one did.
    void theWalkSaysWhichBatchAndItsCompile() {
        core::Setting setting;
        setting.mode = "default";
        const std::string head =
            "{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
            "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"scale\",\"edge\":\"begin\"}\n";
        const auto plan = [](const std::string& sizes) {
            return "{\"type\":\"scale_plan\",\"t_ns\":3,\"batch_source\":\"dim0\",\"sizes\":" +
                   sizes + ",\"auto\":" + (sizes == "[]" ? "true" : "false") +
                   ",\"dynamic\":false,\"budget_s\":120.0,\"memory_cap_bytes\":0}\n";
        };
        const auto point = [](int n) {
            return "{\"type\":\"scale_point\",\"t_ns\":4,\"batch_size\":" + std::to_string(n) +
                   ",\"first_call_ns\":5,\"latency_ns\":[5,6],\"peak_memory_bytes\":-1,"
                   "\"memory_kind\":\"host_rss\",\"recompiles\":1}\n";
        };
        const std::string stage =
            "{\"type\":\"compile_progress\",\"t_ns\":5,\"stage\":\"Inductor codegen\"}\n";
        const auto said = [&](const std::string& stream) {
            return QString::fromStdString(
                core::describeProgress(core::replayStream(head + stream, setting), 1'000));
        };
        QCOMPARE(said(plan("[4,16,64]")), QString("batch-size walk: batch 4 (size 1 of 3)"));
        QCOMPARE(said(plan("[4,16,64]") + point(4) + stage),
                 QString("batch-size walk: batch 16 (size 2 of 3), 1 measured, compiling "
                         "(Inductor codegen)"));
        QCOMPARE(said(plan("[]") + point(1) + point(2)),
                 QString("batch-size walk: batch 4, 2 measured (budget 120 s)"));
        const std::string stop = "{\"type\":\"scale_stop\",\"t_ns\":6,\"reason\":\"budget\","
                                 "\"batch_size\":4,\"message\":\"m\"}\n";
        QCOMPARE(said(plan("[]") + point(1) + point(2) + stop),
                 QString("batch-size walk: 2 measured, ending (budget)"));
        // Each size is a line of its own off a terminal; its compile stages are not.
        QVERIFY(app::progressStage(said(plan("[4,16,64]") + point(4) + stage)) !=
                app::progressStage(said(plan("[4,16,64]"))));
        QCOMPARE(app::progressStage(said(plan("[4,16,64]") + point(4) + stage)),
                 app::progressStage(said(plan("[4,16,64]") + point(4))));
    }

    // A recompile while warming up or measuring says so, and what it is doing.
    void aRecompileInWarmupIsTold() {
        core::Setting setting;
        setting.mode = "default";
        setting.warmup = 5;
        const std::string stream =
            "{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
            "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"warmup\",\"edge\":\"begin\"}\n"
            "{\"type\":\"compile_progress\",\"t_ns\":3,\"stage\":\"Inductor codegen\"}\n";
        QCOMPARE(QString::fromStdString(
                     core::describeProgress(core::replayStream(stream, setting), 1'000)),
                 QString("warmup 0/5, compiling (Inductor codegen)"));
        // aoti's stages were its package's build, before its calls.
        setting.mode = "aoti";
        QCOMPARE(QString::fromStdString(
                     core::describeProgress(core::replayStream(stream, setting), 1'000)),
                 QString("warmup 0/5"));
    }

    // Off a terminal a line is printed when the stage changes: torch's
    // compile stages and the counters change within one.
    void theStageLeavesOutWhatChangesWithinIt() {
        const QString compiling =
            app::progressStage("default (2/2) — compiling (first call: tracing)");
        QCOMPARE(compiling, QString("default (2/2) — compiling"));
        QCOMPARE(app::progressStage("default (2/2) — compiling (first call)"), compiling);
        QCOMPARE(app::progressStage("default (2/2) — compiling (first call: Inductor codegen) — "
                                    "a long compile: try smaller inputs"),
                 compiling);
        const QString warmup = app::progressStage("default (2/2) — warmup 1/5");
        QCOMPARE(warmup, QString("default (2/2) — warmup"));
        QCOMPARE(app::progressStage("default (2/2) — warmup 2/5, compiling (AOT autograd)"),
                 warmup);
        QCOMPARE(app::progressStage("default (2/2) — measuring 37/100"),
                 app::progressStage("default (2/2) — measuring 0/100"));
        // Each of these is a stage of its own.
        const QStringList distinct = {"default (2/2) — after warmup",
                                      "default (2/2) — after measuring",
                                      "eager (1/2) — compiling (first call: tracing)",
                                      "default (2/2) — input sweep 1/3: inputs (2, 16)",
                                      "default (2/2) — input sweep 2/3: inputs (2, 64)",
                                      compiling,
                                      warmup};
        QSet<QString> stages;
        for (const QString& text : distinct)
            stages.insert(app::progressStage(text));
        QCOMPARE(stages.size(), distinct.size());
    }

    void eagerHasNoCompileWords() {
        core::Run run = compilingRun(true);
        run.setting.mode = "eager";
        QCOMPARE(QString::fromStdString(core::describeProgress(run, 95'000)),
                 QString("first call"));
    }
};

QTEST_GUILESS_MAIN(TestCliProgress)
#include "test_cli_progress.moc"
