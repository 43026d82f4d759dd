// Reads the readable graph torch writes in a dynamo_output_graph record
// (GraphModule.print_readable: one statement per node with a type
// annotation "f32[2, 5][5, 1]cpu", grouped under "# File: path:line in fn"
// comments) back into graph nodes.
#pragma once

#include <string_view>
#include <vector>

#include "core/report/session.h"

namespace cs::core::trace {

// The top-level forward's nodes: placeholders, one node per assignment, the
// output. Nested submodules (control-flow bodies) are not part of it.
std::vector<GraphNode> parseGraphText(std::string_view text);

// "f32[2, 5][5, 1]cpu" -> dtype "float32", shape "[2, 5]"; "Sym(s77)" -> shape
// "Sym(s77)", dtype "". False when the text is no tensor or symbol annotation.
bool parseTypeAnnotation(std::string_view annotation, std::string& shape, std::string& dtype);

} // namespace cs::core::trace
