#include "core/analysis/rank_divergence.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <utility>

#include "core/analysis/run_summary.h"
#include "core/analysis/stats.h"
#include "core/analysis/units.h"

namespace cs::core {

bool isImported(const Run& run) {
    return run.status == RunStatus::Imported;
}

int importedRunCount(const Report& report) {
    return static_cast<int>(std::count_if(report.runs.begin(), report.runs.end(), isImported));
}

bool allRunsImported(const Report& report) {
    return !report.runs.empty() && std::all_of(report.runs.begin(), report.runs.end(), isImported);
}

std::string rankLabel(const Run& run, int index) {
    if (run.trace && run.trace->rank >= 0)
        return "rank " + std::to_string(run.trace->rank);
    return "run " + std::to_string(index + 1);
}

std::string runLabel(const Run& run, int index) {
    return isImported(run) ? rankLabel(run, index) : run.setting.label();
}

const char* toString(DivergenceKind kind) {
    switch (kind) {
    case DivergenceKind::Graphs:
        return "graphs";
    case DivergenceKind::Recompiles:
        return "recompiles";
    case DivergenceKind::Cache:
        return "cache";
    case DivergenceKind::CompileTime:
        return "compile_time";
    }
    return "";
}

std::vector<const Divergence*> RankComparison::of(int run, DivergenceKind kind) const {
    std::vector<const Divergence*> found;
    for (const auto& d : divergences) {
        if (d.kind == kind && std::find(d.runs.begin(), d.runs.end(), run) != d.runs.end())
            found.push_back(&d);
    }
    return found;
}

namespace {

using Rows = std::vector<const RankRow*>;

std::string number(double value) {
    char text[32];
    if (value == static_cast<double>(static_cast<long long>(value)))
        std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
    else
        std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

std::string seconds(double s) {
    return formatDuration(s * 1e9);
}

std::string times(long long n) {
    return n == 1 ? "once" : std::to_string(n) + " times";
}

std::string labels(const Rows& rows) {
    std::string text;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (i > 0)
            text += i + 1 == rows.size() ? " and " : ", ";
        text += rows[i]->label;
    }
    return text;
}

// Where the figure the divergent ranks are held against comes from:
// "on rank 0", "on the other 7 ranks", "on 5 of the other ranks".
std::string onOthers(const Rows& reference, size_t others) {
    if (others == 1 && reference.size() == 1)
        return "on " + reference.front()->label;
    if (reference.size() == others)
        return "on the other " + std::to_string(others) + " ranks";
    return "on " + std::to_string(reference.size()) + " of the other " + std::to_string(others) +
           " ranks";
}

// The value most rows share; a tie goes to the value of the earliest row.
template <typename Value, typename Get> Value majority(const Rows& rows, Get get) {
    Value best = get(*rows.front());
    size_t bestCount = 0;
    for (const RankRow* row : rows) {
        const Value value = get(*row);
        const auto count = static_cast<size_t>(std::count_if(
            rows.begin(), rows.end(), [&](const RankRow* r) { return get(*r) == value; }));
        if (count > bestCount)
            best = value, bestCount = count;
    }
    return best;
}

Divergence divergenceOf(DivergenceKind kind, const Rows& rows, std::string text) {
    Divergence d;
    d.kind = kind;
    for (const RankRow* row : rows) {
        d.runs.push_back(row->run);
        d.ranks.push_back(row->rank);
    }
    d.text = std::move(text);
    return d;
}

RankRow rowOf(const Run& run, int index) {
    RankRow row;
    row.run = index;
    row.rank = run.trace ? run.trace->rank : -1;
    row.label = rankLabel(run, index);
    row.compiles = static_cast<int>(run.compiles.size());
    row.graphs = static_cast<int>(run.graphs.size());
    row.graphBreaks = static_cast<int>(run.graphBreaks.size());
    row.recompiles = recompileCount(run);
    for (const auto& c : run.compiles) {
        row.compileSeconds += c.seconds;
        row.failures += c.failType.empty() ? 0 : 1;
        row.restarts += static_cast<int>(c.restartReasons.size());
    }
    // A log without compilation_metrics still has the phase totals.
    if (run.compiles.empty()) {
        for (const auto& p : run.compilePhases)
            row.compileSeconds += p.seconds;
    }
    for (const auto& lookup : run.cacheLookups) {
        if (lookup.outcome == "hit")
            ++row.cacheHits;
        else if (lookup.outcome == "miss")
            ++row.cacheMisses;
        else if (lookup.outcome == "bypass")
            ++row.cacheBypasses;
    }
    return row;
}

void graphCounts(const Rows& rows, std::vector<Divergence>& out) {
    const int reference = majority<int>(rows, [](const RankRow& r) { return r.graphs; });
    Rows agree;
    std::map<int, Rows> differ;
    for (const RankRow* row : rows) {
        if (row->graphs == reference)
            agree.push_back(row);
        else
            differ[row->graphs].push_back(row);
    }
    for (const auto& [count, group] : differ) {
        const std::string text = labels(group) + " captured " + std::to_string(count) +
                                 (count == 1 ? " graph" : " graphs") + " against " +
                                 std::to_string(reference) + " " +
                                 onOthers(agree, rows.size() - group.size()) + ".";
        out.push_back(divergenceOf(DivergenceKind::Graphs, group, text));
    }
}

// What a captured graph is made of, to compare the same compile across ranks.
struct GraphShape {
    std::string function;
    size_t nodes = 0;
    std::vector<std::string> ops; // targets of the calls, sorted
    bool operator==(const GraphShape& other) const {
        return nodes == other.nodes && ops == other.ops;
    }
};

// Graphs by compile id; a graph without one by its function and how many of
// that function came before it.
// `order` gets the keys in the run's order.
std::map<std::string, GraphShape> shapesOf(const Run& run, std::vector<std::string>& order) {
    std::map<std::string, GraphShape> shapes;
    std::map<std::string, int> seen;
    for (const auto& graph : run.graphs) {
        std::string key = graph.compileId.empty() ? "fn:" + graph.function : graph.compileId;
        const int n = seen[key]++;
        if (n > 0)
            key += "#" + std::to_string(n);
        GraphShape shape;
        shape.function = graph.function;
        shape.nodes = graph.nodes.size();
        for (const auto& node : graph.nodes) {
            if (node.op.rfind("call_", 0) == 0)
                shape.ops.push_back(node.target);
        }
        std::sort(shape.ops.begin(), shape.ops.end());
        order.push_back(key);
        shapes.emplace(std::move(key), std::move(shape));
    }
    return shapes;
}

std::string compileName(const std::string& key, const GraphShape& shape) {
    std::string name =
        key.rfind("fn:", 0) == 0 ? "the graph of " + shape.function : "compile " + key;
    if (key.rfind("fn:", 0) != 0 && !shape.function.empty())
        name += " (" + shape.function + ")";
    return name;
}

// How one graph differs from the reference graph, which `where` ("on rank 0") has.
std::string shapeDifference(const GraphShape& shape, const GraphShape& reference,
                            const std::string& where) {
    if (shape.nodes != reference.nodes)
        return "has " + std::to_string(shape.nodes) + " nodes against " +
               std::to_string(reference.nodes) + " " + where;
    std::vector<std::string> extra, missing;
    std::set_difference(shape.ops.begin(), shape.ops.end(), reference.ops.begin(),
                        reference.ops.end(), std::back_inserter(extra));
    std::set_difference(reference.ops.begin(), reference.ops.end(), shape.ops.begin(),
                        shape.ops.end(), std::back_inserter(missing));
    if (!extra.empty() && !missing.empty())
        return "calls " + extra.front() + " where it calls " + missing.front() + " " + where;
    if (!extra.empty())
        return "calls " + extra.front() + ", which it does not call " + where;
    if (!missing.empty())
        return "does not call " + missing.front() + ", which it calls " + where;
    return "differs from it " + where;
}

void graphShapes(const Report& report, const Rows& rows, std::vector<Divergence>& out) {
    std::vector<std::map<std::string, GraphShape>> shapes;
    std::vector<std::string> keys; // every key once, in the order the ranks have them
    for (const RankRow* row : rows) {
        std::vector<std::string> order;
        shapes.push_back(shapesOf(report.runs[static_cast<size_t>(row->run)], order));
        for (const auto& key : order) {
            if (std::find(keys.begin(), keys.end(), key) == keys.end())
                keys.push_back(key);
        }
    }
    struct Found {
        int compiles = 0;
        std::string firstKey;
        std::string text;
    };
    std::map<size_t, Found> byRow; // index into rows
    for (const auto& key : keys) {
        std::vector<size_t> having;
        for (size_t i = 0; i < rows.size(); ++i) {
            if (shapes[i].count(key))
                having.push_back(i);
        }
        if (having.size() < 2)
            continue;
        // The shape most ranks have; a tie goes to the earliest rank's.
        size_t reference = having.front(), best = 0;
        for (size_t i : having) {
            const auto n =
                static_cast<size_t>(std::count_if(having.begin(), having.end(), [&](size_t j) {
                    return shapes[j].at(key) == shapes[i].at(key);
                }));
            if (n > best)
                reference = i, best = n;
        }
        const GraphShape& ref = shapes[reference].at(key);
        Rows agree;
        for (size_t i : having) {
            if (shapes[i].at(key) == ref)
                agree.push_back(rows[i]);
        }
        for (size_t i : having) {
            const GraphShape& shape = shapes[i].at(key);
            if (shape == ref)
                continue;
            Found& found = byRow[i];
            if (found.compiles++ == 0) {
                found.firstKey = key;
                found.text = compileName(key, shape) + " " +
                             shapeDifference(shape, ref, onOthers(agree, having.size() - 1));
            }
        }
    }
    for (const auto& [i, found] : byRow) {
        std::string text = rows[i]->label + " compiled a different graph: " + found.text;
        if (found.compiles > 1)
            text += "; " + std::to_string(found.compiles) + " of its compiles differ";
        Divergence d = divergenceOf(DivergenceKind::Graphs, {rows[i]}, text + ".");
        if (found.firstKey.rfind("fn:", 0) != 0)
            d.compileId = found.firstKey.substr(0, found.firstKey.find('#'));
        out.push_back(std::move(d));
    }
}

// Every rank but `row`, and the median of `value` over them: what `row` is
// judged against.
template <typename Value>
std::pair<Rows, double> othersAndMedian(const Rows& rows, const RankRow* row, Value value) {
    Rows others;
    std::vector<double> values;
    for (const RankRow* other : rows) {
        if (other != row) {
            others.push_back(other);
            values.push_back(value(*other));
        }
    }
    return {others, medianValue(values)};
}

void recompiles(const Report& report, const Rows& rows, std::vector<Divergence>& out) {
    for (const RankRow* row : rows) {
        const auto [others, reference] = othersAndMedian(
            rows, row, [](const RankRow& r) { return static_cast<double>(r.recompiles); });
        if (row->recompiles <= reference)
            continue;
        std::string text =
            row->label + " recompiled " + times(row->recompiles) + " against " +
            (others.size() == 1 ? number(reference) + " on " + others[0]->label
                                : "a median of " + number(reference) + " on the other " +
                                      std::to_string(others.size()) + " ranks");
        const Run& run = report.runs[static_cast<size_t>(row->run)];
        if (!run.recompiles.empty() && !run.recompiles.front().reason.empty()) {
            std::string reason = run.recompiles.front().reason;
            if (reason.size() > 120)
                reason = reason.substr(0, 117) + "...";
            text += "; the first guard that failed: " + reason;
        }
        out.push_back(divergenceOf(DivergenceKind::Recompiles, {row}, text + "."));
    }
}

void caches(const Report& report, const Rows& rows, std::vector<Divergence>& out) {
    // The first lookup of each (compile id, cache) per rank.
    using Key = std::pair<std::string, std::string>;
    std::map<Key, std::map<size_t, const CacheLookup*>> lookups;
    for (size_t i = 0; i < rows.size(); ++i) {
        for (const auto& lookup : report.runs[static_cast<size_t>(rows[i]->run)].cacheLookups)
            lookups[{lookup.compileId, lookup.cache}].emplace(i, &lookup);
    }
    struct Found {
        int missed = 0;
        int bypassed = 0;
        const CacheLookup* first = nullptr;
    };
    std::map<size_t, Found> byRow;
    for (const auto& [key, perRow] : lookups) {
        if (perRow.size() < 2)
            continue;
        const auto hits =
            static_cast<size_t>(std::count_if(perRow.begin(), perRow.end(), [](const auto& p) {
                return p.second->outcome == "hit";
            }));
        for (const auto& [i, lookup] : perRow) {
            if (lookup->outcome == "hit")
                continue;
            // Most of the other ranks that looked it up found it.
            if (2 * hits <= perRow.size() - 1)
                continue;
            Found& found = byRow[i];
            (lookup->outcome == "bypass" ? found.bypassed : found.missed) += 1;
            if (!found.first)
                found.first = lookup;
        }
    }
    for (const auto& [i, found] : byRow) {
        std::string what;
        if (found.missed > 0)
            what = "missed " + std::to_string(found.missed);
        if (found.bypassed > 0)
            what += (what.empty() ? "" : " and ") + std::string("bypassed ") +
                    std::to_string(found.bypassed);
        const int total = found.missed + found.bypassed;
        std::string text =
            rows[i]->label + " " + what + (total == 1 ? " cache lookup" : " cache lookups") +
            " that " + (rows.size() == 2 ? rows[1 - i]->label : "most other ranks") +
            " hit (first: " + found.first->cache + " cache, compile " + found.first->compileId;
        if (!found.first->reason.empty())
            text += ", " + found.first->reason;
        Divergence d = divergenceOf(DivergenceKind::Cache, {rows[i]}, text + ").");
        d.compileId = found.first->compileId;
        out.push_back(std::move(d));
    }
}

double phaseSeconds(const Run& run, const std::string& name) {
    for (const auto& p : run.compilePhases) {
        if (p.name == name)
            return p.seconds;
    }
    return 0;
}

void compileTimes(const Report& report, const Rows& rows, std::vector<Divergence>& out) {
    for (const RankRow* row : rows) {
        const auto [others, reference] =
            othersAndMedian(rows, row, [](const RankRow& r) { return r.compileSeconds; });
        const double extra = row->compileSeconds - reference;
        if (extra < kSlowRankExtraSeconds || row->compileSeconds < kSlowRankRatio * reference)
            continue;
        std::string text = row->label + " compiled for " + seconds(row->compileSeconds);
        if (reference > 0) {
            char ratio[32];
            std::snprintf(ratio, sizeof ratio, "%.1f×", row->compileSeconds / reference);
            text += ", " + std::string(ratio) + " the " + seconds(reference);
        } else {
            text += " against " + seconds(reference);
        }
        text += others.size() == 1
                    ? " of " + others[0]->label
                    : " median of the other " + std::to_string(others.size()) + " ranks";
        // The phase that grew most, against the same median.
        const Run& run = report.runs[static_cast<size_t>(row->run)];
        std::string phase;
        double grew = 0;
        for (const auto& p : run.compilePhases) {
            std::vector<double> theirs;
            for (const RankRow* other : others)
                theirs.push_back(
                    phaseSeconds(report.runs[static_cast<size_t>(other->run)], p.name));
            const double more = p.seconds - medianValue(theirs);
            if (more > grew)
                phase = p.name, grew = more;
        }
        if (!phase.empty() && grew >= extra / 2)
            text += "; most of the difference is " + phase + " (+" + seconds(grew) + ")";
        out.push_back(divergenceOf(DivergenceKind::CompileTime, {row}, text + "."));
    }
}

} // namespace

RankComparison compareRanks(const Report& report) {
    RankComparison comparison;
    for (size_t i = 0; i < report.runs.size(); ++i) {
        if (isImported(report.runs[i]))
            comparison.rows.push_back(rowOf(report.runs[i], static_cast<int>(i)));
    }
    if (!comparison.comparable())
        return comparison;
    Rows rows;
    for (const auto& row : comparison.rows)
        rows.push_back(&row);
    auto& out = comparison.divergences;
    graphCounts(rows, out);
    graphShapes(report, rows, out);
    recompiles(report, rows, out);
    caches(report, rows, out);
    compileTimes(report, rows, out);
    return comparison;
}

} // namespace cs::core
