// Where a finding's evidence is shown: a GUI tab, a section of the HTML report.
// Views name a tab by this, never by its (translatable) title.
#pragma once

namespace cs::core {

enum class EvidenceTab {
    None,
    Breaks,
    Graph,
    Compare,
    Warmup,
    Latency,
    Memory,
    Kernels,
    Console,
    Ranks,
    Scaling,
    Code,       // the Code tab; the HTML's "Where the time goes"
    Environment // what ran where, and the variables the probes started with
};
// The tab's English name ("Breaks"), as the JSON and the CLI write it; "" for None.
const char* toString(EvidenceTab tab);

} // namespace cs::core
