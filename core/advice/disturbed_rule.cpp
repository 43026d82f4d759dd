// Rule 6: the measurement was disturbed. The probe times the measured calls one
// by one, then the same calls in blocks (as torch.utils.benchmark's
// blocked_autorange does); on a quiet machine the two agree within a few per
// cent. When they do not, something else took the CPU while the probe timed.
// A load that lasts through the measure phase slows both alike: the probe's
// machine_cpu shows it (measure.busy_machine).
#include <algorithm>
#include <optional>
#include <vector>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/kept_memory.h"
#include "core/analysis/measurement_check.h"
#include "core/analysis/page_faults.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

// Both rules' findings: a warning on one run's measurement, the Latency tab.
Finding latencyWarning(const char* rule, size_t run, const std::string& setting) {
    Finding f;
    f.rule = rule;
    f.severity = Severity::Warning;
    f.tab = EvidenceTab::Latency;
    f.run = static_cast<int>(run);
    f.setting = setting;
    return f;
}

} // namespace

void disturbedRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        const auto check = crosscheck(run);
        // An imported TORCH_TRACE log was not measured by the probe.
        if (!check || !check->disagrees() || run.status == RunStatus::Imported)
            continue;
        const std::string label = run.setting.label();
        Finding f = latencyWarning("measure.disturbed", r, label);
        f.title = label + ": the measurement was disturbed; per-call and block timing disagree";
        f.evidence.push_back("cross-check: " + crosscheckText(*check) + "; a quiet machine keeps " +
                             "them within " +
                             std::to_string(static_cast<int>(100 * kCrosscheckTolerance)) + "%");
        if (run.probe.threads > 0) {
            std::string threads =
                "the probe ran " + plural(run.probe.threads, "intra-op thread", "intra-op threads");
            if (!run.probe.cpuAffinity.empty())
                threads += " on " + plural(static_cast<long long>(run.probe.cpuAffinity.size()),
                                           "CPU", "CPUs");
            f.evidence.push_back(threads);
        }
        const auto load = machineLoad(run, input.report.environment);
        const bool quiet = load && load->judgeable() && !load->contended();
        if (load && load->judgeable())
            f.evidence.push_back("while it measured, " + machineLoadText(*load));
        if (run.appCpuMeasureNs >= 0)
            f.evidence.push_back("compilescope itself used " +
                                 formatDuration(static_cast<double>(run.appCpuMeasureNs)) +
                                 " of CPU while the probe measured");
        f.remedy = "A busy machine or a noisy neighbour took CPU time while the probe timed. Close "
                   "other work, pin the threads (--threads N, or taskset -c to fixed cores), or "
                   "run more iterations (--iters), then measure again.";
        f.confidence = run.crosscheckBlockMeansNs.size() >= 5 ? 0.7 : 0.5;
        const auto faults = pageFaults(run);
        if (const auto kept = keptPerCall(run)) {
            // The cross-check's calls ran on a heap the measured ones had not
            // grown yet: the model's doing, whatever the machine did.
            f.title = label + ": per-call and block timing disagree; every call keeps memory";
            f.evidence.insert(f.evidence.begin() + 1,
                              "every call kept more memory (memory.growth): the measured calls "
                              "added " +
                                  formatBytes(static_cast<double>(kept->measure.endBytes -
                                                                  kept->measure.beginBytes)) +
                                  ", the cross-check's " +
                                  formatBytes(static_cast<double>(kept->crosscheck.endBytes -
                                                                  kept->crosscheck.beginBytes)));
            f.remedy = "The two timings ran with different amounts of memory held, since every "
                       "call keeps some: the cross-check's later calls pay for the growth. Stop "
                       "what the calls keep (memory.growth), then measure again; the "
                       "machine need not be the cause.";
        } else if (quiet && faults && faults->costly()) {
            // Nothing else took CPU: what varied is the kernel's work for the
            // calls' own page faults (SSD eager: 24.5 ms of it per call in one
            // process, 45 ms calls with more faults in another).
            f.title = label + ": per-call and block timing disagree; every call faults its "
                              "memory in again";
            f.evidence.insert(f.evidence.begin() + 1, "every measured call took " +
                                                          pageFaultsText(*faults) +
                                                          " (perf.page_faults)");
            f.remedy = "The machine was quiet, so the calls' own page faults are the likely "
                       "cause: a call that takes thousands of fresh pages waits on the kernel to "
                       "hand them out, and how long that takes varies with the kernel's memory "
                       "state (reclaim, zeroing) though no other process takes the CPU. Keep the "
                       "memory (perf.page_faults says how), then measure again.";
        }
        out.push_back(std::move(f));
    }
}

void busyMachineRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    std::vector<std::optional<MachineLoad>> loads;
    for (const auto& run : runs)
        loads.push_back(machineLoad(run, input.report.environment));
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        const auto& load = loads[r];
        if (!load || !load->contended() || run.status == RunStatus::Imported)
            continue;
        const std::string label = run.setting.label();
        Finding f = latencyWarning("measure.busy_machine", r, label);
        f.title = label + ": other work shared the probe's CPUs while it measured";
        f.evidence.push_back("over the " + formatDuration(load->wallNs) + " measure phase, " +
                             machineLoadText(*load));
        // A comparison between settings measured under different loads is skewed.
        std::vector<std::string> quiet;
        for (size_t o = 0; o < runs.size(); ++o) {
            const auto& other = loads[o];
            if (o != r && other && other->judgeable() && !other->contended())
                quiet.push_back(runs[o].setting.label());
        }
        if (!quiet.empty())
            f.evidence.push_back(joinWords(quiet) + (quiet.size() == 1 ? " was" : " were") +
                                 " measured on a quieter machine: a comparison of " + label +
                                 " with it is skewed");
        f.remedy = "Another program took CPU time on the CPUs the probe timed on. A load that "
                   "lasts through the measure phase slows every call alike once a call outlasts "
                   "the scheduler's slice: the median is high and the cross-check may not show "
                   "it. Close the other work (or wait for it), or give the probe CPUs of its own "
                   "(taskset -c, --threads N), then measure again.";
        f.confidence = 0.8;
        out.push_back(std::move(f));
    }
}

namespace {

// The speed verdict `f` holds `run` against `other` by their per-call
// medians. Where either's cross-check reads disturbed, the blocks of calls
// timed after them are a second reading: an autograd.Function model's
// default measured 122 µs a call against eager's 81.2 µs ("slower, 0.66×,
// confidence 90%") while its blocks took 82.4 µs and eager's 90.6 µs. The
// remedy says to measure again unless the load's caveat said so already.
void disturbedTimingCaveat(const Run& other, const Run& run, Finding& f, bool tellRemedy) {
    const auto mine = crosscheck(run);
    const auto theirs = crosscheck(other);
    if (!mine || !theirs || !mine->judgeable() || !theirs->judgeable() ||
        (!mine->disagrees() && !theirs->disagrees()))
        return;
    std::vector<std::string> disturbed;
    for (const auto& [r, check] : {std::pair{&run, &*mine}, std::pair{&other, &*theirs}})
        if (check->disagrees())
            disturbed.push_back(r->setting.label() + " " +
                                formatSignedPercent(check->difference()));
    const double byMedians =
        mine->perCallMedianNs > 0 ? theirs->perCallMedianNs / mine->perCallMedianNs : 0;
    const double byBlocks = theirs->blockEstimateNs / mine->blockEstimateNs;
    const bool contradicts = (byMedians < 1) != (byBlocks < 1);
    f.evidence.push_back(
        "the per-call timing was disturbed (" + joinWords(disturbed) +
        (disturbed.size() > 1 ? ", each" : "") +
        " against its own blocks, measure.disturbed): by the blocks of calls timed after them, " +
        run.setting.label() + " took " + formatDuration(mine->blockEstimateNs) + " per call and " +
        other.setting.label() + " " + formatDuration(theirs->blockEstimateNs) + " (" +
        formatRatio(byBlocks) + (contradicts ? ", the other way" : ", the same way") + ")");
    if (!contradicts) {
        f.confidence = std::min(f.confidence, 0.6);
        return;
    }
    if (tellRemedy)
        f.remedy =
            "Measure again before acting on this: the two timings disagree on it. " + f.remedy;
    f.confidence = std::min(f.confidence, 0.4);
}

} // namespace

void loadCaveat(const AdviceInput& input, std::vector<Finding>& findings) {
    const auto& runs = input.report.runs;
    for (auto& f : findings) {
        const bool againstEager = f.rule == "perf.no_gain" || f.rule == "perf.warmup";
        if ((!againstEager && f.rule != "perf.autocast") || f.run < 0 ||
            static_cast<size_t>(f.run) >= runs.size())
            continue;
        const Run& run = runs[static_cast<size_t>(f.run)];
        // perf.autocast holds the run against the same setting without autocast.
        const Run* other = nullptr;
        if (againstEager) {
            other = input.baselineRun();
        } else {
            Setting plain = run.setting;
            plain.autocast = "none";
            for (const auto& r : runs)
                if (r.status == RunStatus::Ok && r.setting == plain) {
                    other = &r;
                    break;
                }
        }
        if (!other)
            continue;
        std::vector<std::string> loaded;
        for (const Run* r : {other, &run}) {
            if (r == other && r == &run)
                continue;
            const auto load = machineLoad(*r, input.report.environment);
            if (load && load->contended())
                loaded.push_back(r->setting.label() + " " + machineLoadShortText(*load));
        }
        if (!loaded.empty()) {
            // A timm ViT measured beside a build: default 0.30x eager; on a
            // quiet machine the same two settings measured 1.00x.
            f.evidence.push_back(
                "measured while other work shared the CPUs (" + joinWords(loaded) +
                ", measure.busy_machine): a load slows each setting by a different amount, so "
                "this ratio need not hold on a quiet machine (Latency tab)");
            f.remedy = "Measure again on a quiet machine before acting on this. " + f.remedy;
            f.confidence = std::min(f.confidence, 0.4);
        }
        disturbedTimingCaveat(*other, run, f, loaded.empty());
    }
}

void hostDriftRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    const Run* eager = input.baselineRun();
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        if (run.status == RunStatus::Imported)
            continue;
        const auto within = hostDriftWithin(run);
        const bool changed = within && hostDrifted(*within);
        const auto across = eager && eager != &run && judgedForSpeed(run)
                                ? hostSpeedRatio(*eager, run)
                                : std::nullopt;
        const bool apart = across && hostDrifted(*across);
        if (!changed && !apart)
            continue;
        const std::string label = run.setting.label();
        Finding f = latencyWarning("measure.host_drift", r, label);
        if (apart) {
            f.title = label + ": measured while the machine ran " + hostRatioText(*across) +
                      " than during eager's measurement";
            f.tab = EvidenceTab::Compare;
            f.evidence.push_back(
                "a fixed reference workload (six 256×256 matmuls) took " +
                formatDuration(run.hostReference.meanNs()) + " around " + label +
                "'s measurement and " + formatDuration(eager->hostReference.meanNs()) +
                " around eager's: on this machine it repeats within a few per cent");
            f.evidence.push_back("the speedup against eager mixes the machine's change with the "
                                 "compile's (Compare tab)");
        } else {
            f.title = label + ": the machine changed speed while it measured";
        }
        if (changed)
            f.evidence.push_back("the reference workload took " + hostReferenceSpanText(run));
        f.remedy = "The machine's own speed changed (a shared VM's neighbours, a CPU's clock or "
                   "thermal limit), which slows single calls and blocks alike, so neither the "
                   "cross-check nor the CPU counters need show it. Measure again, and compare "
                   "settings only when their references agree; a dedicated machine or pinned "
                   "threads (--threads N, taskset -c) keep them close.";
        f.confidence = 0.7;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
