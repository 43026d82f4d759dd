// The session model: plain data for settings, runs and reports. No Qt here;
// widgets adapt these structs, writers serialise them, the parser fills them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/advice/advice_options.h"

namespace cs::core {

// How one probe process compiles and measures the model.
struct Setting {
    // eager, default, reduce-overhead, max-autotune, max-autotune-no-cudagraphs, aoti
    // (torch.export, AOTInductor package, run from C++ by compilescope-aoti-runner), or
    // as-written (kAsWritten: the model file's own torch.compile calls, kept)
    std::string mode = "default";
    std::string backend = "inductor"; // inductor, aot_eager, eager
    std::string dynamic = "auto";     // auto, true, false
    bool fullgraph = false;
    std::string device = "auto";   // auto, cpu, cuda
    std::string autocast = "none"; // none, bf16, fp16
    int warmup = 5;
    int iters = 100;
    bool sweep = false;
    // How the measured probe starts (docs/measuring.md, "Cold starts"):
    // kStartFresh (a fresh compile cache), kStartWarmCache (torch's caches
    // filled by an unmeasured priming run), kStartCacheArtifacts (a fresh cache
    // plus torch's portable cache artifacts saved by a priming run, loaded
    // before the first compile).
    std::string start = "fresh";
    int threads = 0;           // torch.set_num_threads in the probe; 0 leaves torch's default
    bool strictExport = false; // aoti: torch.export with strict=True (Dynamo tracing)
    // Variables set in this setting's probe only, over the session's
    // (Environment::probeEnvironment): "default:env=NAME=VALUE" measures a
    // remedy such as malloc's thresholds beside the setting without it.
    std::map<std::string, std::string> environment;

    // Short name shown in legends and tables: "eager", "default", "max-autotune/aot_eager".
    std::string label() const;
    bool warmCache() const;      // start == kStartWarmCache
    bool cacheArtifacts() const; // start == kStartCacheArtifacts
    bool operator==(const Setting&) const = default;
};

// "NAME=VALUE NAME2=\"A B\"": a value holding a blank, a comma or a colon in
// double quotes, as a settings list's env= and the GUI's field read it.
std::string environmentText(const std::map<std::string, std::string>& variables);

// The mode that keeps the model file's own torch.compile calls (each compiled
// with its own backend and options) where every other setting undoes them.
inline constexpr const char* kAsWritten = "as-written";

inline constexpr const char* kStartFresh = "fresh";
inline constexpr const char* kStartWarmCache = "warm_cache";
inline constexpr const char* kStartCacheArtifacts = "cache_artifacts";
// The values of Setting::start, fresh first.
const std::vector<std::string>& knownStarts();

// Imported: read from a TORCH_TRACE log (core/trace), not run by a probe.
enum class RunStatus {
    Pending,
    Running,
    Ok,
    Failed,
    Cancelled,
    Crashed,
    Timeout,
    Imported,
    Disconnected, // the SSH connection to a remote target was lost mid-run
};
const char* toString(RunStatus status);
std::optional<RunStatus> runStatusFromString(const std::string& text);

// One try of the probe's narrowing of a failed compile: the first call
// compiled again under a backend below the setting's (docs/capture.md).
struct StageCheck {
    std::string backend; // "eager", "aot_eager"
    bool ok = false;
    std::string error; // "TypeError: ..." when it failed too
    bool operator==(const StageCheck&) const = default;
};

struct ErrorInfo {
    ErrorInfo() = default;
    ErrorInfo(std::string kind, std::string message, std::string traceback)
        : kind(std::move(kind)), message(std::move(message)), traceback(std::move(traceback)) {}
    std::string kind;
    std::string message;
    std::string traceback;
    // Which stage of torch.compile a compile_failed comes from: "dynamo",
    // "aot_autograd" or "backend"; empty where the probe did not narrow it.
    std::string stage;
    std::vector<StageCheck> stageChecks;
    bool operator==(const ErrorInfo&) const = default;
};

struct PhaseSpan {
    std::string name;
    int64_t beginNs = -1;
    int64_t endNs = -1; // -1 while open, or when the probe died inside it
    bool operator==(const PhaseSpan&) const = default;
};

struct Iteration {
    int index = 0;
    int64_t latencyNs = 0;
    int64_t wallNs = 0;
    int64_t tNs = 0; // when the probe reported it
    bool warmup = false;
    bool firstCall = false;
    bool operator==(const Iteration&) const = default;
};

struct SourceFrame {
    std::string file;
    int line = 0;
    std::string function;
    std::string code;
    bool user = true; // false for torch or library frames
    bool operator==(const SourceFrame&) const = default;
};

struct GraphNode {
    std::string name;
    std::string op; // placeholder, call_function, call_method, call_module, get_attr, output
    std::string target;
    std::string shape;
    std::string dtype;
    std::string file;
    int line = 0;
    std::string module;
    std::vector<std::string> inputs;
    bool operator==(const GraphNode&) const = default;
};

struct Graph {
    int index = 0;
    std::string compileId;
    std::string function;
    std::string file;
    int line = 0;
    std::vector<GraphNode> nodes;
    // The model's module whose frame this graph compiled ("" the model's own
    // forward), when the frame's `self` was one: its nodes' modules lie under
    // it, and Dynamo reuses the graph for the other modules of that class
    // (KernelProfile::graphCalls says which ran it). nullopt: not a module's.
    std::optional<std::string> frameModule;
    bool operator==(const Graph&) const = default;
};

struct GraphBreak {
    int index = 0;
    std::string reason;
    std::string gbType;
    std::string gbId;                // torch's break id ("GB0059"); empty on torch without ids
    std::vector<SourceFrame> frames; // innermost last
    int userFrame = -1;              // index into frames, -1 when none is user code
    int graphBefore = -1;
    int graphAfter = -1;
    bool operator==(const GraphBreak&) const = default;
    // The frame to show: the innermost user frame, else the innermost frame.
    const SourceFrame* location() const;
    // torch chains a break met while handling another ("graph break in loop"
    // after the break inside the loop): the first is the cause.
    std::string rootReason() const;
    std::string rootType() const;
    // What torch called the break in a few words: rootType(), else the first
    // line of its reason (torch without break types).
    std::string cause() const;
    // The frame torch gave up on for this break and runs eagerly (a break in a
    // for/while loop): from torch's "frame skipped: NAME (FILE line N)".
    std::optional<SourceFrame> skippedFrame() const;
};

struct Recompile {
    std::string function;
    std::string reason;
    int cacheSize = 0;
    std::string inputShapes;
    bool limitHit = false; // torch hit the recompile limit and fell back to eager
    int limit = 0;         // torch's recompile limit; 0 when unknown
    // The library code torch compiled around the model's forward ("wrapper at
    // transformers/utils/generic.py:1030"); `function` then names the forward.
    std::string libraryFrame;
    // The probe's phase it happened in ("warmup", "measure", "sweep"); empty
    // when unknown (an imported log, an older report).
    std::string phase;
    // The call it happened in, numbered as Iteration::index; -1 when unknown
    // (the profiled window, a batch-size walk, an imported log, an older report).
    int callIndex = -1;
    bool operator==(const Recompile&) const = default;
};

struct CompilePhase {
    std::string name;
    double seconds = 0;
    bool operator==(const CompilePhase&) const = default;
};

// One compile (a compile id) of an imported TORCH_TRACE log, from its
// compilation_metrics record and the records that share its id.
struct CompileRecord {
    std::string compileId; // "0/1"; "0/0_1" for the second attempt after a restart
    std::string function;  // co_name
    std::string file;
    int line = 0;
    double startTime = 0;             // Unix seconds, as torch wrote it; 0 unknown
    double seconds = 0;               // entire_frame_compile_time_s
    std::vector<CompilePhase> phases; // the live probe's phase names (compile_phases.py)
    std::string failType;
    std::string failReason;
    std::vector<std::string> restartReasons;
    std::string recompileReason;
    std::string cudagraphSkipReason;
    int cacheSize = 0;
    int graphs = 0;      // dynamo_output_graph records with this id
    int graphBreaks = 0; // dynamo_graph_break_reason artifacts with this id
    // The generated code, left in the log until a view asks for it
    // (core/trace/trace_payload.h); -1 when the compile wrote none.
    int64_t outputCodeOffset = -1;
    int64_t outputCodeBytes = 0;
    bool operator==(const CompileRecord&) const = default;
};

// A lookup in torch's FX graph or AOTAutograd cache, from the log's artifacts.
struct CacheLookup {
    std::string compileId;
    std::string cache;   // fx_graph, aotautograd
    std::string outcome; // hit, miss, bypass
    std::string reason;  // why it bypassed; empty otherwise
    bool operator==(const CacheLookup&) const = default;
};

// Where an imported run came from: one rank's file of a TORCH_TRACE log.
struct TraceSource {
    std::string path;
    int rank = -1; // -1: the log has no rank
    int64_t pid = -1;
    std::string started; // the first record's time, as the log writes it ("1130 18:47:50.059000")
    int64_t bytes = 0;
    int64_t records = 0;
    std::map<std::string, int64_t> kinds;        // records per kind, known or not
    std::map<std::string, int64_t> unknownKinds; // kinds the importer does not read
    std::map<std::string, int64_t> artifacts;    // artifact records per name
    int64_t badPayloads = 0;                     // md5 mismatches (see parseProblems)
    bool truncated = false;                      // the file ends inside a record
    bool operator==(const TraceSource&) const = default;
};

struct MemorySeries {
    std::string kind;                                 // host_rss, device
    std::vector<std::pair<int64_t, int64_t>> samples; // (t_ns, bytes)
    std::map<std::string, int64_t> phasePeaks;
    // device (CUPTI) only: bytes held before collection began, frees of unknown
    // addresses, records lost (docs/cupti.md).
    int64_t baseline = 0;
    int64_t unknownFrees = 0;
    int64_t dropped = 0;
    bool operator==(const MemorySeries&) const = default;
};

struct MemoryStats {
    std::string phase;
    std::string edge;
    int64_t allocated = 0;
    int64_t reserved = 0;
    int64_t peakAllocated = 0;
    int64_t peakReserved = 0;
    bool operator==(const MemoryStats&) const = default;
};

struct KernelStat {
    std::string name;
    int64_t count = 0;
    int64_t totalNs = 0;
    int64_t meanNs = 0;
    bool operator==(const KernelStat&) const = default;
};

struct KernelSummary {
    bool present = false;
    int iterations = 0;
    double launchesPerIter = 0;
    double gpuNsPerIter = 0;
    double busyFraction = 0;
    std::vector<KernelStat> top;
    int64_t memcpyCount = 0;
    int64_t memcpyBytes = 0;
    int64_t memcpyNs = 0;
    int64_t dropped = 0;
    // Also from kernel_summary (docs/cupti.md); zero when the probe did not say.
    double kernelsPerIter = 0;
    int64_t memsetCount = 0;
    int64_t memsetBytes = 0;
    int64_t memsetNs = 0;
    std::map<std::string, int64_t> memcpyBytesByKind; // htod, dtoh, dtod, ...
    int64_t windowNs = 0;      // wall time of the measure phase; 0: no phase marks reached CUPTI
    int64_t kernelRecords = 0; // kernel records of the whole run
    int64_t untimed = 0;       // GPU records without timestamps, left out
    std::string note;
    bool operator==(const KernelSummary&) const = default;
};

// One kernel of Inductor's output code and what it was made of
// (docs/kernel-cost.md): from the provenance tracking artifacts where torch
// has them, else from the comments Inductor writes into the code.
struct CodeKernel {
    std::string name;  // "cpp_fused_relu_0", "extern_kernels.addmm"
    std::string kind;  // cpp, triton, extern, fallback, template, other
    int handle = -1;   // provenance debug handle (codegen order); -1 unknown
    int firstLine = 0; // 1-based lines of its source in the wrapper; 0: none
    int lastLine = 0;
    std::vector<std::string> nodes; // the captured graph's FX node names it contains
    std::vector<SourceFrame> lines; // user source lines of those nodes
    bool operator==(const CodeKernel&) const = default;
};

// Inductor's output code for one compiled graph (the inductor_code event).
struct GeneratedCode {
    std::string compileId;
    std::string part;         // inference, forward, backward
    std::string wrapper;      // the Python wrapper with its kernels inline; empty when omitted
    int64_t wrapperBytes = 0; // the original's size, also when omitted or truncated
    bool truncated = false;
    std::string fusionSource; // provenance, comments, none
    std::vector<CodeKernel> kernels;
    bool operator==(const GeneratedCode&) const = default;
};

// Time in one kernel (or one compiled graph's wrapper) over the profiled window.
struct KernelCost {
    std::string compileId; // empty: the name was shared by graphs and could not be told
    std::string name;      // empty for a wrapper row
    int64_t ns = 0;        // summed over the window
    int64_t count = 0;     // launches in the window
    bool ambiguous = false;
    bool operator==(const KernelCost&) const = default;
};

// Time spent outside compiled regions, on one user source line.
struct EagerLineCost {
    SourceFrame where;
    int64_t ns = 0; // summed over the window
    bool operator==(const EagerLineCost&) const = default;
};

// Time spent outside compiled regions in one module of the model: all of it
// under eager, what ran uncompiled after a graph break under a compiled
// setting (reports from before 2026-12-05 have it under eager only).
struct EagerModuleCost {
    std::string module; // its path in the model; "" the model's own forward
    int64_t ns = 0;     // summed over the window, ops inside its submodules excluded
    bool operator==(const EagerModuleCost&) const = default;
};

// One compiled graph's calls in the profiled window, by the module of the
// model whose frame ran them.
struct GraphCallTime {
    std::string compileId;
    std::string module; // "" the model's own forward
    int64_t ns = 0;     // the graph calls' time, summed over the window
    int64_t count = 0;
    bool operator==(const GraphCallTime&) const = default;
};

// The profiled window after the measure phase (the kernel_profile event).
struct KernelProfile {
    bool present = false;
    std::string source; // torch_profiler, cupti
    int calls = 0;
    int64_t windowNs = 0; // wall time of the window, profiler included
    int64_t callNs = 0;   // the calls' own time as the profiler saw it
    std::vector<KernelCost> kernels;
    std::vector<KernelCost> wrappers; // per compile id: compiled-graph time outside kernels
    std::vector<EagerLineCost> eager;
    std::vector<EagerModuleCost> eagerModules; // mode eager; empty otherwise
    std::vector<GraphCallTime> graphCalls;     // empty: no module model, or an older report
    int64_t eagerNs = 0;
    std::string note;
    bool operator==(const KernelProfile&) const = default;
};

// One output value compared with eager's (outputs_check's "worst" entries).
// A leaf whose every difference past the tolerance lies in rows (along the
// last dimension) that one side left all zeros: positions a padding mask
// masks out, which eager's nested-tensor fast path writes as zeros.
struct ZeroRows {
    std::string side; // "eager" or "compiled": whose rows are all zeros
    int64_t rows = 0; // rows all zeros on that side
    int64_t of = 0;   // rows in the leaf
    int64_t differingRows = 0;
    double maxAbsDiffElsewhere = 0; // the largest difference in the other rows
    double relativeElsewhere = 0;   // over the leaf's scale
    bool within = false;            // the other rows agree within the tolerance
    bool operator==(const ZeroRows&) const = default;
};

struct OutputLeaf {
    std::string path;  // output['logits']
    std::string kind;  // values, nonfinite, shape, type, structure, skipped
    std::string dtype; // float32; int for a Python number
    std::vector<int64_t> shape;
    double maxAbsDiff = 0; // largest |compiled - eager|
    double scale = 0;      // largest |eager|
    double relative = 0;   // maxAbsDiff / scale; for integers the share of elements that differ
    int64_t elements = 0;
    int64_t mismatched = 0; // elements past the tolerance
    int64_t nonfinite = 0;  // elements NaN or infinite on one side only
    bool differs = false;
    std::string detail; // shape, type and structure changes in words
    std::optional<ZeroRows> zeroRows;
    bool operator==(const OutputLeaf&) const = default;
};

// Eager called again with PyTorch's fast path off (torch.backends.mha), where
// the model holds modules that take it in eval (docs/outputs.md).
struct FastPathCheck {
    std::vector<std::string> modules; // "encoder (TransformerEncoder)"
    bool compiledAgrees = false;      // no compiled leaf past the tolerance from it
    double compiledRelative = 0;      // the compiled outputs' largest difference from it
    double eagerRelative = 0;         // eager's (fast path on) largest difference from it
    std::string note;                 // why there is no verdict
    bool operator==(const FastPathCheck&) const = default;
};

// Eager's outputs beside the compiled function's on the same inputs, after
// the timed calls (the outputs_check event; docs/outputs.md).
struct OutputsCheck {
    std::string status;    // match, differ, varies, skipped; empty: no check (eager, --iters 0)
    std::string message;   // why nothing was compared (varies, skipped)
    std::string precision; // the precision the tolerance is for: float32, bfloat16...
    double tolerance = 0;  // largest difference allowed, over the leaf's scale
    int leaves = 0;
    int differing = 0;
    int skipped = 0;
    std::vector<OutputLeaf> worst; // the leaves that differ, worst first; else the closest call
    // The same call in float64: each side's largest difference from it, over
    // its scale; absent unless a leaf differed.
    std::optional<double> float64EagerError;
    std::optional<double> float64CompiledError;
    std::string float64Note; // why there is no float64 call, or its shape verdict
    // Where a leaf's shape differs: whose shape the float64 call's output has,
    // "compiled", "eager" or "neither"; empty otherwise.
    std::string float64Shape;
    std::optional<FastPathCheck> fastPath; // absent unless a leaf differed
    int64_t ns = 0;
    bool present() const { return !status.empty(); }
    // The float64 call puts the compiled outputs nearer the exact result than eager's.
    bool compiledNearer() const {
        return float64EagerError && float64CompiledError &&
               *float64CompiledError < *float64EagerError;
    }
    // A differing leaf is a wrong result, not a rounding: NaN or infinite on
    // one side only, or a changed shape, type or structure.
    bool wrongResult() const;
    // Every differing leaf differs in shape only, and float64's output has
    // the compiled shapes: a size set by values moved in eager's rounding.
    bool sizeFollowsFloat64() const;
    // Apart from eager's by eager's rounding alone: no wrong result and the
    // float64 call puts the compiled outputs nearer the exact result, or the
    // sizes float64 gives are the compiled ones (sizeFollowsFloat64). The
    // comparison, the advice and the report diff all judge by this.
    bool roundingOnly() const {
        return status == "differ" && ((!wrongResult() && compiledNearer()) || sizeFollowsFloat64());
    }
    // Every differing leaf differs only in rows one side left all zeros, and
    // agrees elsewhere: padded positions, not a wrong result where it counts.
    bool maskedRowsOnly() const;
    // The outputs differ, and eager with its fast path off gives the compiled
    // ones: the fast path is the whole difference, not the compiler.
    bool fastPathOnly() const { return status == "differ" && fastPath && fastPath->compiledAgrees; }
    bool operator==(const OutputsCheck&) const = default;
};

// One kernel, memcpy or memset on a GPU stream, from the gpu_trace event.
struct GpuSlice {
    enum Kind { Kernel = 1, Memcpy = 2, Memset = 3 }; // the collector's record kinds
    int kind = Kernel;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t stream = 0;
    std::string name; // kernel name; "memcpy htod", "memset"
    int64_t bytes = 0;
    bool operator==(const GpuSlice&) const = default;
};

struct LogLine {
    LogLine() = default;
    LogLine(int64_t t, std::string lvl, std::string text, std::string name = {},
            std::string what = {})
        : tNs(t), level(std::move(lvl)), message(std::move(text)), code(std::move(name)),
          detail(std::move(what)) {}
    int64_t tNs = 0;
    std::string level;
    std::string message;
    // For lines the analysis reads ("inputs_changed", "cudagraphs_skipped"):
    // a stable name, and the part a finding quotes. Empty on other lines and
    // in reports written before they existed.
    std::string code;
    std::string detail;
    bool operator==(const LogLine&) const = default;
};

// A probe fallback fired because the torch in use lacks something: the capture
// still ran, with less detail.
struct CaptureWarning {
    std::string what;  // what failed
    std::string error; // the exception's text
    std::string torch; // the torch version it happened under
    bool operator==(const CaptureWarning&) const = default;
};

// A line of the event stream that could not be used.
struct ParseProblem {
    int64_t line = 0;
    std::string message;
    bool operator==(const ParseProblem&) const = default;
};

// Facts from the probe's hello: what ran where.
struct ProbeInfo {
    int protocol = 0;
    std::string probeVersion;
    std::string python;
    std::string pythonExecutable;
    std::string torch;
    std::string cuda;
    std::string device;
    std::string deviceName;
    std::string cpu;
    std::string host;
    std::string platform;
    int threads = -1;             // torch's intra-op threads (the model event); -1 unknown
    std::vector<int> cpuAffinity; // the CPUs the probe could run on; empty unknown
    // The variables that change torch the probe started with (hello's
    // torch_env): the caller's shell's, the session's --env and the setting's
    // env= together; inheritedVariables() tells them apart.
    std::map<std::string, std::string> torchEnvironment;
    // The probe said (torch_env was there, if empty): false for a report from
    // before it, whose torchEnvironment is no evidence of none.
    bool torchEnvironmentKnown = false;
    bool operator==(const ProbeInfo&) const = default;
};

// A torch.compile call of the model's own code, which the probe undid on
// load so that every setting runs what it names (docs/protocol.md, `model`).
struct OwnCompile {
    std::string where;   // "get_model()", a module path ("" the model), "Net.forward", a function
    std::string how;     // "torch.compile", "Module.compile" or "decorator"
    std::string backend; // "inductor", "aot_eager", ...
    std::string mode;    // the Inductor mode its options name; "" with another backend
    std::string dynamic = "auto"; // as Setting::dynamic: "auto", "true", "false"
    bool fullgraph = false;
    std::string call; // as the probe read it back: torch.compile(mode="max-autotune")
    bool operator==(const OwnCompile&) const = default;
};

// A hook a module of the model runs around its forward: torch.compile traces
// it with the module (docs/capture.md, "Module hooks").
struct ModuleHook {
    std::string module;   // the module's path in the model; "" the model, or a global hook
    std::string kind;     // forward_pre, forward, global_forward_pre, global_forward
    std::string function; // its qualified name: "log_activation", "Probe.record"
    std::string file;     // "" for a callable without Python code
    int line = 0;         // where the function is defined
    bool operator==(const ModuleHook&) const = default;
};

struct ModelInfo {
    std::string spec;
    std::string file;
    std::string name;
    int64_t parameters = 0;
    std::vector<std::string> inputs; // "float32[32, 512]"
    std::vector<OwnCompile> ownCompiles;
    std::vector<ModuleHook> hooks;
    bool operator==(const ModelInfo&) const = default;
};

// One setting's probe process and everything it reported.
// Batch-size scaling (compilescope-cli scale, docs/measuring.md): one fresh
// probe per setting walks the batch sizes; each size compiled and measured.
struct ScalePoint {
    int64_t batchSize = 0;
    int64_t firstCallNs = -1;       // the first call at this size: its compile included
    std::vector<int64_t> latencyNs; // the measured calls at this size
    int64_t peakMemoryBytes = -1;   // -1: not measured
    std::string memoryKind;         // "cuda_allocated" or "host_rss"
    int recompiles = 0;             // Dynamo recompiles this size caused
    bool operator==(const ScalePoint&) const = default;
};
struct ScaleStop {
    // "done" (every size measured), "oom" (CUDA out of memory at batchSize),
    // "memory_cap" (host memory cap reached), "budget" (time budget spent),
    // "error" (another failure at batchSize)
    std::string reason;
    int64_t batchSize = 0; // the size it stopped at (not measured), 0 for done
    std::string message;
    bool operator==(const ScaleStop&) const = default;
};
struct Scaling {
    std::string batchSource;        // "get_inputs(batch_size)" or "dim0"
    bool dynamic = false;           // one dynamic compile for all sizes
    std::vector<int64_t> requested; // the sizes asked for; empty: auto (doubling)
    double budgetSeconds = 0;       // auto's time budget
    int64_t memoryCapBytes = 0;     // CPU: the host-memory cap; 0 none
    std::vector<ScalePoint> points; // in the order walked
    std::optional<ScaleStop> stop;  // absent: the walk did not end (probe died)
    bool operator==(const Scaling&) const = default;
};

// aoti: why torch.export refused the model (docs/aoti.md). Like a graph
// break, but nothing runs: the setting has no package.
struct ExportFailure {
    // "data_dependent" (a branch or size on tensor values), "item" (a Python
    // number from a tensor), "unsupported" (an op or call export cannot trace),
    // "dynamic_shape" (a Dim spec torch disagrees with), "pytree_type" (an
    // input or output of a type export cannot flatten into tensors), "other"
    std::string category;
    std::string exception; // torch's exception type
    std::string reason;    // torch's words, first paragraph
    std::string file;      // the user's line it points at, when known
    int line = 0;
    std::string code;
    std::string remedy;
    bool strict = false; // strict=True was asked for
    bool operator==(const ExportFailure&) const = default;
};

// torch's portable cache artifacts (torch.compiler.save_cache_artifacts /
// load_cache_artifacts), from the probe's cache_artifacts event.
struct CacheArtifacts {
    std::string action; // "save" or "load"
    std::string path;
    int64_t bytes = -1; // the artifacts' size; -1 unknown, 0 nothing saved
    int64_t ns = -1;    // how long the save or load took
    // What torch saved or loaded: kind ("inductor", "aot_autograd", ...) and count.
    std::vector<std::pair<std::string, int>> entries;
    std::string message; // e.g. why nothing was saved
    bool operator==(const CacheArtifacts&) const = default;
};

// The whole machine's CPU over the measure phase (the measure end's
// machine_cpu, docs/measuring.md): what else ran while the probe timed.
struct MachineCpu {
    int cpus = 0; // 0: not measured
    int64_t wallNs = 0;
    int64_t busyNs = 0; // all CPUs, all processes, the probe's included
    int64_t stealNs = 0;
    int64_t probeCpuNs = 0;    // the probe's threads and its child processes
    int64_t tickNs = 0;        // busyNs and stealNs are counted in these
    int64_t childrenCpuNs = 0; // of probeCpuNs, its child processes (a recompile's C++ compiler)
    bool present() const { return cpus > 0 && wallNs > 0; }
    bool operator==(const MachineCpu&) const = default;
};

// A fixed CPU workload timed before the warmup and after the measured calls
// (the measure end's host_reference, docs/measuring.md "The machine's speed"):
// the median ns of one rep; 0 when not taken.
struct HostReference {
    int64_t beforeNs = 0;
    int64_t afterNs = 0;
    bool present() const { return beforeNs > 0 && afterNs > 0; }
    double meanNs() const { return (static_cast<double>(beforeNs) + afterNs) / 2; }
    bool operator==(const HostReference&) const = default;
};

// The probe's own page faults and kernel CPU over the measured calls (the
// measure end's host_faults, docs/measuring.md "Page faults"): buffers that
// malloc hands back to the OS are faulted in and zeroed again on every call.
struct HostFaults {
    int calls = 0; // the measured calls they cover; 0: not measured
    int64_t minor = 0;
    int64_t major = 0;
    int64_t sysCpuNs = 0; // the kernel's CPU time for the probe, all its threads
    int64_t wallNs = 0;   // the measured calls' span
    int64_t pageBytes = 4096;
    std::string allocator; // "glibc", "jemalloc", "tcmalloc", "mimalloc"; "" unknown
    std::vector<std::pair<std::string, std::string>> mallocEnv; // malloc's tunables that were set
    bool present() const { return calls > 0; }
    bool operator==(const HostFaults&) const = default;
};

// What malloc held before and after a window of calls at the same inputs
// (the measure and crosscheck ends' host_held, docs/measuring.md "Memory kept
// per call"): a model that keeps memory per call grows in both windows.
struct HeldWindow {
    std::string counter; // "malloc": glibc's bytes in use
    int calls = 0;       // 0: not read
    int64_t beginBytes = 0;
    int64_t endBytes = 0;
    bool present() const { return calls > 0; }
    bool operator==(const HeldWindow&) const = default;
};

// Another probe of a setting, started after every setting had its first
// (--repeat, docs/measuring.md "Repeated probes"): a fresh process timed the
// same way, of which only the measured calls are kept. Two processes of one
// setting can differ by more than either's own interval; these measure that.
struct RepeatProbe {
    int round = 1; // 1: the setting's second probe
    RunStatus status = RunStatus::Pending;
    std::string error;              // why it measured nothing; empty when it did
    std::vector<int64_t> latencyNs; // its measured calls
    HostReference hostReference;
    bool operator==(const RepeatProbe&) const = default;
};

struct Run {
    Setting setting;
    RunStatus status = RunStatus::Pending;
    std::optional<ErrorInfo> error;
    std::optional<int> exitCode;
    ProbeInfo probe;
    ModelInfo model;
    bool sawHello = false;
    bool sawDone = false;
    std::string doneStatus;
    int64_t firstEventNs = -1;
    int64_t lastEventNs = -1;
    std::vector<PhaseSpan> phases;
    std::vector<Iteration> iterations;
    int64_t harnessOverheadNs = -1;
    // The cross-check (docs/measuring.md): the same calls timed in blocks after
    // the measure phase, mean ns per call of each block.
    int crosscheckBlockCalls = 0;
    std::vector<double> crosscheckBlockMeansNs;
    // The app's own CPU time while the probe measured; -1 when not taken.
    int64_t appCpuMeasureNs = -1;
    MachineCpu measureMachineCpu;
    HostReference hostReference;
    // Measured calls left out of the statistics as still warming up: the
    // user's choice (--drop-unsettled, the Latency tab), never made silently.
    int droppedUnsettled = 0;
    std::vector<Graph> graphs;
    std::vector<GraphBreak> graphBreaks;
    std::vector<Recompile> recompiles;
    std::vector<CompilePhase> compilePhases;
    int64_t firstCallNs = -1;
    std::string compilePhasesSource;
    // What held Dynamo off after the first call (compile_time's dynamo_off):
    // "torch._dynamo.config.disable = True", "torch.compiler.set_stance(...)";
    // empty while compile was on.
    std::string dynamoOff;
    // A second compile_time (scope "warmup"): compile work done by the later
    // warmup calls (CUDA-graph recording, runtime autotuning, recompiles),
    // splitting those calls' wall time the same way.
    std::vector<CompilePhase> warmupCompilePhases;
    int64_t warmupCompileNs = -1;
    std::vector<MemorySeries> memory;
    std::vector<MemoryStats> memoryStats;
    KernelSummary kernels;
    std::string cuptiMessage;
    bool cuptiActive = false;
    std::vector<GpuSlice> gpuTrace; // time order; capped by the probe
    int64_t gpuTraceTruncated = 0;  // records of the phase left out by the cap
    std::string gpuTracePhase;      // the phase the records come from ("measure")
    std::vector<LogLine> logs;
    std::vector<CaptureWarning> captureWarnings;
    std::vector<RepeatProbe> repeats; // in round order; empty without --repeat
    // The compile sub-phase torch reported last (compile_progress: "tracing",
    // "Inductor codegen"...), for the progress line; not kept in the report.
    std::string compileStage;
    std::string console; // the probe's stderr: the model's prints, torch's warnings
    std::vector<ParseProblem> parseProblems;
    std::vector<nlohmann::json> unknownEvents; // kept, never fatal
    // Imported runs only (status Imported): the log file, its compiles and
    // cache lookups.
    std::optional<Scaling> scaling;               // a scale run's walk; absent otherwise
    std::optional<ExportFailure> exportFailure;   // aoti: export refused the model
    std::optional<CacheArtifacts> cacheArtifacts; // a run that saved or loaded them
    // Inductor's generated code per compiled graph, and why it is absent
    // when it was left out on purpose ("--no-code").
    std::vector<GeneratedCode> code;
    std::string codeOmitted;
    KernelProfile kernelProfile;
    OutputsCheck outputsCheck;
    std::optional<TraceSource> trace;
    std::vector<CompileRecord> compiles;
    std::vector<CacheLookup> cacheLookups;
    HostFaults measureHostFaults;
    HeldWindow measureHostHeld;
    HeldWindow crosscheckHostHeld;

    bool finished() const;
    // The measured calls the statistics use: all of them but the first droppedUnsettled.
    std::vector<int64_t> measuredLatencies() const;
    // Median of the cross-check's block means; nullopt without one.
    std::optional<double> blockEstimateNs() const;
    std::vector<int64_t> warmupLatencies() const;
    const PhaseSpan* phase(const std::string& name) const;
    // The phase the probe is in (or died in): the last one begun and not ended.
    const PhaseSpan* openPhase() const;
    const MemorySeries* memorySeries(const std::string& kind) const;
    bool operator==(const Run&) const = default;
};

struct Environment {
    std::string python;
    std::string torch;
    std::string cuda;
    std::string device;
    std::string cpu;
    std::string host;
    std::string platform;
    std::string target; // "ssh://[user@]host[:port]" for a remote run; empty: this computer
    // Variables every probe of the session ran with (--env NAME=VALUE), on top
    // of compilescope's own environment; empty: none.
    std::map<std::string, std::string> probeEnvironment;
    bool operator==(const Environment&) const = default;
};

struct Report {
    int version = 2; // the format version it was read from; a new report has the current one
                     // (kReportVersion)
    std::string generator;
    std::string created; // ISO 8601 UTC
    ModelInfo model;
    Environment environment;
    std::vector<Run> runs;
    AdviceOptions adviceOptions; // what the user told the advice rules (advice.h)
    bool operator==(const Report&) const = default;

    // Fill environment and model from the first run that said hello.
    void deriveFromRuns();
};

} // namespace cs::core
