// Rule: what a batch-size walk shows (compilescope-cli scale). Each finding
// rests on the measured curve: where compile starts to pay, where a setting
// runs out of memory while another fits, where throughput stops growing,
// and below which size a call is mostly fixed overhead.
#include <algorithm>
#include <array>
#include <cmath>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/analysis/scaling.h"
#include "core/analysis/stats.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

// Doubling the batch buys less than this much throughput: past the knee.
constexpr double kKneeGain = 1.10;
// Doubling the batch costs less than this much latency: the call is mostly
// fixed overhead, not work that grows with the batch.
constexpr double kOverheadGrowth = 1.25;

// No finding rests on an unsettled median (stats.h).
bool solid(const ScaleRow& row) {
    return row.latency && row.latency->median > 0 && !unsettledMedian(*row.latency);
}

std::string batch(int64_t n) {
    return "batch " + std::to_string(n);
}

std::string throughputText(double samplesPerSecond) {
    return formatCount(samplesPerSecond) + " samples/s";
}

const ScaleRow* rowAt(const ScaleCurve& curve, int64_t size) {
    for (const auto& row : curve.rows) {
        if (row.batchSize == size)
            return &row;
    }
    return nullptr;
}

Finding base(const ScaleCurve& curve, const char* rule, Severity severity) {
    Finding f;
    f.rule = rule;
    f.severity = severity;
    f.tab = EvidenceTab::Scaling;
    f.run = static_cast<int>(curve.runIndex);
    f.setting = curve.label;
    return f;
}

// How a compiled setting's median at one size stands against eager's there.
enum class Verdict { Faster, Even, Slower };

struct Judged {
    int64_t batchSize = 0;
    Speedup speedup;
    Verdict verdict = Verdict::Even;
};

// The sizes measured on both sides, judged; a size where either median is
// unsettled is left out and listed in `unsettled` instead.
std::vector<Judged> judge(const ScaleCurve& eager, const ScaleCurve& curve,
                          std::vector<int64_t>& unsettled) {
    std::vector<Judged> out;
    for (const auto& row : curve.rows) {
        const ScaleRow* e = rowAt(eager, row.batchSize);
        if (!e || !e->latency || !row.latency)
            continue;
        if (!solid(row) || !solid(*e)) {
            unsettled.push_back(row.batchSize);
            continue;
        }
        auto sp = computeSpeedup(*e->latency, *row.latency);
        if (!sp)
            continue;
        Verdict v = Verdict::Even;
        if (sp->significant)
            v = sp->value > 1 ? Verdict::Faster : Verdict::Slower;
        out.push_back({row.batchSize, *sp, v});
    }
    return out;
}

std::string ratioWithInterval(const Speedup& sp) {
    return formatRatio(sp.value) + " (" + formatRatio(sp.low) + "–" + formatRatio(sp.high) + ")";
}

// A size where the setting is not faster, as its evidence line says it.
std::string verdictText(const Judged& j) {
    return ratioWithInterval(j.speedup) + (j.verdict == Verdict::Slower
                                               ? ", slower than eager"
                                               : ", not significantly different from eager");
}

std::string sizesText(const std::vector<const Judged*>& sizes) {
    std::vector<std::string> numbers;
    double low = sizes.front()->speedup.value;
    double high = low;
    for (const Judged* j : sizes) {
        numbers.push_back(std::to_string(j->batchSize));
        low = std::min(low, j->speedup.value);
        high = std::max(high, j->speedup.value);
    }
    std::string out =
        (sizes.size() == 1 ? "batch " : "batches ") + joinWords(numbers) + ": " + formatRatio(low);
    if (sizes.size() > 1 && formatRatio(high) != formatRatio(low))
        out += "–" + formatRatio(high);
    return out;
}

// The evidence line for the sizes left unjudged; "" for none.
std::string unsettledText(const std::vector<int64_t>& sizes, const std::string& label) {
    if (sizes.empty())
        return {};
    std::vector<std::string> numbers;
    for (const int64_t n : sizes)
        numbers.push_back(std::to_string(n));
    return (sizes.size() == 1 ? "not judged at batch " : "not judged at batches ") +
           joinWords(numbers) + ": eager's median there or " + label +
           "'s has a 95% interval wider than a quarter of it";
}

// Where compile pays along the walk. Faster at the larger sizes only: "from
// batch N on"; at the smaller only: "up to batch N"; faster on both sides of
// sizes where it is not: the gain changes with the size, told size by size.
// Faster everywhere or nowhere: no finding (the table says it).
void compilePays(const ScaleCurve& eager, const ScaleCurve& curve, std::vector<Finding>& out) {
    std::vector<int64_t> unsettled;
    const auto judged = judge(eager, curve, unsettled);
    size_t faster = 0;
    for (const auto& j : judged)
        faster += j.verdict == Verdict::Faster;
    if (faster == 0 || faster == judged.size())
        return;
    size_t prefix = 0;
    while (judged[prefix].verdict == Verdict::Faster)
        ++prefix;
    size_t suffix = 0;
    while (judged[judged.size() - 1 - suffix].verdict == Verdict::Faster)
        ++suffix;

    Finding f = base(curve, "scaling.compile_pays", Severity::Info);
    f.confidence = 0.8;
    if (suffix == faster || prefix == faster) {
        const bool fromOn = suffix == faster;
        const Judged& edge = fromOn ? judged[judged.size() - suffix] : judged[prefix - 1];
        f.title = curve.label + ": compile pays " + (fromOn ? "from " : "up to ") +
                  batch(edge.batchSize) + (fromOn ? " on" : "");
        f.evidence.push_back("at " + batch(edge.batchSize) + ": " +
                             ratioWithInterval(edge.speedup) + " over eager");
        for (const auto& j : judged) {
            if (j.verdict != Verdict::Faster)
                f.evidence.push_back("at " + batch(j.batchSize) + ": " + verdictText(j));
        }
        f.remedy = fromOn ? "Serve at " + batch(edge.batchSize) +
                                " or larger with this setting; for smaller batches eager "
                                "costs no compile and runs as fast or faster."
                          : "Compile pays for batches up to " + std::to_string(edge.batchSize) +
                                " (at small batches its gain is mostly the fixed cost per call it "
                                "removes); serving larger batches, eager runs as fast or faster "
                                "and costs no compile.";
        f.gain = formatRatio(edge.speedup.value) + " over eager at " + batch(edge.batchSize);
        if (const std::string note = unsettledText(unsettled, curve.label); !note.empty())
            f.evidence.push_back(note);
        out.push_back(std::move(f));
        return;
    }
    std::array<std::vector<const Judged*>, 3> byVerdict; // by Verdict's order
    for (const auto& j : judged)
        byVerdict[static_cast<int>(j.verdict)].push_back(&j);
    f.title = curve.label + ": its gain over eager comes and goes with the batch size";
    f.evidence.push_back("faster than eager at " + sizesText(byVerdict[0]));
    if (!byVerdict[1].empty())
        f.evidence.push_back("not significantly different at " + sizesText(byVerdict[1]));
    if (!byVerdict[2].empty())
        f.evidence.push_back("slower than eager at " + sizesText(byVerdict[2]));
    const Judged* best = byVerdict[0].front();
    for (const Judged* j : byVerdict[0])
        best = j->speedup.value > best->speedup.value ? j : best;
    f.remedy = "Pick the serving batch size from the measured curve (Scaling tab): this setting "
               "pays at some sizes only. A size that loses between sizes that gain can be the "
               "machine rather than the model: measure it again (--batch-sizes) before serving "
               "around it.";
    f.gain = formatRatio(best->speedup.value) + " over eager at " + batch(best->batchSize);
    f.confidence = 0.6;
    if (const std::string note = unsettledText(unsettled, curve.label); !note.empty())
        f.evidence.push_back(note);
    out.push_back(std::move(f));
}

void outOfMemory(const std::vector<ScaleCurve>& curves, const ScaleCurve& curve,
                 std::vector<Finding>& out) {
    if (!curve.stop || (curve.stop->reason != "oom" && curve.stop->reason != "memory_cap"))
        return;
    const int64_t at = curve.stop->batchSize;
    const bool host = curve.stop->reason == "memory_cap";
    Finding f = base(curve, "scaling.out_of_memory", Severity::Warning);
    f.title = curve.label +
              (host ? " reaches the host-memory cap at " : " runs out of memory at ") + batch(at);
    if (!curve.stop->message.empty())
        f.evidence.push_back(curve.stop->message);
    if (!curve.rows.empty()) {
        const ScaleRow& last = curve.rows.back();
        std::string fit = "the largest size it ran: " + batch(last.batchSize);
        if (last.peakMemoryBytes >= 0)
            fit += ", peak " + formatBytes(static_cast<double>(last.peakMemoryBytes));
        f.evidence.push_back(fit);
    }
    // Another setting that fits further: the measured alternative.
    const ScaleCurve* better = nullptr;
    int64_t betterMax = curve.rows.empty() ? 0 : curve.rows.back().batchSize;
    for (const auto& other : curves) {
        if (&other == &curve || other.rows.empty())
            continue;
        // The largest fit; at a tie a compiled setting, the alternative asked about.
        const int64_t reach = other.rows.back().batchSize;
        if (reach > betterMax || (better && reach == betterMax && better->eager && !other.eager)) {
            better = &other;
            betterMax = other.rows.back().batchSize;
        }
    }
    if (better) {
        f.title += "; " + better->label + " fits up to " + batch(betterMax);
        f.evidence.push_back(better->label + " ran up to " + batch(betterMax));
        f.remedy = "Serve at " + batch(curve.rows.empty() ? 0 : curve.rows.back().batchSize) +
                   " or below with " + curve.label + ", or use " + better->label +
                   " for larger batches.";
    } else {
        f.remedy = "Serve at " + batch(curve.rows.empty() ? 0 : curve.rows.back().batchSize) +
                   " or below, or free memory (smaller model, autocast bf16).";
    }
    f.confidence = 0.9;
    out.push_back(std::move(f));
}

void knee(const ScaleCurve& curve, std::vector<Finding>& out) {
    // The smallest size past which no larger size gains kKneeGain in throughput.
    for (size_t i = 0; i + 1 < curve.rows.size(); ++i) {
        const ScaleRow& at = curve.rows[i];
        if (at.throughput <= 0 || !solid(at))
            continue;
        bool flat = true;
        for (size_t k = i + 1; k < curve.rows.size(); ++k) {
            if (!solid(curve.rows[k]))
                return;
            if (curve.rows[k].throughputLow > at.throughputHigh * kKneeGain ||
                curve.rows[k].throughput > at.throughput * kKneeGain)
                flat = false;
        }
        if (!flat)
            continue;
        if (i == 0 && curve.rows.size() < 3)
            return; // two sizes say little about a curve
        const ScaleRow& last = curve.rows.back();
        Finding f = base(curve, "scaling.knee", Severity::Info);
        f.title = curve.label + ": throughput stops growing after " + batch(at.batchSize);
        f.evidence.push_back("at " + batch(at.batchSize) + ": " + throughputText(at.throughput) +
                             ", " + formatDuration(at.latency->median) + " per call");
        f.evidence.push_back("at " + batch(last.batchSize) + ": " +
                             throughputText(last.throughput) + ", " +
                             formatDuration(last.latency->median) + " per call");
        f.remedy = "Batches above " + std::to_string(at.batchSize) +
                   " add latency without adding throughput: serve at " + batch(at.batchSize) +
                   " when latency matters.";
        if (last.latency && at.latency && last.latency->median > at.latency->median) {
            f.gain = formatDuration(last.latency->median - at.latency->median) +
                     " less per call than at " + batch(last.batchSize);
            f.gain += last.throughputHigh < at.throughputLow
                          ? ", and more throughput (" + throughputText(at.throughput) +
                                " against " + throughputText(last.throughput) + ")"
                          : ", about the same throughput";
        }
        f.confidence = 0.7;
        out.push_back(std::move(f));
        return;
    }
}

void overheadBound(const ScaleCurve& curve, std::vector<Finding>& out) {
    // Sizes whose next (at least double) size costs under kOverheadGrowth more.
    int64_t until = -1;
    size_t bound = 0;
    for (size_t i = 0; i + 1 < curve.rows.size(); ++i) {
        const ScaleRow& a = curve.rows[i];
        const ScaleRow& b = curve.rows[i + 1];
        if (!solid(a) || !solid(b) || b.batchSize < 2 * a.batchSize)
            break;
        if (b.latency->median >= kOverheadGrowth * a.latency->median)
            break;
        ++bound;
        until = b.batchSize;
    }
    if (bound < 2)
        return; // one step is not a trend
    const ScaleRow& first = curve.rows.front();
    const ScaleRow* last = rowAt(curve, until);
    Finding f = base(curve, "scaling.overhead_bound", Severity::Info);
    f.title = curve.label + ": below " + batch(until) + " the model is overhead-bound";
    f.evidence.push_back(
        batch(first.batchSize) + ": " + formatDuration(first.latency->median) + " per call; " +
        batch(until) + ": " + formatDuration(last->latency->median) + " per call (" +
        formatRatio(static_cast<double>(until) / static_cast<double>(first.batchSize)) +
        " the work, " + formatRatio(last->latency->median / first.latency->median) + " the time)");
    f.remedy = "Send batches of " + std::to_string(until) +
               " or more (group requests); on a GPU, reduce-overhead (CUDA graphs) cuts the "
               "fixed cost of each call.";
    f.gain = throughputText(last->throughput) + " at " + batch(until) + " against " +
             throughputText(first.throughput) + " at " + batch(first.batchSize);
    f.confidence = 0.7;
    out.push_back(std::move(f));
}

} // namespace

void scalingRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto curves = scaleCurves(input.report);
    if (curves.empty())
        return;
    const auto eager =
        std::find_if(curves.begin(), curves.end(), [](const ScaleCurve& c) { return c.eager; });
    for (const auto& curve : curves) {
        if (eager != curves.end() && !curve.eager)
            compilePays(*eager, curve, out);
        outOfMemory(curves, curve, out);
        knee(curve, out);
        overheadBound(curve, out);
    }
}

} // namespace cs::core::advice
