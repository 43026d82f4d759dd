#include "core/analysis/comparison_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/analysis/units.h"
#include "core/report/text_lines.h"

namespace cs::core {

namespace {

std::string format(const char* pattern, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

// "3 probe rounds, whose ratios ran 0.92× to 1.31×"
std::string roundsText(const Speedup& sp) {
    return std::to_string(sp.rounds) + " probe rounds, whose ratios ran " +
           format("%.2f×", sp.roundsLow) + " to " + format("%.2f×", sp.roundsHigh);
}

} // namespace

std::string breakEvenDetail(const ComparisonRow& row) {
    if (!row.noSignificantGain() || row.compiledNothing || !row.compiles)
        return {};
    const std::string raw = row.breakEven ? callsText(*row.breakEven) : "never";
    const std::string interval = row.speedup->rounds > 1
                                     ? "interval over " + roundsText(*row.speedup) + ","
                                     : "95% interval";
    return "the speedup's " + interval + " includes 1×, so the break-even figure (" + raw +
           ") is noise";
}

std::string speedupBasis(const Speedup& sp) {
    if (sp.rounds > 1)
        return sp.significant ? "the same side of 1× in all " + roundsText(sp) +
                                    ", and the first pair's medians' 95% intervals do not overlap"
                              : "not shown to be real: over " + roundsText(sp) +
                                    ", not all on one side of 1× with intervals apart";
    return sp.significant ? "the medians' 95% intervals do not overlap: the difference is real"
                          : "the medians' 95% intervals overlap: the difference may be noise";
}

std::string speedupText(const ComparisonRow& row) {
    if (row.isBaseline)
        return "baseline";
    if (!row.speedup)
        return "—";
    return format("%.2f×", row.speedup->value) + " (" + format("%.2f", row.speedup->low) + "–" +
           format("%.2f", row.speedup->high) + ")";
}

std::string callsText(double calls) {
    const std::string count = formatCount(calls);
    return count + (count == "1" ? " call" : " calls");
}

std::string breakEvenText(const ComparisonRow& row) {
    if (row.isBaseline)
        return "baseline";
    if (!row.compiles)
        return "—";
    if (row.compiledNothing)
        return kCompiledNothing;
    if (row.noSignificantGain())
        return kNoSignificantGain;
    if (row.breakEven)
        return callsText(*row.breakEven);
    if (row.speedup && !row.saves)
        return "never";
    return "—";
}

namespace {

// How the verdict on a row's speed ends: its break-even, or "." where it has
// none to tell (an eager setting beside the baseline compiles nothing).
std::string breakEvenClause(const ComparisonRow& row, const ComparisonRow& eager) {
    if (!row.compiles)
        return ".";
    if (row.noSignificantGain())
        return ", so it has no break-even.";
    if (row.breakEven && *row.breakEven <= 0)
        return ", and its warmup costs no more than eager's.";
    if (row.breakEven)
        return ", and pays back its extra warmup of " +
               formatDuration(*row.warmupNs - *eager.warmupNs) + " after " +
               callsText(*row.breakEven) + ".";
    if (row.saves)
        return ".";
    // aoti compiles where the package is built, not in the process it times.
    return row.dynamo ? ": its compile never pays back." : ": deploying it gains nothing per call.";
}

// Why no speedup can be told: eager was not asked for, or it ran and has no
// measured calls, which the user fixes differently.
std::string noBaselineSummary(const Comparison& c) {
    const auto eager = std::find_if(c.rows.begin(), c.rows.end(),
                                    [](const ComparisonRow& r) { return !r.compiles && !r.stats; });
    if (eager == c.rows.end())
        return "No eager run finished with measured calls, so there is nothing to compare "
               "against: include eager to see speedups and break-even.";
    std::string text = eager->label;
    if (eager->status != RunStatus::Ok)
        text += std::string(" did not finish (") + toString(eager->status) + ")" +
                (eager->error ? ": " + firstSentence(eager->error->message) : std::string());
    else
        text += " measured no calls";
    if (text.back() != '.')
        text += ".";
    return text + " Without eager's calls there is nothing to compare against: fix eager's run "
                  "to see speedups and break-even.";
}

} // namespace

std::string comparisonSummary(const Comparison& c) {
    if (c.rows.empty())
        return "Nothing has run yet.";
    if (c.baseline < 0)
        return noBaselineSummary(c);
    const auto& eager = c.rows[static_cast<size_t>(c.baseline)];
    std::string text;
    for (const auto& row : c.rows) {
        if (row.isBaseline || row.label == eager.label)
            continue;
        std::string sentence;
        if (row.status != RunStatus::Ok && !row.stats) {
            sentence = row.label + " did not finish (" + toString(row.status) + ")";
            if (row.error)
                // The table below and the advice keep the rest of it.
                sentence += ": " + firstSentence(row.error->message);
            if (sentence.back() != '.')
                sentence += ".";
        } else if (!row.speedup) {
            continue;
        } else if (row.compiledNothing) {
            sentence = row.label + " compiled nothing, so its " +
                       format("%.2f×", row.speedup->value) +
                       " against eager compares eager code with itself.";
        } else {
            const auto& sp = *row.speedup;
            const bool faster = sp.value >= 1;
            const double factor = faster ? sp.value : 1 / sp.value;
            sentence = row.label + " is " + format("%.2f×", factor) +
                       (faster ? " faster" : " slower") + " than eager per call";
            if (!sp.significant && sp.rounds > 1)
                sentence += " (within noise over " + roundsText(sp) + ")";
            else if (!sp.significant)
                sentence += " (within noise: the medians' 95% intervals overlap)";
            sentence += breakEvenClause(row, eager);
            if (row.measuredUnderLoad || eager.measuredUnderLoad) {
                const std::string who = row.measuredUnderLoad && eager.measuredUnderLoad
                                            ? "eager and " + row.label
                                            : (row.measuredUnderLoad ? row.label : "eager");
                sentence += " Other work shared the CPUs while " + who +
                            " measured: measure again on a quiet machine before comparing.";
            }
            if (row.status != RunStatus::Ok)
                sentence += " (" + std::string(toString(row.status)) + ": partial measurement)";
        }
        if (!text.empty())
            text += " ";
        text += sentence;
    }
    return text.empty() ? "Only eager ran: add a compile mode to compare." : text;
}

size_t glyphCount(const std::string& text) {
    size_t glyphs = 0;
    for (unsigned char ch : text)
        glyphs += (ch & 0xC0) != 0x80; // UTF-8 continuation bytes are not glyphs
    return glyphs;
}

std::string sweepText(const ComparisonRow& row) {
    if (!row.sweepWallNs)
        return {};
    std::string text = "input sweep " + formatDuration(static_cast<double>(*row.sweepWallNs));
    if (row.dynamo)
        text += ", " + std::to_string(row.sweepRecompiles) +
                (row.sweepRecompiles == 1 ? " recompile" : " recompiles") + " in it";
    return text;
}

std::string comparisonTable(const Comparison& c) {
    auto cell = [](const std::optional<double>& ns) {
        return ns ? formatDuration(*ns) : std::string("—");
    };
    std::string out;
    char line[512];
    // Over repeated probes the interval also spans every round: no longer a 95% CI.
    const bool rounds = std::any_of(c.rows.begin(), c.rows.end(), [](const ComparisonRow& r) {
        return r.speedup && r.speedup->rounds > 1;
    });
    const bool swept = c.swept();
    std::snprintf(line, sizeof line, "%-28s %-9s %6s %6s %5s %10s%s %10s %10s %-22s %-19s %11s\n",
                  "setting", "status", "graphs", "breaks", "recmp", "warmup",
                  swept ? "      sweep" : "", "median", "p99",
                  rounds ? "speedup (all probes)" : "speedup (95% CI)", "break-even", "peak mem");
    out += line;
    for (const auto& r : c.rows) {
        // Eager and aoti have no Dynamo graphs to count.
        auto dynamoCount = [&r](int count) {
            return r.dynamo ? formatCount(count) : std::string("—");
        };
        const std::string memory =
            r.peakMemoryBytes ? formatBytes(static_cast<double>(*r.peakMemoryBytes)) : "—";
        // printf pads by bytes: "×", "–" and "µ" take two or three; pad those cells by hand.
        auto pad = [](std::string text, size_t width) {
            const size_t glyphs = glyphCount(text);
            if (glyphs < width)
                text.append(width - glyphs, ' ');
            return text;
        };
        auto padLeft = [](const std::string& text, size_t width) {
            const size_t glyphs = glyphCount(text);
            return glyphs < width ? std::string(width - glyphs, ' ') + text : text;
        };
        // A label wider than its column (a setting's own env=) gets a line of
        // its own, so the row's figures stay under their headings.
        const bool longLabel = glyphCount(r.label) > 28;
        if (longLabel)
            out += r.label + "\n";
        out += pad(longLabel ? std::string() : r.label, 28) + " " + pad(toString(r.status), 9) +
               " " + padLeft(dynamoCount(r.graphs), 6) + " " + padLeft(dynamoCount(r.breaks), 6) +
               " " + padLeft(dynamoCount(r.recompiles), 5) + " " +
               padLeft(cell(r.warmupWallNs
                                ? std::optional<double>(static_cast<double>(*r.warmupWallNs))
                                : std::nullopt),
                       10) +
               (swept ? " " + padLeft(cell(r.sweepWallNs ? std::optional<double>(
                                                               static_cast<double>(*r.sweepWallNs))
                                                         : std::nullopt),
                                      10)
                      : std::string()) +
               " " + padLeft(cell(r.stats ? std::optional(r.stats->median) : std::nullopt), 10) +
               " " + padLeft(cell(r.stats ? std::optional(r.stats->p99) : std::nullopt), 10) + " " +
               pad(speedupText(r), 22) + " " + pad(breakEvenText(r), 19) + " " +
               padLeft(memory, 11) + "\n";
        if (r.error && r.status != RunStatus::Ok)
            out += "    " + r.error->kind + ": " +
                   r.error->message.substr(0, r.error->message.find('\n')) + "\n";
        for (const auto& note : r.notes)
            out += "    note: " + note + "\n";
        // Outputs that agree with eager's need no line; the report keeps the figures.
        if (!r.outputs.empty() && r.outputs != "agree")
            out += "    outputs: " + r.outputs +
                   (r.outputsDetail.empty() ? std::string() : " — " + r.outputsDetail) + "\n";
        if (const auto detail = breakEvenDetail(r); !detail.empty())
            out += "    note: " + detail + "\n";
    }
    out += "\n" + comparisonSummary(c) + "\n";
    return out;
}

} // namespace cs::core
