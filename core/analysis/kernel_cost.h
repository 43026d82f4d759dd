// From kernel back to line (docs/kernel-cost.md): the profiled window's time
// per kernel, spread over each kernel's FX nodes and summed per user source
// line, next to the time spent uncompiled on each line. Qt-free.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

// One kernel of one run, with its time per call when the window measured it.
struct KernelCostRow {
    std::string compileId;
    std::string part; // inference, forward, backward; empty when no code names it
    std::string name;
    std::string kind;                // cpp, triton, extern, fallback, template, other, wrapper
    std::optional<double> nsPerCall; // absent: in the code, not seen in the window
    double share = 0;                // of the compiled total (kernels only; 0 for the wrapper row)
    int64_t launchesPerCall = 0;
    const CodeKernel* kernel = nullptr;  // the code's entry; null: profiled but unmapped
    const GeneratedCode* code = nullptr; // the graph's code it belongs to
    bool ambiguous = false;
    // The module paths of the nodes it charges ("" the model itself), in the
    // code's order: which of fifty "convolution" rows is features.3's.
    std::vector<std::string> modules;
};

// One user source line and what it costs per call.
struct LineCostRow {
    std::string file; // empty for the "no source line" row
    int line = 0;
    std::string function;
    std::string code;
    double compiledNsPerCall = 0;     // its share of the kernels' time
    double compiledShare = 0;         // of the compiled total
    double eagerNsPerCall = 0;        // time spent on it outside compiled regions
    double eagerShare = 0;            // of the call's ops (opsNsPerCall)
    std::vector<std::string> kernels; // the kernels that contain its nodes, costliest first
    std::vector<std::string> nodes;   // its FX nodes
};

// One module of the model's nn.Module tree and the compiled time its nodes
// took, by the same split as the lines: a model built of nn.Sequential puts
// most of its time on the one line that calls the container, its modules
// still tell the layers apart.
struct ModuleCostRow {
    std::string path;                 // "features.3.block.0"; "" the model itself
    bool attributed = true;           // false: the "no module" row (kernels without graph nodes)
    int depth = 0;                    // 0 the model, else the path's dotted parts
    double compiledNsPerCall = 0;     // its own nodes' and its submodules'
    double compiledShare = 0;         // of the compiled total
    double selfNsPerCall = 0;         // its own nodes' only
    std::vector<std::string> kernels; // its and its submodules', costliest first
    // KernelProfile::eagerModules: the time of the ops that ran uncompiled in
    // it and its submodules (all of them under eager, after a graph break
    // under a compiled setting), and its share of the call's ops.
    double eagerNsPerCall = 0;
    double eagerShare = 0;
};

struct CostBreakdown {
    bool profiled = false; // a kernel_profile with calls
    int calls = 0;
    std::string source;           // torch_profiler, cupti
    double compiledNsPerCall = 0; // sum of kernel time per call (the 100 % of compiledShare)
    double wrapperNsPerCall = 0;  // compiled-graph time outside kernels
    double eagerNsPerCall = 0;
    // Compiled kernels, the graphs outside them and eager ops together: what
    // the call's ops took. The profiled call (callNsPerCall) adds the Python
    // between the ops, which the window's line tracer inflates (efficientnet_b0
    // under eager on CPU: the call 26.1 ms, its ops 18.1 ms, the timed median
    // 18.6 ms), so a line's share is of the ops.
    double opsNsPerCall = 0;
    double callNsPerCall = 0;
    std::vector<KernelCostRow> kernels; // costliest first; kernels never profiled last
    std::vector<LineCostRow> lines;     // costliest (compiled + eager) first; "no source line" last
    // The modules that took compiled time and their ancestors, the model
    // first, each followed by its submodules, costliest first; "no module" last.
    std::vector<ModuleCostRow> modules;
};

// The run's breakdown (docs/kernel-cost.md, "The rule"). Pointers in the rows
// point into `run`; keep it alive and unchanged while they are used.
CostBreakdown costBreakdown(const Run& run);

// Whether a run of the report has a profiled window with calls (what makes the
// HTML's "Where the time goes" section worth writing).
bool hasCostBreakdown(const Report& report);

// The FX nodes a kernel contains and the kernels a node went into, within one
// compile id: what selecting a kernel or a node highlights in the other tab.
std::vector<std::string> kernelNodes(const Run& run, const std::string& compileId,
                                     const std::string& kernel);
std::vector<std::string> nodeKernels(const Run& run, const std::string& compileId,
                                     const std::string& node);

// ATen's fused attention kernels (flash, memory-efficient, cuDNN, the CPU
// flash kernel): Inductor runs them as fallbacks on purpose and pattern-matches
// hand-written attention into them, so their time is attention's own, not an
// op Inductor failed to lower. Returns the backend's name ("flash",
// "memory-efficient", "cuDNN", "CPU flash", "device"), empty for any other
// kernel name (aten.X.default, torch.ops.aten.X.default or aten::X).
std::string fusedAttentionBackend(const std::string& kernelName);

// A custom op of another library or of the user's (torch.library), called
// from compiled code: "torch.ops.transformers.grouped_mm_fallback.default" →
// "transformers::grouped_mm_fallback". Inductor calls it as a black box, by
// design rather than for want of a lowering. Empty for ATen's and torch's
// own namespaces (prims, quantized, mkldnn...) and any other name.
std::string customOpName(const std::string& kernelName);
// A fallback kernel that is a custom op (customOpName).
bool isCustomOp(const std::string& kind, const std::string& kernelName);

// The kind to show for a kernel: its kind, but "attention" for a fused
// attention fallback (the advice leaves it out of the fallbacks too) and
// "custom op" for a fallback that is one (customOpName).
std::string kernelKindLabel(const std::string& kind, const std::string& kernelName);

// The name to show where width is short: "torch.ops.aten.topk.default" →
// "aten.topk", "extern_kernels.convolution" → "convolution" (the kind column
// says what they are); any other name as is.
std::string shortKernelName(const std::string& kernelName);

// A kernel's modules in a few words: "features.3.block.0.0", "features.1.block
// (3 modules)", "the model" for the model's own nodes, "" for none.
std::string modulesText(const std::vector<std::string>& paths);

// "features.3.block" → "features.3"; a top-level module's parent is the model, "".
std::string parentModule(const std::string& path);
// Whether the module at `module` is the one at `path` or below it ("" the
// model: every module is).
bool inModule(const std::string& module, const std::string& path);
// The innermost module holding them all: "a.b" of "a.b.c" and "a.b.d"; "" the model.
std::string commonModule(const std::vector<std::string>& paths);

// Whether any compiled time went to a module below the model (a model of
// plain functions has none: its modules say nothing).
bool hasSubmoduleCost(const CostBreakdown& cost);

// The module rows worth a short listing (the CLI, the HTML report): those of
// at least 1 % down to the deepest level that keeps them within `maxRows`,
// the model's own row left out; in the breakdown's order.
std::vector<const ModuleCostRow*> moduleOverview(const CostBreakdown& cost, size_t maxRows);

// Two settings side by side.
struct KernelChange {
    std::string compileId;
    std::string nameA; // empty: only in B
    std::string nameB; // empty: only in A
    // "same" (the name in both), "re-fused" (same nodes, another kernel of the
    // same kind), "replaced" (only in A; with nameB: the same nodes went into a
    // kernel of another kind, an extern mm become a template), "new" (only in B)
    std::string change;
    std::optional<double> nsPerCallA;
    std::optional<double> nsPerCallB;
};
struct LineChange {
    std::string file;
    int line = 0;
    std::string code;
    double nsPerCallA = 0; // compiled + eager
    double nsPerCallB = 0;
};
// A module's compiled time in two runs (0 where a run's kernels have no node in it).
struct ModuleChange {
    std::string path;
    double nsPerCallA = 0;
    double nsPerCallB = 0;
};
struct CostComparison {
    std::vector<KernelChange> kernels;
    std::vector<LineChange> lines;     // largest gain (A − B) first
    std::vector<ModuleChange> modules; // below the model; largest gain first
};
CostComparison compareCosts(const Run& a, const Run& b);
// The same from breakdowns already made (their rows point into the runs).
CostComparison compareCosts(const CostBreakdown& a, const CostBreakdown& b);

// The breakdown as text (compilescope-cli costs): top kernels, hot lines and
// the modules' overview.
std::string costText(const Run& run, size_t topKernels = 10, size_t topLines = 15,
                     size_t topModules = 20);

} // namespace cs::core
