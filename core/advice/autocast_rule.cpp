// Rule: autocast that costs. A compiled setting under autocast (bf16, fp16)
// measurably slower than the same setting without it: the casts autocast
// adds on every call, the weights' included, outweigh what the narrower type
// saves. Where the report measured eager both ways or a frozen twin, say what
// they showed; where both settings profiled their kernels, the conversions'
// share.
#include <set>
#include <string>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/kernel_cost.h"
#include "core/analysis/probe_rounds.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

// A run with its measured calls' stats, as the Compare tab computed them.
struct Measured {
    const Run* run = nullptr;
    const LatencyStats* stats = nullptr;
    explicit operator bool() const { return run != nullptr; }
};

// The first finished run with measured calls whose setting passes `wanted`.
template <typename Wanted> Measured find(const AdviceInput& input, Wanted wanted) {
    const auto& runs = input.report.runs;
    for (size_t i = 0; i < runs.size(); ++i) {
        const ComparisonRow* row = input.comparison.row(static_cast<int>(i));
        if (runs[i].status == RunStatus::Ok && row && row->stats && wanted(runs[i].setting))
            return {&runs[i], &*row->stats};
    }
    return {};
}

// How much faster `b` is than `a` (below 1: slower), judged over every probe
// round; nullopt unless significant.
std::optional<Speedup> speedupOf(const Measured& a, const Measured& b) {
    return significantSpeedup(*a.run, *b.run, *a.stats, *b.stats);
}

std::string medianOf(const Measured& m) {
    return formatDuration(m.stats->median);
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

// A setting under autocast measurably slower than its twin without.
Finding slowerFinding(int run, const Measured& mine, const Measured& twin, const Speedup& speedup) {
    Finding f;
    f.rule = "perf.autocast";
    f.severity = Severity::Warning;
    f.tab = EvidenceTab::Compare;
    f.run = run;
    f.setting = mine.run->setting.label();
    f.title = f.setting + " is " + formatRatio(1 / speedup.value) + " slower than " +
              twin.run->setting.label() + ": autocast to " + mine.run->setting.autocast +
              " costs more than it saves here";
    f.evidence.push_back("median " + medianOf(mine) + " under autocast against " + medianOf(twin) +
                         " without (Compare tab)");
    return f;
}

// Eager under autocast slower than eager without, where no compiled
// setting's finding under that autocast told it already (with eager's
// figures): the README's old "eager,eager:autocast=bf16,default:autocast=bf16"
// measured bf16 slower and said nothing of it.
void eagerAutocastRule(const AdviceInput& input, const std::set<std::string>& told,
                       std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        const ComparisonRow* row = input.comparison.row(static_cast<int>(r));
        if (run.setting.mode != "eager" || run.setting.autocast == "none" || !row || !row->stats)
            continue;
        const Measured mine{&run, &*row->stats};
        Setting plain = run.setting;
        plain.autocast = "none";
        const Measured twin = find(input, [&](const Setting& s) { return s == plain; });
        const std::string type = run.setting.autocast;
        if (!twin || told.count(type))
            continue;
        const auto speedup = speedupOf(twin, mine);
        if (!speedup || speedup->value >= 1)
            continue;
        // The compiled settings under this autocast not measured without it.
        std::vector<const Run*> compiled;
        for (const auto& other : runs) {
            Setting otherPlain = other.setting;
            otherPlain.autocast = "none";
            if (other.setting.mode != "eager" && other.setting.autocast == type &&
                other.setting.device == run.setting.device && judgedForSpeed(other) &&
                !find(input, [&](const Setting& s) { return s == otherPlain; }))
                compiled.push_back(&other);
        }
        Finding f = slowerFinding(static_cast<int>(r), mine, twin, *speedup);
        std::vector<std::string> untwinned;
        for (const Run* other : compiled)
            untwinned.push_back(other->setting.label());
        if (!untwinned.empty())
            f.evidence.push_back(joinWords(untwinned) + (untwinned.size() == 1 ? " was" : " were") +
                                 " not measured without autocast here, so what " + type +
                                 " does to the compiled graph is not known");
        std::string withPlain; // "default,default:autocast=bf16"
        for (const Run* other : compiled)
            withPlain +=
                "," + other->setting.mode + "," + other->setting.mode + ":autocast=" + type;
        f.remedy =
            "Autocast casts the fp32 weights to " + type +
            " again on every call, which this model's ops do not earn back here: keep "
            "eager without autocast on this device" +
            (withPlain.empty()
                 ? std::string(".")
                 : ". Before choosing " + type +
                       " for a compiled setting, measure it beside the same setting "
                       "without autocast (--settings eager" +
                       withPlain + "): the compiled graph can fuse the casts, or pay them too.");
        f.confidence = 0.7;
        out.push_back(std::move(f));
    }
}

} // namespace

void autocastRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    std::set<std::string> told; // the autocast types a compiled setting's finding told
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        const ComparisonRow* row = input.comparison.row(static_cast<int>(r));
        if (run.setting.autocast == "none" || !judgedForSpeed(run) || !row || !row->stats)
            continue;
        const Measured mine{&run, &*row->stats};
        Setting plain = run.setting;
        plain.autocast = "none";
        const Measured twin = find(input, [&](const Setting& s) { return s == plain; });
        if (!twin)
            continue;
        const auto speedup = speedupOf(twin, mine);
        if (!speedup || speedup->value >= 1)
            continue;
        const std::string type = run.setting.autocast;
        const std::string torchType = type == "bf16" ? "torch.bfloat16" : "torch.float16";
        Finding f = slowerFinding(static_cast<int>(r), mine, twin, *speedup);

        // Eager on the same device and environment, without and with this autocast.
        auto eagerUnder = [&](const std::string& autocast) {
            return find(input, [&](const Setting& s) {
                return s.mode == "eager" && s.autocast == autocast &&
                       s.device == run.setting.device && s.environment == run.setting.environment;
            });
        };
        const Measured eager = eagerUnder("none");
        const Measured eagerAutocast = eagerUnder(type);
        if (eager && eagerAutocast) {
            const auto eagerSpeedup = speedupOf(eager, eagerAutocast);
            const std::string medians = medianOf(eagerAutocast) + " against " + medianOf(eager);
            if (!eagerSpeedup)
                f.evidence.push_back("under eager, " + type + " measured " + medians +
                                     ", within noise of each other");
            else if (eagerSpeedup->value > 1)
                f.evidence.push_back("under eager, " + type + " is " +
                                     formatRatio(eagerSpeedup->value) + " faster (" + medians +
                                     "): the compiled graph is where " + type + " loses");
            else
                f.evidence.push_back("under eager, " + type + " is " +
                                     formatRatio(1 / eagerSpeedup->value) + " slower too (" +
                                     medians + "): " + type + " does not pay on this device");
        }

        const CostBreakdown& mineCosts = input.costOf(run);
        const CostBreakdown& twinCosts = input.costOf(*twin.run);
        // A disturbed window's kernel times say nothing of the autocast.
        const bool disturbed = disturbedWindow(mineCosts, mine.stats->median) ||
                               disturbedWindow(twinCosts, twin.stats->median);
        if (disturbed)
            for (const Measured& m : {mine, twin}) {
                const CostBreakdown& costs = input.costOf(*m.run);
                if (disturbedWindow(costs, m.stats->median))
                    f.evidence.push_back(disturbedWindowText(
                        m.run->setting.label(), costs, m.stats->median, "what the casts cost"));
            }
        if (mineCosts.profiled && twinCosts.profiled && !disturbed) {
            const auto [castNs, casts] = conversionKernels(mineCosts);
            if (casts > 0)
                f.evidence.push_back(
                    plural(casts, "kernel converts", "kernels convert") + " dtypes (_to_copy in " +
                    (casts == 1 ? "its name" : "their names") + "): " + formatDuration(castNs) +
                    " per call with what they fuse; the kernels take " +
                    formatDuration(mineCosts.compiledNsPerCall) + " per call in all against " +
                    formatDuration(twinCosts.compiledNsPerCall) + " without autocast (Code tab)");
        }

        const bool isFrozen = frozen(run.setting);
        if (!isFrozen) {
            Setting frozenSetting = run.setting;
            frozenSetting.environment[kFreezing] = "1";
            if (const Measured frozenTwin =
                    find(input, [&](const Setting& s) { return s == frozenSetting; })) {
                const auto gain = speedupOf(mine, frozenTwin);
                f.evidence.push_back("measured here as " + frozenTwin.run->setting.label() +
                                     ": median " + medianOf(frozenTwin) +
                                     (gain && gain->value > 1
                                          ? ", " + formatRatio(gain->value) + " faster than without"
                                          : ", no measurable gain"));
            }
        }
        const std::string plainLabel = twin.run->setting.label();
        if (onCuda(run)) {
            f.remedy = "Keep " + plainLabel +
                       " without autocast here, or check that the GPU "
                       "computes " +
                       type +
                       " natively (bf16 needs compute capability 8.0 or "
                       "later); casting the model itself (model.to(" +
                       torchType + ")) saves the casts autocast adds on every call.";
        } else if (isFrozen) {
            f.remedy = "Freezing is on and " + type + " is still slower: keep " + plainLabel +
                       " without autocast on this CPU.";
        } else {
            const std::string setting = run.setting.mode + ":autocast=" + type;
            f.remedy = "Autocast casts the fp32 weights to " + type +
                       " again on every call. Freeze them for inference, so Inductor folds the "
                       "casts once (torch._inductor.config.freezing = True, or "
                       "TORCHINDUCTOR_FREEZING=1; measure it beside: --settings " +
                       setting + "," + setting +
                       ":env=TORCHINDUCTOR_FREEZING=1), or cast the model itself (model.to(" +
                       torchType + ")) instead of autocast; otherwise keep it without autocast.";
        }
        f.confidence = 0.75;
        out.push_back(std::move(f));
        told.insert(type);
    }
    eagerAutocastRule(input, told, out);
}

} // namespace cs::core::advice
