// Two reports side by side (say the same model under two torch versions, or
// before and after a code change): per setting, matched by label, the deltas
// of latency, warmup, breaks, recompiles and memory, with regressions marked,
// and the graph breaks present in one report and not the other.
// Pure C++: the diff window and `compilescope-cli diff` both show this.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

struct DiffOptions {
    // A metric of B worse than A's by more than this many percent is a regression.
    double thresholdPercent = 10.0;
};

// One number in A and in B; "worse" means B is higher (all of these are costs).
struct MetricDelta {
    std::optional<double> a;
    std::optional<double> b;
    std::optional<double> percent; // (b - a) / a * 100, when both exist and a > 0
    bool regression = false;
    bool improvement = false;
    std::string note; // why a change is or is not counted ("intervals overlap")
};

struct CountDelta {
    int a = 0;
    int b = 0;
    bool regression = false; // more in B
};

// A graph break, identified across reports by file name, line and reason
// (absolute paths differ between machines).
struct BreakEntry {
    std::string location; // "model.py:12"
    std::string function;
    std::string reason;
    std::string code;
    bool operator==(const BreakEntry&) const = default;
};

struct SettingDiff {
    std::string label;
    bool inA = false;
    bool inB = false;
    std::string statusA, statusB;
    bool statusRegression = false; // ok in A, not ok in B
    MetricDelta median;            // ns
    bool medianSeparate = false;   // the medians' 95% intervals do not overlap, nor
                                   // (both with --repeat) their probes' medians
    // Both reports probed this setting more than once (--repeat): the lowest
    // and highest of each one's probe medians, ns.
    std::optional<std::pair<double, double>> probesA, probesB;
    MetricDelta p99;        // ns; shown, never a regression on its own (a tail is noisy)
    MetricDelta firstCall;  // ns
    MetricDelta warmup;     // ns, total of the warmup calls
    MetricDelta peakMemory; // bytes
    std::string memoryKind; // as RunSummary::peakKind
    CountDelta graphs;
    CountDelta breaks;
    CountDelta recompiles;
    std::vector<BreakEntry> breaksOnlyInA; // gone in B
    std::vector<BreakEntry> breaksOnlyInB; // new in B
    // The outputs check as the comparison's cell says it ("agree", "differ
    // 3.2%"); empty where the run had none. Outputs that differ in B where
    // they did not in A are a regression at any threshold.
    std::string outputsA, outputsB;
    bool outputsRegression = false;
    std::vector<std::string> regressions; // one plain sentence each
    bool hasRegression() const { return !regressions.empty(); }
};

struct EnvironmentChange {
    std::string field;
    std::string a, b;
};

struct ReportDiff {
    double thresholdPercent = 0;
    std::vector<EnvironmentChange> environment; // only the fields that differ
    std::string modelA, modelB;
    std::vector<SettingDiff> settings; // A's order, then settings only in B
    int regressionCount() const;
};

ReportDiff diffReports(const Report& a, const Report& b, const DiffOptions& options = {});
// Marks regressions and improvements again for another threshold (no statistics recomputed).
void markRegressions(ReportDiff& diff, double thresholdPercent);

// The diff as plain text, for the terminal and for copying out of the diff window.
std::string formatDiffText(const ReportDiff& diff, const std::string& nameA,
                           const std::string& nameB);

} // namespace cs::core
