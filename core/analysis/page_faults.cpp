#include "core/analysis/page_faults.h"

#include <cstdio>

#include "core/analysis/run_summary.h"
#include "core/analysis/stats.h"
#include "core/analysis/units.h"

namespace cs::core {

std::optional<PageFaults> pageFaults(const Run& run) {
    const HostFaults& faults = run.measureHostFaults;
    const auto stats = computeStats(run.measuredLatencies());
    if (!faults.present() || !stats)
        return std::nullopt;
    const double calls = faults.calls;
    const double count = static_cast<double>(faults.minor + faults.major);
    return PageFaults{count / calls,
                      count * static_cast<double>(faults.pageBytes) / calls,
                      static_cast<double>(faults.sysCpuNs) / calls,
                      stats->median,
                      faults.allocator,
                      faults.mallocEnv,
                      measuredRecompileCount(run)};
}

std::string allocatorText(const PageFaults& faults) {
    std::string text = faults.allocator == "glibc" ? "glibc malloc"
                       : faults.allocator.empty()  ? ""
                                                   : faults.allocator + " (preloaded)";
    std::string env;
    for (const auto& [name, value] : faults.mallocEnv)
        env += (env.empty() ? "" : " ") + name + "=" + value;
    if (!env.empty())
        text += (text.empty() ? "" : " with ") + env;
    return text;
}

std::string pageFaultsText(const PageFaults& faults) {
    char share[32];
    std::snprintf(share, sizeof share, "%.0f%%", 100 * faults.share());
    std::string text =
        formatCount(faults.perCall) +
        (faults.perCall >= 0.5 && faults.perCall < 1.5 ? " page fault" : " page faults") +
        " per call";
    if (faults.bytesPerCall >= 1024)
        text += " (" + formatBytes(faults.bytesPerCall) + " of fresh pages)";
    if (faults.sysNsPerCall > 0) // the kernel's CPU comes in ticks or µs: often none at all
        text += ", " + formatDuration(faults.sysNsPerCall) + " of the kernel's CPU per call (" +
                share + " of the median)";
    if (const std::string allocator = allocatorText(faults); !allocator.empty())
        text += "; " + allocator;
    if (faults.recompiles > 0)
        text += "; counted over calls that recompiled " + std::to_string(faults.recompiles) +
                (faults.recompiles == 1 ? " time" : " times") +
                ", so the compiler's pages are in it";
    return text;
}

} // namespace cs::core
