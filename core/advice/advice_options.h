// What the user tells the advice rules about their program. Plain data, kept in
// the report so a saved report recomputes the same advice when it is opened.
#pragma once

namespace cs::core {

struct AdviceOptions {
    // Calls the user's program makes per process start; warmup that is paid back
    // only after more calls than this does not pay off.
    int expectedCalls = 1000;
    // A setting whose peak memory exceeds eager's by more than this fraction.
    double memoryFraction = 0.25;
    // A first call that compiles longer than this gets a finding of its own, eager
    // baseline or not: a minute is where a user stops waiting and starts wondering.
    double longCompileSeconds = 60;
    bool operator==(const AdviceOptions&) const = default;
};

} // namespace cs::core
