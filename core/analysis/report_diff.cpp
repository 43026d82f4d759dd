#include "core/analysis/report_diff.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

#include "core/analysis/comparison.h"
#include "core/analysis/function_name.h"
#include "core/analysis/probe_rounds.h"
#include "core/analysis/run_summary.h"
#include "core/analysis/units.h"

namespace cs::core {

namespace {

MetricDelta delta(std::optional<double> a, std::optional<double> b) {
    MetricDelta d{a, b, std::nullopt, false, false, {}};
    if (a && b && *a > 0)
        d.percent = (*b - *a) / *a * 100.0;
    return d;
}

std::optional<double> positive(int64_t v) {
    return v >= 0 ? std::optional<double>(static_cast<double>(v)) : std::nullopt;
}

std::vector<BreakEntry> breakEntries(const Run& run) {
    std::vector<BreakEntry> entries;
    for (const auto& b : run.graphBreaks) {
        BreakEntry e;
        e.reason = b.reason;
        if (const SourceFrame* f = b.location()) {
            e.location =
                std::filesystem::path(f->file).filename().string() + ":" + std::to_string(f->line);
            e.function = functionLabel(f->function);
            e.code = f->code;
        }
        if (std::find(entries.begin(), entries.end(), e) == entries.end())
            entries.push_back(std::move(e));
    }
    return entries;
}

bool sameBreak(const BreakEntry& x, const BreakEntry& y) {
    return x.location == y.location && x.reason == y.reason;
}

std::vector<BreakEntry> missingFrom(const std::vector<BreakEntry>& from,
                                    const std::vector<BreakEntry>& in) {
    std::vector<BreakEntry> out;
    for (const auto& e : from) {
        if (std::none_of(in.begin(), in.end(),
                         [&e](const BreakEntry& o) { return sameBreak(e, o); }))
            out.push_back(e);
    }
    return out;
}

std::string percentText(double p) {
    return formatSignedPercent(p / 100);
}

// The lowest and highest probe median of a run probed more than once.
std::optional<std::pair<double, double>> probeRange(const Run& run) {
    const auto medians = probeMedians(run);
    if (medians.size() < 2)
        return std::nullopt;
    const auto [low, high] = std::minmax_element(
        medians.begin(), medians.end(),
        [](const ProbeMedian& x, const ProbeMedian& y) { return x.medianNs < y.medianNs; });
    return std::pair(low->medianNs, high->medianNs);
}

std::string rangeText(const std::pair<double, double>& range) {
    return formatDuration(range.first) + " to " + formatDuration(range.second);
}

void compare(SettingDiff& d, const Run& a, const Run& b) {
    const RunSummary sa = summarizeRun(a), sb = summarizeRun(b);
    d.statusA = toString(a.status);
    d.statusB = toString(b.status);
    d.statusRegression = a.status == RunStatus::Ok && b.status != RunStatus::Ok;
    d.median = delta(sa.latency ? std::optional(sa.latency->median) : std::nullopt,
                     sb.latency ? std::optional(sb.latency->median) : std::nullopt);
    if (sa.latency && sb.latency)
        d.medianSeparate = sa.latency->medianCiHigh < sb.latency->medianCiLow ||
                           sb.latency->medianCiHigh < sa.latency->medianCiLow;
    // Over repeated probes a change must also clear the spread between
    // processes: every probe of one report faster than every probe of the other.
    d.probesA = probeRange(a);
    d.probesB = probeRange(b);
    if (d.probesA && d.probesB)
        d.medianSeparate = d.medianSeparate && (d.probesA->second < d.probesB->first ||
                                                d.probesB->second < d.probesA->first);
    d.p99 = delta(sa.latency ? std::optional(sa.latency->p99) : std::nullopt,
                  sb.latency ? std::optional(sb.latency->p99) : std::nullopt);
    d.firstCall = delta(positive(sa.firstCallNs), positive(sb.firstCallNs));
    d.warmup = delta(positive(sa.warmupNs), positive(sb.warmupNs));
    if (!sa.peakKind.empty() && sa.peakKind == sb.peakKind) {
        d.memoryKind = sa.peakKind;
        d.peakMemory = delta(positive(sa.peakBytes), positive(sb.peakBytes));
    } else if (!sa.peakKind.empty() || !sb.peakKind.empty()) {
        d.peakMemory = {positive(sa.peakBytes),
                        positive(sb.peakBytes),
                        std::nullopt,
                        false,
                        false,
                        "not comparable: " + (sa.peakKind.empty() ? "none" : sa.peakKind) + " vs " +
                            (sb.peakKind.empty() ? "none" : sb.peakKind)};
    }
    const OutputsCell outputsA = outputsCell(a.outputsCheck);
    const OutputsCell outputsB = outputsCell(b.outputsCheck);
    if (a.outputsCheck.present())
        d.outputsA = outputsA.text;
    if (b.outputsCheck.present())
        d.outputsB = outputsB.text;
    d.outputsRegression = b.outputsCheck.present() && outputsB.differs &&
                          !(a.outputsCheck.present() && outputsA.differs);
    d.graphs = {sa.graphs, sb.graphs, false};
    d.breaks = {sa.breaks, sb.breaks, false};
    d.recompiles = {sa.recompiles, sb.recompiles, false};
    const auto ea = breakEntries(a), eb = breakEntries(b);
    d.breaksOnlyInA = missingFrom(ea, eb);
    d.breaksOnlyInB = missingFrom(eb, ea);
}

// Worse by more than the threshold; better by more than it.
void judge(MetricDelta& d, double threshold) {
    d.regression = d.percent && *d.percent > threshold;
    d.improvement = d.percent && *d.percent < -threshold;
}

void mark(SettingDiff& d, double threshold) {
    d.regressions.clear();
    if (!d.inA || !d.inB)
        return;
    if (d.statusRegression)
        d.regressions.push_back("status went from ok to " + d.statusB);
    judge(d.median, threshold);
    d.median.note.clear();
    if ((d.median.regression || d.median.improvement) && !d.medianSeparate) {
        // A change counts only when the medians' 95% intervals do not overlap: noise is not a
        // regression.
        d.median.regression = d.median.improvement = false;
        d.median.note = d.probesA && d.probesB
                            ? "within noise: the medians' 95% intervals or their probes' "
                              "medians overlap (A " +
                                  rangeText(*d.probesA) + ", B " + rangeText(*d.probesB) + ")"
                            : "within noise: the medians' 95% intervals overlap";
    }
    if (d.median.regression)
        d.regressions.push_back("median latency " + percentText(*d.median.percent) + " (" +
                                formatDuration(*d.median.a) + " → " + formatDuration(*d.median.b) +
                                ")");
    judge(d.p99, threshold);
    d.p99.regression = false; // shown, not gated: one slow call moves a p99
    judge(d.firstCall, threshold);
    d.firstCall.regression = false; // part of warmup, which is gated
    judge(d.warmup, threshold);
    if (d.warmup.regression)
        d.regressions.push_back("warmup " + percentText(*d.warmup.percent) + " (" +
                                formatDuration(*d.warmup.a) + " → " + formatDuration(*d.warmup.b) +
                                ")");
    judge(d.peakMemory, threshold);
    if (d.peakMemory.regression)
        d.regressions.push_back("peak memory " + percentText(*d.peakMemory.percent) + " (" +
                                formatBytes(*d.peakMemory.a) + " → " +
                                formatBytes(*d.peakMemory.b) + ")");
    // More breaks or recompiles is a regression at any threshold: each is a new way to be slow.
    d.breaks.regression = d.breaks.b > d.breaks.a;
    if (d.breaks.regression)
        d.regressions.push_back("graph breaks " + std::to_string(d.breaks.a) + " → " +
                                std::to_string(d.breaks.b));
    d.recompiles.regression = d.recompiles.b > d.recompiles.a;
    if (d.recompiles.regression)
        d.regressions.push_back("recompiles " + std::to_string(d.recompiles.a) + " → " +
                                std::to_string(d.recompiles.b));
    // A wrong result is a regression whatever the threshold.
    if (d.outputsRegression)
        d.regressions.push_back("outputs " + (d.outputsA.empty() ? "unchecked" : d.outputsA) +
                                " → " + d.outputsB + " against eager's");
    if (!d.breaksOnlyInB.empty() && !d.breaks.regression)
        d.regressions.push_back(std::to_string(d.breaksOnlyInB.size()) +
                                " graph break(s) not in A");
}

} // namespace

int ReportDiff::regressionCount() const {
    int n = 0;
    for (const auto& s : settings)
        n += static_cast<int>(s.regressions.size());
    return n;
}

ReportDiff diffReports(const Report& a, const Report& b, const DiffOptions& options) {
    ReportDiff diff;
    diff.thresholdPercent = options.thresholdPercent;
    diff.modelA = a.model.spec;
    diff.modelB = b.model.spec;
    const auto& ea = a.environment;
    const auto& eb = b.environment;
    for (const auto& [field, va, vb] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"python", ea.python, eb.python},
             {"torch", ea.torch, eb.torch},
             {"CUDA", ea.cuda, eb.cuda},
             {"device", ea.device, eb.device},
             {"CPU", ea.cpu, eb.cpu},
             {"host", ea.host, eb.host},
             {"platform", ea.platform, eb.platform},
             // --env: a remedy measured by running again with it shows here.
             {"probe environment", environmentText(ea.probeEnvironment),
              environmentText(eb.probeEnvironment)},
             {"model", a.model.spec, b.model.spec}}) {
        if (va != vb)
            diff.environment.push_back({field, va, vb});
    }

    // Match by label; a label used twice matches the k-th in A with the k-th in B.
    std::map<std::string, std::vector<const Run*>> inB;
    for (const auto& run : b.runs)
        inB[run.setting.label()].push_back(&run);
    std::map<std::string, size_t> usedB;
    for (const auto& run : a.runs) {
        SettingDiff d;
        d.label = run.setting.label();
        d.inA = true;
        auto& candidates = inB[d.label];
        size_t& used = usedB[d.label];
        if (used < candidates.size()) {
            d.inB = true;
            compare(d, run, *candidates[used++]);
        } else {
            d.statusA = toString(run.status);
        }
        diff.settings.push_back(std::move(d));
    }
    std::map<std::string, size_t> seenB;
    for (const auto& run : b.runs) {
        const std::string label = run.setting.label();
        if (seenB[label]++ < usedB[label])
            continue; // matched with a run of A above
        SettingDiff d;
        d.label = label;
        d.inB = true;
        d.statusB = toString(run.status);
        diff.settings.push_back(std::move(d));
    }
    markRegressions(diff, options.thresholdPercent);
    return diff;
}

void markRegressions(ReportDiff& diff, double thresholdPercent) {
    diff.thresholdPercent = thresholdPercent;
    for (auto& s : diff.settings)
        mark(s, thresholdPercent);
}

namespace {

std::string cell(const std::optional<double>& v, bool bytes) {
    if (!v)
        return "—";
    return bytes ? formatBytes(*v) : formatDuration(*v);
}

std::string changeText(const MetricDelta& d) {
    std::string text = d.percent ? percentText(*d.percent) : "";
    if (d.regression)
        text += "  REGRESSION";
    else if (d.improvement)
        text += "  better";
    if (!d.note.empty())
        text += "  (" + d.note + ")";
    return text;
}

void metricLine(std::ostringstream& out, const char* name, const MetricDelta& d, bool bytes) {
    char line[256];
    std::snprintf(line, sizeof line, "    %-13s %12s  %12s  ", name, cell(d.a, bytes).c_str(),
                  cell(d.b, bytes).c_str());
    out << line << changeText(d) << "\n";
}

void countLine(std::ostringstream& out, const char* name, const CountDelta& c) {
    char line[256];
    std::snprintf(line, sizeof line, "    %-13s %12d  %12d  ", name, c.a, c.b);
    out << line;
    if (c.b != c.a)
        out << (c.b > c.a ? "+" : "") << c.b - c.a << (c.regression ? "  REGRESSION" : "");
    out << "\n";
}

} // namespace

std::string formatDiffText(const ReportDiff& diff, const std::string& nameA,
                           const std::string& nameB) {
    std::ostringstream out;
    out << "A: " << nameA << "\nB: " << nameB << "\n";
    char threshold[64];
    std::snprintf(threshold, sizeof threshold, "%.1f%%", diff.thresholdPercent);
    out << "regression threshold: " << threshold
        << " (B worse than A; a median counts only when the 95% intervals do not overlap)\n";
    if (!diff.environment.empty()) {
        out << "\nwhat differs between the runs:\n";
        for (const auto& c : diff.environment)
            out << "  " << c.field << ": " << (c.a.empty() ? "—" : c.a) << " → "
                << (c.b.empty() ? "—" : c.b) << "\n";
    }
    for (const auto& s : diff.settings) {
        out << "\n" << s.label;
        if (!s.inB) {
            out << ": only in A (" << s.statusA << ")\n";
            continue;
        }
        if (!s.inA) {
            out << ": only in B (" << s.statusB << ")\n";
            continue;
        }
        out << ": " << s.statusA << " → " << s.statusB << (s.statusRegression ? "  REGRESSION" : "")
            << "\n";
        char head[256];
        std::snprintf(head, sizeof head, "    %-13s %12s  %12s  %s\n", "", "A", "B", "change");
        out << head;
        metricLine(out, "median", s.median, false);
        metricLine(out, "p99", s.p99, false);
        metricLine(out, "first call", s.firstCall, false);
        metricLine(out, "warmup", s.warmup, false);
        metricLine(out, s.memoryKind.rfind("device", 0) == 0 ? "peak device" : "peak memory",
                   s.peakMemory, true);
        countLine(out, "graphs", s.graphs);
        countLine(out, "breaks", s.breaks);
        countLine(out, "recompiles", s.recompiles);
        if (!s.outputsA.empty() || !s.outputsB.empty())
            out << "    outputs:         " << (s.outputsA.empty() ? "—" : s.outputsA) << " → "
                << (s.outputsB.empty() ? "—" : s.outputsB)
                << (s.outputsRegression ? "  REGRESSION" : "") << "\n";
        for (const auto& e : s.breaksOnlyInB)
            out << "    new break in B:  " << e.location << " " << e.function << ": " << e.reason
                << (e.code.empty() ? "" : "\n        " + e.code) << "\n";
        for (const auto& e : s.breaksOnlyInA)
            out << "    gone in B:       " << e.location << " " << e.function << ": " << e.reason
                << (e.code.empty() ? "" : "\n        " + e.code) << "\n";
    }
    const int count = diff.regressionCount();
    out << "\n";
    if (count == 0) {
        out << "no regression beyond the threshold\n";
    } else {
        out << count << (count == 1 ? " regression" : " regressions") << " beyond the threshold:\n";
        for (const auto& s : diff.settings)
            for (const auto& r : s.regressions)
                out << "  " << s.label << ": " << r << "\n";
    }
    return out.str();
}

} // namespace cs::core
