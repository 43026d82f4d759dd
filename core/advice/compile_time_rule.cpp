// Rule: a first call that compiles for minutes. Needs no eager baseline: the
// wait itself is the cost, whatever the speedup afterwards.
#include <algorithm>
#include <string>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/advice/shape_guard.h"
#include "core/analysis/comparison.h"
#include "core/analysis/repeated_blocks.h"
#include "core/analysis/run_summary.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

// torch's counter names (probe/compilescope_probe/compile_phases.py) in words.
std::string phaseWords(const std::string& name) {
    if (name == "dynamo_tracing")
        return "Dynamo tracing";
    if (name == "aot_autograd")
        return "AOT autograd";
    if (name == "inductor_codegen")
        return "Inductor code generation";
    if (name == "cpp_triton_compile")
        return "C++/Triton compile";
    if (name == "precompiled_header")
        return "building torch's precompiled header (once per machine)";
    if (name == "autotune")
        return "autotuning";
    if (name == "cudagraph_recording")
        return "CUDA-graph recording";
    if (name == "package")
        return "AOTInductor packaging";
    if (name == "load")
        return "package load";
    return name;
}

int64_t firstCallNs(const Run& run) {
    if (run.firstCallNs >= 0)
        return run.firstCallNs;
    for (const auto& it : run.iterations) {
        if (it.firstCall)
            return it.wallNs;
    }
    return -1;
}

// Seconds of the first call spent building torch's precompiled header: paid once
// per machine, so not what the user's next start pays.
double headerBuildSeconds(const Run& run) {
    for (const auto& p : run.compilePhases) {
        if (isHeaderBuildPhase(p.name))
            return p.seconds;
    }
    return 0;
}

// Regional compilation pays where one block makes up this much of the graphs.
constexpr double kBlockShare = 0.3;

// torch's portable cache artifacts carry built Triton kernels on CUDA, but
// only the C++ source on CPU, which a fresh cache builds again (measured:
// warm_start.artifacts); a run of unknown device gets both readings.
std::string artifactsLever(const Run& run) {
    constexpr const char* ship =
        "ship the compiled artifacts: torch.compiler.save_cache_artifacts() "
        "after a run, torch.compiler.load_cache_artifacts() before the next";
    if (onCuda(run))
        return ship;
    constexpr const char* cpu =
        "on CPU, keep Inductor's cache directory (TORCHINDUCTOR_CACHE_DIR on a "
        "disk that outlives the process) rather than torch's portable cache "
        "artifacts, which carry the kernels' C++ and build it again in a "
        "fresh cache";
    if (run.probe.device.rfind("cpu", 0) == 0)
        return cpu;
    return std::string(ship) + " (on CUDA; " + cpu + ")";
}

} // namespace

// Checked with torch 2.15 on a GRUCell stepped over 200 time steps in
// forward: 32 s to compile and 3.8x eager's speed; each other trip count
// compiled a graph of its own. The cell compiled alone took 3.2 s, but its
// 200 compiled calls per forward made it 1.5x slower than eager.
UnrolledLoopText unrolledLoopText(const Run& run) {
    const UnrolledLoop loop = unrolledLoop(run);
    if (!loop.found())
        return {};
    const std::string at = shortLocation(loop.file, loop.line);
    return {"graph " + std::to_string(loop.graph) + " holds a Python loop unrolled " +
                std::to_string(loop.iterations) + " times: the ops of " + at +
                " and the lines with it repeat once per iteration, " +
                std::to_string(loop.loopNodes) + " of its " + std::to_string(loop.totalNodes) +
                " ops (Graphs tab); Dynamo traces every iteration, so the compile grows with the "
                "trip count, and a call with another trip count compiles it all again",
            "the loop at " + at +
                " is compiled unrolled: compiling only its body (torch.compile on the module or "
                "function it calls each step) compiles once for every trip count, but pays a "
                "compiled call per step, which can make the whole call slower than eager: "
                "measure it (setting as-written) before keeping it",
            loop.file, loop.line};
}

void compileTimeRule(const AdviceInput& input, std::vector<Finding>& out) {
    const double threshold = input.options.longCompileSeconds;
    if (threshold <= 0)
        return;
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        const int64_t first = firstCallNs(run);
        const double header = headerBuildSeconds(run);
        // An imported TORCH_TRACE log has no first call; ranks.compile_time judges its ranks.
        if (run.status == RunStatus::Imported || run.setting.mode == "eager" || first < 0 ||
            static_cast<double>(first) - header * 1e9 < threshold * 1e9)
            continue;
        const std::string label = run.setting.label();
        const CompilePhase* top = largestCompilePhase(run.compilePhases);
        Finding f;
        f.rule = "perf.compile_time";
        f.severity = Severity::Warning;
        f.title = label + " compiles for " + formatDuration(static_cast<double>(first)) +
                  " on its first call";
        // Over the first call less the once-a-machine header build, which the title does not
        // blame: RAFT's C++ compile was the largest phase at 47%, not "most of it".
        if (top)
            f.title += (top->seconds * 1e9 >= 0.5 * (static_cast<double>(first) - header * 1e9)
                            ? ", most of it in "
                            : ", the largest part in ") +
                       phaseWords(top->name);
        f.tab = EvidenceTab::Warmup;
        f.run = static_cast<int>(r);
        f.setting = label;
        f.evidence.push_back("the first call of " + label + " took " +
                             formatDuration(static_cast<double>(first)) + ", above the " +
                             formatDuration(threshold * 1e9) +
                             " set in the advice options (Warmup tab)");
        if (top) {
            const double share = top->seconds * 1e9 / static_cast<double>(first);
            f.evidence.push_back(phaseWords(top->name) + ": " + formatDuration(top->seconds * 1e9) +
                                 " (" +
                                 std::to_string(static_cast<int>(std::min(share, 1.0) * 100)) +
                                 "% of the first call, torch's compile counters)");
        }
        if (header > 0)
            f.evidence.push_back(formatDuration(header * 1e9) +
                                 " of it built torch's precompiled C++ header, which torch "
                                 "keeps for every later compile on this machine: the next "
                                 "start skips that part");
        if (const int recompiles = recompileCount(run); recompiles > 0)
            f.evidence.push_back(plural(recompiles, "recompile", "recompiles") +
                                 (recompiles == 1 ? " adds" : " add") +
                                 " compile time after the first call (Breaks tab)");
        std::vector<std::string> levers{
            run.setting.warmCache()
                ? "The warm cache did not cut it enough"
                : "Keep Inductor's caches between starts (measure a warm start with "
                  "--warm-cache)",
            artifactsLever(run)};
        // Only where a shape changed: a recompile on a value or a dict key is
        // not one dynamic=True would spare.
        if (std::any_of(run.recompiles.begin(), run.recompiles.end(),
                        [](const Recompile& rc) { return parseShapeGuard(rc.reason).has_value(); }))
            levers.push_back("dynamic=True compiles once for changing shapes instead of once per "
                             "shape");
        // Regional compilation only where the graphs show blocks it would
        // compile once: on blocks that differ (Swin's stages) it recompiled
        // per variant: 257 s against 76 s for the whole model, and 1.5x slower.
        const RepeatedBlocks blocks = repeatedBlocks(run);
        if (blocks.found() && static_cast<double>(blocks.nodes) >=
                                  kBlockShare * static_cast<double>(blocks.totalNodes)) {
            std::vector<std::string> lists;
            for (const auto& c : blocks.containers)
                lists.push_back(modulePathCode(c));
            f.evidence.push_back("the graphs repeat one block " + std::to_string(blocks.blocks) +
                                 " times, same ops on the same shapes (in " + joinWords(lists) +
                                 "), " + std::to_string(100 * blocks.nodes / blocks.totalNodes) +
                                 "% of their nodes (Graphs tab)");
            levers.push_back("compile the repeated block, not the whole model (regional "
                             "compilation: for block in " +
                             lists.front() + ": block.compile()" +
                             (lists.size() > 1 ? ", and the same for the other lists" : "") +
                             "), so torch compiles it once and reuses it for all " +
                             std::to_string(blocks.blocks));
        }
        if (const UnrolledLoopText loop = unrolledLoopText(run); !loop.evidence.empty()) {
            f.evidence.push_back(loop.evidence);
            levers.push_back(loop.remedy);
            f.file = loop.file;
            f.line = loop.line;
        }
        // A start the aoti setting measured: what a package load costs instead.
        if (run.setting.mode != "aoti") {
            for (const auto& row : input.comparison.rows) {
                const Run& other = runs[static_cast<size_t>(row.run)];
                const int64_t start = firstCallNs(other);
                if (other.setting.mode != "aoti" || other.status != RunStatus::Ok ||
                    row.outputsDiffer || start < 0 || start >= first)
                    continue;
                levers.push_back("deploy it compiled ahead of time, as the aoti setting did "
                                 "here: its start (package load and first call) took " +
                                 formatDuration(static_cast<double>(start)) +
                                 ", export and package are paid once where you build "
                                 "(docs/aoti.md)");
                break;
            }
        }
        std::string remedy;
        for (const auto& lever : levers)
            remedy += (remedy.empty() ? "" : "; ") + lever;
        remedy += ".";
        f.remedy = remedy;
        f.confidence = top ? 0.8 : 0.6;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
