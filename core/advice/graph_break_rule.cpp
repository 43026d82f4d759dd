// Rule 1: graph breaks by cause. One finding per cause and source line, over
// all settings that hit it, with the graphs it splits the function into.
// Breaks wholly in library code are libraryBreakRule's.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/break_cause.h"
#include "core/analysis/function_name.h"
#include "core/analysis/rank_divergence.h"

namespace cs::core::advice {

namespace {

struct Site {
    BreakDiagnosis diagnosis;
    std::string file;
    int line = 0;
    std::string code;
    std::string function;
    std::string frameFunction;             // as the frame names it, for matching a hook
    std::vector<std::pair<int, int>> hits; // (run, index into run.graphBreaks)
};

// A site is one cause at one line: (rule, file, line).
using SiteKey = std::tuple<std::string, std::string, int>;

// The graphs a run's breaks at one site separate, by index; falls back to
// breaks + 1 when the probe could not tie a break to its graphs.
std::set<int> graphsAround(const Run& run, const std::vector<int>& breaks) {
    std::set<int> graphs;
    for (int b : breaks) {
        const auto& gb = run.graphBreaks[static_cast<size_t>(b)];
        for (int g : {gb.graphBefore, gb.graphAfter}) {
            if (g >= 0)
                graphs.insert(g);
        }
    }
    return graphs;
}

// The breaks at one site grouped by the compile they happened in (the compile
// id of a graph beside them), in the order met: a recompiled frame meets its
// break again, and that is the same break, not another one.
struct CompileBreaks {
    std::string compileId; // "0/1"; empty when a break has no graph beside it
    std::vector<int> breaks;
};

std::vector<CompileBreaks> byCompile(const Run& run, const std::vector<int>& breaks) {
    std::vector<CompileBreaks> groups;
    for (int b : breaks) {
        const auto& gb = run.graphBreaks[static_cast<size_t>(b)];
        std::string id;
        for (int g : {gb.graphBefore, gb.graphAfter}) {
            if (id.empty() && g >= 0 && g < static_cast<int>(run.graphs.size()))
                id = run.graphs[static_cast<size_t>(g)].compileId;
        }
        if (id.empty()) // a break with no graph beside it: no grouping can be told
            return {{"", breaks}};
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const CompileBreaks& group) { return group.compileId == id; });
        if (it == groups.end())
            it = groups.insert(groups.end(), {id, {}});
        it->breaks.push_back(b);
    }
    return groups;
}

// Whether the later compiles are recompiles of the first one's frame: "0/1"
// and "0/2" of "0/0".
bool recompilesOfOneFrame(const std::vector<CompileBreaks>& compiles) {
    const auto frame = [](const std::string& id) { return id.substr(0, id.find('/')); };
    const std::string first = frame(compiles.front().compileId);
    return !first.empty() && std::all_of(compiles.begin(), compiles.end(), [&](const auto& c) {
        return frame(c.compileId) == first;
    });
}

std::string graphIds(const std::set<int>& graphs) {
    std::vector<std::string> ids;
    for (int g : graphs)
        ids.push_back("#" + std::to_string(g));
    return joinWords(ids);
}

// The frame torch skipped for a break at this site (a break in a loop).
std::optional<SourceFrame> skippedFrame(const Run& run, const std::vector<int>& breaks) {
    for (int b : breaks) {
        if (auto frame = run.graphBreaks[static_cast<size_t>(b)].skippedFrame())
            return frame;
    }
    return std::nullopt;
}

// The breaks in run `r` of the message written on `site`'s line (print,
// logging, a file's write): the guard that leaves the line out takes them too.
size_t messageBreaksAt(const std::map<SiteKey, Site>& sites, const Site& site, int r) {
    size_t count = 0;
    for (const auto& [key, other] : sites) {
        const BreakCause cause = other.diagnosis.cause;
        if ((cause != BreakCause::PrintOrLogging && cause != BreakCause::FileAccess) ||
            other.file != site.file || other.line != site.line)
            continue;
        count += static_cast<size_t>(std::count_if(
            other.hits.begin(), other.hits.end(), [&](const auto& hit) { return hit.first == r; }));
    }
    return count;
}

} // namespace

void graphBreakRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    std::map<SiteKey, Site> sites;
    std::vector<SiteKey> order;
    forEachAdvisedBreak(runs, [&](int r, int b, const GraphBreak& gb) {
        auto diagnosis = diagnoseBreak(gb);
        if (!diagnosis || isLibraryBreak(gb, *diagnosis))
            return; // a library's breaks are one finding (libraryBreakRule)
        const SourceFrame* frame = gb.location();
        auto key = std::make_tuple(diagnosis->rule, frame ? frame->file : std::string(),
                                   frame ? frame->line : 0);
        auto [it, fresh] = sites.try_emplace(key);
        if (fresh) {
            order.push_back(key);
            it->second.diagnosis = *diagnosis;
            if (frame) {
                it->second.file = frame->file;
                it->second.line = frame->line;
                it->second.code = frame->code;
                it->second.function = functionLabel(frame->function);
                it->second.frameFunction = frame->function;
            }
        }
        it->second.hits.emplace_back(r, b);
    });

    for (const auto& key : order) {
        const Site& site = sites.at(key);
        const int firstRun = site.hits.front().first;
        const Run& run = runs[static_cast<size_t>(firstRun)];
        std::vector<int> inFirst;
        for (const auto& [r, b] : site.hits) {
            if (r == firstRun)
                inFirst.push_back(b);
        }
        const auto compiles = byCompile(run, inFirst);
        const std::vector<int>& firstCompile = compiles.front().breaks;
        const auto graphs = graphsAround(run, firstCompile);
        const int split = graphs.empty() ? static_cast<int>(firstCompile.size()) + 1
                                         : static_cast<int>(graphs.size());
        std::set<int> laterGraphs;
        for (size_t c = 1; c < compiles.size(); ++c) {
            for (int g : graphsAround(run, compiles[c].breaks))
                laterGraphs.insert(g);
        }
        const GraphBreak& first = run.graphBreaks[static_cast<size_t>(inFirst.front())];
        const std::string where = shortLocation(site.file, site.line);
        const std::string fn = site.function.empty() ? "the compiled function" : site.function;

        const auto skipped = skippedFrame(run, inFirst);
        const std::string skippedName = skipped ? functionLabel(skipped->function) : "";

        Finding f = breakFinding(runs, firstRun, inFirst.front(), site.file, site.line, site.code);
        f.rule = site.diagnosis.rule;
        f.severity = site.diagnosis.cause == BreakCause::CompilerDisabled ? Severity::Info
                                                                          : Severity::Warning;
        f.title = site.diagnosis.title +
                  (skipped ? " inside a loop, so torch compiles none of " + skippedName : "") +
                  (where.empty() ? "" : " (" + where + ")");
        f.graphsSplit = skipped ? 0 : split;
        f.remedy = site.diagnosis.remedy;
        if (skipped)
            f.remedy += " The break sits in a for/while loop, and torch does not resume inside a "
                        "loop: it skips all of " +
                        skippedName +
                        " and runs it eagerly. Removing the break compiles it; if it must stay, "
                        "move the loop's body into a helper function, so the break falls in the "
                        "helper and the rest of " +
                        skippedName + " compiles.";
        f.confidence = site.diagnosis.confidence;
        // A hook runs inside the module's compiled call, from code in no forward.
        const ModuleHook* hook = hookAt(run.model, site.file, site.frameFunction);
        if (hook && !skipped)
            f.remedy += " " + hook->function +
                        " runs inside the compiled call as a hook of its module: marking it "
                        "@torch.compiler.disable keeps it eager (one break per call, said "
                        "plainly), or remove the hook (its handle's remove()) from the model "
                        "you compile.";

        const std::string torchSays = first.cause();
        std::string count =
            plural(static_cast<long long>(firstCompile.size()), "graph break", "graph breaks") +
            (where.empty() ? "" : " at " + where) + " in " + fn + " (" + f.setting + ")";
        if (compiles.size() > 1)
            count += ", met again by " +
                     (recompilesOfOneFrame(compiles)
                          ? plural(static_cast<long long>(compiles.size() - 1), "recompile",
                                   "recompiles") +
                                " of it"
                          : plural(static_cast<long long>(compiles.size() - 1), "other compile",
                                   "other compiles")) +
                     ": " + std::to_string(inFirst.size()) + " in all";
        f.evidence.push_back(count + "; torch: \"" + torchSays + "\" (Breaks tab)");
        // One graph: the other side of the break held no op to compile.
        std::string graphText = split == 1
                                    ? fn + " compiles to 1 graph beside the break"
                                    : "splits " + fn + " into " + plural(split, "graph", "graphs");
        if (graphs.empty() && run.graphs.empty())
            graphText = fn + " compiled to no graph: the ops on both sides of the break ran "
                             "eagerly";
        if (skipped)
            graphText = "torch then skipped the frame " + skippedName + " (" +
                        shortLocation(skipped->file, skipped->line) +
                        "; \"graph break in loop\"): it runs eagerly";
        else if (!graphs.empty()) {
            graphText += " (" + graphIds(graphs) + ")";
            if (!laterGraphs.empty())
                graphText += ", and each later compile again (" + graphIds(laterGraphs) + ")";
        }
        f.evidence.push_back(
            graphText + "; " + f.setting + " has " +
            plural(static_cast<long long>(run.graphs.size()), "graph", "graphs") + " and " +
            plural(static_cast<long long>(run.graphBreaks.size()), "break", "breaks") + " in all");
        if (const std::string also = alsoInText(runs, site.hits); !also.empty())
            f.evidence.push_back(also);
        if (hook)
            f.evidence.push_back(hookText(*hook) +
                                 ": torch.compile traces a module's hooks with its forward");
        if (site.diagnosis.cause != BreakCause::CompilerDisabled) {
            const size_t total = run.graphBreaks.size();
            const size_t messageBreaks =
                site.diagnosis.feedsMessage ? messageBreaksAt(sites, site, firstRun) : 0;
            f.gain = "removes " + std::to_string(inFirst.size() + messageBreaks) + " of the " +
                     plural(static_cast<long long>(total), "graph break", "graph breaks") +
                     " measured in " + f.setting;
            if (messageBreaks)
                f.gain += " (the message's own break on that line with it)";
            if (skipped)
                f.gain += ", and compiles " + skippedName + ", which now runs eagerly";
        }
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
