// Comparison: every setting side by side against eager — speedup with its
// confidence interval, break-even calls, warmup and peak memory.
#include <cstdio>
#include <limits>

#include "advice/run_figures.h"
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
    beginSection(
        out, "comparison", "Comparison",
        "Speedup is eager's median over the setting's median, with a conservative interval from "
        "the two medians' 95% confidence intervals. Warmup cost is what the warmup calls took "
        "beyond the steady-state median; break-even is the number of calls after which a "
        "setting's extra warmup cost over eager is paid back by the time it saves per call. "
        "Best value per column in green.");
    const Report& report = view.report;
    if (view.runs.empty()) {
        out << "<p class=\"empty\">No runs.</p>";
        endSection(out);
        return;
    }
    // The figures the advice rules judge by (advice/run_figures.h), so the table
    // and the findings above it never disagree; both move to compareRuns() together.
    const advice::AdviceInput figures = advice::makeAdviceInput(report, report.adviceOptions);
    const int baseline = figures.baseline;
    std::vector<RunSummary> summaries;
    for (const auto& r : view.runs)
        summaries.push_back(summarizeRun(*r.run));

    const size_t n = summaries.size();
    std::vector<std::optional<double>> median(n), p99(n), warmup(n), first(n), peak(n), speed(n);
    std::vector<std::optional<Speedup>> speedups(n);
    std::vector<std::string> breakEven(n, "—"), peakKind(n);
    for (size_t i = 0; i < n; ++i) {
        const RunSummary& s = summaries[i];
        const advice::RunFigures* f = figures.row(static_cast<int>(i));
        if (s.latency) {
            median[i] = s.latency->median;
            p99[i] = s.latency->p99;
        }
        if (s.firstCallNs >= 0)
            first[i] = static_cast<double>(s.firstCallNs);
        if (!f)
            continue;
        warmup[i] = f->warmupNs;
        if (f->peakMemoryBytes)
            peak[i] = static_cast<double>(*f->peakMemoryBytes);
        peakKind[i] = f->memoryKind;
        speedups[i] = f->speedup;
        if (f->speedup)
            speed[i] = f->speedup->value;
        if (f->breakEven)
            breakEven[i] = std::to_string(static_cast<long long>(*f->breakEven)) + " calls";
        else if (f->speedup && !f->saves)
            breakEven[i] = "never";
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
         {"warmup cost", false,
          "what the warmup calls took beyond the steady-state median: what break-even pays back"},
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
            table.text(baseline >= 0 ? "—" : "no eager run");
        }
        table.text(breakEven[i], breakEven[i] == "never" ? "it saves no time per call" : "");
        table.text(peak[i] ? formatBytes(*peak[i]) : "—", peakKind[i], mark(bestPeak));
    }
    out << table.str();
    endSection(out);
}

} // namespace cs::core::html
