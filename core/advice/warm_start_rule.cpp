// Rule: a cold start measured three ways (compilescope-cli warmstart) where
// torch's portable cache artifacts bought nothing on CPU. The artifacts hold
// the FX-graph cache entries, whose kernels are C++ source: a machine that
// loads them hits the cache and still builds every kernel (torch 2.15; the
// .so files appear in the new cache directory on the first call).
#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/units.h"
#include "core/analysis/warm_start.h"

namespace cs::core::advice {

namespace {

// The artifacts' first call must beat the fresh compile's by this much to
// count as a gain: less is within what two fresh processes differ by.
constexpr double kArtifactsGain = 1.25;

double phaseSeconds(const Run& run, const char* name) {
    for (const auto& phase : run.compilePhases) {
        if (phase.name == name)
            return phase.seconds;
    }
    return 0;
}

std::string startText(const ColdStart& start) {
    return formatDuration(static_cast<double>(start.firstCallNs));
}

} // namespace

void warmStartRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (const WarmStartRow& row : warmStartTable(input.report)) {
        const ColdStart& art = row.artifacts;
        if (!art.run || art.firstCallNs <= 0 || row.fresh.firstCallNs <= 0 ||
            !art.speedupOverFresh || *art.speedupOverFresh >= kArtifactsGain)
            continue;
        const Run& run = runs[*art.run];
        // On CUDA the artifacts also carry the built Triton kernels; that
        // path was never measured here, so no finding claims it.
        if (onCuda(run) || run.status != RunStatus::Ok)
            continue;
        Finding f;
        f.rule = "warm_start.artifacts";
        f.severity = Severity::Warning;
        f.tab = EvidenceTab::Warmup;
        f.run = static_cast<int>(*art.run);
        f.setting = row.label;
        f.title = row.label +
                  ": torch's portable cache artifacts did not shorten the first call "
                  "on CPU (" +
                  startText(art) + " against " + startText(row.fresh) + " fresh)";
        std::string loaded = "with the artifacts loaded first: " + startText(art);
        if (row.artifactsLoadNs >= 0) {
            loaded += ", their load (" + formatDuration(static_cast<double>(row.artifactsLoadNs));
            if (row.artifactsBytes >= 0)
                loaded += ", " + formatBytes(static_cast<double>(row.artifactsBytes));
            loaded += ") included";
        }
        f.evidence.push_back("a fresh compile's first call: " + startText(row.fresh) + "; " +
                             loaded + " (" + formatRatio(*art.speedupOverFresh) + ")");
        // The phases show the cache hit that still builds: no code generated,
        // the time inside AOT autograd, where a cache hit loads its kernels.
        const double aot = phaseSeconds(run, "aot_autograd");
        if (phaseSeconds(run, "inductor_codegen") == 0 && aot > 0)
            f.evidence.push_back(
                "the artifacts were used: Inductor generated no code (its codegen phase took 0 s), "
                "yet AOT autograd, where a cache hit loads the kernels, took " +
                formatDuration(aot * 1e9) + ": the kernels' C++ was built there");
        if (row.warmCache.firstCallNs > 0 && row.warmCache.speedupOverFresh)
            f.evidence.push_back("with Inductor's cache directory kept from an earlier run (the "
                                 "warm cache): " +
                                 startText(row.warmCache) + " (" +
                                 formatRatio(*row.warmCache.speedupOverFresh) + ")");
        f.remedy =
            "On CPU the artifacts carry the kernels' generated C++, not the libraries built from "
            "it, so every process that loads them into a fresh cache builds each kernel again. "
            "Keep Inductor's cache directory instead (TORCHINDUCTOR_CACHE_DIR on a disk that "
            "outlives the process: the warm cache, for later starts on the same machine or "
            "image), or deploy compiled ahead of time (--settings ...,aoti: a built library, no "
            "compile at start). On CUDA the artifacts also hold the built Triton kernels.";
        if (row.warmCache.firstCallNs > 0 && row.warmCache.firstCallNs < art.firstCallNs)
            f.gain = "first call " + startText(row.warmCache) + " instead of " + startText(art) +
                     " with the warm cache";
        f.confidence = 0.8;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
