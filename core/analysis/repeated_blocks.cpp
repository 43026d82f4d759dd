#include "core/analysis/repeated_blocks.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace cs::core {

namespace {

std::vector<std::string> split(const std::string& path) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= path.size()) {
        const size_t dot = path.find('.', start);
        parts.push_back(
            path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return parts;
}

bool isIndex(const std::string& part) {
    return !part.empty() && std::all_of(part.begin(), part.end(),
                                        [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::string join(const std::vector<std::string>& parts, size_t from, size_t to) {
    std::string text;
    for (size_t i = from; i < to; ++i)
        text += (i > from ? "." : "") + parts[i];
    return text;
}

struct Child {
    // Each node's module below the child, op, target and shape, in graph
    // order: two children repeat only when these match node for node, as
    // regional compilation reuses a block's graph only for the same code on
    // the same shapes (Swin's stages differ in width, its shifted blocks in
    // ops: compiled as blocks they made 7 graphs, 3.4x the whole model's compile).
    std::string signature;
    bool holdsModules = false;
    size_t nodes = 0;
};

} // namespace

RepeatedBlocks repeatedBlocks(const Run& run) {
    RepeatedBlocks best;
    // container → child index → what lies under it
    std::map<std::string, std::map<std::string, Child>> lists;
    for (const auto& graph : run.graphs) {
        for (const auto& node : graph.nodes) {
            // Only the ops: a placeholder's target names its block's parameter
            // (L_self_modules_blocks_modules_0_...), and the graph's input is
            // placed in the first block that uses it.
            if (node.module.empty() || node.op == "placeholder" || node.op == "get_attr" ||
                node.op == "output")
                continue;
            ++best.totalNodes;
            const auto parts = split(node.module);
            for (size_t i = 1; i < parts.size(); ++i) {
                if (!isIndex(parts[i]))
                    continue;
                Child& child = lists[join(parts, 0, i)][parts[i]];
                const std::string inner = join(parts, i + 1, parts.size());
                child.signature += inner + '|' + node.op + '|' + node.target + '|' + node.shape +
                                   '|' + node.dtype + '\n';
                child.holdsModules = child.holdsModules || !inner.empty();
                ++child.nodes;
            }
        }
    }
    // One block may repeat in several lists.
    struct Kind {
        std::vector<std::string> containers;
        int blocks = 0;
        size_t nodes = 0;
    };
    std::map<std::string, Kind> kinds;
    for (const auto& [container, children] : lists) {
        std::map<std::string, std::pair<int, size_t>> inList;
        for (const auto& [index, child] : children) {
            if (!child.holdsModules)
                continue;
            auto& [count, nodes] = inList[child.signature];
            ++count;
            nodes += child.nodes;
        }
        for (const auto& [signature, counted] : inList) {
            if (counted.first < 2 && children.size() > 1)
                continue; // a one-off child, not a repeat (a list of one still counts below)
            Kind& kind = kinds[signature];
            kind.containers.push_back(container);
            kind.blocks += counted.first;
            kind.nodes += counted.second;
        }
    }
    for (const auto& [signature, kind] : kinds) {
        // Most nodes covered; on a tie, the smaller unit (more blocks).
        if (kind.blocks >= 2 &&
            (kind.nodes > best.nodes || (kind.nodes == best.nodes && kind.blocks > best.blocks))) {
            best.containers = kind.containers;
            best.blocks = kind.blocks;
            best.nodes = kind.nodes;
        }
    }
    return best;
}

std::string modulePathCode(const std::string& path, const std::string& root) {
    std::string code = root;
    for (const auto& part : split(path)) {
        if (part.empty())
            continue;
        code += isIndex(part) ? "[" + part + "]" : "." + part;
    }
    return code;
}

namespace {

constexpr int kMinIterations = 16;
constexpr double kLoopShare = 0.5;

bool isOpNode(const GraphNode& node) {
    return node.op == "call_function" || node.op == "call_method" || node.op == "call_module";
}

} // namespace

UnrolledLoop unrolledLoop(const Run& run) {
    UnrolledLoop best;
    for (size_t g = 0; g < run.graphs.size(); ++g) {
        const Graph& graph = run.graphs[g];
        std::map<std::tuple<std::string, int, std::string, std::string>, int> repeats;
        std::map<std::pair<std::string, int>, size_t> nodesAt;
        std::map<std::pair<std::string, int>, size_t> firstAt; // the body's first line runs first
        size_t total = 0;
        for (const auto& node : graph.nodes) {
            if (!isOpNode(node) || node.file.empty() || node.line <= 0)
                continue;
            firstAt.try_emplace({node.file, node.line}, total);
            ++total;
            ++repeats[{node.file, node.line, node.target, node.module}];
            ++nodesAt[{node.file, node.line}];
        }
        // Per line, the op that repeats most there.
        std::map<std::pair<std::string, int>, int> mostAt;
        for (const auto& [key, count] : repeats) {
            int& most = mostAt[{std::get<0>(key), std::get<1>(key)}];
            most = std::max(most, count);
        }
        std::pair<std::string, int> top;
        int iterations = 0;
        for (const auto& [at, most] : mostAt) {
            if (most > iterations || (most == iterations && firstAt.at(at) < firstAt.at(top))) {
                top = at;
                iterations = most;
            }
        }
        if (iterations < kMinIterations)
            continue;
        size_t inLoop = 0;
        for (const auto& [at, most] : mostAt) {
            if (most == iterations)
                inLoop += nodesAt[at];
        }
        if (static_cast<double>(inLoop) < kLoopShare * static_cast<double>(total) ||
            (best.found() && inLoop <= best.loopNodes))
            continue;
        best = {static_cast<int>(g), top.first, top.second, iterations, inLoop, total};
    }
    return best;
}

} // namespace cs::core
