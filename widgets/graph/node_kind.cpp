#include "widgets/graph/node_kind.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace cs::widgets {

namespace {

// "torch._C._nn.linear" → "linear"; "<built-in function add>" → "add";
// "aten.mm.default" → "mm"; "relu_" → "relu".
std::string baseName(std::string_view target) {
    std::string text(target);
    if (text.size() > 2 && text.front() == '<' && text.back() == '>') {
        const auto space = text.find_last_of(' ');
        text = text.substr(space == std::string::npos ? 1 : space + 1);
        text.pop_back();
    }
    for (const char* suffix : {".default", ".Tensor", ".Scalar", ".int", ".dim", ".self"}) {
        const std::string s(suffix);
        if (text.size() > s.size() && text.compare(text.size() - s.size(), s.size(), s) == 0)
            text.resize(text.size() - s.size());
    }
    if (const auto dot = text.find_last_of('.'); dot != std::string::npos)
        text = text.substr(dot + 1);
    while (text.size() > 1 && text.front() == '_')
        text.erase(text.begin());
    while (text.size() > 1 && text.back() == '_')
        text.pop_back();
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

bool oneOf(const std::string& name, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

bool startsWith(const std::string& name, std::string_view prefix) {
    return name.compare(0, prefix.size(), prefix) == 0;
}

} // namespace

NodeKind callFamily(std::string_view target) {
    const std::string name = baseName(target);
    if (startsWith(name, "conv"))
        return NodeKind::Conv;
    if (oneOf(name, {"linear", "matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "addmv", "mv",
                     "dot", "einsum", "bilinear", "scaled_dot_product_attention", "_mm_plus_mm"}) ||
        name.find("attention") != std::string::npos)
        return NodeKind::MatMul;
    if (oneOf(name, {"sum",
                     "mean",
                     "max",
                     "min",
                     "amax",
                     "amin",
                     "argmax",
                     "argmin",
                     "prod",
                     "var",
                     "std",
                     "var_mean",
                     "norm",
                     "softmax",
                     "log_softmax",
                     "logsumexp",
                     "cumsum",
                     "cumprod",
                     "any",
                     "all",
                     "layer_norm",
                     "batch_norm",
                     "group_norm",
                     "instance_norm",
                     "rms_norm",
                     "native_layer_norm",
                     "native_batch_norm",
                     "topk",
                     "sort",
                     "median",
                     "count_nonzero"}))
        return NodeKind::Reduction;
    if (oneOf(name, {"view",
                     "reshape",
                     "permute",
                     "transpose",
                     "t",
                     "contiguous",
                     "flatten",
                     "unflatten",
                     "squeeze",
                     "unsqueeze",
                     "expand",
                     "expand_as",
                     "getitem",
                     "cat",
                     "concat",
                     "stack",
                     "chunk",
                     "split",
                     "narrow",
                     "select",
                     "slice",
                     "repeat",
                     "tile",
                     "unbind",
                     "view_as",
                     "movedim",
                     "as_strided",
                     "clone",
                     "index_select",
                     "gather",
                     "roll",
                     "flip",
                     "pad",
                     "split_with_sizes"}))
        return NodeKind::View;
    if (oneOf(name, {"add",          "sub",         "mul",         "div",         "truediv",
                     "floordiv",     "mod",         "neg",         "pos",         "abs",
                     "relu",         "relu6",       "gelu",        "silu",        "sigmoid",
                     "tanh",         "hardtanh",    "leaky_relu",  "elu",         "selu",
                     "mish",         "softplus",    "exp",         "log",         "log1p",
                     "sqrt",         "rsqrt",       "pow",         "erf",         "sin",
                     "cos",          "clamp",       "clip",        "where",       "masked_fill",
                     "dropout",      "to",          "float",       "half",        "bfloat16",
                     "type_as",      "eq",          "ne",          "lt",          "le",
                     "gt",           "ge",          "and",         "or",          "xor",
                     "invert",       "not",         "iadd",        "isub",        "imul",
                     "itruediv",     "reciprocal",  "square",      "lerp",        "addcmul",
                     "addcdiv",      "fill",        "zeros_like",  "ones_like",   "full_like",
                     "sign",         "floor",       "ceil",        "round",       "maximum",
                     "minimum",      "hardswish",   "hardsigmoid", "logical_not", "logical_and",
                     "logical_or",   "bitwise_and", "rsub",        "tril",        "triu",
                     "alpha_dropout"}))
        return NodeKind::Elementwise;
    return NodeKind::OtherCall;
}

NodeKind classifyNode(const core::GraphNode& node) {
    if (node.op == "placeholder")
        return NodeKind::Placeholder;
    if (node.op == "output")
        return NodeKind::Output;
    if (node.op == "get_attr")
        return NodeKind::GetAttr;
    if (node.op == "call_module")
        return NodeKind::Module;
    if (node.op == "call_function" || node.op == "call_method")
        return callFamily(node.target);
    return NodeKind::OtherCall;
}

QString nodeKindName(NodeKind kind) {
    switch (kind) {
    case NodeKind::Placeholder:
        return QStringLiteral("input (placeholder)");
    case NodeKind::MatMul:
        return QStringLiteral("matmul / linear");
    case NodeKind::Conv:
        return QStringLiteral("convolution");
    case NodeKind::Elementwise:
        return QStringLiteral("elementwise");
    case NodeKind::Reduction:
        return QStringLiteral("reduction / norm");
    case NodeKind::View:
        return QStringLiteral("view / reshape");
    case NodeKind::OtherCall:
        return QStringLiteral("other call");
    case NodeKind::Module:
        return QStringLiteral("module call");
    case NodeKind::GetAttr:
        return QStringLiteral("attribute");
    case NodeKind::Output:
        return QStringLiteral("output");
    case NodeKind::Group:
        return QStringLiteral("collapsed group");
    case NodeKind::Count:
        break;
    }
    return {};
}

QColor nodeKindColor(NodeKind kind) {
    static const std::array<QColor, static_cast<size_t>(NodeKind::Count)> colors = {
        QColor(0xd9, 0xd9, 0xd9), // placeholder: grey
        QColor(0xf4, 0xa5, 0x82), // matmul: salmon
        QColor(0xe7, 0x8a, 0xc3), // conv: pink
        QColor(0xa6, 0xd8, 0x54), // elementwise: green
        QColor(0x8d, 0xa0, 0xcb), // reduction: blue
        QColor(0xff, 0xd9, 0x2f), // view: yellow
        QColor(0xe5, 0xc4, 0x94), // other: tan
        QColor(0x66, 0xc2, 0xa5), // module: teal
        QColor(0xbe, 0xba, 0xda), // get_attr: lilac
        QColor(0xb3, 0xb3, 0xb3), // output: darker grey
        QColor(0xee, 0xee, 0xf4), // group
    };
    const auto i = static_cast<size_t>(kind);
    return i < colors.size() ? colors[i] : QColor(Qt::white);
}

} // namespace cs::widgets
