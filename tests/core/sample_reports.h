// Reports built in code for the core tests: one from a replayed probe stream
// with every kind of event, and small runs with chosen latencies for diffs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::test {

// Two runs: an ok default run replayed from a stream with every event kind,
// and a crashed max-autotune run.
cs::core::Report sampleReport();

// An ok run of `mode` with the given warmup and measured latencies (ns).
cs::core::Run runWithLatencies(const std::string& mode, const std::vector<int64_t>& warmupNs,
                               const std::vector<int64_t>& measuredNs);
// `count` latencies spread evenly over [center - spread, center + spread].
std::vector<int64_t> latencies(int64_t center, int64_t spread, int count);
// A graph break at file:line with a reason, between graphs `before` and `before + 1`.
cs::core::GraphBreak graphBreak(const std::string& file, int line, const std::string& reason,
                                int before);

} // namespace cs::test
