// A synthetic FX-like graph of a chosen size, for layout tests and benchmarks:
// either a transformer-like stack of modules (layers.N.attn.q_proj, …) whose
// sub-modules each hold a weight, a linear and a few elementwise ops with
// residual skips, or a flat chain with ~30% short skip edges and no module
// paths (the worst case for grouping). Deterministic for a seed.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::test {

enum class GraphShape { Modules, Flat };

inline core::Graph syntheticFxGraph(int nodes, GraphShape shape, unsigned seed = 7) {
    core::Graph g;
    g.index = 0;
    g.compileId = "0/0";
    g.function = "forward";
    g.file = "/synthetic/model.py";
    g.line = 1;
    g.nodes.reserve(static_cast<size_t>(nodes));
    std::mt19937 rng(seed);
    auto chance = [&rng](double p) {
        return std::uniform_real_distribution<double>(0, 1)(rng) < p;
    };
    auto add = [&](const std::string& op, const std::string& target, const std::string& module,
                   std::vector<std::string> inputs, const std::string& shapeText) {
        core::GraphNode n;
        n.name = "n" + std::to_string(g.nodes.size()) + "_" +
                 target.substr(target.find_last_of('.') + 1);
        n.op = op;
        n.target = target;
        n.shape = shapeText;
        n.dtype = "float32";
        n.file = g.file;
        n.line = 10 + static_cast<int>(g.nodes.size() % 400);
        n.module = module;
        n.inputs = std::move(inputs);
        g.nodes.push_back(std::move(n));
        return g.nodes.back().name;
    };
    auto recent = [&](int back) {
        const int size = static_cast<int>(g.nodes.size());
        const int lo = std::max(0, size - back);
        return g.nodes[static_cast<size_t>(std::uniform_int_distribution<int>(lo, size - 1)(rng))]
            .name;
    };
    const int body = std::max(1, nodes - 1); // the last node is the output
    std::string prev = add("placeholder", "L_x_", "", {}, "[32, 512]");
    if (shape == GraphShape::Flat) {
        static const char* ops[] = {
            "torch.relu", "_operator.add", "torch._C._nn.linear", "_operator.mul",
            "view",       "torch.softmax", "torch.matmul",        "torch.nn.functional.gelu"};
        while (static_cast<int>(g.nodes.size()) < body) {
            std::vector<std::string> inputs{prev};
            if (chance(0.3) && g.nodes.size() > 2)
                inputs.push_back(recent(8));
            prev = add("call_function", ops[std::uniform_int_distribution<int>(0, 7)(rng)], "",
                       inputs, "[32, 512]");
        }
    } else {
        static const char* subs[] = {"attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.out_proj",
                                     "norm1",       "mlp.fc1",     "mlp.fc2",     "norm2"};
        for (int block = 0; static_cast<int>(g.nodes.size()) < body; ++block) {
            const std::string residual = prev;
            for (int s = 0; s < 8 && static_cast<int>(g.nodes.size()) < body; ++s) {
                const std::string module = "layers." + std::to_string(block) + "." + subs[s];
                const std::string weight =
                    add("placeholder", "L_self_" + std::to_string(g.nodes.size()) + "_weight",
                        module, {}, "[512, 512]");
                if (static_cast<int>(g.nodes.size()) >= body)
                    break;
                prev =
                    add("call_function",
                        s == 4 || s == 7 ? "torch.nn.functional.layer_norm" : "torch._C._nn.linear",
                        module, {prev, weight}, "[32, 512]");
                const int extra = std::uniform_int_distribution<int>(1, 3)(rng);
                for (int e = 0; e < extra && static_cast<int>(g.nodes.size()) < body; ++e) {
                    std::vector<std::string> inputs{prev};
                    if (chance(0.3))
                        inputs.push_back(chance(0.5) ? residual : recent(8));
                    prev =
                        add("call_function", e % 2 ? "_operator.add" : "torch.nn.functional.gelu",
                            module, inputs, "[32, 512]");
                }
            }
        }
    }
    core::GraphNode out;
    out.name = "output";
    out.op = "output";
    out.target = "output";
    out.inputs = {prev};
    g.nodes.push_back(std::move(out));
    return g;
}

} // namespace cs::test
