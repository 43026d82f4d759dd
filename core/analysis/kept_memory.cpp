#include "core/analysis/kept_memory.h"

#include <algorithm>

#include "core/analysis/units.h"

namespace cs::core {

namespace {

double perCall(const HeldWindow& window) {
    return window.calls > 0
               ? static_cast<double>(window.endBytes - window.beginBytes) / window.calls
               : 0;
}

// The CUDA caching allocator's allocated bytes at a phase's edges.
HeldWindow deviceWindow(const Run& run, const std::string& phase, int calls) {
    const MemoryStats* begin = nullptr;
    const MemoryStats* end = nullptr;
    for (const auto& s : run.memoryStats) {
        if (s.phase != phase)
            continue;
        if (s.edge == "begin" && !begin)
            begin = &s;
        else if (s.edge == "end")
            end = &s;
    }
    if (!begin || !end || calls <= 0)
        return {};
    return {"device allocated", calls, begin->allocated, end->allocated};
}

std::string signedBytes(int64_t bytes) {
    return (bytes < 0 ? "-" : "+") + formatBytes(static_cast<double>(bytes < 0 ? -bytes : bytes));
}

} // namespace

int64_t KeptMemory::grownBytes() const {
    return (measure.endBytes - measure.beginBytes) + (crosscheck.endBytes - crosscheck.beginBytes);
}

double KeptMemory::bytesPerCall() const {
    return calls() > 0 ? static_cast<double>(grownBytes()) / calls() : 0;
}

KeptVerdict KeptMemory::verdict() const {
    if (!measure.present() || !crosscheck.present() ||
        std::min(perCall(measure), perCall(crosscheck)) < kKeptBytesPerCallMin)
        return KeptVerdict::NotKept;
    return static_cast<double>(grownBytes()) >= kKeptBytesMin ? KeptVerdict::Kept
                                                              : KeptVerdict::TooFewCalls;
}

std::string notKeptText(const KeptMemory& kept) {
    switch (kept.verdict()) {
    case KeptVerdict::Kept:
        return {};
    case KeptVerdict::TooFewCalls:
        return signedBytes(kept.grownBytes()) + " over " + formatCount(kept.calls()) +
               " calls in all, below " + formatBytes(kKeptBytesMin) +
               ": a cache still filling over its first calls grows as much; measure with more "
               "calls (--iters 100)";
    case KeptVerdict::NotKept:
        break;
    }
    return "below " + formatBytes(kKeptBytesPerCallMin) + " per call in either window";
}

std::vector<KeptMemory> keptMemory(const Run& run) {
    std::vector<KeptMemory> out;
    const int measured =
        static_cast<int>(std::count_if(run.iterations.begin(), run.iterations.end(),
                                       [](const Iteration& it) { return !it.warmup; }));
    const int checked =
        run.crosscheckBlockCalls * static_cast<int>(run.crosscheckBlockMeansNs.size());
    KeptMemory device{true, deviceWindow(run, "measure", measured),
                      deviceWindow(run, "crosscheck", checked)};
    if (device.measure.present() && device.crosscheck.present())
        out.push_back(device);
    if (run.measureHostHeld.present() && run.crosscheckHostHeld.present())
        out.push_back({false, run.measureHostHeld, run.crosscheckHostHeld});
    return out;
}

std::string heldWindowText(const HeldWindow& window, const std::string& what) {
    return signedBytes(window.endBytes - window.beginBytes) + " over " + formatCount(window.calls) +
           (what.empty() ? "" : " " + what) + (window.calls == 1 ? " call" : " calls");
}

std::optional<KeptMemory> keptPerCall(const Run& run) {
    for (const auto& kept : keptMemory(run))
        if (kept.keepsPerCall())
            return kept;
    return std::nullopt;
}

std::string keptCounterText(const KeptMemory& kept) {
    return kept.device ? "allocated device memory" : "malloc's bytes in use";
}

std::string keptMemoryText(const KeptMemory& kept) {
    const double perCallBytes = kept.bytesPerCall();
    return keptCounterText(kept) + (perCallBytes < 0 ? " fell " : " grew ") +
           formatBytes(perCallBytes < 0 ? -perCallBytes : perCallBytes) +
           " per call: " + heldWindowText(kept.measure, "measured") + ", " +
           heldWindowText(kept.crosscheck, "cross-check");
}

} // namespace cs::core
