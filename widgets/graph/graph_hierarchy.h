// Groups the nodes of one FX graph for level of detail: by module path
// (nn_module_stack); where a level is flat, by the user's source line (a loop
// body becomes "model.py:12 ×1,500"), then by runs of consecutive nodes, so
// that no group has more than `fanout` children. The view lays out only
// what is expanded. Immutable once built; shared with layout threads.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/report/session.h"
#include "widgets/graph/node_kind.h"

namespace cs::widgets {

// Sorted, unique ids of the expanded groups (the root, 0, is always expanded).
using Expansion = std::vector<int>;

// What is on screen for one expansion: items are nodes or collapsed groups, in
// depth-first order, so every expanded group covers a contiguous item range.
struct VisibleGraph {
    struct Item {
        bool group = false;
        int index = 0; // node index, or group id
    };
    struct Edge {
        int from = 0; // item indices
        int to = 0;
        int count = 1; // node-level edges merged into this one
    };
    struct Cluster {
        int group = 0;
        int parent = -1; // index into clusters, -1 at the top
        int depth = 1;
        int firstItem = 0;
        int endItem = 0;
    };
    std::vector<Item> items;
    std::vector<Edge> edges;
    std::vector<Cluster> clusters; // expanded groups other than the root, pre-order
    std::vector<int> itemOfNode;   // node index → the item that shows it
};

class GraphHierarchy {
  public:
    struct Child {
        bool group = false;
        int index = 0;
    };
    struct Group {
        int parent = -1;
        int depth = 0;
        std::string label; // "encoder", "layers.0.attn", "model.py:12 ×1,500", "nodes 120–167"
        std::string path;  // module path ("" at the top)
        bool run = false;  // a run of consecutive nodes, not a module
        int line = 0;      // > 0: the nodes of one source line (file:line), not a module
        std::vector<Child> children;
        int firstNode = 0;
        int lastNode = 0;
        int nodeCount = 0;
        std::array<int, static_cast<size_t>(NodeKind::Count)> kinds{};
    };

    static constexpr int kDefaultFanout = 40;

    explicit GraphHierarchy(std::shared_ptr<const core::Graph> graph, int fanout = kDefaultFanout);

    const core::Graph& graph() const { return *graph_; }
    int nodeCount() const { return static_cast<int>(graph_->nodes.size()); }
    const core::GraphNode& node(int index) const {
        return graph_->nodes[static_cast<size_t>(index)];
    }
    NodeKind kindOf(int node) const { return kinds_[static_cast<size_t>(node)]; }
    const std::vector<int>& inputsOf(int node) const { return inputs_[static_cast<size_t>(node)]; }
    const std::vector<int>& usersOf(int node) const { return users_[static_cast<size_t>(node)]; }
    int groupCount() const { return static_cast<int>(groups_.size()); }
    const Group& group(int id) const { return groups_[static_cast<size_t>(id)]; }
    // Groups that must be expanded to show a node or a group, outermost first, root excluded.
    std::vector<int> ancestors(int node) const;
    std::vector<int> groupAncestors(int id) const;
    int findNode(const std::string& name) const;
    // The two most frequent op families, as "12 matmul / linear, 30 elementwise".
    std::string kindSummary(int id) const;

    // Breadth-first, expand groups while the number of visible items stays within budget.
    Expansion defaultExpansion(int budget) const;
    Expansion fullExpansion() const;
    VisibleGraph visible(const Expansion& expanded) const;

  private:
    void buildModuleGroups();
    void groupByLine(int g, int fanout);
    void chunkWideGroups(int fanout);
    void finishGroups();

    std::shared_ptr<const core::Graph> graph_;
    std::vector<NodeKind> kinds_;
    std::vector<std::vector<int>> inputs_;
    std::vector<std::vector<int>> users_;
    std::vector<int> owner_;
    std::vector<Group> groups_;
    std::unordered_map<std::string, int> byName_;
};

} // namespace cs::widgets
