// Rule: the ranks of a distributed job compiled differently (an imported
// TORCH_TRACE log, core/analysis/rank_divergence.h). One finding per kind of
// divergence, each sentence of the comparison as evidence: ranks that run
// different graphs issue different collectives and hang, and a rank that
// compiles longer holds every other rank at the next collective.
#include <algorithm>
#include <map>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/analysis/rank_divergence.h"

namespace cs::core::advice {

namespace {

// Evidence lines beyond this are summed up in one line.
constexpr size_t kMaxEvidence = 6;

struct KindText {
    const char* rule;
    Severity severity;
    const char* title;
    const char* remedy;
    double confidence;
};

KindText textFor(DivergenceKind kind) {
    switch (kind) {
    case DivergenceKind::Graphs:
        return {"ranks.divergent_graphs", Severity::Critical,
                "compiled different graphs from the other ranks",
                "Ranks that trace different graphs issue different collectives: the job can hang "
                "or ranks wait on each other. Make shapes and control flow the same on every rank "
                "(pad or bucket per-rank batch sizes, do not branch on the rank or on data that "
                "differs per rank), mark the dimensions that do differ with "
                "torch._dynamo.mark_dynamic, and compare the ranks' graph breaks in the Breaks "
                "tab.",
                0.8};
    case DivergenceKind::Recompiles:
        return {"ranks.recompile", Severity::Warning, "recompiled more often than the other ranks",
                "Every recompile stalls that rank while the others wait at the next collective. "
                "The guard that failed names the input that changed on this rank: make it the "
                "same on every rank, or mark the dimension dynamic (torch._dynamo.mark_dynamic) "
                "so all ranks compile once for all sizes.",
                0.7};
    case DivergenceKind::Cache:
        return {"ranks.cache", Severity::Info, "missed compile caches the other ranks hit",
                "A rank that misses the cache compiles from scratch while the others wait. Share "
                "the cache between ranks (the same TORCHINDUCTOR_CACHE_DIR on a shared file "
                "system, or torch.compiler.save_cache_artifacts() once and "
                "load_cache_artifacts() on every rank) and warm it on all ranks before the job; "
                "a bypass reason names what made the graph uncacheable.",
                0.6};
    case DivergenceKind::CompileTime:
        return {"ranks.compile_time", Severity::Warning, "compiled far longer than the other ranks",
                "The other ranks wait for the slowest at their first collective (and may time "
                "out: raise the process group's timeout for the first step). Look for what this "
                "rank did more: recompiles, cache misses, a different graph; warm the caches on "
                "all ranks, and check whether the rank shares its machine with other work.",
                0.6};
    }
    return {"", Severity::Info, "", "", 0};
}

} // namespace

void rankDivergenceRule(const AdviceInput& input, std::vector<Finding>& out) {
    const RankComparison ranks = compareRanks(input.report);
    if (!ranks.comparable())
        return;
    std::map<DivergenceKind, std::vector<const Divergence*>> byKind;
    for (const auto& d : ranks.divergences)
        byKind[d.kind].push_back(&d);
    for (const auto& [kind, divergences] : byKind) {
        const KindText text = textFor(kind);
        std::vector<std::string> who;
        std::vector<int> runs;
        for (const Divergence* d : divergences) {
            for (size_t i = 0; i < d->runs.size(); ++i) {
                const auto& run = input.report.runs[static_cast<size_t>(d->runs[i])];
                const std::string label = rankLabel(run, d->runs[i]);
                if (std::find(who.begin(), who.end(), label) == who.end()) {
                    who.push_back(label);
                    runs.push_back(d->runs[i]);
                }
            }
        }
        Finding f;
        f.rule = text.rule;
        f.severity = text.severity;
        // Name a few ranks; count many.
        const std::string subject =
            who.size() <= 4 ? joinWords(who) : std::to_string(who.size()) + " ranks";
        f.title =
            subject + " " + text.title + " (of " + std::to_string(ranks.rows.size()) + " ranks)";
        f.tab = EvidenceTab::Ranks;
        // One rank: the finding points at its run; several: at the whole report.
        if (runs.size() == 1) {
            f.run = runs.front();
            f.setting = who.front();
        }
        for (const Divergence* d : divergences) {
            if (f.evidence.size() + 1 == kMaxEvidence && divergences.size() > kMaxEvidence) {
                f.evidence.push_back("and " +
                                     std::to_string(divergences.size() - f.evidence.size()) +
                                     " more (Ranks tab)");
                break;
            }
            std::string line = d->text;
            if (!line.empty() && line.back() == '.')
                line.pop_back();
            f.evidence.push_back(line + " (Ranks tab)");
        }
        f.remedy = text.remedy;
        f.confidence = text.confidence;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
