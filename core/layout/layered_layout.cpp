#include "core/layout/layered_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

namespace cs::layout {

namespace {

// Compressed adjacency: neighbours of v are list[start[v] .. start[v+1]).
struct Adjacency {
    std::vector<int> start;
    std::vector<int> list;
    int begin(int v) const { return start[static_cast<size_t>(v)]; }
    int end(int v) const { return start[static_cast<size_t>(v) + 1]; }
    int at(int k) const { return list[static_cast<size_t>(k)]; }
    bool empty(int v) const { return begin(v) == end(v); }
};

Adjacency buildAdjacency(size_t n, const std::vector<std::pair<int, int>>& arcs) {
    Adjacency adj;
    adj.start.assign(n + 1, 0);
    for (const auto& [from, to] : arcs)
        adj.start[static_cast<size_t>(from) + 1] += 1;
    std::partial_sum(adj.start.begin(), adj.start.end(), adj.start.begin());
    adj.list.resize(arcs.size());
    std::vector<int> fill(adj.start.begin(), adj.start.end() - 1);
    for (const auto& [from, to] : arcs)
        adj.list[static_cast<size_t>(fill[static_cast<size_t>(from)]++)] = to;
    return adj;
}

// Weighted isotonic regression (non-decreasing) by pool adjacent violators.
std::vector<double> isotonic(const std::vector<double>& target, const std::vector<double>& weight) {
    struct Block {
        double sum;
        double weight;
        size_t count;
        double mean() const { return sum / weight; }
    };
    std::vector<Block> blocks;
    blocks.reserve(target.size());
    for (size_t i = 0; i < target.size(); ++i) {
        blocks.push_back({target[i] * weight[i], weight[i], 1});
        while (blocks.size() >= 2 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
            const Block top = blocks.back();
            blocks.pop_back();
            blocks.back().sum += top.sum;
            blocks.back().weight += top.weight;
            blocks.back().count += top.count;
        }
    }
    std::vector<double> out;
    out.reserve(target.size());
    for (const Block& b : blocks)
        out.insert(out.end(), b.count, b.mean());
    return out;
}

} // namespace

LayoutSolution LayeredLayout::run(const LayoutProblem& problem, const CancelCheck& cancelled) {
    LayoutSolution out;
    const size_t n = problem.sizes.size();
    auto stop = [&cancelled] { return cancelled && cancelled(); };
    if (std::string error = problemError(problem); !error.empty()) {
        out.error = std::move(error); // an index out of range would crash below
        return out;
    }
    if (n == 0) {
        out.ok = true;
        return out;
    }

    // Rank along item order: an edge always goes from the lower to the higher index
    // (items come in graph order, so this is the data flow except across groups).
    std::vector<std::pair<int, int>> down;
    std::vector<std::pair<int, int>> up;
    down.reserve(problem.edges.size());
    up.reserve(problem.edges.size());
    for (const auto& [from, to] : problem.edges) {
        if (from == to)
            continue;
        const int lo = std::min(from, to);
        const int hi = std::max(from, to);
        down.emplace_back(lo, hi);
        up.emplace_back(hi, lo);
    }
    const Adjacency succs = buildAdjacency(n, down);
    const Adjacency preds = buildAdjacency(n, up);

    std::vector<int> rank(n, 0);
    for (int v = 0; v < static_cast<int>(n); ++v) {
        for (int k = preds.begin(v); k < preds.end(v); ++k)
            rank[static_cast<size_t>(v)] =
                std::max(rank[static_cast<size_t>(v)], rank[static_cast<size_t>(preds.at(k))] + 1);
    }
    // Sources (inputs, weights) sit just above their first user, not all in row 0.
    for (int v = 0; v < static_cast<int>(n); ++v) {
        if (!preds.empty(v) || succs.empty(v))
            continue;
        int lowest = std::numeric_limits<int>::max();
        for (int k = succs.begin(v); k < succs.end(v); ++k)
            lowest = std::min(lowest, rank[static_cast<size_t>(succs.at(k))]);
        rank[static_cast<size_t>(v)] = std::max(0, lowest - 1);
    }
    const int ranks = *std::max_element(rank.begin(), rank.end()) + 1;
    std::vector<std::vector<int>> layers(static_cast<size_t>(ranks));
    for (int v = 0; v < static_cast<int>(n); ++v)
        layers[static_cast<size_t>(rank[static_cast<size_t>(v)])].push_back(v);
    if (stop())
        return out;

    // Ordering: barycentre sweeps in a frame where every layer is centred on 0.
    std::vector<double> centred(n, 0);
    auto updatePositions = [&](const std::vector<int>& layer) {
        const double middle = (static_cast<double>(layer.size()) - 1) / 2.0;
        for (size_t i = 0; i < layer.size(); ++i)
            centred[static_cast<size_t>(layer[i])] = static_cast<double>(i) - middle;
    };
    for (const auto& layer : layers)
        updatePositions(layer);
    std::vector<double> key(n, 0);
    auto sortLayer = [&](std::vector<int>& layer, const Adjacency& adj) {
        for (int v : layer) {
            double sum = 0;
            int count = 0;
            for (int k = adj.begin(v); k < adj.end(v); ++k) {
                sum += centred[static_cast<size_t>(adj.at(k))];
                ++count;
            }
            key[static_cast<size_t>(v)] = count ? sum / count : centred[static_cast<size_t>(v)];
        }
        std::stable_sort(layer.begin(), layer.end(), [&key](int a, int b) {
            return key[static_cast<size_t>(a)] < key[static_cast<size_t>(b)];
        });
        updatePositions(layer);
    };
    for (int sweep = 0; sweep < 4; ++sweep) {
        if (sweep % 2 == 0) {
            for (int r = 1; r < ranks; ++r)
                sortLayer(layers[static_cast<size_t>(r)], preds);
        } else {
            for (int r = ranks - 2; r >= 0; --r)
                sortLayer(layers[static_cast<size_t>(r)], succs);
        }
        if (stop())
            return out;
    }

    // x: top-down, each box as close as the separation allows to the median of its
    // predecessors that are not sources. Sources (weights, inputs) sit beside the
    // chain and yield to it (tiny weight); otherwise every weight placed next to a
    // linear would push the chain half a box sideways, block after block.
    std::vector<double> x(n, 0);
    std::vector<char> source(n, 0);
    for (int v = 0; v < static_cast<int>(n); ++v)
        source[static_cast<size_t>(v)] = preds.empty(v) ? 1 : 0;
    std::vector<double> around;
    auto median = [&around] {
        std::sort(around.begin(), around.end());
        const size_t m = around.size();
        return m % 2 ? around[m / 2] : (around[m / 2 - 1] + around[m / 2]) / 2;
    };
    // fromPreds: the top-down pass; otherwise sources move to their users and the rest stay.
    auto placeLayer = [&](const std::vector<int>& layer, bool fromPreds) {
        const size_t m = layer.size();
        std::vector<double> offset(m, 0);
        for (size_t i = 1; i < m; ++i) {
            const double a = problem.sizes[static_cast<size_t>(layer[i - 1])].width;
            const double b = problem.sizes[static_cast<size_t>(layer[i])].width;
            offset[i] = offset[i - 1] + (a + b) / 2.0 + kNodeGap;
        }
        const double half = m ? offset[m - 1] / 2.0 : 0;
        std::vector<double> target(m);
        std::vector<double> weight(m);
        for (size_t i = 0; i < m; ++i) {
            const int v = layer[i];
            around.clear();
            double desired = offset[i] - half;
            double w = 1e-3;
            if (fromPreds) {
                for (int k = preds.begin(v); k < preds.end(v); ++k) {
                    if (!source[static_cast<size_t>(preds.at(k))])
                        around.push_back(x[static_cast<size_t>(preds.at(k))]);
                }
                if (around.empty()) {
                    for (int k = preds.begin(v); k < preds.end(v); ++k)
                        around.push_back(x[static_cast<size_t>(preds.at(k))]);
                }
                if (!around.empty()) {
                    desired = median();
                    w = 1.0;
                }
            } else if (source[static_cast<size_t>(v)] && !succs.empty(v)) {
                for (int k = succs.begin(v); k < succs.end(v); ++k)
                    around.push_back(x[static_cast<size_t>(succs.at(k))]);
                desired = median();
                w = 1e-3;
            } else {
                desired = x[static_cast<size_t>(v)];
                w = 1.0;
            }
            target[i] = desired - offset[i];
            weight[i] = w;
        }
        const std::vector<double> fitted = isotonic(target, weight);
        for (size_t i = 0; i < m; ++i)
            x[static_cast<size_t>(layer[i])] = fitted[i] + offset[i];
    };
    for (const auto& layer : layers)
        placeLayer(layer, true);
    if (stop())
        return out;
    for (int r = ranks - 1; r >= 0; --r)
        placeLayer(layers[static_cast<size_t>(r)], false);
    if (stop())
        return out;

    // y: rows as tall as their tallest box.
    std::vector<double> rowTop(static_cast<size_t>(ranks), 0);
    std::vector<double> rowHeight(static_cast<size_t>(ranks), 0);
    for (size_t v = 0; v < n; ++v)
        rowHeight[static_cast<size_t>(rank[v])] =
            std::max(rowHeight[static_cast<size_t>(rank[v])], problem.sizes[v].height);
    for (int r = 1; r < ranks; ++r)
        rowTop[static_cast<size_t>(r)] =
            rowTop[static_cast<size_t>(r) - 1] + rowHeight[static_cast<size_t>(r) - 1] + kRankGap;

    double minX = std::numeric_limits<double>::max();
    double maxX = std::numeric_limits<double>::lowest();
    for (size_t v = 0; v < n; ++v) {
        minX = std::min(minX, x[v] - problem.sizes[v].width / 2);
        maxX = std::max(maxX, x[v] + problem.sizes[v].width / 2);
    }
    out.centres.resize(n);
    for (size_t v = 0; v < n; ++v) {
        const size_t r = static_cast<size_t>(rank[v]);
        out.centres[v] = Point{x[v] - minX, rowTop[r] + rowHeight[r] / 2.0};
    }
    out.curves.reserve(problem.edges.size());
    for (const auto& [from, to] : problem.edges) {
        const Point a = out.centres[static_cast<size_t>(from)];
        const Point b = out.centres[static_cast<size_t>(to)];
        const double ha = problem.sizes[static_cast<size_t>(from)].height / 2;
        const double hb = problem.sizes[static_cast<size_t>(to)].height / 2;
        const bool downwards = b.y >= a.y;
        const Point start{a.x, downwards ? a.y + ha : a.y - ha};
        const Point end{b.x, downwards ? b.y - hb : b.y + hb};
        const double bend = (end.y - start.y) / 2;
        out.curves.push_back(
            Curve{start, Point{start.x, start.y + bend}, Point{end.x, end.y - bend}, end});
    }
    out.bounds = Rect{0, 0, maxX - minX, rowTop.back() + rowHeight.back()};
    out.ok = true;
    return out;
}

} // namespace cs::layout
