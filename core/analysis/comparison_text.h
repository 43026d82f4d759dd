// The comparison in words: a one-paragraph verdict (Compare tab, CLI) and a
// plain-text table (CLI). Wording of "never" and "baseline" lives here once.
#pragma once

#include <string>

#include "core/analysis/comparison.h"

namespace cs::core {

// "default is 1.83× faster than eager per call (95% CI 1.71–1.95×) and pays
// back its compile after 240 calls." One sentence per compiled setting.
std::string comparisonSummary(const Comparison& comparison);

// "1 call", "1,240 calls"
std::string callsText(double calls);
// "1,240 calls", "never", "baseline", "no significant gain", "—"
std::string breakEvenText(const ComparisonRow& row);
// Where breakEvenText says "no significant gain": why, with the raw figure
// (for a tooltip or a note); empty otherwise.
std::string breakEvenDetail(const ComparisonRow& row);
inline constexpr const char* kNoSignificantGain = "no significant gain";
// The break-even cell of a compiled setting that compiled nothing.
inline constexpr const char* kCompiledNothing = "nothing compiled";
std::string speedupText(const ComparisonRow& row); // "1.83× (1.71–1.95)", "baseline", "—"
// What the speedup's interval is and whether it clears the noise, for a
// tooltip: the medians' 95% intervals, or over --repeat, every probe round.
std::string speedupBasis(const Speedup& speedup);

// "input sweep 1.24 s, 3 recompiles in it": what the sweep column's figure
// holds; empty without a sweep.
std::string sweepText(const ComparisonRow& row);

// A fixed-width table for a terminal, one row per setting, errors and notes below.
std::string comparisonTable(const Comparison& comparison);
// Characters a terminal shows for UTF-8 text ("µs" is two), for padding columns.
size_t glyphCount(const std::string& text);

} // namespace cs::core
