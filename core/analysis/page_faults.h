// Page faults over the measured calls (docs/measuring.md, "Page faults"): a
// model whose freed buffers malloc gives back to the OS takes every page of
// them again on the next call, and the kernel's CPU for that is part of each
// call. The Latency tab, the HTML report, the CLI and the advice read these.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

// Fewer faults per call are stray pages (a chunk of events, a new tensor now
// and then), not buffers taken again every call.
inline constexpr double kMinFaultsPerCall = 64;
// The kernel's CPU per call over the median beyond which the faults are a
// cost worth acting on.
inline constexpr double kFaultCostShare = 0.10;

struct PageFaults {
    double perCall = 0;      // minor and major
    double bytesPerCall = 0; // the pages they brought in
    double sysNsPerCall = 0; // the kernel's CPU for the probe, all its threads
    double medianNs = 0;
    std::string allocator; // "glibc", "jemalloc", ...; "" unknown
    std::vector<std::pair<std::string, std::string>> mallocEnv;
    // Recompiles among the measured calls: their faults are the compiler's
    // too (a clock read in forward recompiled every call, 2,415 faults per
    // call against eager's 0), so they say nothing of malloc.
    int recompiles = 0;
    // The kernel's CPU per call over the median (above 1 on many threads).
    double share() const { return medianNs > 0 ? sysNsPerCall / medianNs : 0; }
    bool costly() const {
        return recompiles == 0 && perCall >= kMinFaultsPerCall && share() >= kFaultCostShare;
    }
};

// nullopt for a run without host_faults (an older report, not Linux, an
// imported run) or without measured calls.
std::optional<PageFaults> pageFaults(const Run& run);
// "4,778 page faults per call (18.7 MiB of fresh pages), 13.7 ms of the
// kernel's CPU per call (33% of the median); glibc malloc"
std::string pageFaultsText(const PageFaults& faults);
// "glibc malloc", "jemalloc (preloaded)", "glibc malloc with
// MALLOC_TRIM_THRESHOLD_=1073741824"; "" when unknown.
std::string allocatorText(const PageFaults& faults);

} // namespace cs::core
