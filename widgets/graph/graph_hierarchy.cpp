#include "widgets/graph/graph_hierarchy.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <unordered_map>

namespace cs::widgets {

namespace {

struct TmpGroup {
    std::string label;
    std::string path;
    std::vector<GraphHierarchy::Child> children;
};

} // namespace

GraphHierarchy::GraphHierarchy(std::shared_ptr<const core::Graph> graph, int fanout)
    : graph_(std::move(graph)) {
    const auto& nodes = graph_->nodes;
    const size_t n = nodes.size();
    kinds_.resize(n);
    inputs_.resize(n);
    users_.resize(n);
    owner_.assign(n, 0);
    byName_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        kinds_[i] = classifyNode(nodes[i]);
        byName_.emplace(nodes[i].name, static_cast<int>(i));
    }
    for (size_t i = 0; i < n; ++i) {
        for (const auto& name : nodes[i].inputs) {
            // Inputs name earlier nodes; a name we do not know (or the node itself) is dropped.
            if (auto it = byName_.find(name);
                it != byName_.end() && it->second != static_cast<int>(i)) {
                inputs_[i].push_back(it->second);
                users_[static_cast<size_t>(it->second)].push_back(static_cast<int>(i));
            }
        }
    }
    buildModuleGroups();
    chunkWideGroups(std::max(fanout, 2));
    finishGroups();
}

void GraphHierarchy::buildModuleGroups() {
    // First a tree keyed by module path prefix; then copy it into groups_,
    // merging chains of single-child groups ("layers" → "0" → "attn" becomes "layers.0.attn").
    std::vector<TmpGroup> tmp(1);
    std::unordered_map<std::string, int> byPath;
    const auto& nodes = graph_->nodes;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string& module = nodes[i].module;
        int parent = 0;
        size_t start = 0;
        while (!module.empty() && start <= module.size()) {
            size_t dot = module.find('.', start);
            if (dot == std::string::npos)
                dot = module.size();
            const std::string path = module.substr(0, dot);
            auto it = byPath.find(path);
            if (it == byPath.end()) {
                const int id = static_cast<int>(tmp.size());
                tmp.push_back({module.substr(start, dot - start), path, {}});
                tmp[static_cast<size_t>(parent)].children.push_back({true, id});
                it = byPath.emplace(path, id).first;
            }
            parent = it->second;
            start = dot + 1;
        }
        tmp[static_cast<size_t>(parent)].children.push_back({false, static_cast<int>(i)});
    }

    groups_.clear();
    std::function<int(int, int)> copyGroup = [&](int tmpId, int parent) -> int {
        const TmpGroup* t = &tmp[static_cast<size_t>(tmpId)];
        std::string label = t->label;
        std::string path = t->path;
        while (tmpId != 0 && t->children.size() == 1 && t->children[0].group) {
            tmpId = t->children[0].index;
            t = &tmp[static_cast<size_t>(tmpId)];
            label += "." + t->label;
            path = t->path;
        }
        const int id = static_cast<int>(groups_.size());
        groups_.push_back({});
        groups_.back().parent = parent;
        groups_.back().label = std::move(label);
        groups_.back().path = std::move(path);
        std::vector<Child> children;
        children.reserve(t->children.size());
        for (const Child& c : t->children) {
            if (c.group) {
                children.push_back({true, copyGroup(c.index, id)});
            } else {
                owner_[static_cast<size_t>(c.index)] = id;
                children.push_back(c);
            }
        }
        groups_[static_cast<size_t>(id)].children = std::move(children);
        return id;
    };
    copyGroup(0, -1);
}

namespace {

std::string withThousands(int value) {
    std::string digits = std::to_string(value);
    for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
        digits.insert(static_cast<size_t>(at), ",");
    return digits;
}

std::string fileName(const std::string& path) {
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

void GraphHierarchy::groupByLine(int g, int fanout) {
    // A wide level of nodes is grouped by the source line that made them, when
    // lines say more than positions: some line made several nodes, and not all.
    const std::vector<Child> children = groups_[static_cast<size_t>(g)].children;
    if (static_cast<int>(children.size()) <= fanout)
        return;
    std::map<std::pair<std::string, int>, std::vector<int>> byLine;
    for (const Child& c : children) {
        const core::GraphNode& n = node(c.index);
        if (!c.group && n.line > 0 && !n.file.empty())
            byLine[{n.file, n.line}].push_back(c.index);
    }
    const bool repeats = std::any_of(byLine.begin(), byLine.end(),
                                     [](const auto& entry) { return entry.second.size() > 1; });
    if (byLine.size() < 2 || !repeats)
        return;
    std::map<std::pair<std::string, int>, int> made; // line → its group, made at its first node
    std::vector<Child> level;
    for (const Child& c : children) {
        if (c.group || node(c.index).line <= 0 || node(c.index).file.empty()) {
            level.push_back(c);
            continue;
        }
        const core::GraphNode& n = node(c.index);
        const auto key = std::make_pair(n.file, n.line);
        const std::vector<int>& members = byLine.at(key);
        if (members.size() == 1) {
            level.push_back(c);
            continue;
        }
        if (made.count(key) != 0)
            continue;
        const int id = static_cast<int>(groups_.size());
        Group group;
        group.parent = g;
        group.line = n.line;
        group.path = groups_[static_cast<size_t>(g)].path;
        group.label = fileName(n.file) + ":" + std::to_string(n.line) + " ×" +
                      withThousands(static_cast<int>(members.size()));
        for (int member : members) {
            group.children.push_back({false, member});
            owner_[static_cast<size_t>(member)] = id;
        }
        groups_.push_back(std::move(group));
        made.emplace(key, id);
        level.push_back({true, id});
    }
    groups_[static_cast<size_t>(g)].children = std::move(level);
}

void GraphHierarchy::chunkWideGroups(int fanout) {
    const int original = static_cast<int>(groups_.size());
    for (int g = 0; g < original; ++g)
        groupByLine(g, fanout);
    // The line groups just made may be wide too: they are chunked with the rest.
    const int withLines = static_cast<int>(groups_.size());
    for (int g = 0; g < withLines; ++g) {
        std::vector<Child> level = groups_[static_cast<size_t>(g)].children;
        while (static_cast<int>(level.size()) > fanout) {
            const size_t count =
                (level.size() + static_cast<size_t>(fanout) - 1) / static_cast<size_t>(fanout);
            const size_t size = (level.size() + count - 1) / count;
            std::vector<Child> next;
            for (size_t begin = 0; begin < level.size(); begin += size) {
                const size_t end = std::min(level.size(), begin + size);
                if (end - begin == 1) {
                    next.push_back(level[begin]);
                    continue;
                }
                const int run = static_cast<int>(groups_.size());
                Group group;
                group.parent = g;
                group.run = true;
                group.path = groups_[static_cast<size_t>(g)].path;
                group.children.assign(level.begin() + static_cast<std::ptrdiff_t>(begin),
                                      level.begin() + static_cast<std::ptrdiff_t>(end));
                for (const Child& c : group.children) {
                    if (c.group)
                        groups_[static_cast<size_t>(c.index)].parent = run;
                    else
                        owner_[static_cast<size_t>(c.index)] = run;
                }
                groups_.push_back(std::move(group));
                next.push_back({true, run});
            }
            level = std::move(next);
        }
        groups_[static_cast<size_t>(g)].children = std::move(level);
    }
}

void GraphHierarchy::finishGroups() {
    // Depth, node ranges and kind counts, children before parents.
    std::function<void(int, int)> visit = [&](int id, int depth) {
        Group& g = groups_[static_cast<size_t>(id)];
        g.depth = depth;
        g.firstNode = nodeCount();
        g.lastNode = -1;
        g.nodeCount = 0;
        g.kinds.fill(0);
        for (const Child& c : g.children) {
            if (c.group) {
                visit(c.index, depth + 1);
                const Group& sub = groups_[static_cast<size_t>(c.index)];
                g.firstNode = std::min(g.firstNode, sub.firstNode);
                g.lastNode = std::max(g.lastNode, sub.lastNode);
                g.nodeCount += sub.nodeCount;
                for (size_t k = 0; k < g.kinds.size(); ++k)
                    g.kinds[k] += sub.kinds[k];
            } else {
                g.firstNode = std::min(g.firstNode, c.index);
                g.lastNode = std::max(g.lastNode, c.index);
                g.nodeCount += 1;
                g.kinds[static_cast<size_t>(kinds_[static_cast<size_t>(c.index)])] += 1;
            }
        }
        if (g.run) {
            // A run of modules is named by its first and last module, a run of nodes by index.
            const Child& first = g.children.front();
            const Child& last = g.children.back();
            if (first.group && last.group && !groups_[static_cast<size_t>(first.index)].run &&
                !groups_[static_cast<size_t>(last.index)].run)
                g.label = groups_[static_cast<size_t>(first.index)].label + " … " +
                          groups_[static_cast<size_t>(last.index)].label;
            else
                g.label = "nodes " + std::to_string(g.firstNode) + "–" + std::to_string(g.lastNode);
        }
    };
    visit(0, 0);
}

std::vector<int> GraphHierarchy::ancestors(int node) const {
    if (node < 0 || node >= nodeCount())
        return {};
    return groupAncestors(owner_[static_cast<size_t>(node)]);
}

std::vector<int> GraphHierarchy::groupAncestors(int id) const {
    std::vector<int> chain;
    for (int g = id; g > 0; g = groups_[static_cast<size_t>(g)].parent)
        chain.push_back(g);
    std::reverse(chain.begin(), chain.end());
    return chain;
}

int GraphHierarchy::findNode(const std::string& name) const {
    auto it = byName_.find(name);
    return it == byName_.end() ? -1 : it->second;
}

std::string GraphHierarchy::kindSummary(int id) const {
    const Group& g = group(id);
    std::vector<std::pair<int, size_t>> counts;
    // Inputs and the output say little about what a group computes; ops first.
    for (size_t k = 0; k < g.kinds.size(); ++k) {
        const auto kind = static_cast<NodeKind>(k);
        if (g.kinds[k] > 0 && kind != NodeKind::Placeholder && kind != NodeKind::Output)
            counts.emplace_back(g.kinds[k], k);
    }
    if (counts.empty()) {
        for (size_t k = 0; k < g.kinds.size(); ++k) {
            if (g.kinds[k] > 0)
                counts.emplace_back(g.kinds[k], k);
        }
    }
    std::stable_sort(counts.begin(), counts.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string text;
    for (size_t i = 0; i < counts.size() && i < 2; ++i) {
        if (i)
            text += " · ";
        text += std::to_string(counts[i].first) + " " +
                nodeKindName(static_cast<NodeKind>(counts[i].second)).toStdString();
    }
    return text;
}

Expansion GraphHierarchy::defaultExpansion(int budget) const {
    Expansion expanded{0};
    int visibleCount = static_cast<int>(groups_[0].children.size());
    std::deque<int> queue;
    for (const Child& c : groups_[0].children) {
        if (c.group)
            queue.push_back(c.index);
    }
    while (!queue.empty()) {
        const int id = queue.front();
        queue.pop_front();
        const Group& g = groups_[static_cast<size_t>(id)];
        const int cost = static_cast<int>(g.children.size()) - 1;
        if (visibleCount + cost > budget)
            continue;
        visibleCount += cost;
        expanded.push_back(id);
        for (const Child& c : g.children) {
            if (c.group)
                queue.push_back(c.index);
        }
    }
    std::sort(expanded.begin(), expanded.end());
    return expanded;
}

Expansion GraphHierarchy::fullExpansion() const {
    Expansion all(groups_.size());
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = static_cast<int>(i);
    return all;
}

VisibleGraph GraphHierarchy::visible(const Expansion& expanded) const {
    std::vector<char> open(groups_.size(), 0);
    open[0] = 1;
    for (int id : expanded) {
        if (id >= 0 && id < groupCount())
            open[static_cast<size_t>(id)] = 1;
    }
    VisibleGraph out;
    out.itemOfNode.assign(static_cast<size_t>(nodeCount()), -1);

    std::function<void(int, int)> markNodes = [&](int id, int item) {
        for (const Child& c : groups_[static_cast<size_t>(id)].children) {
            if (c.group)
                markNodes(c.index, item);
            else
                out.itemOfNode[static_cast<size_t>(c.index)] = item;
        }
    };
    std::function<void(int, int, int)> visit = [&](int id, int cluster, int depth) {
        for (const Child& c : groups_[static_cast<size_t>(id)].children) {
            const int item = static_cast<int>(out.items.size());
            if (!c.group) {
                out.itemOfNode[static_cast<size_t>(c.index)] = item;
                out.items.push_back({false, c.index});
            } else if (open[static_cast<size_t>(c.index)]) {
                const int index = static_cast<int>(out.clusters.size());
                out.clusters.push_back({c.index, cluster, depth, item, item});
                visit(c.index, index, depth + 1);
                out.clusters[static_cast<size_t>(index)].endItem =
                    static_cast<int>(out.items.size());
            } else {
                out.items.push_back({true, c.index});
                markNodes(c.index, item);
            }
        }
    };
    visit(0, -1, 1);

    std::unordered_map<uint64_t, int> merged;
    merged.reserve(static_cast<size_t>(nodeCount()));
    for (int node = 0; node < nodeCount(); ++node) {
        const int to = out.itemOfNode[static_cast<size_t>(node)];
        for (int input : inputs_[static_cast<size_t>(node)]) {
            const int from = out.itemOfNode[static_cast<size_t>(input)];
            if (from == to || from < 0 || to < 0)
                continue;
            const uint64_t key = (static_cast<uint64_t>(from) << 32) | static_cast<uint32_t>(to);
            merged[key] += 1;
        }
    }
    out.edges.reserve(merged.size());
    for (const auto& [key, count] : merged)
        out.edges.push_back(
            {static_cast<int>(key >> 32), static_cast<int>(key & 0xffffffffu), count});
    std::sort(out.edges.begin(), out.edges.end(), [](const auto& a, const auto& b) {
        return a.from != b.from ? a.from < b.from : a.to < b.to;
    });
    return out;
}

} // namespace cs::widgets
