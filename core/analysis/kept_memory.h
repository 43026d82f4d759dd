// Memory a run keeps per call at the same inputs (docs/measuring.md, "Memory
// kept per call"): what was held before and after the measured calls, and
// again around the cross-check's calls. A model that keeps something every
// call grows in both windows; a cache filled once grows in one at most.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

// Below this per call, in either window, the growth is the allocator's own
// bookkeeping (ResNet-18 on CPU: about 110 B per call, the gallery MLP 21 B).
inline constexpr double kKeptBytesPerCallMin = 1024;
// Below this over both windows together, that much per call cannot be told
// from a cache still filling: torchvision's SSDlite in eager on CPU kept
// 15 KiB over its first 45 calls, then nothing more (over 5 measured and 6
// cross-check calls it read as 1.4 KiB per call in both windows).
inline constexpr double kKeptBytesMin = 64 * 1024;

enum class KeptVerdict {
    Kept,        // both windows grew per call, by enough in all to rule out a filling cache
    TooFewCalls, // both grew per call, but too little in all to tell
    NotKept,     // below kKeptBytesPerCallMin per call in a window
};

struct KeptMemory {
    bool device = false;   // the CUDA caching allocator's allocated bytes; else malloc's in use
    HeldWindow measure;    // the measured calls
    HeldWindow crosscheck; // the cross-check's blocks of the same calls
    int calls() const { return measure.calls + crosscheck.calls; }
    int64_t grownBytes() const;
    double bytesPerCall() const;
    KeptVerdict verdict() const;
    // Both windows grew by at least kKeptBytesPerCallMin per call, and by
    // kKeptBytesMin in all.
    bool keepsPerCall() const { return verdict() == KeptVerdict::Kept; }
};

// Every counter the run has both windows of: the device's first, then the
// host's. Empty for an older report, an imported run or one with no calls.
std::vector<KeptMemory> keptMemory(const Run& run);
// The first of keptMemory's counters that keepsPerCall; nullopt when none does.
std::optional<KeptMemory> keptPerCall(const Run& run);
// "malloc's bytes in use grew 64.3 KiB per call: +1.26 MiB over 20 measured
// calls, +15.3 MiB over 243 cross-check calls"
std::string keptMemoryText(const KeptMemory& kept);
// Why the counter is not read as kept per call, in words: "below 1.00 KiB per
// call in either window", or for TooFewCalls how little grew over how few
// calls and what to measure instead; empty when it is kept.
std::string notKeptText(const KeptMemory& kept);
// "+1.25 MiB over 20 measured calls" (`what` "measured"), "+1.25 MiB over 20
// calls" (`what` empty).
std::string heldWindowText(const HeldWindow& window, const std::string& what);
// "malloc's bytes in use" / "allocated device memory"
std::string keptCounterText(const KeptMemory& kept);

} // namespace cs::core
