#include "widgets/graph/graph_search.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace cs::widgets {

namespace {

bool containsFolded(const std::string& haystack, const std::string& needle) {
    const auto it = std::search(
        haystack.begin(), haystack.end(), needle.begin(), needle.end(),
        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    return it != haystack.end();
}

} // namespace

int GraphSearch::setQuery(std::shared_ptr<const GraphHierarchy> hierarchy, const QString& text) {
    query_ = text;
    matches_.clear();
    position_ = -1;
    const std::string needle = text.trimmed().toLower().toStdString();
    if (!hierarchy || needle.empty())
        return 0;
    for (int i = 0; i < hierarchy->nodeCount(); ++i) {
        const auto& node = hierarchy->node(i);
        if (containsFolded(node.name, needle) || containsFolded(node.target, needle) ||
            containsFolded(node.op, needle))
            matches_.push_back(i);
    }
    if (!matches_.empty())
        position_ = 0;
    return count();
}

void GraphSearch::clear() {
    query_.clear();
    matches_.clear();
    position_ = -1;
}

int GraphSearch::currentNode() const {
    return position_ >= 0 ? matches_[static_cast<size_t>(position_)] : -1;
}

int GraphSearch::next() {
    if (matches_.empty())
        return -1;
    position_ = (position_ + 1) % count();
    return currentNode();
}

int GraphSearch::previous() {
    if (matches_.empty())
        return -1;
    position_ = (position_ - 1 + count()) % count();
    return currentNode();
}

bool GraphSearch::setCurrentNode(int node) {
    const auto it = std::lower_bound(matches_.begin(), matches_.end(), node);
    if (it == matches_.end() || *it != node)
        return false;
    position_ = static_cast<int>(it - matches_.begin());
    return true;
}

} // namespace cs::widgets
