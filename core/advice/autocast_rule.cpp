// Rule: autocast that costs. A compiled setting under autocast (bf16, fp16)
// measurably slower than the same setting without it: the casts autocast
// adds on every call, the weights' included, outweigh what the narrower type
// saves. Where the report measured eager both ways or a frozen twin, say what
// they showed; where both settings profiled their kernels, the conversions'
// share.
#include <algorithm>
#include <cmath>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/kernel_cost.h"
#include "core/analysis/probe_rounds.h"
#include "core/analysis/run_summary.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

const char* kFreezing = "TORCHINDUCTOR_FREEZING";

bool measured(const Run& r) {
    return r.status == RunStatus::Ok && summarizeRun(r).latency.has_value();
}

// The run of `runs` whose setting is `wanted`, finished with measured calls.
const Run* measuredRun(const std::vector<Run>& runs, const Setting& wanted) {
    for (const Run& r : runs)
        if (r.setting == wanted && measured(r))
            return &r;
    return nullptr;
}

// The eager run under `autocast` on the device and environment of `like`.
const Run* eagerRun(const std::vector<Run>& runs, const Setting& like,
                    const std::string& autocast) {
    for (const Run& r : runs)
        if (r.setting.mode == "eager" && r.setting.autocast == autocast &&
            r.setting.device == like.device && r.setting.environment == like.environment &&
            measured(r))
            return &r;
    return nullptr;
}

// How much faster `b` is than `a` (below 1: slower), judged over every probe
// round; nullopt unless significant.
std::optional<Speedup> significantSpeedup(const Run& a, const Run& b) {
    const auto sa = summarizeRun(a).latency;
    const auto sb = summarizeRun(b).latency;
    if (!sa || !sb)
        return std::nullopt;
    return core::significantSpeedup(a, b, *sa, *sb);
}

std::string medianOf(const Run& run) {
    const auto s = summarizeRun(run).latency;
    return s ? formatDuration(s->median) : std::string("-");
}

// Kernel time per call in kernels that convert dtypes (Inductor names a
// fused kernel after its ops: _to_copy is a cast), and their count.
std::pair<double, int> conversionKernels(const CostBreakdown& costs) {
    double ns = 0;
    int count = 0;
    for (const auto& k : costs.kernels) {
        if (k.kind == "wrapper" || k.name.find("_to_copy") == std::string::npos)
            continue;
        ns += k.nsPerCall.value_or(0);
        ++count;
    }
    return {ns, count};
}

} // namespace

void autocastRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        if (run.setting.autocast == "none" || !judgedForSpeed(run))
            continue;
        Setting plain = run.setting;
        plain.autocast = "none";
        const Run* twin = measuredRun(runs, plain);
        if (!twin)
            continue;
        const auto speedup = significantSpeedup(*twin, run);
        if (!speedup || speedup->value >= 1)
            continue;
        const std::string label = run.setting.label();
        const std::string type = run.setting.autocast;
        Finding f;
        f.rule = "perf.autocast";
        f.severity = Severity::Warning;
        f.tab = EvidenceTab::Compare;
        f.run = static_cast<int>(r);
        f.setting = label;
        f.title = label + " is " + formatRatio(1 / speedup->value) + " slower than " +
                  twin->setting.label() + ": autocast to " + type +
                  " costs more than it saves here";
        f.evidence.push_back("median " + medianOf(run) + " under autocast against " +
                             medianOf(*twin) + " without (Compare tab)");

        const Run* eager = eagerRun(runs, run.setting, "none");
        const Run* eagerAutocast = eagerRun(runs, run.setting, type);
        if (eager && eagerAutocast) {
            const auto eagerSpeedup = significantSpeedup(*eager, *eagerAutocast);
            const std::string medians =
                " (" + medianOf(*eagerAutocast) + " against " + medianOf(*eager) + ")";
            if (!eagerSpeedup)
                f.evidence.push_back("under eager, " + type + " measured " +
                                     medianOf(*eagerAutocast) + " against " + medianOf(*eager) +
                                     ", within noise of each other");
            else if (eagerSpeedup->value > 1)
                f.evidence.push_back("under eager, " + type + " is " +
                                     formatRatio(eagerSpeedup->value) + " faster" + medians +
                                     ": the compiled graph is where " + type + " loses");
            else
                f.evidence.push_back("under eager, " + type + " is " +
                                     formatRatio(1 / eagerSpeedup->value) + " slower too" +
                                     medians + ": " + type + " does not pay on this device");
        }

        const CostBreakdown mine = costBreakdown(run);
        const CostBreakdown theirs = costBreakdown(*twin);
        if (mine.profiled && theirs.profiled) {
            const auto [castNs, casts] = conversionKernels(mine);
            if (casts > 0)
                f.evidence.push_back(
                    plural(casts, "kernel converts", "kernels convert") + " dtypes (_to_copy in " +
                    (casts == 1 ? "its name" : "their names") + "): " + formatDuration(castNs) +
                    " per call with what they fuse; the kernels take " +
                    formatDuration(mine.compiledNsPerCall) + " per call in all against " +
                    formatDuration(theirs.compiledNsPerCall) + " without autocast (Code tab)");
        }

        const bool frozen = run.setting.environment.count(kFreezing) &&
                            run.setting.environment.at(kFreezing) == "1";
        Setting frozenSetting = run.setting;
        frozenSetting.environment[kFreezing] = "1";
        const Run* frozenTwin = frozen ? nullptr : measuredRun(runs, frozenSetting);
        if (frozenTwin) {
            const auto gain = significantSpeedup(run, *frozenTwin);
            f.evidence.push_back("measured here as " + frozenTwin->setting.label() + ": median " +
                                 medianOf(*frozenTwin) +
                                 (gain && gain->value > 1
                                      ? ", " + formatRatio(gain->value) + " faster than without"
                                      : ", no measurable gain"));
        }
        if (onCuda(run)) {
            f.remedy = "Keep " + twin->setting.label() +
                       " without autocast here, or check that "
                       "the GPU computes " +
                       type +
                       " natively (bf16 needs compute capability "
                       "8.0 or later); casting the model itself (model.to(torch." +
                       std::string(type == "bf16" ? "bfloat16" : "float16") +
                       ")) saves the casts autocast adds on every call.";
        } else if (frozen) {
            f.remedy = "Freezing is on and " + type + " is still slower: keep " +
                       twin->setting.label() + " without autocast on this CPU.";
        } else {
            f.remedy = "Autocast casts the fp32 weights to " + type +
                       " again on every call. Freeze them for inference, so Inductor folds the "
                       "casts once (torch._inductor.config.freezing = True, or "
                       "TORCHINDUCTOR_FREEZING=1; measure it beside: --settings " +
                       run.setting.mode + ":autocast=" + type + "," + run.setting.mode +
                       ":autocast=" + type +
                       ":env=TORCHINDUCTOR_FREEZING=1), or cast the model itself "
                       "(model.to(torch." +
                       std::string(type == "bf16" ? "bfloat16" : "float16") +
                       ")) instead of autocast; otherwise keep it without autocast.";
        }
        f.confidence = 0.75;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
