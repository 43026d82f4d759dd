// Memory given back to the OS on every call. When malloc returns a model's
// freed buffers to the kernel (glibc unmaps large blocks and trims its heap's
// top), the next call faults every page in again and the kernel zeroes it:
// kernel CPU that eager, whose buffers happen to stay, may not pay.
// torchvision's ResNet-18 compiled on CPU ran 1.3x slower than eager that way
// and as fast as eager with malloc told to keep its memory (docs/measuring.md,
// "Page faults").
#include <algorithm>
#include <utility>
#include <vector>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/analysis/page_faults.h"

namespace cs::core::advice {

namespace {

// What keeps the memory, for the allocator the probe ran with; `mode` is the
// worst setting's, for the command that measures the remedy beside it.
std::string remedyFor(const PageFaults& faults, const std::string& mode) {
    if (faults.allocator == "glibc" || faults.allocator.empty()) {
        std::string remedy =
            "glibc's malloc gives large freed blocks back to the OS, so each call takes its "
            "buffers' pages again. Keep them: run with MALLOC_MMAP_THRESHOLD_=33554432 "
            "MALLOC_TRIM_THRESHOLD_=1073741824 in the environment (set both: either alone "
            "turns off glibc's adaptive thresholds and makes it worse), or preload jemalloc or "
            "tcmalloc (LD_PRELOAD=libjemalloc.so.2), as PyTorch's CPU performance tuning guide "
            "suggests. Measure it beside the setting without it, in one report: --settings " +
            mode + "," + mode +
            ":env=MALLOC_MMAP_THRESHOLD_=33554432:env=MALLOC_TRIM_THRESHOLD_=1073741824 (or "
            "--env NAME=VALUE for every setting; GUI: Environment in the run settings).";
        if (!faults.mallocEnv.empty())
            remedy = "malloc was tuned (" + allocatorText(faults) +
                     ") and still gave memory back: glibc maps each block above "
                     "MALLOC_MMAP_THRESHOLD_ (32 MiB at most) afresh. Preload jemalloc or "
                     "tcmalloc (LD_PRELOAD=libjemalloc.so.2) and measure again.";
        return remedy;
    }
    return faults.allocator +
           " gives freed memory back to the OS too soon for this model: keep it longer "
           "(jemalloc: MALLOC_CONF=dirty_decay_ms:...,muzzy_decay_ms:...; tcmalloc: "
           "TCMALLOC_RELEASE_RATE=0) and measure again.";
}

using Measured = std::pair<size_t, PageFaults>;

// A calm run of the worst run's mode with its allocator tuned (malloc's
// variables set, or another allocator): the remedy, measured in this report.
const Measured* tunedContrast(const std::vector<Measured>& calm, const std::vector<Run>& runs,
                              const Measured& worst) {
    for (const auto& candidate : calm) {
        const PageFaults& faults = candidate.second;
        const bool tuned = !faults.mallocEnv.empty() || faults.allocator != worst.second.allocator;
        if (tuned && faults.medianNs > 0 &&
            runs[candidate.first].setting.mode == runs[worst.first].setting.mode)
            return &candidate;
    }
    return nullptr;
}

} // namespace

void pageFaultRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    // Each run's faults once: pageFaults() computes the run's statistics.
    std::vector<Measured> costly;
    std::vector<Measured> calm; // measured with few faults: the contrast
    for (size_t r = 0; r < runs.size(); ++r) {
        if (runs[r].status != RunStatus::Ok)
            continue;
        auto faults = pageFaults(runs[r]);
        // Neither cost nor contrast when the compiler ran among the calls.
        if (faults && faults->recompiles == 0)
            (faults->costly() ? costly : calm).emplace_back(r, std::move(*faults));
    }
    if (costly.empty())
        return;
    // The worst first: the finding points at it.
    std::sort(costly.begin(), costly.end(), [](const Measured& a, const Measured& b) {
        return a.second.share() > b.second.share();
    });
    std::vector<std::string> labels;
    for (const auto& [r, faults] : costly)
        labels.push_back(runs[r].setting.label());
    const PageFaults& worst = costly.front().second;

    Finding f;
    f.rule = "perf.page_faults";
    f.severity = Severity::Warning;
    f.tab = EvidenceTab::Latency;
    f.run = static_cast<int>(costly.front().first);
    f.setting = labels.front();
    f.title = joinWords(labels) + (costly.size() == 1 ? ": its" : ": their") +
              " memory goes back to the OS and is faulted in again on every call";
    for (const auto& [r, faults] : costly)
        f.evidence.push_back(runs[r].setting.label() + ": " + pageFaultsText(faults) +
                             " (Latency tab)");
    for (const auto& [r, faults] : calm)
        f.evidence.push_back(runs[r].setting.label() + " for contrast: " + pageFaultsText(faults));
    f.remedy = remedyFor(worst, runs[costly.front().first].setting.mode);
    if (const Measured* tuned = tunedContrast(calm, runs, costly.front())) {
        const std::string label = runs[tuned->first].setting.label();
        const double ratio = worst.medianNs / tuned->second.medianNs;
        f.evidence.push_back("measured in this report: " + label + " kept its memory, median " +
                             formatDuration(tuned->second.medianNs) + " against " +
                             formatDuration(worst.medianNs) + " (" + formatRatio(ratio) +
                             " as fast, Compare tab)");
        f.remedy = "This report measured the remedy: " + label + " ran " + formatRatio(ratio) +
                   " as fast as " + labels.front() + " (" + allocatorText(tuned->second) +
                   "). Set the same where the program runs: in its environment, or "
                   "LD_PRELOAD for another allocator.";
    }
    // Counted by the kernel, not estimated; what they cost in wall time
    // depends on how many threads fault at once.
    f.confidence = 0.8;
    out.push_back(std::move(f));
}

} // namespace cs::core::advice
