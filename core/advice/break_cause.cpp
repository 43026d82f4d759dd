#include "core/advice/break_cause.h"

#include <algorithm>
#include <regex>

#include "core/advice/advice_text.h"
#include "core/analysis/function_name.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/repeated_blocks.h"

namespace cs::core::advice {

namespace {

std::string sourceCode(const GraphBreak& b) {
    const SourceFrame* frame = b.location();
    return frame ? frame->code : std::string();
}

std::string functionName(const GraphBreak& b) {
    const SourceFrame* frame = b.location();
    // the user's name, not Dynamo's resume function: the remedy is pasted into their code
    return frame && !frame->function.empty() ? core::functionName(frame->function)
                                             : std::string("the compiled function");
}

std::string firstMatch(const std::string& text, const std::regex& pattern) {
    std::smatch m;
    return std::regex_search(text, m, pattern) && m.size() > 1 ? m[1].str() : std::string();
}

// torch names the builtin in backticks: "builtin operator `print` with ...".
std::string builtinName(const std::string& reason) {
    static const std::regex pattern(R"(builtin operator `([^`\n]+)`)");
    return firstMatch(reason, pattern);
}

// "module: zlib, qualname: crc32" or "the builtin `zlib.crc32.`".
std::string skippedName(const std::string& reason) {
    static const std::regex qualified(R"(module: ([\w.]+), qualname: ([\w.]+))");
    std::smatch m;
    if (std::regex_search(reason, m, qualified))
        return m[1].str() + "." + m[2].str();
    static const std::regex ticked(R"(`([\w.]+?)\.?`)");
    return firstMatch(reason, ticked);
}

// "<function interp at 0x...>" names the NumPy function.
std::string numpyName(const std::string& reason) {
    static const std::regex pattern(R"(<function (\w+) at 0x)");
    const std::string name = firstMatch(reason, pattern);
    return name.empty() ? std::string() : "np." + name;
}

// A break inside one of torch.ao.quantization's eager-mode quantized modules
// (quantized/dynamic/modules/linear.py calling torch.ops.quantized.*):
// nullopt when not; else the layer the user's line calls, "self.expand"
// when it calls exactly one, else "".
std::optional<std::string> quantizedLayer(const GraphBreak& b) {
    const bool inside = std::any_of(b.frames.begin(), b.frames.end(), [](const SourceFrame& f) {
        return containsText(f.file, "/torch/ao/nn/quantized/") ||
               containsText(f.file, "/torch/nn/quantized/") ||
               containsText(f.code, "torch.ops.quantized.");
    });
    if (!inside)
        return std::nullopt;
    static const std::regex call(R"(self\.(\w+)\()");
    const std::string code = regexInput(sourceCode(b));
    std::vector<std::string> called;
    for (std::sregex_iterator it(code.begin(), code.end(), call), end; it != end; ++it)
        called.push_back("self." + (*it)[1].str());
    return called.size() == 1 ? called.front() : std::string();
}

} // namespace

// The method torch broke on ("method: <Logger name (WARNING)>.isEnabledFor,
// args:") can be one the called method calls: torch 2.15 breaks on
// isEnabledFor for log.debug(...), and only ignoring Logger.debug removes
// the break (checked on tests/probe/models/logged_item.py). So the line's
// own logging call comes first.
std::string loggingMethod(const GraphBreak& b) {
    if (!containsText(b.rootType(), "logging.Logger"))
        return {};
    static const std::regex logCall(
        R"(\.(debug|info|warning|warn|error|exception|critical|log|\w+_once)\()");
    if (const std::string called = firstMatch(regexInput(sourceCode(b)), logCall); !called.empty())
        return "logging.Logger." + called;
    static const std::regex brokeOn(R"(method: <[^\n>]*>\.(\w+), args:)");
    const std::string name = firstMatch(regexInput(b.rootReason()), brokeOn);
    return name.empty() ? std::string() : "logging.Logger." + name;
}

std::string ignoreLoggingText(const std::string& method) {
    return method.empty() ? "add it to torch._dynamo.config.ignore_logging_functions"
                          : "torch._dynamo.config.ignore_logging_functions.add(" + method + ")";
}

namespace {

bool isScalarCall(const std::string& code, const std::string& reason) {
    return containsText(code, ".item()") || containsText(code, ".tolist()") ||
           containsText(reason, "_local_scalar_dense");
}

// A line that writes a message: print(), warnings.warn(), a logger's
// debug/info/... or logging.info(...), or a file's write(). A number taken
// on it feeds the message.
bool isMessageLine(const std::string& code) {
    static const std::regex message(
        R"((\bprint|\bwarnings\.warn|\w*log\w*\.(debug|info|warning|warn|error|critical|exception|log)|\.write)\s*\()",
        std::regex::icase);
    return std::regex_search(code, message);
}

// The file access a break is: "open()" for the builtin, "TextIOWrapper.write"
// for a method of a file object (io's classes); "" when it is none.
std::string fileAccess(const std::string& builtin, const std::string& reason) {
    if (builtin == "open")
        return "open()";
    static const std::regex method(
        R"(method `(\w+)` of class `(TextIOWrapper|BufferedWriter|BufferedReader|BufferedRandom|FileIO)`)");
    std::smatch m;
    if (std::regex_search(reason, m, method))
        return m[2].str() + "." + m[1].str();
    return {};
}

// The remedy's option that keeps a message in eager calls: Dynamo reads
// is_compiling() as True and leaves the whole line, arguments too, out.
const char* const kEagerOnlyGuard =
    "Or guard the line with if not torch.compiler.is_compiling(): it then runs in eager calls "
    "only, and Dynamo leaves it out of the graph, arguments and all.";

BreakDiagnosis make(BreakCause cause, std::string rule, std::string what, std::string title,
                    std::string remedy, double confidence) {
    return {cause,     std::move(rule), std::move(what), std::move(title), std::move(remedy),
            confidence};
}

// torch's "Backend compiler exception": "Backend compiler `inductor` failed
// with aten._local_scalar_dense.default ... While executing %padded : [...] =
// call_function[target=torch._C._nn.pad](...)". Checked with torch 2.15 on
// reflect padding by amounts held as tensors (tests/probe/models/
// padded_by_tensors.py): the backend's fake run needs their values.
std::optional<BreakDiagnosis> backendFailure(const std::string& reason, const std::string& fn) {
    static const std::regex failed(R"(Backend compiler `([^`\n]+)` failed with ([^\n]*))");
    static const std::regex node(R"(While executing %\w+ : [^\n]*?\[target=([^\]\n]+)\])");
    std::smatch m;
    if (!std::regex_search(reason, m, failed))
        return std::nullopt;
    const std::string backend = m[1].str();
    const std::string failure = m[2].str();
    const std::string target = firstMatch(reason, node);
    const std::string call = target.empty() ? "a call" : target;
    if (containsText(failure, "_local_scalar_dense")) {
        return make(BreakCause::BackendFailure, "graph_break.backend", call,
                    call + " gets tensors where it takes numbers: " + backend +
                        " cannot compile it",
                    call +
                        " takes Python numbers here (sizes, amounts), and the graph passes it "
                        "tensors: " +
                        backend +
                        " needs their values to compile it (aten._local_scalar_dense) and fails, "
                        "so torch compiles " +
                        fn +
                        " only up to this call and runs the rest of it eagerly. Pass Python "
                        "ints: hold such constants as int attributes of the module rather than "
                        "tensors or buffers, and compute sizes from shapes (x.shape[-1] is an "
                        "int under torch.compile) rather than from tensors (a reflect pad by "
                        "amounts held in a buffer: 4 graphs and 3 breaks, by int attributes: 1 "
                        "graph). capture_scalar_outputs does not help here: the graphs stay "
                        "the same.",
                    0.85);
    }
    return make(BreakCause::BackendFailure, "graph_break.backend", call,
                backend + " fails to compile " + call + ": torch runs it eagerly",
                backend + " raised on " + call + " (" + failure +
                    ") while compiling the graph Dynamo gave it, so torch compiles " + fn +
                    " only up to this call and runs the rest of it eagerly. This is a limit "
                    "of torch, not an error in the model: torch's message (Breaks tab) names "
                    "the op and the graph node. Try a newer torch, or keep the call out of the "
                    "compiled code (torch.compiler.disable on a small function that makes it), "
                    "so that what follows it compiles.",
                0.6);
}

// "Called `time.perf_counter()` inside a compiled region" names the clock.
std::string clockName(const std::string& reason) {
    static const std::regex called(R"(Called `([\w.]+\(\))` inside a compiled region)");
    static const std::regex breaksOn(R"(graph breaks on `([\w.]+\(\))`)");
    std::string name = firstMatch(reason, called);
    return name.empty() ? firstMatch(reason, breaksOn) : name;
}

} // namespace

std::string clockCall(const std::string& code) {
    const std::string bounded = regexInput(code);
    static const std::regex clock(
        R"((\b(?:\w+\.)*(?:perf_counter|perf_counter_ns|monotonic|monotonic_ns|process_time|process_time_ns|time_ns|thread_time|thread_time_ns|now|utcnow)\(\)|\btime\.time\(\)))");
    return firstMatch(bounded, clock);
}

// Checked with torch 2.15 (tests/probe/models/clock_in_forward.py): the code
// after a clock read guards on the float it returned, so every call compiled
// again until the recompile limit; helpers marked @torch.compiler.disable that
// keep the reading on the module broke the graph twice and compiled once.
std::string clockReadRemedy(const std::string& call, const std::string& fn) {
    return "Time the compiled call from its caller (t0 = " + call +
           "; y = model(x); elapsed = " + call + " - t0), not inside " + fn +
           ": Dynamo breaks the graph at every clock read, and code after it that uses the "
           "reading compiles it in as a constant, so each call, with a new time, compiles "
           "again until the recompile limit and then runs eagerly. For where the time goes "
           "inside the model, profile the compiled call with torch.profiler (the Code tab "
           "here). If the reads must stay, move them into methods marked "
           "@torch.compiler.disable that keep the reading on the module (self._t0 = " +
           call + ") and return nothing: two breaks per call, and no recompiles.";
}

std::vector<std::string> torchHints(const std::string& reason) {
    const std::string bounded = regexInput(reason);
    std::vector<std::string> hints;
    static const std::regex hint(R"(^\s*Hint:\s*(.+)$)");
    size_t start = 0;
    while (start <= bounded.size()) {
        const size_t end = bounded.find('\n', start);
        const std::string line =
            bounded.substr(start, end == std::string::npos ? end : end - start);
        std::smatch m;
        if (std::regex_match(line, m, hint)) {
            const std::string text = m[1].str();
            // "Set `fullgraph=False` to allow this backend fallback": a break
            // is already what fullgraph=False does.
            if (!containsNoCase(text, "report an issue") &&
                !containsNoCase(text, "file an issue") && !containsText(text, "fullgraph=False"))
                hints.push_back(text);
        }
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return hints;
}

const ModuleHook* hookAt(const ModelInfo& model, const std::string& file,
                         const std::string& function) {
    if (file.empty() || function.empty())
        return nullptr;
    for (const auto& hook : model.hooks) {
        const std::string& name = hook.function;
        const bool sameName = name == function || (name.size() > function.size() &&
                                                   name.compare(name.size() - function.size(),
                                                                function.size(), function) == 0 &&
                                                   name[name.size() - function.size() - 1] == '.');
        if (hook.file == file && sameName)
            return &hook;
    }
    return nullptr;
}

std::string hookText(const ModuleHook& hook) {
    const bool global = hook.kind.rfind("global_", 0) == 0;
    const bool pre = hook.kind.find("_pre") != std::string::npos;
    const std::string of = global                ? "every module (a global hook)"
                           : hook.module.empty() ? "the model"
                                                 : modulePathCode(hook.module);
    return hook.function +
           (hook.file.empty() ? std::string() : " (" + shortLocation(hook.file, hook.line) + ")") +
           " is a forward" + (pre ? " pre-" : " ") + "hook of " + of;
}

std::optional<BreakDiagnosis> diagnoseBreak(const GraphBreak& b) {
    const std::string gb = b.rootType();
    const std::string reason = regexInput(b.rootReason());
    const std::string code = regexInput(sourceCode(b));
    const std::string fn = functionName(b);
    // Known break types are matched on torch's gb_type; the reason text and the
    // source line only refine it (or classify older torch without gb_type).
    const bool knownType = !gb.empty();
    const double sure = knownType ? 0.9 : 0.7;

    if (containsText(gb, "Backend compiler exception"))
        if (auto failure = backendFailure(reason, fn))
            return failure;
    const std::string builtin = builtinName(reason);
    if (builtin == "print" || containsText(gb, "logging.Logger") ||
        (builtin.empty() && !knownType && containsText(code, "print("))) {
        const bool logger = containsText(gb, "logging.Logger");
        const std::string what = logger ? "a logging call" : "print()";
        return make(BreakCause::PrintOrLogging, "graph_break.print", what,
                    what + " in " + fn + " breaks the graph",
                    logger ? "Remove the logging call from " + fn +
                                 " or log after the compiled call returns. To keep it, create the "
                                 "logger outside the compiled code and add the method to "
                                 "torch._dynamo.config.reorderable_logging_functions (it then runs "
                                 "after the graph); to drop it, " +
                                 ignoreLoggingText(loggingMethod(b)) + ". " +
                                 std::string(kEagerOnlyGuard)
                           : "Remove the print from " + fn +
                                 ", or print after the compiled call returns. If it must stay, "
                                 "torch._dynamo.config.reorderable_logging_functions.add(print) "
                                 "lets Dynamo run it after the graph instead of breaking there. " +
                                 std::string(kEagerOnlyGuard),
                    sure);
    }
    // Checked with torch 2.15 on open(path, "a").write(str(float(h.mean()))) in
    // forward: 4 breaks, and the frame after them recompiled on every call;
    // guarded by is_compiling() 1 graph, no break, no recompile.
    if (const std::string file = fileAccess(builtin, reason); !file.empty()) {
        return make(
            BreakCause::FileAccess, "graph_break.file", file,
            "File access (" + file + ") in " + fn + " breaks the graph",
            "Dynamo does not trace files: the line runs in Python between graphs, and a file "
            "object opened during the call and carried across the break makes the code after it "
            "compile again on every call (its guard held that very object). Write the file after "
            "the compiled call returns, or from a helper marked @torch.compiler.disable (1 break, "
            "no recompile). " +
                std::string(kEagerOnlyGuard) +
                " A model writing a mean to a file from forward then compiled to 1 graph, with no "
                "break and no recompile.",
            sure);
    }
    if (containsText(gb, "Call to a time function") || !clockName(reason).empty()) {
        const std::string name = clockName(reason);
        const std::string what = name.empty() ? "a clock read" : name;
        return make(BreakCause::ClockRead, "graph_break.clock", what,
                    what + " in " + fn + " breaks the graph",
                    clockReadRemedy(name.empty() ? "time.perf_counter()" : name, fn), sure);
    }
    // Checked with torch 2.15 on forces from a learned energy
    // (tests/probe/models/forces_from_energy.py), outer no_grad as the probe runs.
    if (containsText(gb, "Tensor.requires_grad_() call") && !containsText(gb, "leaked")) {
        return make(BreakCause::Autograd, "graph_break.autograd", "requires_grad_()",
                    "requires_grad_() on an input of " + fn + " breaks the graph",
                    "Take a detached copy instead (x = x.detach().requires_grad_(True)), which "
                    "Dynamo traces; requires_grad_() on the input itself also changes the "
                    "caller's tensor, so the next call sees requires_grad=True and recompiles. "
                    "Or compute the gradient with torch.func.grad(f)(x), which needs no "
                    "requires_grad at all and compiled to 1 graph with no break.",
                    sure);
    }
    if (containsText(gb, "trace_autograd_ops") || containsText(reason, "trace_autograd_ops")) {
        const std::string what =
            containsText(gb, "backward()") ? "Tensor.backward()" : "torch.autograd.grad";
        return make(
            BreakCause::Autograd, "graph_break.autograd", what,
            what + " in " + fn + " breaks the graph",
            "Set torch._dynamo.config.trace_autograd_ops = True before the first call: "
            "Dynamo then traces " +
                what +
                " into the graph (on a model taking forces as the gradient of its "
                "energy: 1 graph and no break, the same forces, and with the input a "
                "detached copy 1.91x eager's speed on CPU where it had been 0.44x; "
                "without the setting, that copy made torch compile nothing at all). Or compute the "
                "gradient with torch.func.grad (a function transform Dynamo traces "
                "without the setting: 1 graph too).",
            sure);
    }
    // Checked with torch 2.15: torch.randn(shape, generator=self.gen) and
    // x.normal_(generator=g) break here; without generator= one graph.
    if (containsText(reason, "(Generator)") ||
        (containsText(gb, "Failed to convert args/kwargs to proxy") &&
         containsText(code, "generator="))) {
        return make(BreakCause::RandomGenerator, "graph_break.generator",
                    "a draw from a torch.Generator",
                    "A random draw from its own torch.Generator (generator=...) in " + fn +
                        " breaks the graph",
                    "Dynamo cannot put an explicit generator in the graph, so the draw runs "
                    "eagerly between graphs. Draw before the compiled call with your generator "
                    "and pass the tensor in (noise = torch.randn(shape, generator=g); "
                    "model(x, noise)): the graph then holds no draw, and the numbers stay the "
                    "generator's. Or draw from torch's default generator (leave out generator=, "
                    "seed with torch.manual_seed), which Dynamo traces into the graph; Inductor "
                    "then draws its own numbers unless torch._inductor.config.fallback_random "
                    "= True.",
                    sure);
    }
    if (const std::string skipped = skippedName(reason);
        skipped == "_warnings.warn" || skipped == "warnings.warn") {
        // Checked with torch 2.15: with warnings.warn reorderable, no break.
        return make(BreakCause::PrintOrLogging, "graph_break.print", "warnings.warn()",
                    "warnings.warn() in " + fn + " breaks the graph",
                    "Warn outside " + fn +
                        " (check the condition where the model is called), or "
                        "torch._dynamo.config.reorderable_logging_functions.add(warnings.warn) "
                        "before the first call: Dynamo then issues the warning after the graph "
                        "instead of breaking there.",
                    sure);
    }
    if (containsText(gb, "Tensor.tolist() with non-integer")) {
        return make(BreakCause::ScalarValue, "graph_break.item", ".tolist()",
                    ".tolist() on a floating-point tensor breaks the graph",
                    "Keep the values in a tensor and index it instead of converting to a Python "
                    "list; Dynamo can trace tolist() only on integer tensors.",
                    sure);
    }
    if (containsText(gb, "Tensor.item()") || containsText(reason, "Tensor.item()") ||
        (containsText(gb, "Data dependent operator") && isScalarCall(code, reason))) {
        const std::string what = containsText(code, ".tolist()") ? ".tolist()" : ".item()";
        // Checked with torch 2.15 (tests/probe/models/logged_item.py): a
        // log.debug(f"... {h.mean().item()}") line breaks twice, for the number
        // and for the logger; guarded by is_compiling() it compiles to 1 graph.
        if (isMessageLine(code)) {
            auto diagnosis =
                make(BreakCause::ScalarValue, "graph_break.item", what,
                     what + " in a message written from " + fn + " breaks the graph",
                     "The number only feeds a message. Guard the line with if not "
                     "torch.compiler.is_compiling(): it then runs in eager calls only, and "
                     "Dynamo leaves the line out of the graph, the " +
                         what +
                         " and the message's own break with it (a model logging a hidden "
                         "mean from forward compiled to 1 graph instead of 2). Or write the "
                         "message after the compiled call returns. capture_scalar_outputs "
                         "would keep the number in the graph, but not the message.",
                     sure);
            diagnosis.feedsMessage = true;
            return diagnosis;
        }
        // Checked with torch 2.15 on per-row pooling over lengths read with
        // .tolist(): the masked mean and capture_scalar_outputs both 1 graph.
        if (what == ".tolist()")
            return make(BreakCause::ScalarValue, "graph_break.item", what,
                        ".tolist() turns a tensor into a Python list and breaks the graph",
                        "Keep the values in a tensor. Where they are lengths that slice each row "
                        "(h[i, :n] in a loop), a mask does the same in one graph and no loop: a "
                        "masked mean is (h * mask.unsqueeze(-1)).sum(1) / mask.sum(1, "
                        "keepdim=True) (per-row pooling over .tolist() lengths: 1 graph, the "
                        "same outputs within 6e-8). Or set "
                        "torch._dynamo.config.capture_scalar_outputs = True: the values then stay "
                        "in the graph as sizes known only when it runs (the same model: 1 graph).",
                        sure);
        return make(BreakCause::ScalarValue, "graph_break.item", what,
                    what + " turns a tensor into a Python number and breaks the graph",
                    "Keep the value a tensor (e.g. x / x.abs().max() instead of dividing by "
                    ".item()), or set torch._dynamo.config.capture_scalar_outputs = True so the "
                    "scalar stays in the graph. " +
                        std::string(kScalarBranchCaveat),
                    sure);
    }
    if (containsText(gb, "Data-dependent branching") || reason.rfind("generic_jump", 0) == 0) {
        return make(
            BreakCause::DataDependentBranch, "graph_break.branch", "a data-dependent branch",
            "A branch on a tensor's value breaks the graph",
            "Compute both sides and pick with torch.where(cond, a, b), or express the "
            "branch with torch.cond(pred, true_fn, false_fn, operands); or decide outside " +
                fn + " and pass the decision in as a Python bool.",
            containsText(gb, "Data-dependent branching") ? 0.9 : 0.8);
    }
    if (containsNoCase(gb, "numpy") || containsText(gb, "from_numpy")) {
        const std::string name = numpyName(reason);
        const std::string what = name.empty() ? "a NumPy call" : name;
        const bool configOff = containsText(gb, "trace_numpy=False");
        return make(BreakCause::NumPy, "graph_break.numpy", what, what + " breaks the graph",
                    configOff ? "Set torch._dynamo.config.trace_numpy = True so Dynamo traces "
                                "NumPy calls as torch operations."
                              : "Use torch operations instead of " + what +
                                    " (Dynamo has no torch counterpart for it). If the NumPy step "
                                    "must stay, move it out of " +
                                    fn +
                                    ", or into a helper decorated with "
                                    "@torch.compiler.disable so the break is explicit.",
                    sure);
    }
    if (containsText(gb, "torch.compiler.disable")) {
        return make(BreakCause::CompilerDisabled, "graph_break.disabled",
                    "a torch.compiler.disable'd function",
                    "A function marked torch.compiler.disable breaks the graph",
                    "This break was asked for. If the helper is traceable, remove "
                    "@torch.compiler.disable to keep one graph.",
                    sure);
    }
    // A torch.jit.trace'd module breaks on its forward's descriptor in
    // torch/jit/_script.py, which Dynamo skips (torch 2.15).
    if (containsText(gb, "torch.jit.script") || containsText(reason, "RecursiveScriptModule") ||
        containsText(reason, "_CachedForward") || containsText(reason, "torch/jit/_script.py")) {
        // "Developer debug context: RecursiveScriptModule(original_name=Gate)"
        static const std::regex original(R"(original_name=(\w+))");
        const std::string name = firstMatch(reason, original);
        const std::string what = name.empty() ? "a TorchScript module" : "the scripted " + name;
        return make(BreakCause::TorchScript, "graph_break.torchscript", what,
                    "A TorchScript module" + (name.empty() ? std::string() : " (" + name + ")") +
                        " breaks the graph: it runs outside Python, where Dynamo cannot trace",
                    "Give torch.compile the plain module: build it as " +
                        (name.empty() ? std::string("the nn.Module") : name + "()") +
                        " rather than torch.jit.script(...), torch.jit.trace(...) or "
                        "torch.jit.freeze(...) of it, and "
                        "Dynamo traces it into the graph with the rest. Keep the scripted one for "
                        "TorchScript deployment only: torch.compile replaces it, and no setting "
                        "traces into it.",
                    sure);
    }
    if (containsText(reason, "does not support RNN, GRU, or LSTM")) {
        // "... when calling `L['self']._modules['lstm']`" → self.lstm
        static const std::regex module(R"(calling `L\['self'\]\._modules\['([^'\n]+)'\]`)");
        const std::string name = firstMatch(reason, module);
        const std::string what = name.empty() ? "a recurrent module" : "self." + name;
        return make(BreakCause::RecurrentModule, "graph_break.rnn", what,
                    what + " (an RNN, GRU or LSTM) breaks the graph: Dynamo does not trace it",
                    "Set torch._dynamo.config.allow_rnn = True before the first call: Dynamo "
                    "then traces the recurrent module into the graph (experimental; on a "
                    "2-layer bidirectional LSTM on CPU it made one graph instead of two, with "
                    "the same outputs, a shorter first call and no faster calls). Without it " +
                        what +
                        " runs eagerly between two graphs, which costs little when it is most "
                        "of the work.",
                    sure);
    }
    if (const auto layer = quantizedLayer(b)) {
        const std::string what = layer->empty() ? "a quantized layer" : *layer;
        return make(
            BreakCause::QuantizedModule, "graph_break.quantized", what,
            (layer->empty() ? "A quantized layer" : what + ", a quantized layer") +
                " (torch.ao.quantization, eager mode)" + (layer->empty() ? "" : ",") +
                " breaks the graph: Dynamo cannot trace its packed int8 weights",
            "torch.compile cannot enter the layers torch.ao.quantization's quantize_dynamic, "
            "quantize or convert made: their packed weights are a TorchScript object, so each "
            "runs eagerly between graphs on its own int8 kernel, and torch deprecates that API. "
            "Compare with setting eager before compiling: the graphs between quantized layers "
            "hold little. For int8 inside compiled graphs, quantize with torchao instead (where "
            "torch's deprecation warning points: quantize_ on GPU, or prepare_pt2e/convert_pt2e "
            "with X86InductorQuantizer on CPU) and measure it against this model: on a "
            "two-layer MLP on a 2-core x86 CPU both were slower than quantize_dynamic run "
            "eagerly (0.87 ms compiled pt2e and 19 ms quantize_, against 0.23 ms).",
            sure);
    }
    if (containsText(gb, "marked as skipped") || containsText(reason, "skip reason:")) {
        const std::string name = skippedName(reason);
        const std::string what = name.empty() ? "a call Dynamo cannot trace" : name;
        return make(BreakCause::UntraceableCall, "graph_break.untraceable", what,
                    "Dynamo cannot trace " + what + " and breaks the graph",
                    "Move the call out of " + fn +
                        " (compute it once outside and pass the result in). If it is pure and "
                        "needed inside, wrap it as a custom op (torch.library.custom_op) or allow "
                        "it with torch.compiler.allow_in_graph; if the break is wanted, put it in "
                        "a helper decorated with @torch.compiler.disable.",
                    sure);
    }
    if (containsText(gb, "Dynamic shape operator")) {
        static const std::regex op(R"(Operator `([^`\n]+)`)");
        const std::string name = firstMatch(reason, op);
        const std::string what =
            name.empty() ? "an operator with data-dependent output shape" : name;
        return make(BreakCause::DynamicOutputShape, "graph_break.dynamic_output", what,
                    what + " has a data-dependent output shape and breaks the graph",
                    "Set torch._dynamo.config.capture_dynamic_output_shape_ops = True, or avoid "
                    "the data-dependent shape (e.g. masks with torch.where instead of nonzero or "
                    "boolean indexing).",
                    sure);
    }
    if (!builtin.empty() || containsText(gb, "builtin op")) {
        const std::string what = builtin.empty() ? "a Python builtin" : builtin;
        return make(BreakCause::UnsupportedBuiltin, "graph_break.builtin", what,
                    "Dynamo cannot trace the builtin " + what + " here and breaks the graph",
                    "Replace " + what +
                        " with a torch operation on tensors (e.g. torch.sqrt for math.sqrt), or "
                        "call it outside " +
                        fn + ".",
                    sure);
    }
    // Not a cause we know: torch's own hints are specific to this break; without
    // any, say nothing rather than something generic.
    const auto hints = torchHints(reason);
    if (hints.empty())
        return std::nullopt;
    std::string remedy = "torch suggests: " + hints.front();
    for (size_t i = 1; i < hints.size(); ++i)
        remedy += " " + hints[i];
    const std::string what = gb.empty() ? firstLine(reason) : gb;
    return make(BreakCause::Other, "graph_break.other", what, "Graph break: " + what, remedy, 0.5);
}

bool isOpaqueModule(BreakCause cause) {
    return cause == BreakCause::TorchScript || cause == BreakCause::RecurrentModule ||
           cause == BreakCause::QuantizedModule;
}

std::string libraryPackage(const GraphBreak& b) {
    if (b.frames.empty())
        return {};
    std::string package = installedPackage(b.frames.back().file);
    // Below a line of the user's, torch's own code is where the user's call
    // (a graph_break(), an op) breaks: that line is the cause, not torch.
    if (b.userFrame >= 0 && package == "torch")
        return {};
    return package;
}

bool isLibraryBreak(const GraphBreak& b, const BreakDiagnosis& diagnosis) {
    return diagnosis.cause != BreakCause::CompilerDisabled && !libraryPackage(b).empty();
}

bool isTheRunsFailure(const Run& run, const GraphBreak& b) {
    if (!run.error || b.frames.empty() || b.cause() != "Observed exception")
        return false;
    static const std::regex frame(R"re(File "([^"\n]+)", line (\d+))re");
    const SourceFrame& raised = b.frames.back();
    bool onPath = false;
    forEachRegexLine(run.error->traceback, [&](const std::string& text) {
        std::smatch m;
        if (!onPath && std::regex_search(text, m, frame))
            onPath = m[1].str() == raised.file && lineNumber(m[2].str()) == raised.line;
    });
    return onPath;
}

Finding breakFinding(const std::vector<Run>& runs, int run, int graphBreak, const std::string& file,
                     int line, const std::string& code) {
    const Run& r = runs[static_cast<size_t>(run)];
    Finding f;
    f.tab = EvidenceTab::Breaks;
    f.run = run;
    f.setting = runLabel(r, run);
    f.file = file;
    f.line = line;
    f.code = code;
    f.graphBreak = graphBreak;
    f.graph = r.graphBreaks[static_cast<size_t>(graphBreak)].graphBefore;
    return f;
}

std::string alsoInText(const std::vector<Run>& runs, const std::vector<std::pair<int, int>>& hits) {
    std::vector<std::string> labels;
    int lastRun = -1;
    for (const auto& hit : hits) {
        if (hit.first != lastRun && lastRun >= 0)
            labels.push_back(runLabel(runs[static_cast<size_t>(hit.first)], hit.first));
        lastRun = hit.first;
    }
    if (labels.empty())
        return {};
    const bool ranks = isImported(runs[static_cast<size_t>(hits.front().first)]);
    return "also in " + std::to_string(labels.size()) +
           (ranks ? " other rank(s): " : " other setting(s): ") + joinWords(labels);
}

} // namespace cs::core::advice
