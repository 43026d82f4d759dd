// Search of one graph's nodes by name, op or target (case-insensitive
// substring), with a current match that next/previous move through in graph
// order, wrapping at the ends. Searches every node, collapsed or not.
#pragma once

#include <QString>

#include <memory>
#include <vector>

#include "widgets/graph/graph_hierarchy.h"

namespace cs::widgets {

class GraphSearch {
  public:
    // Returns the number of matches; the current match is the first one (or none).
    int setQuery(std::shared_ptr<const GraphHierarchy> hierarchy, const QString& text);
    void clear();

    const QString& query() const { return query_; }
    const std::vector<int>& matches() const { return matches_; }
    int count() const { return static_cast<int>(matches_.size()); }
    int position() const { return position_; } // 0-based, -1 when there is no match
    int currentNode() const;
    int next();
    int previous();
    // Makes the match at this node current, when it is one.
    bool setCurrentNode(int node);

  private:
    QString query_;
    std::vector<int> matches_;
    int position_ = -1;
};

} // namespace cs::widgets
