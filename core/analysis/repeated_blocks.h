// The repeated block of a model, read from its captured graphs' module paths
// (encoder.layer.0, encoder.layer.1, ...): what regional compilation would
// compile once instead of the whole model. Qt-free.
#pragma once

#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

struct RepeatedBlocks {
    // The lists holding the blocks ("encoder.layer"; several when stages of a
    // model each hold blocks of the same structure: "features.1", "features.3").
    std::vector<std::string> containers;
    int blocks = 0;        // blocks of that structure in all of them
    size_t nodes = 0;      // op nodes inside those blocks
    size_t totalNodes = 0; // op nodes with a module path, all graphs
    bool found() const { return blocks >= 2; }
};

// The block repeated most (by graph nodes covered): children of a module list
// whose graph nodes match node for node (module below the child, op, target,
// shape, dtype), so that regional compilation would reuse one compiled graph
// for all of them. Leaf lists (Sequential(Linear, GELU, Linear)) do not count:
// a block holds submodules.
RepeatedBlocks repeatedBlocks(const Run& run);

// A Python loop Dynamo unrolled into one graph: the same op of the same
// module at the same line, once per iteration (a GRUCell stepped over 200
// time steps: 200 gru_cell nodes at one line, each of module "cell"). A
// stack of layers is not one: each layer's ops carry their own module path.
struct UnrolledLoop {
    int graph = -1;   // index into run.graphs
    std::string file; // the loop body's line that repeats most
    int line = 0;
    int iterations = 0;    // how many times its op repeats
    size_t loopNodes = 0;  // op nodes on lines that repeat as often
    size_t totalNodes = 0; // op nodes of that graph
    bool found() const { return graph >= 0; }
};

// The graph with the largest unrolled loop: at least 16 iterations, whose
// lines hold at least half the graph's op nodes; none found otherwise.
UnrolledLoop unrolledLoop(const Run& run);

// "encoder.layer" → "model.encoder.layer", "features.5" → "model.features[5]":
// the path as Python reaches it from the model object.
std::string modulePathCode(const std::string& path, const std::string& root = "model");

} // namespace cs::core
