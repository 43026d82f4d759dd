// The ranks of a distributed job side by side, from an imported TORCH_TRACE
// log (one run per rank, status Imported): a summary row per rank and where a
// rank compiled differently from the others. Ranks of one job run the same
// program, so a rank that compiles other graphs, recompiles more, misses a
// cache the others hit or compiles far longer makes the others wait at the
// next collective, or deadlocks it.
#pragma once

#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

bool isImported(const Run& run);
int importedRunCount(const Report& report);
// Every run was read from a TORCH_TRACE log (false for a report with no runs).
bool allRunsImported(const Report& report);
// "rank 3"; a run without a rank is named by its position ("run 2").
std::string rankLabel(const Run& run, int index);
// A run's name where settings are named: its rank when imported, else Setting::label().
std::string runLabel(const Run& run, int index);

// One rank's totals over its compiles.
struct RankRow {
    int run = -1;  // index into Report::runs
    int rank = -1; // TraceSource::rank; -1 when the log had none
    std::string label;
    int compiles = 0;
    int graphs = 0;
    int graphBreaks = 0;
    int recompiles = 0;
    double compileSeconds = 0; // sum of the compiles' entire_frame_compile_time_s
    int cacheHits = 0;
    int cacheMisses = 0;
    int cacheBypasses = 0;
    int failures = 0; // compiles with a fail type
    int restarts = 0; // restart reasons over all compiles
};

enum class DivergenceKind { Graphs, Recompiles, Cache, CompileTime };
// "graphs", "recompiles", "cache", "compile_time"
const char* toString(DivergenceKind kind);

// A rank that compiled differently from the others.
struct Divergence {
    DivergenceKind kind = DivergenceKind::Graphs;
    std::vector<int> runs;  // the runs that differ (indices into Report::runs)
    std::vector<int> ranks; // their ranks, same order
    std::string text;       // one sentence with the numbers
    std::string compileId;  // the first compile that shows it, when one does
};

// A rank compiles "far longer" when its total is at least this many times the
// median of the other ranks and at least this many seconds more: both, so that
// neither a 3 s vs 1 s pair nor a 10 % spread over minutes counts.
inline constexpr double kSlowRankRatio = 1.5;
inline constexpr double kSlowRankExtraSeconds = 2.0;

struct RankComparison {
    std::vector<RankRow> rows;           // one per imported run, in report order
    std::vector<Divergence> divergences; // empty with fewer than two ranks
    // The divergences that name a run, of one kind.
    std::vector<const Divergence*> of(int run, DivergenceKind kind) const;
    // Whether there are at least two ranks to compare.
    bool comparable() const { return rows.size() >= 2; }
};

RankComparison compareRanks(const Report& report);

} // namespace cs::core
