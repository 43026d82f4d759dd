// Rule 2: recompiles because an input dimension changed, and the recompile
// limit after which torch runs the function eagerly.
#include <algorithm>
#include <map>
#include <set>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/shape_guard.h"
#include "core/analysis/function_name.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

struct DimChange {
    std::string tensor;
    std::string what;
    int dim = -1;
    std::set<int64_t> sizes;
};

struct FunctionRecompiles {
    std::string function;
    int recompiles = 0;
    const Recompile* limit = nullptr;
    std::vector<DimChange> dims; // in the order first seen
    std::string libraryFrame;    // library code torch compiled around the function
};

const Graph* graphOf(const Run& run, const std::string& function) {
    for (const auto& g : run.graphs) {
        if (g.function == function)
            return &g;
    }
    return nullptr;
}

// "wrapper at /x/site-packages/transformers/utils/generic.py:1030" → "wrapper at
// transformers/utils/generic.py:1030 (library code)": the path from the package on.
std::string libraryText(const std::string& frame) {
    std::string text = frame;
    for (const char* marker : {"site-packages/", "dist-packages/"}) {
        if (const size_t at = text.rfind(marker); at != std::string::npos) {
            const size_t from = text.rfind(" at ", at);
            if (from != std::string::npos)
                text = text.substr(0, from + 4) + text.substr(at + std::string(marker).size());
        }
    }
    return text + " (library code)";
}

std::string sizesText(const std::set<int64_t>& sizes) {
    std::vector<std::string> words;
    for (auto s : sizes)
        words.push_back(std::to_string(s));
    return joinWords(words);
}

// Powers of two that cover the sizes seen: what padding would compile.
std::set<int64_t> paddedSizes(const std::set<int64_t>& sizes) {
    std::set<int64_t> padded;
    for (auto s : sizes) {
        int64_t p = 1;
        while (p < s)
            p *= 2;
        padded.insert(p);
    }
    return padded;
}

std::string dimName(const DimChange& d) {
    return (d.what == "stride" ? "the stride of dimension " : "dimension ") +
           std::to_string(d.dim) + " of " + d.tensor;
}

std::string remedyFor(const DimChange& d) {
    std::string text =
        "Choose one: (1) torch._dynamo.mark_dynamic(" + d.tensor + ", " + std::to_string(d.dim);
    // Bounds from the sizes seen; below 2 torch specialises 0 and 1 anyway.
    if (d.sizes.size() >= 2 && *d.sizes.begin() >= 2)
        text += ", min=" + std::to_string(*d.sizes.begin()) +
                ", max=" + std::to_string(*d.sizes.rbegin());
    text += ") before the first call: one graph for every size of that dimension; "
            "(2) torch.compile(..., dynamic=True): all sizes symbolic from the first compile; ";
    const auto padded = paddedSizes(d.sizes);
    text += "(3) pad dimension " + std::to_string(d.dim) + " to a few fixed sizes";
    if (padded.size() < d.sizes.size())
        text += " (" + sizesText(padded) + " would compile " +
                plural(static_cast<long long>(padded.size()), "graph", "graphs") + " instead of " +
                std::to_string(d.sizes.size()) + ")";
    text += ": specialised kernels, one compile per size.";
    return text;
}

} // namespace

void recompileRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        // A batch-size walk compiles each size on purpose (docs/measuring.md).
        if (run.scaling && !run.scaling->dynamic)
            continue;
        std::vector<FunctionRecompiles> functions;
        auto entry = [&](const std::string& name) -> FunctionRecompiles& {
            for (auto& f : functions) {
                if (f.function == name)
                    return f;
            }
            functions.push_back({name, 0, nullptr, {}, {}});
            return functions.back();
        };
        // The guard failure that hits the limit also arrives as a recompile
        // without a function: it compiled nothing, the limit event covers it.
        std::set<std::string> limitReasons;
        for (const auto& rc : run.recompiles) {
            if (rc.limitHit)
                limitReasons.insert(rc.reason);
        }
        for (const auto& rc : run.recompiles) {
            if (!rc.limitHit && rc.function.empty() && limitReasons.count(rc.reason))
                continue;
            FunctionRecompiles& fr = entry(rc.function);
            if (fr.libraryFrame.empty())
                fr.libraryFrame = rc.libraryFrame;
            if (rc.limitHit)
                fr.limit = &rc;
            else
                ++fr.recompiles;
            auto guard = parseShapeGuard(rc.reason);
            if (!guard)
                continue;
            auto it = std::find_if(fr.dims.begin(), fr.dims.end(), [&](const DimChange& d) {
                return d.tensor == guard->tensor && d.dim == guard->dim && d.what == guard->what;
            });
            if (it == fr.dims.end()) {
                fr.dims.push_back({guard->tensor, guard->what, guard->dim, {}});
                it = fr.dims.end() - 1;
            }
            it->sizes.insert(guard->expected);
            if (guard->actual >= 0)
                it->sizes.insert(guard->actual);
        }

        for (const auto& fr : functions) {
            const Graph* graph = graphOf(run, fr.function);
            const std::string fn =
                fr.function.empty() ? "the compiled function" : functionLabel(fr.function);
            const std::string label = runLabel(run, static_cast<int>(r));
            // An imported log has no comparison table: its recompiles are listed
            // under the Breaks tab.
            const bool imported = run.status == RunStatus::Imported;
            const std::string tabNote = imported ? " (Breaks tab)" : " (Compare tab)";
            auto locate = [&](Finding& f) {
                f.run = static_cast<int>(r);
                f.setting = label;
                f.tab = imported ? EvidenceTab::Breaks : EvidenceTab::Compare;
                if (graph) {
                    f.file = graph->file;
                    f.line = graph->line;
                    f.graph = static_cast<int>(graph - run.graphs.data());
                }
            };
            const std::string where =
                graph ? " (" + shortLocation(graph->file, graph->line) + ")" : "";
            if (!fr.dims.empty() && fr.recompiles > 0) {
                const DimChange& main = fr.dims.front();
                Finding f;
                f.rule = "recompile.shape";
                const bool onlyAutomatic =
                    run.setting.dynamic == "auto" && fr.recompiles == 1 && !fr.limit;
                f.severity = onlyAutomatic ? Severity::Info : Severity::Warning;
                f.title = fn + where + " recompiled " + plural(fr.recompiles, "time", "times") +
                          " because " + dimName(main) + " changed";
                locate(f);
                f.evidence.push_back(plural(fr.recompiles, "recompile", "recompiles") + " of " +
                                     fn + " in " + label + tabNote);
                if (!fr.libraryFrame.empty())
                    f.evidence.push_back("torch compiled library code around " + fn + ": " +
                                         libraryText(fr.libraryFrame) +
                                         "; its inputs are named here by " + fn + "'s parameters");
                for (const auto& d : fr.dims)
                    f.evidence.push_back(
                        dimName(d) + " took " +
                        plural(static_cast<long long>(d.sizes.size()), "size", "sizes") + ": " +
                        sizesText(d.sizes));
                if (run.setting.dynamic == "false")
                    f.evidence.push_back("compiled with dynamic=False: every new size compiles "
                                         "another graph");
                else if (onlyAutomatic)
                    f.evidence.push_back("dynamic=auto: after the first change torch compiled the "
                                         "dimension as a symbol and later sizes reused that graph");
                if (const PhaseSpan* sweep = run.phase("sweep");
                    sweep && sweep->endNs > sweep->beginNs)
                    f.evidence.push_back(
                        "the input sweep took " +
                        formatDuration(static_cast<double>(sweep->endNs - sweep->beginNs)) +
                        " (Warmup tab)");
                f.remedy = remedyFor(main);
                if (onlyAutomatic)
                    f.remedy = "Mark the dimension dynamic up front to skip the first, specialised "
                               "compile: torch._dynamo.mark_dynamic(" +
                               main.tensor + ", " + std::to_string(main.dim) + ").";
                f.gain = fr.dims.size() == 1 && !onlyAutomatic
                             ? "one compile of " + fn + " instead of " +
                                   std::to_string(fr.recompiles + 1) +
                                   " with mark_dynamic or dynamic=True"
                             : std::string();
                f.confidence = 0.9;
                out.push_back(std::move(f));
            }
            if (fr.limit) {
                Finding f;
                f.rule = "recompile.limit";
                f.severity = Severity::Warning;
                const std::string limit =
                    fr.limit->limit > 0 ? " (" + std::to_string(fr.limit->limit) + ")" : "";
                f.title =
                    fn + where + " hit the recompile limit" + limit + ": torch now runs it eagerly";
                locate(f);
                if (!fr.libraryFrame.empty())
                    f.evidence.push_back("torch compiled library code around " + fn + ": " +
                                         libraryText(fr.libraryFrame));
                f.evidence.push_back("recompile limit" + limit + " reached in " + label +
                                     " after " + plural(fr.recompiles, "recompile", "recompiles") +
                                     tabNote);
                if (!fr.limit->reason.empty())
                    f.evidence.push_back("last failed guard: " + fr.limit->reason);
                f.remedy = (fr.dims.empty() ? std::string() : remedyFor(fr.dims.front()) + " ") +
                           "Raising torch._dynamo.config.recompile_limit only postpones the fall "
                           "back to eager.";
                f.confidence = 0.95;
                out.push_back(std::move(f));
            }
        }
    }
}

} // namespace cs::core::advice
