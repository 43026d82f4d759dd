// The repeated block behind regional compilation, from graph module paths.
#include <gtest/gtest.h>

#include "core/analysis/repeated_blocks.h"

using cs::core::modulePathCode;
using cs::core::repeatedBlocks;

namespace {

// One graph whose nodes sit in the given modules, `count` nodes each, of shape
// [1, width] where a width is given.
struct Nodes {
    std::string module;
    int count;
    int width = 0;
};

cs::core::Run runOf(const std::vector<Nodes>& modules) {
    cs::core::Run run;
    cs::core::Graph graph;
    for (const auto& m : modules) {
        for (int i = 0; i < m.count; ++i) {
            cs::core::GraphNode node;
            node.name = m.module + "_" + std::to_string(i);
            node.module = m.module;
            node.op = "call_function";
            node.target = "aten.add";
            node.shape = m.width ? "[1, " + std::to_string(m.width) + "]" : "";
            graph.nodes.push_back(node);
        }
    }
    run.graphs.push_back(graph);
    return run;
}

TEST(RepeatedBlocks, AnEncodersLayersAreTheBlock) {
    // A BERT-like encoder: embeddings, two layers of the same structure, a pooler.
    const auto blocks = repeatedBlocks(runOf({{"embeddings", 6},
                                              {"embeddings.LayerNorm", 2},
                                              {"encoder.layer.0.attention.self", 20},
                                              {"encoder.layer.0.attention.self.query", 3},
                                              {"encoder.layer.0.output.dense", 3},
                                              {"encoder.layer.1.attention.self", 20},
                                              {"encoder.layer.1.attention.self.query", 3},
                                              {"encoder.layer.1.output.dense", 3},
                                              {"pooler.dense", 2}}));
    ASSERT_TRUE(blocks.found());
    EXPECT_EQ(blocks.containers, (std::vector<std::string>{"encoder.layer"}));
    EXPECT_EQ(blocks.blocks, 2);
    EXPECT_EQ(blocks.nodes, 52u);
    EXPECT_EQ(blocks.totalNodes, 62u);
}

TEST(RepeatedBlocks, ListsOfTheSameBlockOnTheSameShapesAreOneKind) {
    // Two lists of identical blocks on the same widths (an encoder and a
    // decoder stack of one layer type): one kind, six blocks.
    std::vector<Nodes> nodes{{"stem", 2, 64}};
    for (const std::string list : {"encoder.layers", "decoder.layers"})
        for (int b = 0; b < 3; ++b)
            for (const std::string part : {"attn", "mlp.fc1", "mlp.fc2"})
                nodes.push_back({list + "." + std::to_string(b) + "." + part, 4, 64});
    const auto blocks = repeatedBlocks(runOf(nodes));
    ASSERT_TRUE(blocks.found());
    EXPECT_EQ(blocks.containers, (std::vector<std::string>{"decoder.layers", "encoder.layers"}));
    EXPECT_EQ(blocks.blocks, 6);
    EXPECT_EQ(blocks.nodes, 72u);
}

TEST(RepeatedBlocks, BlocksThatDifferInShapeOrOpsAreNoRepeat) {
    // Swin: stages of blocks whose width doubles stage by stage, and within a
    // stage a plain and a shifted-window block (more ops). Compiled as blocks
    // they recompiled per variant: not the block regional compilation reuses.
    std::vector<Nodes> nodes;
    int width = 96;
    for (const std::string stage : {"features.1", "features.3", "features.5"}) {
        nodes.push_back({stage + ".0.attn", 10, width});
        nodes.push_back({stage + ".0.mlp.0", 1, width});
        nodes.push_back({stage + ".1.attn", 14, width});
        nodes.push_back({stage + ".1.mlp.0", 1, width});
        width *= 2;
    }
    EXPECT_FALSE(repeatedBlocks(runOf(nodes)).found());
    // The same blocks, but a stage of two equal ones: that stage is found.
    nodes.push_back({"features.7.0.attn", 10, 768});
    nodes.push_back({"features.7.0.mlp.0", 1, 768});
    nodes.push_back({"features.7.1.attn", 10, 768});
    nodes.push_back({"features.7.1.mlp.0", 1, 768});
    const auto last = repeatedBlocks(runOf(nodes));
    ASSERT_TRUE(last.found());
    EXPECT_EQ(last.containers, (std::vector<std::string>{"features.7"}));
    EXPECT_EQ(last.blocks, 2);
}

TEST(RepeatedBlocks, NoneInAListOfLeavesOrWithoutModulePaths) {
    // Sequential(Linear, GELU, Linear): indexes, but no block holds a submodule.
    EXPECT_FALSE(repeatedBlocks(runOf({{"net.0", 2}, {"net.1", 1}, {"net.2", 2}})).found());
    EXPECT_FALSE(repeatedBlocks(runOf({{"", 5}})).found());
    EXPECT_FALSE(repeatedBlocks(cs::core::Run{}).found());
    // Two children of unlike structure are not a repeat.
    EXPECT_FALSE(repeatedBlocks(runOf({{"layers.0.attn", 3}, {"layers.1.conv", 3}})).found());
}

TEST(RepeatedBlocks, PathsAsPythonReachesThem) {
    EXPECT_EQ(modulePathCode("encoder.layer"), "model.encoder.layer");
    EXPECT_EQ(modulePathCode("features.5"), "model.features[5]");
    EXPECT_EQ(modulePathCode("model.layers", "m"), "m.model.layers");
}

} // namespace

namespace {

// A graph of `others` distinct ops, then `iterations` copies of a loop body:
// one node per (line, module) given, all in /m/loop.py.
cs::core::Run loopRun(int iterations, const std::vector<std::pair<int, std::string>>& body,
                      int others = 2) {
    cs::core::Run run;
    cs::core::Graph graph;
    const auto add = [&](int line, const std::string& module, const std::string& target) {
        cs::core::GraphNode node;
        node.name = "n" + std::to_string(graph.nodes.size());
        node.op = "call_function";
        node.target = target;
        node.file = "/m/loop.py";
        node.line = line;
        node.module = module;
        graph.nodes.push_back(node);
    };
    for (int i = 0; i < others; ++i) // ops that do not repeat
        add(5 + i, "", "torch.op" + std::to_string(i));
    for (int i = 0; i < iterations; ++i)
        for (const auto& [line, module] : body)
            add(line, module, "torch.gru_cell");
    run.graphs.push_back(graph);
    return run;
}

} // namespace

// A GRUCell stepped over 200 time steps in forward, as Dynamo captured it:
// the loop is found at its body's first line, with every node of its body.
TEST(UnrolledLoops, TheSameOpOfTheSameModuleOnceAStepIsALoop) {
    const auto loop = cs::core::unrolledLoop(loopRun(200, {{27, "cell"}, {8, ""}}));
    ASSERT_TRUE(loop.found());
    EXPECT_EQ(loop.graph, 0);
    EXPECT_EQ(loop.line, 27); // the body's first line, not the lowest number
    EXPECT_EQ(loop.iterations, 200);
    EXPECT_EQ(loop.loopNodes, 400u);
    EXPECT_EQ(loop.totalNodes, 402u);
}

// Twenty layers repeat the same ops at the same lines, but each under its
// own module path: a stack of blocks (regional compilation's case), no loop.
// Nor are a few steps, or a loop that is a small part of the graph.
TEST(UnrolledLoops, LayersFewStepsOrASmallShareAreNone) {
    std::vector<std::pair<int, std::string>> layers;
    for (int i = 0; i < 20; ++i)
        layers.emplace_back(12, "layers." + std::to_string(i));
    EXPECT_FALSE(cs::core::unrolledLoop(loopRun(1, layers)).found());
    EXPECT_FALSE(cs::core::unrolledLoop(loopRun(15, {{27, "cell"}})).found());
    EXPECT_FALSE(cs::core::unrolledLoop(loopRun(16, {{27, "cell"}}, 17)).found());
    EXPECT_TRUE(cs::core::unrolledLoop(loopRun(16, {{27, "cell"}}, 16)).found());
}
