// What kind of operation an FX node is, for colouring the graph view: the op
// kind, and for calls the op family (matmul, conv, elementwise...).
#pragma once

#include <QColor>
#include <QString>

#include <string_view>

#include "core/report/session.h"

namespace cs::widgets {

enum class NodeKind {
    Placeholder,
    MatMul,      // linear, matmul, mm, bmm, einsum, attention
    Conv,        // conv*, conv_transpose*
    Elementwise, // add, mul, relu, gelu, dropout, casts, comparisons
    Reduction,   // sum, mean, max, softmax, norms
    View,        // view, reshape, permute, getitem, cat: moves or reinterprets data
    OtherCall,
    Module, // call_module
    GetAttr,
    Output,
    Group, // a collapsed group of nodes in the view
    Count
};

// The family of a call target such as "torch._C._nn.linear", "_operator.mul" or "mean".
NodeKind callFamily(std::string_view target);
NodeKind classifyNode(const core::GraphNode& node);
QString nodeKindName(NodeKind kind);
// Fixed hues, light enough for dark text, so the legend means the same in any theme.
QColor nodeKindColor(NodeKind kind);

} // namespace cs::widgets
