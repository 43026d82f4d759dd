// The kernel rules (docs/kernel-cost.md, docs/advice.md): from the profiled
// window after the measure phase, a kernel that takes more than half of the
// compiled kernels' time, time in ops Inductor could not lower (ATen
// fallbacks, its fused attention and FFTs aside), and a user line that runs uncompiled
// after a graph break. Each fires only on a run with a kernel profile, with the
// numbers and the line.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/break_cause.h"
#include "core/analysis/function_name.h"
#include "core/analysis/kernel_cost.h"

namespace cs::core::advice {

namespace {

// The fields every finding of these rules shares: the Code tab, one run.
Finding codeFinding(const char* rule, Severity severity, int run, const std::string& setting) {
    Finding f;
    f.rule = rule;
    f.severity = severity;
    f.tab = EvidenceTab::Code;
    f.run = run;
    f.setting = setting;
    return f;
}

constexpr double kDominantShare = 0.5;    // one kernel above this share of kernel time
constexpr double kDominantOverNext = 2.0; // and at least this many times the next kernel's
constexpr double kFallbackShare = 0.10;   // fallbacks at or above this share
constexpr double kUncompiledShare = 0.10; // an eager line at or above this share of the call

std::string percent(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f%%", share * 100.0);
    return text;
}

// The costliest line a kernel's time went to, from the breakdown.
const LineCostRow* hottestLineOf(const CostBreakdown& cost, const std::string& kernel) {
    for (const auto& line : cost.lines) {
        if (!line.file.empty() && line.compiledNsPerCall > 0 &&
            std::find(line.kernels.begin(), line.kernels.end(), kernel) != line.kernels.end())
            return &line;
    }
    return nullptr;
}

// "modules layers.0 and layers.1" for the kernels of one name; "" when the
// model has no submodules or the kernels' nodes name none.
std::string modulesOf(const CostBreakdown& cost, const std::string& kernel, size_t most = 3) {
    if (!hasSubmoduleCost(cost))
        return {};
    std::vector<std::string> paths;
    for (const auto& row : cost.kernels) {
        if (row.name != kernel)
            continue;
        for (const auto& path : row.modules) {
            if (!path.empty() &&
                std::find(paths.begin(), paths.end(), moduleName(path)) == paths.end())
                paths.push_back(moduleName(path));
        }
    }
    if (paths.empty())
        return {};
    const size_t all = paths.size();
    if (all > most) {
        paths.resize(most);
        paths.push_back(plural(static_cast<long long>(all - most), "more", "more"));
    }
    return (all == 1 ? "module " : "modules ") + joinWords(paths);
}

// "model.py:21 `y = torch.relu(y)`, model.py:22 `y = y * 2`" for a kernel's lines.
std::string linesOf(const CostBreakdown& cost, const std::string& kernel, size_t most = 3) {
    std::vector<std::string> places;
    size_t more = 0;
    for (const auto& line : cost.lines) {
        if (line.file.empty() ||
            std::find(line.kernels.begin(), line.kernels.end(), kernel) == line.kernels.end())
            continue;
        if (places.size() == most) {
            ++more;
            continue;
        }
        std::string place = shortLocation(line.file, line.line);
        if (!line.code.empty())
            place += " `" + line.code + "`";
        places.push_back(place);
    }
    if (more > 0)
        places.push_back(plural(static_cast<long long>(more), "more line", "more lines"));
    return joinWords(places);
}

void placeAt(Finding& f, const LineCostRow* line) {
    if (!line)
        return;
    f.file = line->file;
    f.line = line->line;
    f.code = line->code;
}

std::string windowText(const CostBreakdown& cost) {
    return "over the " + formatCount(cost.calls) + " profiled calls after the measure phase (" +
           cost.source + ")";
}

// What to do about a fused attention kernel's time: it is the attention's
// own, so the levers are the backend SDPA picked and the sequence length.
std::string attentionRemedy(const std::string& backend) {
    std::string remedy = "This is ATen's fused attention kernel (SDPA's " + backend +
                         " backend), which Inductor calls on purpose: its time is the "
                         "attention's own and grows with the square of the sequence length. ";
    if (backend == "memory-efficient")
        return remedy + "SDPA's flash backend is usually faster; it needs fp16 or bf16 inputs "
                        "(--autocast bf16) and no explicit attention mask (is_causal=True "
                        "instead of a causal mask).";
    return remedy + "Shorter or unpadded sequences cut it; the compile settings do not change "
                    "this kernel.";
}

void dominant(const Run& run, int index, const CostBreakdown& cost, std::vector<Finding>& out) {
    const KernelCostRow* top = nullptr;
    double second = 0; // the next kernel's share
    int timed = 0;
    for (const auto& row : cost.kernels) {
        if (row.kind == "wrapper" || !row.nsPerCall)
            continue;
        ++timed;
        if (!top || row.share > top->share) {
            second = top ? top->share : 0;
            top = &row;
        } else {
            second = std::max(second, row.share);
        }
    }
    // One kernel alone is the whole graph: nothing to single out. Nor is one
    // of two near-equal kernels (two identical layers at 51% and 49%).
    if (!top || timed < 2 || top->share <= kDominantShare ||
        top->share < kDominantOverNext * second)
        return;
    const std::string label = run.setting.label();
    Finding f = codeFinding("kernel.dominant", Severity::Info, index, label);
    f.title = label + ": one kernel takes " + percent(top->share) +
              " of the compiled kernel time (" + top->name + ")";
    f.evidence.push_back(top->name + " (" + top->kind + ", compile " +
                         (top->compileId.empty() ? std::string("unknown") : top->compileId) +
                         (top->part.empty() ? "" : " " + top->part) + ") takes " +
                         formatDuration(*top->nsPerCall) + " per call, " + percent(top->share) +
                         " of the kernels' " + formatDuration(cost.compiledNsPerCall) + " " +
                         windowText(cost) + " (Code tab)");
    if (top->kernel && !top->kernel->nodes.empty()) {
        const auto& nodes = top->kernel->nodes;
        std::vector<std::string> named;
        for (size_t i = 0; i < nodes.size() && i < 8; ++i)
            named.push_back(nodes[i]);
        if (nodes.size() > named.size())
            named.push_back(plural(static_cast<long long>(nodes.size() - named.size()), "more node",
                                   "more nodes"));
        f.evidence.push_back("it contains the FX nodes " + joinWords(named));
    }
    const std::string lines = linesOf(cost, top->name);
    if (!lines.empty())
        f.evidence.push_back("its time goes to " + lines);
    else
        f.evidence.push_back("its nodes have no source line in the report");
    // A line that calls a container (an nn.Sequential) does not say which layer.
    if (const std::string modules = modulesText(top->modules);
        hasSubmoduleCost(cost) && !modules.empty())
        f.evidence.push_back(
            "its nodes are in " +
            (modules == "the model" ? "the model's own forward" : "module " + modules) +
            " (Code tab, Modules)");
    if (top->ambiguous)
        f.evidence.push_back("the name is shared by several graphs: their time was split evenly");
    placeAt(f, hottestLineOf(cost, top->name));
    if (top->kind == "extern" || top->kind == "template")
        f.remedy = "This kernel is where the compiled time goes. It is a matmul or convolution: "
                   "mode max-autotune benchmarks Inductor's templates against ATen's kernel "
                   "for it; compare that setting's kernels with this one's.";
    else if (const std::string backend = fusedAttentionBackend(top->name); !backend.empty())
        f.remedy = attentionRemedy(backend);
    else if (isCustomOp(top->kind, top->name))
        f.remedy = "This kernel is a custom op (" + customOpName(top->name) +
                   "), which Inductor calls as a black box: see the kernel.fallback finding, "
                   "and the line above.";
    else if (top->kind == "fallback")
        f.remedy = "This kernel is an op Inductor could not lower and runs through ATen: see the "
                   "kernel.fallback finding, and the line above.";
    else
        f.remedy = "This kernel is where the compiled time goes: work on the lines it fuses "
                   "first (less data read and written, fewer passes over it); other kernels "
                   "matter less than " +
                   percent(1 - top->share) + " together.";
    f.confidence = top->kernel ? 0.9 : 0.7;
    out.push_back(std::move(f));
}

// The fallback kernels grouped by op: two layers' attention run the same
// ATen op as two kernels, and the op is what the user can change.
struct FallbackOp {
    std::string name;
    double nsPerCall = 0;
    double share = 0;
    int kernels = 0;
    bool complex = false; // on complex tensors, for which Inductor writes no code
    bool custom = false;  // a custom op (customOpName): a black box by design
};

bool isComplex(const std::string& dtype) {
    return dtype.rfind("complex", 0) == 0;
}

// The nodes of a run's graphs that compute on complex tensors, by (compile
// id, name): the node, or a node it reads, is complex64/128. torch 2.15's
// Inductor generates no code for them ("does not support code generation
// for complex operators"), so every op on them is a fallback.
std::set<std::pair<std::string, std::string>> complexNodes(const Run& run) {
    std::set<std::pair<std::string, std::string>> found;
    for (const auto& graph : run.graphs) {
        std::map<std::string, const GraphNode*> byName;
        for (const auto& node : graph.nodes)
            byName.emplace(node.name, &node);
        auto complexNode = [&](const std::string& name) {
            const auto it = byName.find(name);
            return it != byName.end() && isComplex(it->second->dtype);
        };
        for (const auto& node : graph.nodes) {
            if (isComplex(node.dtype) ||
                std::any_of(node.inputs.begin(), node.inputs.end(), complexNode))
                found.emplace(graph.compileId, node.name);
        }
    }
    return found;
}

// Whether a fallback kernel holds one of `complex` (complexNodes).
bool onComplexTensors(const std::set<std::pair<std::string, std::string>>& complex,
                      const KernelCostRow& row) {
    return row.kernel && std::any_of(row.kernel->nodes.begin(), row.kernel->nodes.end(),
                                     [&](const std::string& name) {
                                         return complex.count({row.compileId, name}) > 0;
                                     });
}

// transformers' grouped_mm experts path (its default where a model supports
// it) sorts, counts and offsets the routed tokens with ops Inductor leaves to
// ATen. Measured with torch 2.15 and transformers 5.25 on a 2-layer Qwen2-MoE
// (4 experts, top-2) on 2 CPU cores, compiled under mode default.
constexpr const char* kMoeExpertsRemedy =
    " Here it is transformers's grouped_mm experts path, which sorts and counts the routed "
    "tokens: experts_implementation=\"batched_mm\" (a keyword of from_pretrained and "
    "from_config) runs the experts as batched matmuls that Inductor compiles whole (checked on a "
    "2-layer Qwen2-MoE, 4 experts, top-2, on 2 CPU cores, compiled: 614 µs and 679 µs per call in "
    "two runs against 1.19 ms and 1.24 ms "
    "at 32 tokens, 1.67 ms against 2.20 ms at 256, with no fallback left; uncompiled it was the "
    "slower one, 7.12 ms against 3.26 ms at 256). It copies each chosen "
    "expert's weights for every token, so its memory grows with the tokens of a call: it suits "
    "few tokens per call (decoding); measure it at your batch sizes (scale) before keeping it.";

void fallback(const Run& run, int index, const CostBreakdown& cost, std::vector<Finding>& out) {
    double share = 0;
    double nsPerCall = 0;
    int kernels = 0;
    std::vector<FallbackOp> ops; // costliest first, as the rows come
    FallbackOp attention;        // ATen's fused attention: a fallback on purpose
    FallbackOp ffts;             // FFTs: library transforms in any mode, nothing to lower
    std::vector<std::string> attentionBackends;
    const auto complex = complexNodes(run);
    for (const auto& row : cost.kernels) {
        if (row.kind != "fallback" || !row.nsPerCall)
            continue;
        if (const std::string backend = fusedAttentionBackend(row.name); !backend.empty()) {
            if (std::find(attentionBackends.begin(), attentionBackends.end(), backend) ==
                attentionBackends.end())
                attentionBackends.push_back(backend);
            attention.nsPerCall += *row.nsPerCall;
            attention.share += row.share;
            ++attention.kernels;
            continue;
        }
        if (containsText(row.name, "._fft_")) {
            ffts.nsPerCall += *row.nsPerCall;
            ffts.share += row.share;
            ++ffts.kernels;
            continue;
        }
        share += row.share;
        nsPerCall += *row.nsPerCall;
        ++kernels;
        auto op = std::find_if(ops.begin(), ops.end(),
                               [&](const FallbackOp& o) { return o.name == row.name; });
        if (op == ops.end())
            op = ops.insert(ops.end(), FallbackOp{row.name});
        op->nsPerCall += *row.nsPerCall;
        op->share += row.share;
        ++op->kernels;
        op->complex = op->complex || onComplexTensors(complex, row);
        op->custom = !customOpName(row.name).empty();
    }
    if (ops.empty() || share < kFallbackShare)
        return;
    std::stable_sort(ops.begin(), ops.end(), [](const FallbackOp& a, const FallbackOp& b) {
        return a.nsPerCall > b.nsPerCall;
    });
    double customShare = 0;
    std::vector<std::string> customNames;
    for (const auto& op : ops) {
        if (op.custom) {
            customShare += op.share;
            customNames.push_back(customOpName(op.name));
        }
    }
    const std::string label = run.setting.label();
    Finding f = codeFinding("kernel.fallback", Severity::Warning, index, label);
    f.title =
        label + ": " + percent(share) + " of the compiled kernel time is in " +
        (customNames.size() == ops.size() ? "custom ops, which Inductor calls as black boxes"
         : customNames.empty()            ? "ops Inductor could not lower (ATen fallbacks)"
                               : "ops Inductor does not compile (ATen fallbacks and custom ops)");
    f.evidence.push_back(
        plural(kernels, "fallback kernel", "fallback kernels") +
        (ops.size() > 1 ? " of " + plural(static_cast<long long>(ops.size()), "op", "ops")
                        : std::string()) +
        (kernels == 1 ? " takes " : " take ") + formatDuration(nsPerCall) + " per call, " +
        percent(share) + " of the kernels' " + formatDuration(cost.compiledNsPerCall) + " " +
        windowText(cost) + " (Code tab)");
    for (size_t i = 0; i < ops.size() && i < 3; ++i) {
        const FallbackOp& op = ops[i];
        std::string line = op.name + (op.complex ? " on complex tensors" : "") +
                           (op.custom ? " (a custom op)" : "") + ": " +
                           formatDuration(op.nsPerCall) + " per call (" + percent(op.share) +
                           (op.kernels > 1 ? ", " + plural(op.kernels, "kernel", "kernels") : "") +
                           ")";
        const std::string lines = linesOf(cost, op.name, 2);
        if (!lines.empty())
            line += ", from " + lines;
        // A library's module (nn.TransformerEncoderLayer) has no line of the user's.
        else if (const std::string modules = modulesOf(cost, op.name); !modules.empty())
            line += ", in " + modules;
        f.evidence.push_back(line);
    }
    if (ops.size() > 3)
        f.evidence.push_back(plural(static_cast<long long>(ops.size() - 3), "more op", "more ops"));
    if (attention.kernels > 0)
        f.evidence.push_back("left out: ATen's fused attention (" + joinWords(attentionBackends) +
                             "), " + formatDuration(attention.nsPerCall) + " per call (" +
                             percent(attention.share) +
                             "), which Inductor runs as a fallback on purpose");
    if (ffts.kernels > 0)
        f.evidence.push_back("left out: FFTs, " + formatDuration(ffts.nsPerCall) + " per call (" +
                             percent(ffts.share) +
                             "), library transforms that compiled code calls just as eager does");
    placeAt(f, hottestLineOf(cost, ops.front().name));
    f.remedy = "Inductor runs these ops through ATen, outside its generated kernels: nothing "
               "fuses across them and each reads and writes its tensors on its own. ";
    // A library's line is not the user's to rewrite.
    const std::string package = installedPackage(f.file);
    if (package.empty() || package == "torch")
        f.remedy += "Express the line with ops Inductor lowers, or try a newer torch, which may "
                    "lower the op.";
    else
        f.remedy += "The line is " + package +
                    "'s code, not the model file's: a newer torch may lower the op, or a newer " +
                    package + " may write it with ops Inductor lowers.";
    // A custom op is no op Inductor failed to lower: it was registered to be
    // called whole, and one written in Python runs its body as eager does.
    if (customShare >= share / 2) {
        f.remedy = "Most of this time is in custom ops (torch.library; here " +
                   joinWords(customNames) +
                   "): Inductor calls each as a black box, so nothing fuses into or across it, "
                   "and one written in Python runs its body op by op, as eager does, on every "
                   "call. ";
        if (package.empty() || package == "torch")
            f.remedy += "Where an op's body is torch ops that torch.compile can trace, call "
                        "them directly instead of through the op, and Inductor compiles them "
                        "with the rest; keep the op where its body cannot be traced.";
        else
            f.remedy += "The op is " + package +
                        "'s, called from its code, not the model file's: compiling leaves its "
                        "time as eager has it, so judge the compile by the rest of the time.";
    } else if (!customNames.empty()) {
        f.remedy += " The custom ops among them (" + joinWords(customNames) +
                    ") are black boxes to Inductor by design: their bodies run as eager runs "
                    "them.";
    }
    if (package == "transformers" && f.file.find("/integrations/moe.py") != std::string::npos)
        f.remedy += kMoeExpertsRemedy;
    // nn.TransformerEncoderLayer's and nn.MultiheadAttention's inference fast
    // path: one fused ATen op per layer, opaque to Inductor, taken in eval mode
    // without grad. Turned off, the layer is ops Inductor compiles.
    const bool fastPath = std::any_of(ops.begin(), ops.end(), [](const FallbackOp& op) {
        return op.name.find("_transformer_encoder_layer_fwd") != std::string::npos ||
               op.name.find("_native_multi_head_attention") != std::string::npos;
    });
    // Measured on a 3-layer spectral (FNO) model on 2 CPU cores: the same
    // product in real arithmetic compiled, but ran slower than complex eager.
    double complexShare = 0;
    for (const auto& op : ops)
        complexShare += op.complex ? op.share : 0;
    if (complexShare >= share / 2)
        f.remedy =
            "Most of these ops work on complex tensors, for which Inductor generates no "
            "code (torch warns \"Torchinductor does not support code generation for "
            "complex operators\"): each runs through ATen as in eager. Compiling cannot "
            "speed that part up, and a newer torch is no sure cure. Leave those layers eager "
            "(torch.compiler.disable on their forward) to save their compile, and judge "
            "the compile by the rest; rewriting the complex product in real arithmetic "
            "(torch.view_as_real) lets Inductor compile it, but on a 3-layer spectral model "
            "on 2 CPU cores that ran slower than complex eager, so measure before keeping "
            "it.";
    if (fastPath)
        f.remedy = "These are the inference fast path of nn.TransformerEncoderLayer / "
                   "nn.MultiheadAttention: one fused ATen op per layer, which Inductor cannot "
                   "look into. Call torch.backends.mha.set_fastpath_enabled(False) before "
                   "compiling: the layers then run as matmuls, softmax and norms that Inductor "
                   "fuses; profile the model again to see whether that is faster here.";
    f.confidence = 0.7;
    out.push_back(std::move(f));
}

const Graph* graphAt(const Run& run, int index) {
    for (const auto& graph : run.graphs)
        if (graph.index == index)
            return &graph;
    return nullptr;
}

// Whether a graph has a node on `file` with a line that `test` accepts.
template <typename Test> bool graphHasLine(const Graph* graph, const std::string& file, Test test) {
    if (!graph)
        return false;
    return std::any_of(graph->nodes.begin(), graph->nodes.end(), [&](const GraphNode& n) {
        return n.file == file && n.line > 0 && test(n.line);
    });
}

// The break an eager line comes after: the nearest break at or above it in the
// same file, else a break whose graphs sit on either side of it. -1: none.
int breakBefore(const Run& run, const LineCostRow& line) {
    int best = -1;
    int bestLine = 0;
    for (size_t b = 0; b < run.graphBreaks.size(); ++b) {
        const SourceFrame* at = run.graphBreaks[b].location();
        if (at && at->file == line.file && at->line <= line.line && at->line >= bestLine) {
            best = static_cast<int>(b);
            bestLine = at->line;
        }
    }
    if (best >= 0)
        return best;
    for (size_t b = 0; b < run.graphBreaks.size(); ++b) {
        const GraphBreak& gb = run.graphBreaks[b];
        const Graph* after = graphAt(run, gb.graphAfter);
        const Graph* before = graphAt(run, gb.graphBefore);
        if (graphHasLine(after, line.file, [&](int l) { return l >= line.line; }) &&
            graphHasLine(before, line.file, [&](int l) { return l <= line.line; }))
            return static_cast<int>(b);
    }
    return -1;
}

// "ssd.py:436 `score = score[keep_idxs]` took 2.49 ms per call outside any
// compiled graph, 14% of the 39.8 ms the call's ops took over ..."
std::string uncompiledLineText(const LineCostRow& line, const CostBreakdown& cost) {
    return shortLocation(line.file, line.line) + (line.code.empty() ? "" : " `" + line.code + "`") +
           " took " + formatDuration(line.eagerNsPerCall) +
           " per call outside any compiled graph, " + percent(line.eagerShare) + " of the " +
           formatDuration(cost.opsNsPerCall) + " the call's ops took " + windowText(cost) +
           " (Code tab)";
}

// The lines of one function that run uncompiled after one graph break (a
// frame Dynamo runs eagerly holds several): one finding. A line that is the
// break's own data-dependent op stands alone: its remedy differs.
struct UncompiledLines {
    std::vector<const LineCostRow*> lines; // costliest first
    int graphBreak = -1;
    bool breaksHere = false; // the single line is where the graph breaks
};

void uncompiledLines(const Run& run, int index, const CostBreakdown& cost,
                     std::vector<Finding>& out) {
    // Only Inductor's graphs show as compiled regions in the window; under
    // another backend (aot_eager) their ops count as eager time. With no graph
    // at all every line runs uncompiled: the break's finding says why.
    if (cost.opsNsPerCall <= 0 || run.graphBreaks.empty() || run.graphs.empty() ||
        run.setting.backend != "inductor")
        return;
    std::vector<UncompiledLines> groups;
    for (const auto& line : cost.lines) {
        if (line.file.empty() || line.eagerShare < kUncompiledShare)
            continue;
        const int b = breakBefore(run, line);
        if (b < 0)
            continue;
        const SourceFrame* at = run.graphBreaks[static_cast<size_t>(b)].location();
        const bool breaksHere = at && at->file == line.file && at->line == line.line;
        auto group = std::find_if(groups.begin(), groups.end(), [&](const UncompiledLines& g) {
            return !breaksHere && !g.breaksHere && g.graphBreak == b &&
                   g.lines.front()->file == line.file && g.lines.front()->function == line.function;
        });
        if (group == groups.end())
            group = groups.insert(groups.end(), UncompiledLines{{}, b, breaksHere});
        group->lines.push_back(&line);
    }

    const std::string label = run.setting.label();
    for (const auto& group : groups) {
        const LineCostRow& line = *group.lines.front();
        const bool one = group.lines.size() == 1;
        const GraphBreak& gb = run.graphBreaks[static_cast<size_t>(group.graphBreak)];
        const SourceFrame* at = gb.location();
        Finding f = codeFinding("kernel.uncompiled_line", Severity::Warning, index, label);
        f.file = line.file;
        f.line = line.line;
        f.code = line.code;
        f.graphBreak = group.graphBreak;
        double share = 0;
        std::string where = shortLocation(line.file, line.line);
        for (size_t i = 0; i < group.lines.size(); ++i) {
            share += group.lines[i]->eagerShare;
            f.evidence.push_back(uncompiledLineText(*group.lines[i], cost));
            if (i > 0)
                where += (i + 1 == group.lines.size() ? " and " : ", ") +
                         std::to_string(group.lines[i]->line);
        }
        f.title =
            one ? label + ": " + where + " runs uncompiled, " + percent(share) + " of the call"
                : label + ": " + line.function + "() runs uncompiled at " + where + ", " +
                      percent(share) + " of the call";
        const auto diagnosis = diagnoseBreak(gb);
        const bool dynamicOutputOp =
            group.breaksHere && diagnosis && diagnosis->cause == BreakCause::DynamicOutputShape;
        // A print or log call is its own cost: printing_hook.py:10 took 139 µs
        // per call eager and 167 µs compiled, most of the call either way.
        const bool printing =
            group.breaksHere && one && diagnosis && diagnosis->cause == BreakCause::PrintOrLogging;
        const bool opaqueModule =
            group.breaksHere && one && diagnosis && isOpaqueModule(diagnosis->cause);
        const bool backendFailed =
            group.breaksHere && one && diagnosis && diagnosis->cause == BreakCause::BackendFailure;
        if (const std::string type = gb.rootType(); at)
            f.evidence.push_back((group.breaksHere ? "the graph breaks at this line"
                                                   : std::string(one ? "it comes" : "they come") +
                                                         " after the graph break at " +
                                                         shortLocation(at->file, at->line)) +
                                 (type.empty() ? "" : " (" + type + ")") + " (Breaks tab)");
        if (one && line.compiledNsPerCall > 0)
            f.evidence.push_back("its compiled part takes " +
                                 formatDuration(line.compiledNsPerCall) + " per call");
        if (dynamicOutputOp) {
            // nms, nonzero, unique: the op is its own kernel in or out of a graph.
            f.remedy = "This line is the op that breaks the graph: " + diagnosis->what +
                       "'s output size depends on tensor values, so it runs as its own kernel "
                       "whether or not Dynamo keeps it in a graph. Removing the break "
                       "(torch._dynamo.config.capture_dynamic_output_shape_ops = True) saves the "
                       "break's cost, not this time; to cut it, give the op less work (fewer "
                       "candidates before it: a higher score threshold, or a top-k first).";
        } else if (opaqueModule) {
            f.remedy = "This line calls " + diagnosis->what +
                       ", which torch.compile cannot enter: the call is the graph break itself, "
                       "and its time is that module's, run eagerly. The break's finding says what "
                       "lets torch.compile in, or whether to keep the module out of the "
                       "compile altogether.";
        } else if (backendFailed) {
            // EnCodec's pad by tensor amounts: the line is the break, not after one.
            f.remedy = "This line is where the backend failed on " + diagnosis->what +
                       ": torch runs it, and the rest of " + functionName(line.function) +
                       " after it, eagerly. The break's finding says what lets the backend "
                       "compile it.";
        } else if (printing) {
            f.remedy = "This line is where " + diagnosis->what +
                       " breaks the graph, and its time is the call's own: it runs in Python "
                       "between the graphs, with whatever it formats (a tensor's repr reads the "
                       "tensor and builds the text). Compiling cannot speed it up; removing it "
                       "(the break's finding) saves both the break and this time, and printing "
                       "less often (every Nth call, from the caller) saves most of it.";
        } else {
            f.remedy = std::string(one ? "This line runs" : "These lines run") +
                       " in Python between compiled graphs. Removing the graph break before " +
                       (one ? "it" : "them") +
                       " (the Breaks tab says why it breaks) lets Dynamo compile " +
                       (one ? "it" : "them") +
                       " with the rest; else move the work out of the model's call.";
        }
        f.confidence = 0.7;
        out.push_back(std::move(f));
    }
}

// Whether a graph has a node in the module at `path` or below it ("" the model).
bool graphInModule(const Graph* graph, const std::string& path) {
    return graph && std::any_of(graph->nodes.begin(), graph->nodes.end(),
                                [&](const GraphNode& node) { return inModule(node.module, path); });
}

// The break among `breaks` whose line calls the module at `path` and whose
// cause is a module Dynamo cannot enter (self.gate(...) on a TorchScript
// gate, a quantized layer); -1 when none.
int breakCalling(const Run& run, const std::vector<size_t>& breaks, const std::string& path) {
    const std::string leaf = path.substr(path.rfind('.') + 1);
    if (leaf.empty() || std::isdigit(static_cast<unsigned char>(leaf.front())) != 0)
        return -1; // a container's child is not called by name
    for (size_t b : breaks) {
        const GraphBreak& gb = run.graphBreaks[b];
        const SourceFrame* at = gb.location();
        const auto diagnosis = diagnoseBreak(gb);
        if (at && diagnosis && isOpaqueModule(diagnosis->cause) &&
            containsText(at->code, "self." + leaf + "("))
            return static_cast<int>(b);
    }
    return -1;
}

// Appends to the finding of break `graphBreak` of run `index` (ranked before
// this rule's) what removing it brings back into the graph.
void addToBreakGain(std::vector<Finding>& out, int index, int graphBreak, const std::string& more) {
    for (auto& other : out) {
        if (other.run == index && other.graphBreak == graphBreak && graphBreak >= 0 &&
            other.rule.rfind("graph_break.", 0) == 0 && !other.gain.empty())
            other.gain += more;
    }
}

// Modules that ran wholly uncompiled in a compiled setting, none of their ops
// in a graph: a graph break under torch's own nn.Sequential, or in a loop,
// makes Dynamo run the frame around it eagerly, and with it modules in which
// nothing breaks (a break in blocks.1 leaves blocks.0 and blocks.2 eager).
void uncompiledModules(const Run& run, int index, const CostBreakdown& cost,
                       std::vector<Finding>& out) {
    if (cost.opsNsPerCall <= 0 || run.graphBreaks.empty() || run.graphs.empty() ||
        run.setting.backend != "inductor")
        return;
    std::set<std::string> wholly;            // uncompiled modules, their submodules too
    std::vector<const ModuleCostRow*> named; // the outermost of them
    double eagerNs = 0;
    for (const auto& row : cost.modules) { // tree order: a parent before its children
        if (!row.attributed || row.path.empty() || row.compiledNsPerCall > 0 ||
            row.eagerNsPerCall <= 0)
            continue;
        const bool underOne = wholly.count(parentModule(row.path)) > 0;
        wholly.insert(row.path);
        if (underOne)
            continue;
        named.push_back(&row);
        eagerNs += row.eagerNsPerCall;
    }
    if (named.empty() || eagerNs < kUncompiledShare * cost.opsNsPerCall)
        return;
    std::stable_sort(named.begin(), named.end(), [](const auto* a, const auto* b) {
        return a->eagerNsPerCall > b->eagerNsPerCall;
    });

    // The breaks they follow: those whose graphs hold nodes of the nearest
    // module above them that did compile (blocks, holding blocks.1).
    std::set<std::string> compiledAbove;
    for (const auto* row : named) {
        std::string up = parentModule(row->path);
        while (!up.empty() && wholly.count(up) > 0)
            up = parentModule(up);
        compiledAbove.insert(up);
    }
    std::vector<size_t> breaks;
    for (size_t b = 0; b < run.graphBreaks.size(); ++b) {
        const GraphBreak& gb = run.graphBreaks[b];
        const Graph* before = graphAt(run, gb.graphBefore);
        const Graph* after = graphAt(run, gb.graphAfter);
        if (std::any_of(compiledAbove.begin(), compiledAbove.end(), [&](const std::string& path) {
                return graphInModule(before, path) || graphInModule(after, path);
            }))
            breaks.push_back(b);
    }
    if (breaks.empty()) // their graphs hold no module paths: all breaks are candidates
        for (size_t b = 0; b < run.graphBreaks.size(); ++b)
            breaks.push_back(b);

    // A module the break's line calls and Dynamo cannot enter (a TorchScript
    // or recurrent module) is the break itself: its finding says so, and this
    // one's "nothing in it breaks" would be wrong (seen on a torch.jit.trace'd
    // block, tests/probe/models/traced_submodule.py).
    std::vector<const ModuleCostRow*> others;
    for (const auto* row : named) {
        const int itself = breakCalling(run, breaks, row->path);
        if (itself < 0) {
            others.push_back(row);
            continue;
        }
        eagerNs -= row->eagerNsPerCall;
        addToBreakGain(out, index, itself,
                       ", and with it " + moduleName(row->path) + ", which runs uncompiled: " +
                           percent(row->eagerNsPerCall / cost.opsNsPerCall) + " of the call's ops");
    }
    named = std::move(others);
    if (named.empty() || eagerNs < kUncompiledShare * cost.opsNsPerCall)
        return;

    const std::string label = run.setting.label();
    std::vector<std::string> names;
    std::vector<std::string> times;
    for (size_t i = 0; i < named.size(); ++i) {
        if (i == 3) {
            names.push_back(
                plural(static_cast<long long>(named.size() - 3), "more module", "more modules"));
            times.push_back(names.back());
            break;
        }
        names.push_back(moduleName(named[i]->path));
        times.push_back(names.back() + " " + formatDuration(named[i]->eagerNsPerCall));
    }
    const double share = eagerNs / cost.opsNsPerCall;
    Finding f = codeFinding("kernel.uncompiled_modules", Severity::Warning, index, label);
    f.title = label + ": " + joinWords(names) + (named.size() == 1 ? " runs" : " run") +
              " uncompiled, " + percent(share) + " of the call";
    const char* their = named.size() == 1 ? "its" : "their";
    f.evidence.push_back(joinWords(times) + " per call ran outside every compiled graph, none of " +
                         their + " ops compiled: " + percent(share) + " of the " +
                         formatDuration(cost.opsNsPerCall) + " the call's ops took " +
                         windowText(cost) + " (Code tab, Modules)");
    const GraphBreak& first = run.graphBreaks[breaks.front()];
    const SourceFrame* at = first.location();
    if (at) {
        const std::string type = first.rootType();
        f.evidence.push_back(
            std::string("the graph break behind ") + (named.size() == 1 ? "it: " : "them: ") +
            shortLocation(at->file, at->line) + (type.empty() ? "" : " (" + type + ")") +
            (breaks.size() > 1
                 ? ", and " + plural(static_cast<long long>(breaks.size() - 1), "more", "more")
                 : std::string()) +
            " (Breaks tab)");
        f.file = at->file;
        f.line = at->line;
        f.code = at->code;
        f.graphBreak = static_cast<int>(breaks.front());
    }
    const std::string access = pythonAccess(named.front()->path);
    f.remedy = "Nothing in " + std::string(named.size() == 1 ? "this module" : "these modules") +
               " breaks the graph: the break " +
               (at ? "at " + shortLocation(at->file, at->line) + " " : std::string()) +
               "makes Dynamo run the frame that calls " + (named.size() == 1 ? "it" : "them") +
               " eagerly (torch runs its own containers, such as nn.Sequential, uncompiled once "
               "a graph ends inside them, and a frame whose break lies in a loop runs "
               "uncompiled whole). Removing that break (see its finding) compiles " +
               (named.size() == 1 ? "it" : "them") + " with the rest; until then, compile " +
               (named.size() == 1 ? "it on its own" : "them one by one") +
               " where the model is built (" + access +
               ".compile(), nn.Module.compile), which holds wherever they are called from, "
               "and measure that with setting as-written, which keeps your file's own "
               "torch.compile calls (every other setting undoes them).";
    f.confidence = 0.7;
    // The break's own finding (ranked before this one) gains what removing it
    // brings back into the graph.
    addToBreakGain(out, index, f.graphBreak,
                   ", and with it " + joinWords(names) + ", which " +
                       (named.size() == 1 ? "runs" : "run") + " uncompiled: " + percent(share) +
                       " of the call's ops (kernel.uncompiled_modules)");
    out.push_back(std::move(f));
}

} // namespace

void kernelRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        if (!run.kernelProfile.present || run.kernelProfile.calls <= 0)
            continue;
        const CostBreakdown& cost = input.costOf(run);
        const int index = static_cast<int>(r);
        if (cost.compiledNsPerCall > 0) {
            dominant(run, index, cost, out);
            fallback(run, index, cost, out);
        }
        if (run.setting.mode != "eager")
            uncompiledLines(run, index, cost, out);
    }
}

void uncompiledModulesRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        if (run.setting.mode == "eager" || !run.kernelProfile.present ||
            run.kernelProfile.calls <= 0 || run.graphBreaks.empty())
            continue;
        uncompiledModules(run, static_cast<int>(r), input.costOf(run), out);
    }
}

} // namespace cs::core::advice
