#include "core/analysis/kernel_cost.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/analysis/units.h"

namespace cs::core {

namespace {

using LineKey = std::pair<std::string, int>; // (file, line); ("", 0) is "no source line"

struct CodeRef {
    const GeneratedCode* code = nullptr;
    const CodeKernel* kernel = nullptr;
};

// A row while the window's time is summed into it.
struct RowAcc {
    KernelCostRow row;
    double ns = 0;
    double count = 0;
    bool profiled = false;
};

struct LineAcc {
    double compiledNs = 0;
    double eagerNs = 0;
    std::vector<std::pair<std::string, double>> kernels; // name, ns it gave this line
    std::vector<std::string> nodes;
};

void addUnique(std::vector<std::string>& list, const std::string& value) {
    if (std::find(list.begin(), list.end(), value) == list.end())
        list.push_back(value);
}

// Adds `ns` to `kernel`'s entry in a row's list of (kernel, ns it gave the row).
void addKernelNs(std::vector<std::pair<std::string, double>>& kernels, const std::string& kernel,
                 double ns) {
    for (auto& [name, value] : kernels) {
        if (name == kernel) {
            value += ns;
            return;
        }
    }
    kernels.emplace_back(kernel, ns);
}

// An FX node that only reinterprets its input's layout (a view): inside a
// kernel it costs no work of its own, the kernel's other nodes do it.
// getitem is left out: an index with a tensor gathers.
bool layoutOnly(const GraphNode& node) {
    static const std::set<std::string> views{
        "view",      "view_as",   "reshape",    "transpose", "permute",         "t",
        "split",     "chunk",     "unbind",     "narrow",    "select",          "expand",
        "expand_as", "unsqueeze", "squeeze",    "flatten",   "unflatten",       "movedim",
        "swapaxes",  "swapdims",  "as_strided", "detach",    "split_with_sizes"};
    const size_t dot = node.target.find_last_of('.');
    return views.count(dot == std::string::npos ? node.target : node.target.substr(dot + 1)) > 0;
}

using GraphNodes = std::map<std::pair<std::string, std::string>, const GraphNode*>;
using NodeKernelCounts = std::map<std::pair<const GeneratedCode*, std::string>, int>;

// The words of an op or target name that say what it does:
// "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default" and
// "torch._C._nn.scaled_dot_product_attention" share scaled, product, attention.
std::set<std::string> nameWords(const std::string& name) {
    static const std::set<std::string> filler{"torch",   "ops", "aten", "default", "extern",
                                              "kernels", "for", "cpu",  "cuda",    "out"};
    std::set<std::string> words;
    std::string word;
    auto flush = [&] {
        if (word.size() >= 4 && filler.count(word) == 0)
            words.insert(word);
        word.clear();
    };
    for (const char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        else
            flush();
    }
    flush();
    return words;
}

bool sharesAWord(const std::set<std::string>& a, const std::set<std::string>& b) {
    return std::any_of(a.begin(), a.end(), [&](const std::string& w) { return b.count(w) > 0; });
}

// The nodes a kernel's time is split over (docs/kernel-cost.md, "Cost by
// line"). Inductor's provenance names an ATen op's input producers too (BERT's
// attention fallback lists its query, key and value linears, which are addmm
// kernels of their own, and the mask's arithmetic), so: not views; and for a
// single-op kernel (extern, fallback, template) the nodes named like its op,
// else those no other kernel of its graph contains. A step that would leave
// nothing is skipped.
std::vector<std::string> chargedNodes(const CodeKernel& kernel, const GeneratedCode* code,
                                      const std::string& compileId, const GraphNodes& graphNode,
                                      const NodeKernelCounts& kernelsOfNode) {
    // Each node with its captured-graph node (null: not in the graph, counts as work).
    std::vector<std::pair<std::string, const GraphNode*>> working;
    for (const auto& node : kernel.nodes) {
        const auto found = graphNode.find({compileId, node});
        const GraphNode* captured = found == graphNode.end() ? nullptr : found->second;
        if (!captured || !layoutOnly(*captured))
            working.emplace_back(node, captured);
    }
    if (working.empty())
        return kernel.nodes;
    std::vector<std::string> all;
    for (const auto& [node, captured] : working)
        all.push_back(node);
    if (working.size() == 1 ||
        (kernel.kind != "extern" && kernel.kind != "fallback" && kernel.kind != "template"))
        return all;
    const std::set<std::string> opWords = nameWords(kernel.name);
    std::vector<std::string> named;
    std::vector<std::string> own;
    for (const auto& [node, captured] : working) {
        if (captured && sharesAWord(opWords, nameWords(captured->target)))
            named.push_back(node);
        const auto count = kernelsOfNode.find({code, node});
        if (count == kernelsOfNode.end() || count->second <= 1)
            own.push_back(node);
    }
    if (!named.empty())
        return named;
    return own.empty() ? all : own;
}

std::string baseName(const std::string& path) {
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string percent(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", share * 100.0);
    return text;
}

std::vector<std::string> sortedNodes(const CodeKernel* kernel) {
    if (!kernel)
        return {};
    std::vector<std::string> nodes = kernel->nodes;
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return nodes;
}

// A module's time while the kernels are split over their nodes.
struct ModuleAcc {
    double totalNs = 0;
    double selfNs = 0;
    double eagerNs = 0;                                  // its and its submodules'
    std::vector<std::pair<std::string, double>> kernels; // name, ns it gave this module
};

int moduleDepth(const std::string& path) {
    return path.empty() ? 0 : 1 + static_cast<int>(std::count(path.begin(), path.end(), '.'));
}

std::vector<std::string> costliestFirst(std::vector<std::pair<std::string, double>> kernels) {
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::string> names;
    names.reserve(kernels.size());
    for (auto& kernel : kernels)
        names.push_back(std::move(kernel.first));
    return names;
}

// The modules in tree order: the model, then each module followed by its
// submodules, costliest first.
std::vector<ModuleCostRow> moduleRows(const std::map<std::string, ModuleAcc>& modules, double calls,
                                      double compiledNs, double opsNs) {
    std::map<std::string, std::vector<std::string>> children;
    for (const auto& [path, acc] : modules) {
        if (!path.empty())
            children[parentModule(path)].push_back(path);
    }
    for (auto& [parent, paths] : children) {
        std::stable_sort(paths.begin(), paths.end(), [&](const auto& a, const auto& b) {
            const ModuleAcc& x = modules.at(a);
            const ModuleAcc& y = modules.at(b);
            return x.totalNs + x.eagerNs > y.totalNs + y.eagerNs;
        });
    }
    std::vector<ModuleCostRow> rows;
    std::vector<std::string> pending{""};
    while (!pending.empty()) {
        const std::string path = std::move(pending.back());
        pending.pop_back();
        const ModuleAcc& acc = modules.at(path);
        ModuleCostRow row;
        row.path = path;
        row.depth = moduleDepth(path);
        row.compiledNsPerCall = acc.totalNs / calls;
        row.compiledShare = compiledNs > 0 ? acc.totalNs / compiledNs : 0;
        row.selfNsPerCall = acc.selfNs / calls;
        row.kernels = costliestFirst(acc.kernels);
        row.eagerNsPerCall = acc.eagerNs / calls;
        row.eagerShare = opsNs > 0 ? acc.eagerNs / opsNs : 0;
        rows.push_back(std::move(row));
        if (const auto found = children.find(path); found != children.end())
            pending.insert(pending.end(), found->second.rbegin(), found->second.rend());
    }
    return rows;
}

// "blocks.0.fc" of a graph compiled for blocks.0, run by blocks.2: "blocks.2.fc".
std::string rebased(const std::string& module, const std::string& frame,
                    const std::string& runner) {
    const std::string below = frame.empty() ? module : module.substr(frame.size());
    std::string rest = !below.empty() && below.front() == '.' ? below.substr(1) : below;
    if (runner.empty())
        return rest;
    return rest.empty() ? runner : runner + "." + rest;
}

// The graphs Dynamo compiled for one module and ran for others of its class
// (a graph break in a block's forward, Module.compile() on every block): the
// module each ran for, with its share of the graph's time in the window.
struct GraphRunners {
    std::string frame; // Graph::frameModule
    std::vector<std::pair<std::string, double>> runners;
};
using GraphRunnersById = std::map<std::string, GraphRunners>;
GraphRunnersById graphRunners(const Run& run) {
    GraphRunnersById out;
    for (const auto& graph : run.graphs) {
        if (!graph.frameModule || out.count(graph.compileId))
            continue;
        std::vector<std::pair<std::string, double>> runners;
        double total = 0;
        for (const auto& call : run.kernelProfile.graphCalls) {
            if (call.compileId == graph.compileId && call.ns > 0) {
                runners.emplace_back(call.module, static_cast<double>(call.ns));
                total += static_cast<double>(call.ns);
            }
        }
        if (total <= 0 || (runners.size() == 1 && runners[0].first == *graph.frameModule))
            continue; // run only where it compiled: its nodes' modules stand
        for (auto& runner : runners)
            runner.second /= total;
        out[graph.compileId] = {*graph.frameModule, std::move(runners)};
    }
    return out;
}

} // namespace

CostBreakdown costBreakdown(const Run& run) {
    CostBreakdown out;
    const KernelProfile& profile = run.kernelProfile;
    out.profiled = profile.present && profile.calls > 0;
    out.calls = profile.present ? profile.calls : 0;
    out.source = profile.present ? profile.source : std::string();

    // The code's kernels by (compile id, name), in the code's order: a name
    // can repeat within a compile id (two extern_kernels.addmm), and the k-th
    // profiled entry of that name takes the k-th kernel.
    std::map<std::pair<std::string, std::string>, std::vector<CodeRef>> byKey;
    std::map<std::string, std::vector<CodeRef>> byName;
    for (const auto& code : run.code) {
        for (const auto& kernel : code.kernels) {
            byKey[{code.compileId, kernel.name}].push_back({&code, &kernel});
            byName[kernel.name].push_back({&code, &kernel});
        }
    }

    std::vector<RowAcc> rows;
    std::map<const CodeKernel*, size_t> rowOfKernel;
    std::map<std::pair<std::string, std::string>, size_t> rowOfUnmapped;
    auto rowFor = [&](const CodeRef& ref) -> RowAcc& {
        auto [it, added] = rowOfKernel.try_emplace(ref.kernel, rows.size());
        if (added) {
            RowAcc acc;
            acc.row.compileId = ref.code->compileId;
            acc.row.part = ref.code->part;
            acc.row.name = ref.kernel->name;
            acc.row.kind = ref.kernel->kind;
            acc.row.kernel = ref.kernel;
            acc.row.code = ref.code;
            rows.push_back(std::move(acc));
        }
        return rows[it->second];
    };
    auto unmappedRow = [&](const KernelCost& cost) -> RowAcc& {
        auto [it, added] = rowOfUnmapped.try_emplace({cost.compileId, cost.name}, rows.size());
        if (added) {
            RowAcc acc;
            acc.row.compileId = cost.compileId;
            acc.row.name = cost.name;
            acc.row.kind = "other";
            rows.push_back(std::move(acc));
        }
        return rows[it->second];
    };
    auto addTo = [](RowAcc& acc, double ns, double count, bool ambiguous) {
        acc.ns += ns;
        acc.count += count;
        acc.profiled = true;
        acc.row.ambiguous = acc.row.ambiguous || ambiguous;
    };

    if (out.profiled) {
        std::map<std::pair<std::string, std::string>, size_t> taken;
        for (const auto& cost : profile.kernels) {
            const auto ns = static_cast<double>(cost.ns);
            const auto count = static_cast<double>(cost.count);
            if (!cost.compileId.empty()) {
                const std::pair key{cost.compileId, cost.name};
                const auto found = byKey.find(key);
                if (found == byKey.end()) {
                    addTo(unmappedRow(cost), ns, count, cost.ambiguous);
                    continue;
                }
                size_t& k = taken[key];
                const size_t index = std::min(k, found->second.size() - 1);
                ++k;
                addTo(rowFor(found->second[index]), ns, count, cost.ambiguous);
                continue;
            }
            // No compile id: the name was shared by graphs (CUDA). One kernel
            // of that name in the code takes it all; several split it evenly.
            const auto found = byName.find(cost.name);
            if (found == byName.end()) {
                addTo(unmappedRow(cost), ns, count, cost.ambiguous);
                continue;
            }
            const auto& refs = found->second;
            const auto n = static_cast<double>(refs.size());
            for (const auto& ref : refs)
                addTo(rowFor(ref), ns / n, count / n, cost.ambiguous || refs.size() > 1);
        }
    }

    double compiledNs = 0;
    for (const auto& acc : rows)
        compiledNs += acc.ns;
    const double calls = out.profiled ? static_cast<double>(profile.calls) : 1.0;
    const double callNs = static_cast<double>(profile.callNs);

    // The code's kernels the window never saw, after the profiled ones.
    for (const auto& code : run.code)
        for (const auto& kernel : code.kernels)
            rowFor({&code, &kernel});

    // A node's module, once for each module that ran its graph (graphRunners),
    // with that one's share of the time.
    const GraphRunnersById runners = graphRunners(run);
    auto instancesOf = [&](const std::string& compileId, const std::string& module) {
        std::vector<std::pair<std::string, double>> out;
        const auto found = runners.find(compileId);
        if (found == runners.end() || !inModule(module, found->second.frame)) {
            out.emplace_back(module, 1.0);
            return out;
        }
        for (const auto& [runner, share] : found->second.runners)
            out.emplace_back(rebased(module, found->second.frame, runner), share);
        return out;
    };

    // Each kernel's time goes equally to the nodes it charges (chargedNodes).
    GraphNodes graphNode;
    for (const auto& graph : run.graphs)
        for (const auto& node : graph.nodes)
            graphNode.try_emplace({graph.compileId, node.name}, &node);
    NodeKernelCounts kernelsOfNode;
    for (const auto& code : run.code)
        for (const auto& kernel : code.kernels)
            for (const auto& node : kernel.nodes)
                ++kernelsOfNode[{&code, node}];
    std::map<const CodeKernel*, std::vector<std::string>> charged;
    for (auto& acc : rows) {
        if (!acc.row.kernel)
            continue;
        const auto& nodes = charged[acc.row.kernel] = chargedNodes(
            *acc.row.kernel, acc.row.code, acc.row.compileId, graphNode, kernelsOfNode);
        for (const auto& node : nodes) {
            if (const auto found = graphNode.find({acc.row.compileId, node});
                found != graphNode.end()) {
                for (const auto& instance : instancesOf(acc.row.compileId, found->second->module))
                    addUnique(acc.row.modules, instance.first);
            }
        }
    }

    std::vector<KernelCostRow> profiledRows;
    std::vector<KernelCostRow> unseenRows;
    for (auto& acc : rows) {
        if (acc.profiled) {
            acc.row.nsPerCall = acc.ns / calls;
            acc.row.share = compiledNs > 0 ? acc.ns / compiledNs : 0;
            acc.row.launchesPerCall = std::llround(acc.count / calls);
            profiledRows.push_back(acc.row);
        } else {
            unseenRows.push_back(acc.row);
        }
    }
    double wrapperNs = 0;
    if (out.profiled) {
        for (const auto& wrapper : profile.wrappers) {
            wrapperNs += static_cast<double>(wrapper.ns);
            KernelCostRow row;
            row.compileId = wrapper.compileId;
            row.name = "outside kernels";
            row.kind = "wrapper";
            row.nsPerCall = static_cast<double>(wrapper.ns) / calls;
            for (const auto& code : run.code) {
                if (code.compileId == wrapper.compileId) {
                    row.code = &code;
                    break;
                }
            }
            profiledRows.push_back(std::move(row));
        }
    }
    std::stable_sort(profiledRows.begin(), profiledRows.end(),
                     [](const KernelCostRow& a, const KernelCostRow& b) {
                         return a.nsPerCall.value_or(0) > b.nsPerCall.value_or(0);
                     });
    out.kernels = std::move(profiledRows);
    out.kernels.insert(out.kernels.end(), unseenRows.begin(), unseenRows.end());

    if (!out.profiled)
        return out;
    out.compiledNsPerCall = compiledNs / calls;
    out.wrapperNsPerCall = wrapperNs / calls;
    out.eagerNsPerCall = static_cast<double>(profile.eagerNs) / calls;
    out.callNsPerCall = callNs / calls;
    const double opsNs = compiledNs + wrapperNs + static_cast<double>(profile.eagerNs);
    out.opsNsPerCall = opsNs / calls;

    // Each kernel's time, equally over the nodes it charges, each node to its
    // line and to its module and the module's ancestors.
    std::map<LineKey, LineAcc> lines;
    const LineKey noLine{"", 0};
    std::map<std::string, ModuleAcc> modules;
    ModuleAcc noModule;
    auto addToModules = [&](const std::string& path, const std::string& kernel, double ns) {
        modules[path].selfNs += ns;
        for (std::string up = path;; up = parentModule(up)) {
            ModuleAcc& module = modules[up];
            module.totalNs += ns;
            addKernelNs(module.kernels, kernel, ns);
            if (up.empty())
                break;
        }
    };
    for (const auto& acc : rows) {
        if (!acc.profiled || acc.ns <= 0)
            continue;
        const CodeKernel* kernel = acc.row.kernel;
        if (!kernel || kernel->nodes.empty()) {
            LineAcc& line = lines[noLine];
            line.compiledNs += acc.ns;
            addKernelNs(line.kernels, acc.row.name, acc.ns);
            noModule.totalNs += acc.ns;
            addKernelNs(noModule.kernels, acc.row.name, acc.ns);
            continue;
        }
        const std::vector<std::string>& nodes = charged.at(kernel);
        const double perNode = acc.ns / static_cast<double>(nodes.size());
        for (const auto& node : nodes) {
            LineKey key = noLine;
            const auto found = graphNode.find({acc.row.compileId, node});
            if (found != graphNode.end() && !found->second->file.empty() && found->second->line > 0)
                key = {found->second->file, found->second->line};
            else if (kernel->lines.size() == 1 && !kernel->lines[0].file.empty())
                key = {kernel->lines[0].file, kernel->lines[0].line};
            LineAcc& line = lines[key];
            line.compiledNs += perNode;
            addKernelNs(line.kernels, acc.row.name, perNode);
            addUnique(line.nodes, node);
            if (found != graphNode.end()) {
                for (const auto& [path, share] :
                     instancesOf(acc.row.compileId, found->second->module))
                    addToModules(path, acc.row.name, perNode * share);
            } else {
                noModule.totalNs += perNode;
                addKernelNs(noModule.kernels, acc.row.name, perNode);
            }
        }
    }
    // Eager time by the innermost module it ran in, and up to the model.
    for (const auto& module : profile.eagerModules) {
        for (std::string up = module.module;; up = parentModule(up)) {
            modules[up].eagerNs += static_cast<double>(module.ns);
            if (up.empty())
                break;
        }
    }
    if (!modules.empty())
        out.modules = moduleRows(modules, calls, compiledNs, opsNs);
    if (noModule.totalNs > 0) {
        ModuleCostRow row;
        row.attributed = false;
        row.compiledNsPerCall = noModule.totalNs / calls;
        row.compiledShare = compiledNs > 0 ? noModule.totalNs / compiledNs : 0;
        row.selfNsPerCall = row.compiledNsPerCall;
        row.kernels = costliestFirst(std::move(noModule.kernels));
        out.modules.push_back(std::move(row));
    }
    for (const auto& eager : profile.eager) {
        const LineKey key =
            eager.where.file.empty() ? noLine : LineKey{eager.where.file, eager.where.line};
        lines[key].eagerNs += static_cast<double>(eager.ns);
    }

    // What each line says: from the kernels' provenance, the eager lines, the breaks.
    std::map<LineKey, const SourceFrame*> frames;
    for (const auto& code : run.code)
        for (const auto& kernel : code.kernels)
            for (const auto& frame : kernel.lines)
                frames.try_emplace({frame.file, frame.line}, &frame);
    for (const auto& eager : profile.eager)
        frames.try_emplace({eager.where.file, eager.where.line}, &eager.where);
    for (const auto& graphBreak : run.graphBreaks)
        for (const auto& frame : graphBreak.frames)
            frames.try_emplace({frame.file, frame.line}, &frame);

    std::optional<LineCostRow> noLineRow;
    for (auto& [key, acc] : lines) {
        LineCostRow row;
        row.file = key.first;
        row.line = key.second;
        if (const auto frame = frames.find(key); frame != frames.end() && !key.first.empty()) {
            row.function = frame->second->function;
            row.code = frame->second->code;
        }
        row.compiledNsPerCall = acc.compiledNs / calls;
        row.compiledShare = compiledNs > 0 ? acc.compiledNs / compiledNs : 0;
        row.eagerNsPerCall = acc.eagerNs / calls;
        row.eagerShare = opsNs > 0 ? acc.eagerNs / opsNs : 0;
        row.kernels = costliestFirst(std::move(acc.kernels));
        row.nodes = std::move(acc.nodes);
        if (key == noLine)
            noLineRow = std::move(row);
        else
            out.lines.push_back(std::move(row));
    }
    std::stable_sort(
        out.lines.begin(), out.lines.end(), [](const LineCostRow& a, const LineCostRow& b) {
            return a.compiledNsPerCall + a.eagerNsPerCall > b.compiledNsPerCall + b.eagerNsPerCall;
        });
    if (noLineRow)
        out.lines.push_back(std::move(*noLineRow));
    return out;
}

bool hasCostBreakdown(const Report& report) {
    return std::any_of(report.runs.begin(), report.runs.end(), [](const Run& run) {
        return run.kernelProfile.present && run.kernelProfile.calls > 0;
    });
}

std::string fusedAttentionBackend(const std::string& kernelName) {
    size_t from = kernelName.rfind("aten::");
    if (from != std::string::npos) {
        from += 6;
    } else if ((from = kernelName.rfind("aten.")) != std::string::npos) {
        from += 5;
    } else {
        return {};
    }
    const std::string op = kernelName.substr(from, kernelName.find('.', from) - from);
    const auto starts = [&](const char* prefix) { return op.rfind(prefix, 0) == 0; };
    // Longest prefixes first: the CPU kernel's name begins like the CUDA one's.
    if (starts("_scaled_dot_product_flash_attention_for_cpu"))
        return "CPU flash";
    if (starts("_scaled_dot_product_flash_attention") || starts("_flash_attention_"))
        return "flash";
    if (starts("_scaled_dot_product_efficient_attention") || starts("_efficient_attention_"))
        return "memory-efficient";
    if (starts("_scaled_dot_product_cudnn_attention"))
        return "cuDNN";
    if (starts("_scaled_dot_product_fused_attention_overrideable"))
        return "device";
    return {};
}

std::string shortKernelName(const std::string& kernelName) {
    std::string name = kernelName;
    const std::string suffix = ".default";
    for (const std::string prefix : {"torch.ops.", "extern_kernels."}) {
        if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size()) {
            name = name.substr(prefix.size());
            break;
        }
    }
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        name.resize(name.size() - suffix.size());
    return name;
}

std::string modulesText(const std::vector<std::string>& paths) {
    if (paths.empty())
        return {};
    if (paths.size() == 1)
        return paths.front().empty() ? "the model" : paths.front();
    const std::string common = commonModule(paths);
    const std::string count = std::to_string(paths.size()) + " modules";
    return common.empty() ? count : common + " (" + count + ")";
}

std::string parentModule(const std::string& path) {
    const size_t dot = path.rfind('.');
    return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

bool inModule(const std::string& module, const std::string& path) {
    return path.empty() || module == path || module.rfind(path + ".", 0) == 0;
}

std::string commonModule(const std::vector<std::string>& paths) {
    std::string common = paths.empty() ? std::string() : paths.front();
    for (const auto& path : paths) {
        while (!inModule(path, common))
            common = parentModule(common);
    }
    return common;
}

bool hasSubmoduleCost(const CostBreakdown& cost) {
    return std::any_of(cost.modules.begin(), cost.modules.end(),
                       [](const ModuleCostRow& row) { return row.attributed && row.depth > 0; });
}

std::vector<const ModuleCostRow*> moduleOverview(const CostBreakdown& cost, size_t maxRows) {
    constexpr double kWorthListing = 0.01;
    std::map<int, size_t> rowsAtDepth;
    auto worth = [&](const ModuleCostRow& row) {
        return std::max(row.compiledShare, row.eagerShare) >= kWorthListing;
    };
    for (const auto& row : cost.modules) {
        if (row.attributed && row.depth > 0 && worth(row))
            ++rowsAtDepth[row.depth];
    }
    int deepest = rowsAtDepth.empty() ? 0 : 1;
    size_t listed = 0;
    for (const auto& [depth, count] : rowsAtDepth) {
        listed += count;
        if (listed > maxRows)
            break;
        deepest = depth;
    }
    std::vector<const ModuleCostRow*> out;
    for (const auto& row : cost.modules) {
        if (row.attributed
                ? row.depth > 0 && row.depth <= deepest && worth(row) && out.size() < maxRows
                : row.compiledNsPerCall > 0)
            out.push_back(&row);
    }
    return out;
}

std::string customOpName(const std::string& kernelName) {
    const std::string prefix = "torch.ops.";
    if (kernelName.rfind(prefix, 0) != 0)
        return {};
    const size_t nsEnd = kernelName.find('.', prefix.size());
    if (nsEnd == std::string::npos)
        return {};
    const std::string ns = kernelName.substr(prefix.size(), nsEnd - prefix.size());
    // torch's own operator namespaces: its kernels, not a black box of the user's.
    static const std::set<std::string> torchOwn{
        "aten",   "prims",    "quantized", "_quantized",   "quantized_decomposed",
        "onednn", "mkldnn",   "mkl",       "inductor",     "_c10d_functional",
        "c10d",   "_dtensor", "profiler",  "higher_order", "c10d_functional"};
    if (ns.empty() || torchOwn.count(ns) > 0)
        return {};
    const size_t opEnd = kernelName.find('.', nsEnd + 1);
    const std::string op = kernelName.substr(
        nsEnd + 1, opEnd == std::string::npos ? std::string::npos : opEnd - nsEnd - 1);
    return op.empty() ? std::string() : ns + "::" + op;
}

bool isCustomOp(const std::string& kind, const std::string& kernelName) {
    return kind == "fallback" && !customOpName(kernelName).empty();
}

std::string kernelKindLabel(const std::string& kind, const std::string& kernelName) {
    if (kind == "fallback" && !fusedAttentionBackend(kernelName).empty())
        return "attention";
    return isCustomOp(kind, kernelName) ? "custom op" : kind;
}

std::vector<std::string> kernelNodes(const Run& run, const std::string& compileId,
                                     const std::string& kernel) {
    std::vector<std::string> nodes;
    for (const auto& code : run.code) {
        if (code.compileId != compileId)
            continue;
        for (const auto& k : code.kernels)
            if (k.name == kernel)
                for (const auto& node : k.nodes)
                    addUnique(nodes, node);
    }
    return nodes;
}

std::vector<std::string> nodeKernels(const Run& run, const std::string& compileId,
                                     const std::string& node) {
    std::vector<std::string> kernels;
    for (const auto& code : run.code) {
        if (code.compileId != compileId)
            continue;
        for (const auto& k : code.kernels)
            if (std::find(k.nodes.begin(), k.nodes.end(), node) != k.nodes.end())
                addUnique(kernels, k.name);
    }
    return kernels;
}

CostComparison compareCosts(const Run& a, const Run& b) {
    return compareCosts(costBreakdown(a), costBreakdown(b));
}

CostComparison compareCosts(const CostBreakdown& costA, const CostBreakdown& costB) {
    CostComparison out;

    std::vector<std::string> compileIds;
    auto kernelsOf = [](const CostBreakdown& cost, const std::string& compileId) {
        std::vector<const KernelCostRow*> rows;
        for (const auto& row : cost.kernels)
            if (row.kind != "wrapper" && row.compileId == compileId)
                rows.push_back(&row);
        return rows;
    };
    for (const auto* cost : {&costA, &costB})
        for (const auto& row : cost->kernels)
            if (row.kind != "wrapper")
                addUnique(compileIds, row.compileId);

    for (const auto& compileId : compileIds) {
        const auto rowsA = kernelsOf(costA, compileId);
        const auto rowsB = kernelsOf(costB, compileId);
        std::vector<bool> usedB(rowsB.size(), false);
        std::vector<KernelChange> changes;
        std::vector<const KernelCostRow*> onlyA;
        for (const auto* rowA : rowsA) {
            bool matched = false;
            for (size_t j = 0; j < rowsB.size() && !matched; ++j) {
                if (!usedB[j] && rowsB[j]->name == rowA->name) {
                    usedB[j] = matched = true;
                    changes.push_back({compileId, rowA->name, rowsB[j]->name, "same",
                                       rowA->nsPerCall, rowsB[j]->nsPerCall});
                }
            }
            if (!matched)
                onlyA.push_back(rowA);
        }
        for (const auto* rowA : onlyA) {
            const auto nodesA = sortedNodes(rowA->kernel);
            bool matched = false;
            for (size_t j = 0; j < rowsB.size() && !matched && !nodesA.empty(); ++j) {
                if (!usedB[j] && sortedNodes(rowsB[j]->kernel) == nodesA) {
                    // The same nodes in a kernel of another kind (an extern mm
                    // become a template): replaced by it; of the same kind: re-fused.
                    usedB[j] = matched = true;
                    changes.push_back({compileId, rowA->name, rowsB[j]->name,
                                       rowsB[j]->kind == rowA->kind ? "re-fused" : "replaced",
                                       rowA->nsPerCall, rowsB[j]->nsPerCall});
                }
            }
            if (!matched)
                changes.push_back(
                    {compileId, rowA->name, "", "replaced", rowA->nsPerCall, std::nullopt});
        }
        for (size_t j = 0; j < rowsB.size(); ++j)
            if (!usedB[j])
                changes.push_back(
                    {compileId, "", rowsB[j]->name, "new", std::nullopt, rowsB[j]->nsPerCall});
        std::stable_sort(changes.begin(), changes.end(),
                         [](const KernelChange& x, const KernelChange& y) {
                             return std::max(x.nsPerCallA.value_or(-1), x.nsPerCallB.value_or(-1)) >
                                    std::max(y.nsPerCallA.value_or(-1), y.nsPerCallB.value_or(-1));
                         });
        out.kernels.insert(out.kernels.end(), changes.begin(), changes.end());
    }

    std::map<LineKey, size_t> index;
    auto lineFor = [&](const LineCostRow& row) -> LineChange& {
        auto [it, added] = index.try_emplace({row.file, row.line}, out.lines.size());
        if (added)
            out.lines.push_back({row.file, row.line, row.code, 0, 0});
        LineChange& change = out.lines[it->second];
        if (change.code.empty())
            change.code = row.code;
        return change;
    };
    for (const auto& row : costA.lines)
        lineFor(row).nsPerCallA += row.compiledNsPerCall + row.eagerNsPerCall;
    for (const auto& row : costB.lines)
        lineFor(row).nsPerCallB += row.compiledNsPerCall + row.eagerNsPerCall;
    std::stable_sort(out.lines.begin(), out.lines.end(),
                     [](const LineChange& x, const LineChange& y) {
                         return x.nsPerCallA - x.nsPerCallB > y.nsPerCallA - y.nsPerCallB;
                     });

    std::map<std::string, size_t> moduleIndex;
    auto moduleFor = [&](const ModuleCostRow& row) -> ModuleChange& {
        auto [it, added] = moduleIndex.try_emplace(row.path, out.modules.size());
        if (added)
            out.modules.push_back({row.path, 0, 0});
        return out.modules[it->second];
    };
    for (const auto& row : costA.modules)
        if (row.attributed && row.depth > 0)
            moduleFor(row).nsPerCallA = row.compiledNsPerCall + row.eagerNsPerCall;
    for (const auto& row : costB.modules)
        if (row.attributed && row.depth > 0)
            moduleFor(row).nsPerCallB = row.compiledNsPerCall + row.eagerNsPerCall;
    std::stable_sort(out.modules.begin(), out.modules.end(),
                     [](const ModuleChange& x, const ModuleChange& y) {
                         return x.nsPerCallA - x.nsPerCallB > y.nsPerCallA - y.nsPerCallB;
                     });
    return out;
}

std::string costText(const Run& run, size_t topKernels, size_t topLines, size_t topModules) {
    const KernelProfile& profile = run.kernelProfile;
    const CostBreakdown cost = costBreakdown(run);
    std::string out;
    if (!cost.profiled) {
        if (profile.present)
            out += "no kernel profile: the profiled window had no calls";
        else if (run.code.empty())
            out += "no kernel profile and no generated code in this run (an eager setting, "
                   "--profile-calls 0, or a report from before they were recorded)";
        else
            out += "no kernel profile in this run (--profile-calls 0, or the window failed: see "
                   "the run's log); its generated code has " +
                   formatCount(static_cast<double>(cost.kernels.size())) + " kernels";
        out += "\n";
        if (!profile.note.empty())
            out += "note: " + profile.note + "\n";
        if (!run.codeOmitted.empty())
            out += "code left out: " + run.codeOmitted + "\n";
        return out;
    }

    char line[160];
    out += "profiled window: " + formatCount(cost.calls) + " calls (" + cost.source + ")\n";
    out += "per call: ";
    if (cost.compiledNsPerCall > 0 || cost.wrapperNsPerCall > 0)
        out += "compiled kernels " + formatDuration(cost.compiledNsPerCall) +
               ", compiled graphs outside kernels " + formatDuration(cost.wrapperNsPerCall) + ", ";
    out += "eager ops " + formatDuration(cost.eagerNsPerCall) + "; the call " +
           formatDuration(cost.callNsPerCall) + " with the Python between its ops\n";
    if (!profile.note.empty())
        out += "note: " + profile.note + "\n";

    // A model without submodules: every kernel would read "the model".
    const bool submodules = hasSubmoduleCost(cost);
    const bool anyKernel = std::any_of(cost.kernels.begin(), cost.kernels.end(),
                                       [](const KernelCostRow& r) { return r.nsPerCall; });
    if (anyKernel) {
        out += "\ntop kernels (share of the compiled kernels' time)\n";
        std::snprintf(line, sizeof line, "  %7s %11s %8s %-9s %s\n", "share", "per call",
                      "launches", "kind", "kernel [compile id] lines");
        out += line;
    } else {
        out += "\nno compiled kernel ran in the window: the time below was spent eagerly\n";
    }
    size_t shown = 0;
    for (const auto& row : cost.kernels) {
        if (!row.nsPerCall || shown == topKernels)
            break;
        ++shown;
        std::string where = row.name + " [" + (row.compileId.empty() ? "?" : row.compileId);
        if (!row.part.empty())
            where += " " + row.part;
        where += "]";
        if (row.ambiguous)
            where += " (ambiguous name: split evenly)";
        if (!row.kernel && row.kind != "wrapper")
            where += " (not in the generated code)";
        if (const std::string modules = modulesText(row.modules); submodules && !modules.empty())
            where += "  " + modules;
        if (row.kernel) {
            std::vector<std::string> places;
            for (const auto& frame : row.kernel->lines)
                addUnique(places, baseName(frame.file) + ":" + std::to_string(frame.line));
            for (size_t i = 0; i < places.size() && i < 3; ++i)
                where += (i == 0 ? "  " : ", ") + places[i];
            if (places.size() > 3)
                where += ", …";
        }
        std::snprintf(line, sizeof line, "  %7s %11s %8s %-9s ",
                      row.kind == "wrapper" ? "" : percent(row.share).c_str(),
                      formatDuration(*row.nsPerCall).c_str(),
                      row.kind == "wrapper"
                          ? ""
                          : formatCount(static_cast<double>(row.launchesPerCall)).c_str(),
                      kernelKindLabel(row.kind, row.name).c_str());
        out += line + where + "\n";
    }
    const auto unseen = std::count_if(cost.kernels.begin(), cost.kernels.end(),
                                      [](const KernelCostRow& r) { return !r.nsPerCall; });
    if (unseen > 0)
        out += "  (kernels of the generated code that did not run in the window: " +
               formatCount(static_cast<double>(unseen)) + ")\n";

    out += "\nhot lines (compiled: share of the compiled kernels' time; eager: time outside "
           "compiled graphs, share of the call's ops)\n";
    std::snprintf(line, sizeof line, "  %7s %11s %7s %11s  %s\n", "share", "compiled", "share",
                  "eager", "line");
    out += line;
    shown = 0;
    for (const auto& row : cost.lines) {
        if (shown == topLines && !row.file.empty())
            continue;
        std::string where = row.file.empty() ? std::string("(no source line)")
                                             : baseName(row.file) + ":" + std::to_string(row.line);
        if (!row.code.empty())
            where += "  " + row.code;
        const bool compiled = row.compiledNsPerCall > 0;
        const bool eager = row.eagerNsPerCall > 0;
        std::snprintf(line, sizeof line, "  %7s %11s %7s %11s  ",
                      compiled ? percent(row.compiledShare).c_str() : "-",
                      compiled ? formatDuration(row.compiledNsPerCall).c_str() : "-",
                      eager ? percent(row.eagerShare).c_str() : "-",
                      eager ? formatDuration(row.eagerNsPerCall).c_str() : "-");
        out += line + where + "\n";
        if (!row.file.empty())
            ++shown;
    }
    if (cost.lines.empty())
        out += "  (no line took time in the window)\n";

    const auto modules = moduleOverview(cost, topModules);
    if (modules.empty())
        return out;
    // The share: of the compiled kernels where any ran, else of the eager ops.
    const bool compiled = std::any_of(modules.begin(), modules.end(),
                                      [](const auto* row) { return row->compiledNsPerCall > 0; });
    out += std::string("\nhot modules (submodules included; share of the ") +
           (compiled ? "compiled kernels' time" : "call's ops") +
           "; eager: time outside compiled graphs)\n";
    std::snprintf(line, sizeof line, "  %7s %11s %11s  %s\n", "share", "compiled", "eager",
                  "module");
    out += line;
    for (const auto* row : modules) {
        std::snprintf(line, sizeof line, "  %7s %11s %11s  ",
                      percent(compiled ? row->compiledShare : row->eagerShare).c_str(),
                      row->compiledNsPerCall > 0 ? formatDuration(row->compiledNsPerCall).c_str()
                                                 : "-",
                      row->eagerNsPerCall > 0 ? formatDuration(row->eagerNsPerCall).c_str() : "-");
        out +=
            line +
            (row->attributed ? std::string(2 * static_cast<size_t>(row->depth - 1), ' ') + row->path
                             : std::string("(no module)")) +
            "\n";
    }
    return out;
}

} // namespace cs::core
