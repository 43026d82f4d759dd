// Comparison: every setting side by side against eager — speedup with its
// confidence interval, break-even calls, warmup and peak memory.
#include <cstdio>
#include <limits>

#include "html_sections.h"
#include "html_table.h"
#include "report_html.h"
#include "run_summary.h"
#include "units.h"

namespace cs::core::html {

namespace {

std::string ratio(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f×", v);
    return text;
}

// Index of the best value among `values` (nullopt entries skipped).
template <typename Better>
int bestIndex(const std::vector<std::optional<double>>& values, Better better) {
    int best = -1;
    int count = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        if (!values[i])
            continue;
        ++count;
        if (best < 0 || better(*values[i], *values[static_cast<size_t>(best)]))
            best = static_cast<int>(i);
    }
    return count > 1 ? best : -1; // "best" of one means nothing
}

} // namespace

void writeComparison(std::ostream& out, const ReportView& view) {
    beginSection(out, "comparison", "Comparison",
                 "Speedup is eager's median over the setting's median, with a conservative "
                 "interval from the two "
                 "medians' 95% confidence intervals. Break-even is the number of calls after which "
                 "the extra "
                 "warmup over eager is paid back by the time saved per call. Best value per column "
                 "in green.");
    const Report& report = view.report;
    const int baseline = baselineRunIndex(report);
    if (view.runs.empty()) {
        out << "<p class=\"empty\">No runs.</p>";
        endSection(out);
        return;
    }
    std::vector<RunSummary> summaries;
    for (const auto& r : view.runs)
        summaries.push_back(summarizeRun(*r.run));
    const RunSummary* base = baseline >= 0 ? &summaries[static_cast<size_t>(baseline)] : nullptr;

    const size_t n = summaries.size();
    std::vector<std::optional<double>> median(n), p99(n), warmup(n), first(n), peak(n), speed(n);
    std::vector<std::optional<Speedup>> speedups(n);
    std::vector<std::string> breakEven(n, "—");
    for (size_t i = 0; i < n; ++i) {
        const RunSummary& s = summaries[i];
        if (s.latency) {
            median[i] = s.latency->median;
            p99[i] = s.latency->p99;
        }
        if (s.warmupNs >= 0)
            warmup[i] = static_cast<double>(s.warmupNs);
        if (s.firstCallNs >= 0)
            first[i] = static_cast<double>(s.firstCallNs);
        if (s.peakBytes >= 0)
            peak[i] = static_cast<double>(s.peakBytes);
        if (base && base->latency && s.latency && static_cast<int>(i) != baseline) {
            speedups[i] = computeSpeedup(*base->latency, *s.latency);
            if (speedups[i])
                speed[i] = speedups[i]->value;
            if (s.warmupNs >= 0 && base->warmupNs >= 0) {
                const auto calls =
                    breakEvenIterations(static_cast<double>(s.warmupNs - base->warmupNs),
                                        base->latency->median - s.latency->median);
                breakEven[i] =
                    calls ? std::to_string(static_cast<long long>(*calls)) + " calls" : "never";
            }
        }
    }
    auto lower = [](double a, double b) { return a < b; };
    auto higher = [](double a, double b) { return a > b; };
    const int bestMedian = bestIndex(median, lower), bestP99 = bestIndex(p99, lower),
              bestWarmup = bestIndex(warmup, lower), bestPeak = bestIndex(peak, lower),
              bestSpeed = bestIndex(speed, higher);

    HtmlTable table(
        {{"setting", true},
         {"status", true},
         {"graphs"},
         {"breaks", false, "graph breaks: places where torch.compile split the model"},
         {"recompiles"},
         {"first call", false, "the call where torch compiles"},
         {"warmup", false, "total time of the warmup calls, the compiling one included"},
         {"median"},
         {"p99"},
         {"speedup vs eager", false, "eager median / this median [conservative 95% interval]"},
         {"break-even", false, "calls until the extra warmup over eager is paid back"},
         {"peak memory"}});
    for (size_t i = 0; i < n; ++i) {
        const RunSummary& s = summaries[i];
        const Run& run = *view.runs[i].run;
        const bool compiled = run.setting.mode != "eager";
        auto mark = [&](int best) { return static_cast<int>(i) == best ? "best" : ""; };
        table.beginRow(run.status == RunStatus::Ok ? "" : "bad");
        table.html(runLabelHtml(view.runs[i]));
        table.text(toString(run.status));
        table.text(compiled ? std::to_string(s.graphs) : "—");
        table.text(compiled ? std::to_string(s.breaks) : "—", {}, s.breaks > 0 ? "warn" : "");
        table.text(compiled ? std::to_string(s.recompiles) : "—", {},
                   s.recompiles > 0 ? "warn" : "");
        table.text(durationOrDash(first[i]));
        table.text(durationOrDash(warmup[i]), {}, mark(bestWarmup));
        table.text(durationOrDash(median[i]),
                   s.latency ? "95% CI " + formatDuration(s.latency->medianCiLow) + " – " +
                                   formatDuration(s.latency->medianCiHigh)
                             : "",
                   mark(bestMedian));
        table.text(durationOrDash(p99[i]), {}, mark(bestP99));
        if (static_cast<int>(i) == baseline) {
            table.text("baseline");
        } else if (speedups[i]) {
            const Speedup& sp = *speedups[i];
            table.text(ratio(sp.value) + " [" + ratio(sp.low) + " – " + ratio(sp.high) + "]",
                       sp.significant ? "the medians' intervals do not overlap"
                                      : "not significant: the medians' intervals overlap",
                       mark(bestSpeed));
        } else {
            table.text(base ? "—" : "no eager run");
        }
        table.text(breakEven[i], breakEven[i] == "never" ? "it saves no time per call" : "");
        table.text(s.peakBytes >= 0 ? formatBytes(static_cast<double>(s.peakBytes)) : "—",
                   s.peakKind == "host_rss" ? "host resident memory (no GPU measured)" : s.peakKind,
                   mark(bestPeak));
    }
    out << table.str();
    endSection(out);
}

} // namespace cs::core::html
