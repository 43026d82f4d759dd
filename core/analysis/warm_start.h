// The cold starts of a setting side by side (docs/measuring.md, "Cold starts"):
// its first call after a fresh compile, with a warm Inductor cache, and with
// torch's portable cache artifacts loaded first; an `aoti` setting's package
// load plus first call beside them. Answers "how do I get rid of the warmup".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

// One cold start of one setting: a first call, or why the cell is blank.
struct ColdStart {
    std::optional<size_t> run; // the run measured; absent when none was
    int64_t firstCallNs = -1;  // -1: blank, `why` says why (never a zero)
    std::string why;
    // Against the setting's fresh compile (fresh first call / this one); absent
    // without both figures.
    std::optional<double> speedupOverFresh;
};

struct WarmStartRow {
    std::string label; // the setting without how it started: "default", "max-autotune dyn"
    std::string mode;
    ColdStart fresh;     // an aoti row: package load + first call
    ColdStart warmCache; // torch's compile caches filled by an unmeasured run
    ColdStart artifacts; // a fresh cache plus portable artifacts loaded first
    // The artifacts' load (part of `artifacts`' first call) and size; -1 unknown.
    int64_t artifactsLoadNs = -1;
    int64_t artifactsBytes = -1;
    // aoti rows: the package load alone (part of `fresh`); -1 otherwise.
    int64_t packageLoadNs = -1;
    std::optional<double> medianNs; // the fresh run's steady-state median, for scale
};

// One row per setting (mode, backend, dynamic, ... less how it started), in
// the order the settings first ran. Eager and aoti rows have only `fresh`.
std::vector<WarmStartRow> warmStartTable(const Report& report);

// Whether the report measured a start other than a fresh compile: a
// warm-cache or cache-artifacts run (what makes the table worth showing).
bool hasWarmStarts(const Report& report);

// The table as text (compilescope-cli warmstart): per setting, each first call
// with its ratio against the fresh compile, the artifacts' load and size.
std::string warmStartText(const Report& report);

// The settings a warm-start table measures: each compiling setting three
// times (fresh, warm cache, cache artifacts, in that order); eager and aoti
// once, fresh (nothing to warm).
std::vector<Setting> warmStartSettings(const std::vector<Setting>& settings);

// A cell's text: the duration, or "—" with the reason after it when blank.
std::string coldStartText(const ColdStart& cell);

} // namespace cs::core
