// Why Dynamo broke the graph, classified from torch's break type (gb_type),
// its reason text and the user's source line, with the remedy for that cause.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/advice/advice.h"
#include "core/report/session.h"

namespace cs::core::advice {

enum class BreakCause {
    PrintOrLogging,
    ScalarValue, // .item(), .tolist(), int(tensor)
    DataDependentBranch,
    NumPy,
    UntraceableCall,
    UnsupportedBuiltin,
    DynamicOutputShape,
    RecurrentModule,  // nn.RNN, nn.GRU, nn.LSTM: Dynamo leaves them out unless allow_rnn
    CompilerDisabled, // the user asked for this break with torch.compiler.disable
    TorchScript,      // a torch.jit.script'ed or frozen module: it runs outside Python
    QuantizedModule,  // a torch.ao.quantization int8 layer: its packed weights are opaque
    FileAccess,       // open() and a file object's write/read: Dynamo does not trace files
    ClockRead,        // time.perf_counter() and the like: the reading recompiles what follows
    Autograd,         // torch.autograd.grad, backward() or requires_grad_() inside forward
    RandomGenerator,  // a draw from an explicit torch.Generator (generator=...)
    BackendFailure,   // the backend (Inductor, aot_eager) raised on the graph Dynamo gave it
    Other,            // not recognised: only torch's own hints, if any
};

struct BreakDiagnosis {
    BreakCause cause = BreakCause::Other;
    std::string rule;  // "graph_break.print", ...
    std::string what;  // what broke it, in code terms: "print()", "zlib.crc32", "np.interp"
    std::string title; // "print() in forward breaks the graph"
    std::string remedy;
    double confidence = 0;
    // A number taken on a line that writes a message: the remedy's guard
    // leaves the message's own break on that line out too.
    bool feedsMessage = false;
};

// The module hook whose function runs at FILE in FUNCTION (the frame's own
// name, "record" or "Probe.record"); nullptr when none does.
const ModuleHook* hookAt(const ModelInfo& model, const std::string& file,
                         const std::string& function);

// "record (hooked.py:6) is a forward hook of model[1]".
std::string hookText(const ModuleHook& hook);

// nullopt when the break is of no known cause and torch offers no usable hint.
std::optional<BreakDiagnosis> diagnoseBreak(const GraphBreak& b);

// A module Dynamo cannot enter (TorchScript, recurrent, eager-mode quantized):
// the call of it is the break, and everything it does runs eagerly.
bool isOpaqueModule(BreakCause cause);

// What to do about a clock read (`call`, "time.perf_counter()") in `fn`: the
// break's remedy, and the recompiles' when the code after it uses the reading.
std::string clockReadRemedy(const std::string& call, const std::string& fn);

// The clock read in a line of code: "time.perf_counter()" of
// "t0 = time.perf_counter()"; empty when it reads none.
std::string clockCall(const std::string& code);

// The logging method a logger's break calls, as
// torch._dynamo.config.ignore_logging_functions takes it
// ("logging.Logger.warning_once"); empty for any other break.
std::string loggingMethod(const GraphBreak& b);

// What drops a logging call from the graph, pasteable:
// "torch._dynamo.config.ignore_logging_functions.add(logging.Logger.info)",
// or in words where the method is unknown.
std::string ignoreLoggingText(const std::string& method);

// The installed package a break happens in ("torchvision": its innermost
// frame is in site-packages, so the user cannot edit the line, even where a
// line of the user's called into it; never torch under a user's line); empty otherwise.
std::string libraryPackage(const GraphBreak& b);

// Whether the break belongs to libraryBreakRule: wholly in library code, and
// not one the user asked for with torch.compiler.disable.
bool isLibraryBreak(const GraphBreak& b, const BreakDiagnosis& diagnosis);

// What capture_scalar_outputs does not do: a Python branch on the number
// still breaks. Checked on transformers' Longformer with torch 2.15: with it,
// the .item() break at `is_global_attn = ....item()` moved to `if
// is_global_attn:`, inside the encoder's loop over its layers, and torch
// skipped the encoder's forward (run eagerly).
inline constexpr const char* kScalarBranchCaveat =
    "That helps where the number feeds tensor math: code that branches on it (if flag:) breaks "
    "there instead, and inside a loop torch then runs the whole function eagerly (transformers' "
    "Longformer: the break moved to `if is_global_attn:`, and its encoder's forward ran "
    "eagerly).";

// Whether the break is the exception the run failed with, as Dynamo met it
// on its way out of each compiled frame ("Observed exception" at a line of
// the failure's traceback): the failure, not a break to fix.
bool isTheRunsFailure(const Run& run, const GraphBreak& b);

// Calls visit(run, index into run.graphBreaks, break) for every break the
// break rules weigh: a run that failed on fullgraph=True is left out (the
// failure rule reports its break, as the reason the setting failed), and so
// are the breaks that are a failed run's exception.
template <typename Visit> void forEachAdvisedBreak(const std::vector<Run>& runs, Visit visit) {
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        if (run.error && run.error->kind == "fullgraph_break")
            continue;
        for (size_t b = 0; b < run.graphBreaks.size(); ++b) {
            if (!isTheRunsFailure(run, run.graphBreaks[b]))
                visit(static_cast<int>(r), static_cast<int>(b), run.graphBreaks[b]);
        }
    }
}

// A Breaks-tab finding about break `graphBreak` of run `run`, placed at
// file:line: the fields both break rules fill alike (rule, title, remedy left).
Finding breakFinding(const std::vector<Run>& runs, int run, int graphBreak, const std::string& file,
                     int line, const std::string& code);

// "also in 2 other setting(s): a and b" (ranks for an imported log) for the
// runs of `hits` ((run, break) pairs in run order) after the first; empty
// when all are in one run.
std::string alsoInText(const std::vector<Run>& runs, const std::vector<std::pair<int, int>>& hits);

// torch's "Hint:" lines from a break reason, without the ones that only say
// to report an issue to PyTorch.
std::vector<std::string> torchHints(const std::string& reason);

} // namespace cs::core::advice
