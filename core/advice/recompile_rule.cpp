// Rule 2: recompiles because an input dimension changed, and the recompile
// limit after which torch runs the function eagerly.
#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/break_cause.h"
#include "core/advice/shape_guard.h"
#include "core/analysis/comparison.h"
#include "core/analysis/function_name.h"
#include "core/analysis/probe_rounds.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/run_summary.h"
#include "core/analysis/stats.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

struct DimChange {
    std::string tensor;
    std::string what;
    int dim = -1;
    std::set<int64_t> sizes;
};

struct ValueChange {
    std::string name;                // "self.calls"
    std::vector<std::string> values; // in the order seen
    std::string hint;                // torch's own
    // The clock read the values came from ("time.perf_counter()"): a new
    // value on every call; empty when not a clock's.
    std::string clock;
    std::string code;  // the source line torch names for the guard; empty when none
    std::string where; // "global_step.py:19 in forward"; empty when none
    bool global = false;
};

// A container whose length torch guarded on, and the lengths it compiled for.
struct LengthChange {
    std::string container;
    std::set<int64_t> lengths;
    bool counted = false; // a `len(X) == N` guard, not only `not X`
    std::string code;     // the source line behind the guard
    std::string where;
    std::string file; // that line's file and number, from torch's user stack trace
    int line = 0;
};

// An input torch compiled for one dtype, device or requires_grad, and the
// values calls passed, in the order seen.
struct TensorKindChange {
    std::string tensor;
    std::string property;
    std::vector<std::string> values;
};

struct FunctionRecompiles {
    std::string function;
    // Torch's frame id ("15" of "15/0: ..."): the forwards of a model's
    // modules share the name, each its own frame; empty when the reasons
    // carry none (an imported log).
    std::string frame;
    int recompiles = 0;
    const Recompile* limit = nullptr;
    std::vector<DimChange> dims;          // in the order first seen
    std::vector<ValueChange> values;      // guards on a Python value, in the order first seen
    std::string libraryFrame;             // library code torch compiled around the function
    std::vector<const Recompile*> events; // its recompiles, the limit's aside
    // Frames after a break in this function that recompiled at the same calls:
    // told in this one's finding, not in their own.
    std::vector<const FunctionRecompiles*> resumed;
    bool foldedIntoCaller = false;
    // Frames of a package's code that recompiled only on the input sweep's new
    // sizes, as this one (the model's forward) did: told in its finding.
    std::vector<const FunctionRecompiles*> following;
    std::vector<DictKeyGuardFailure> keys; // guards on a dict's key, one per dict and key
    std::vector<LengthChange> lengths;     // guards on a container's length
    std::vector<TensorKindChange> kinds;   // guards on an input's dtype, device, requires_grad
    // An object its guards held that a call freed ("L['___stack0']"): torch
    // drops the graph with it, so the next call compiles again.
    std::string freed;
    // Guards on an argument's type, one per type compiled for: one function
    // called for several classes (a decorator's wrapper around their methods).
    std::vector<TypeGuardFailure> types;
    std::string typesPackage;                 // the installed package the type guard's line lies in
    std::vector<NoneGuardFailure> nones;      // guards on an argument or attribute being None
    std::vector<const Recompile*> noneEvents; // its recompiles on them
    std::vector<std::string> states;          // global state it was called under: "grad_mode"
    int stateRecompiles = 0;                  // its recompiles on those
    // Its recompiles on guards computed from a symbolic size, one per recompile.
    std::vector<DerivedSizeGuardFailure> derived;
    // Its recompiles on two dimensions duck sizing gave one symbol, one each.
    std::vector<DuckSizeGuardFailure> ducks;
    // Its recompiles where torch's convolution changed algorithm with the
    // input's size, one each.
    std::vector<DerivedSizeGuardFailure> convolutions;
};

// Whether a recompile's function names a graph's: the same, or qualified by
// its class ("LongformerModel.forward", the probe's name for the model's
// forward reached through a library's wrapper, for the graph "forward").
bool namesGraph(const std::string& function, const Graph& g) {
    return namesFunction(function, g.function);
}

const Graph* graphOf(const Run& run, const std::string& function) {
    for (const auto& g : run.graphs) {
        if (g.function == function)
            return &g;
    }
    // A qualified name: the graph of the model's own forward (frame module "").
    for (const auto& g : run.graphs) {
        if (namesGraph(function, g) && g.frameModule && g.frameModule->empty())
            return &g;
    }
    return nullptr;
}

// "wrapper at /x/site-packages/transformers/utils/generic.py:1030" → "wrapper at
// transformers/utils/generic.py:1030 (library code)": the path from the package on.
std::string libraryText(const std::string& frame) {
    std::string text = frame;
    for (const char* marker : {"site-packages/", "dist-packages/"}) {
        if (const size_t at = text.rfind(marker); at != std::string::npos) {
            const size_t from = text.rfind(" at ", at);
            if (from != std::string::npos)
                text = text.substr(0, from + 4) + text.substr(at + std::string(marker).size());
        }
    }
    return text + " (library code)";
}

// The breaks at the line a frame resumed after a break ("forward (after the
// break at line 14)") resumes after, in the order met; none for any other frame.
std::vector<const GraphBreak*> breaksResumedAfter(const Run& run, const std::string& function) {
    std::vector<const GraphBreak*> breaks;
    const UserFunction after = userFunction(function);
    if (after.afterLine == 0)
        return breaks;
    for (const auto& gb : run.graphBreaks) {
        const SourceFrame* at = gb.location();
        if (at && at->line == after.afterLine && core::functionName(at->function) == after.name)
            breaks.push_back(&gb);
    }
    return breaks;
}

// The clock read behind a value guard: the guard's own line reads the clock
// ("self.spent += time.perf_counter() - t0"), or the value is what the call at
// a clock break returned (___stack0 in the frame resumed after that line).
std::string clockReadBehind(const Run& run, const std::string& function,
                            const ValueGuardFailure& value) {
    if (std::string call = clockCall(value.code); !call.empty())
        return call;
    if (value.name.rfind("___stack", 0) != 0)
        return {};
    for (const GraphBreak* gb : breaksResumedAfter(run, function)) {
        if (const auto diagnosis = diagnoseBreak(*gb);
            diagnosis && diagnosis->cause == BreakCause::ClockRead)
            return diagnosis->what;
    }
    return {};
}

std::string sizesText(const std::set<int64_t>& sizes) {
    std::vector<std::string> words;
    for (auto s : sizes)
        words.push_back(std::to_string(s));
    return joinWords(words);
}

// Powers of two that cover the sizes seen: what padding would compile.
std::set<int64_t> paddedSizes(const std::set<int64_t>& sizes) {
    std::set<int64_t> padded;
    for (auto s : sizes) {
        int64_t p = 1;
        while (p < s)
            p *= 2;
        padded.insert(p);
    }
    return padded;
}

// torch names a value it carries across a graph break into the frame after
// it "___stack0", "___stack0[0]": the user never wrote that name.
bool carriedAcrossBreak(const std::string& tensor) {
    return tensor.rfind("___stack", 0) == 0;
}

std::string dimName(const DimChange& d) {
    return (d.what == "stride" ? "the stride of dimension " : "dimension ") +
           std::to_string(d.dim) + " of " +
           (carriedAcrossBreak(d.tensor) ? "a value carried across the break (" + d.tensor + ")"
                                         : d.tensor);
}

// mark_dynamic before the first call reaches a tensor the model is called
// with, carried into any frame; not one the frame after a break gets from
// torch, nor a local the forward computed before the break.
bool markable(const Run& run, const std::string& function, const DimChange& d) {
    if (userFunction(function).afterLine == 0)
        return !carriedAcrossBreak(d.tensor);
    const auto names = parseModelInputs(run.model.inputs).names;
    return std::find(names.begin(), names.end(), d.tensor) != names.end();
}

// The frame after a break recompiling on a value mark_dynamic cannot reach.
std::string resumedFrameRemedy(const std::string& function, const DimChange& d) {
    const int line = userFunction(function).afterLine;
    return "This frame starts after the graph break at line " + std::to_string(line) +
           ", from values torch carries across the break, and " + dimName(d) +
           " is one: mark_dynamic cannot reach it before the call. Either compile with "
           "dynamic=True (every frame's sizes symbolic from its first compile), or remove the "
           "break at line " +
           std::to_string(line) + " so that one frame remains, whose inputs mark_dynamic can mark.";
}

// Every call passed the same inputs: no input sweep, and the model did not
// change its own inputs between calls.
bool inputsNeverChanged(const Run& run) {
    // An imported trace made no calls of ours: whether its inputs changed is
    // not known (a Whisper traced over an input sweep had been told that
    // transformers made the decoder's new lengths itself).
    if (run.status == RunStatus::Imported)
        return false;
    return std::none_of(run.logs.begin(), run.logs.end(), [](const LogLine& line) {
        return line.code == "sweep_inputs" || line.code == "inputs_changed";
    });
}

// The graph of the frame that recompiled: a model's many forwards share the
// name, and the first graph named so is another module's (SwitchTransformers:
// the block's forward at :543 for an expert's at :147).
const Graph* graphOfFrame(const Run& run, const FunctionRecompiles& fr) {
    for (const auto& g : run.graphs) {
        if (!fr.frame.empty() && g.compileId.rfind(fr.frame + "/", 0) == 0 &&
            namesGraph(fr.function, g))
            return &g;
    }
    // A frame of a known id that compiled no graph is not placed at another
    // frame's of the same plain name (torchvision's MultiScaleRoIAlign.forward
    // is not the model's forward). A wrapped forward's qualified name still
    // finds the model's own, and a resume function's name holds its line.
    const bool graphsHaveIds = std::any_of(run.graphs.begin(), run.graphs.end(),
                                           [](const Graph& g) { return !g.compileId.empty(); });
    const bool plainName =
        fr.function.find('.') == std::string::npos && userFunction(fr.function).afterLine == 0;
    if (!fr.frame.empty() && graphsHaveIds && plainName)
        return nullptr;
    return graphOf(run, fr.function);
}

// Whether the frame is the own forward of one of the model's submodules (an
// MoE expert), which gets its sizes from the model's code upstream; not a
// library's wrapper around a forward, nor the model's forward itself.
bool submoduleForward(const Graph* graph, const FunctionRecompiles& fr) {
    return graph && graph->frameModule && !graph->frameModule->empty() && fr.libraryFrame.empty() &&
           core::functionName(fr.function) == "forward";
}

// Whether the run decodes with transformers' generate: a graph or a break's
// frame in its generation code. Its levers (a static cache, compiling the
// forward alone) say nothing of sizes a model makes inside itself.
bool decodesWithGenerate(const Run& run) {
    const auto generation = [](const std::string& file) {
        return file.find("/generation/") != std::string::npos;
    };
    return std::any_of(run.graphs.begin(), run.graphs.end(),
                       [&](const Graph& g) { return generation(g.file); }) ||
           std::any_of(run.graphBreaks.begin(), run.graphBreaks.end(), [&](const GraphBreak& b) {
               return std::any_of(b.frames.begin(), b.frames.end(), [&](const SourceFrame& f) {
                   return generation(f.file) || f.function == "generate";
               });
           });
}

// The installed package whose own frame recompiled while every call passed
// the same inputs ("transformers": generate's loop growing the sequence), so
// the package built the new sizes itself; empty otherwise. A user's forward
// that torch compiled inside a library wrapper is the user's frame.
std::string packageBuildingSizes(const Run& run, const Graph* graph,
                                 const std::string& libraryFrame) {
    if (!graph || !libraryFrame.empty() || !inputsNeverChanged(run))
        return {};
    const std::string package = installedPackage(graph->file);
    return package == "torch" ? std::string() : package;
}

// The model file's own call that compiled the forward of the module whose
// frame this graph is (model.lm.forward = torch.compile(model.lm.forward)),
// as mode as-written kept it; null when none did.
const OwnCompile* ownCallOfFrame(const Report& report, const Run& run, const Graph* graph) {
    if (run.setting.mode != kAsWritten || !graph || !graph->frameModule)
        return nullptr;
    const std::string& module = *graph->frameModule;
    for (const auto& call : report.model.ownCompiles) {
        if (call.where == (module.empty() ? "forward" : module + ".forward") ||
            (call.how == "Module.compile" && call.where == module))
            return &call;
    }
    return nullptr;
}

std::string libraryFrameRemedy(const std::string& fn, const std::string& package,
                               const DimChange& d, bool onlyAutomatic, const OwnCompile* ownCall,
                               bool decoding, bool submodule) {
    std::string text = fn + " is code in " + package +
                       ", and every call passed the same inputs: " + package +
                       " made the new sizes of " + dimName(d) +
                       " itself, where mark_dynamic before the first call cannot reach them. ";
    if (onlyAutomatic)
        return text + "dynamic=auto made the dimension symbolic after this one recompile; "
                      "torch.compile(..., dynamic=True) would skip that recompile too.";
    // The forward alone is compiled already: what calls it makes the sizes.
    if (ownCall) {
        text += "Your file's own call, " + ownCompileText(*ownCall) + "," +
                " already compiles only the forward, and the code that calls it passes the new "
                "sizes. ";
        if (package != "transformers" || !decoding)
            return text + "Pass dynamic=True in that call: every size symbolic from the first "
                          "compile.";
        return text + "Choose one: (1) dynamic=True in that call: every size symbolic from the "
                      "first compile; (2) generate(..., cache_implementation=\"static\"): the "
                      "cache keeps one shape, so the decoding steps after the first share one "
                      "graph.";
    }
    // A module of the model (an MoE expert given the tokens routed to it):
    // no code around the forward to leave out of the compile.
    if (submodule && !decoding)
        return text + "Compile with torch.compile(..., dynamic=True): every size symbolic from "
                      "the first compile. Under dynamic=auto torch makes the dimension symbolic "
                      "after it first changes, so these recompiles stop after a few.";
    text += "Choose one: (1) torch.compile(..., dynamic=True): every size symbolic from the first "
            "compile; (2) compile only the model's own forward, so that the code in " +
            package + " around it runs eagerly";
    if (package == "transformers" && decoding)
        text += " (model.forward = torch.compile(model.forward) rather than compiling a function "
                "that calls generate(); with cache_implementation=\"static\" every decoding step "
                "then has the same shapes)";
    return text + ".";
}

// Hugging Face's KV cache as Dynamo names its tensors:
// "past_key_values.layers[0].keys", "cache.layers[3].values", or the older
// "past_key_values.key_cache[0]".
bool isKvCache(const std::string& tensor) {
    // Also as a keyword argument of a wrapper: "kwargs['cache'].layers[0].keys",
    // and an encoder-decoder's pair of caches (T5, Whisper):
    // "kwargs['cache'].self_attention_cache.layers[0].keys".
    static const std::regex cache(
        R"(^(past_key_values|cache|kwargs\['(past_key_values|cache)'\])\.)"
        R"(((self_attention|cross_attention)_cache\.)?)"
        R"((layers\[\d+\]\.(keys|values)|key_cache|value_cache)\b)");
    return std::regex_search(tensor, cache);
}

// The state of a Hugging Face cache object itself, not its tensors
// ("cache.layers[0].is_initialized", a layer's lazy set-up on its first update).
bool isKvCacheObject(const std::string& name) {
    return !isKvCache(name) &&
           (name.rfind("cache.", 0) == 0 || name.rfind("past_key_values.", 0) == 0);
}

// Checked with torch 2.15 and transformers 5.25 on a 2-layer Qwen2-MoE with
// experts_implementation="eager" (its experts' nonzero breaks the graph, so
// each decoder layer is a frame): its forward recompiled on
// cache.layers[0].is_initialized in the first call; with use_cache=False not.
std::string kvCacheStateRemedy(const ValueChange& v) {
    return v.name +
           " is the state of Hugging Face's KV cache, which each call builds empty and fills "
           "layer by layer, so a frame run for every layer sees it set up and not. It costs one "
           "extra compile on the first call, and nothing after. A model called once per input "
           "(no decoding) needs no cache: call it with use_cache=False (add \"use_cache\": False "
           "to get_inputs()), which leaves the cache and this recompile out.";
}

// Decoding with a DynamicCache grows its tensors by a position per token.
std::string kvCacheRemedy(const DimChange& d) {
    return "This is Hugging Face's KV cache (a DynamicCache), which grows by one position per "
           "generated token, so every step has a new shape. Use a StaticCache, whose tensors "
           "keep one shape for all steps: model.generate(..., cache_implementation=\"static\"), "
           "or pass StaticCache(config=..., max_cache_len=N) with cache_position (checked on a "
           "2-layer GPT-2 under aot_eager: five decoding steps compiled 1 graph instead of 2). "
           "Marking dimension " +
           std::to_string(d.dim) +
           " dynamic instead must reach every layer's keys and values, not " + d.tensor + " alone.";
}

// A recompile's call: where in the run and on what inputs.
std::tuple<std::string, int, std::string> callOf(const Recompile& rc) {
    return {rc.phase, rc.callIndex, rc.inputShapes};
}

// Whether every recompile of `resumed` happened at a call where `caller`
// recompiled too: one change of the inputs, met again after the break.
bool sameCalls(const FunctionRecompiles& caller, const FunctionRecompiles& resumed) {
    std::set<std::tuple<std::string, int, std::string>> calls;
    for (const Recompile* rc : caller.events)
        calls.insert(callOf(*rc));
    return !resumed.events.empty() &&
           std::all_of(resumed.events.begin(), resumed.events.end(), [&](const Recompile* rc) {
               return !rc->inputShapes.empty() && (!rc->phase.empty() || rc->callIndex >= 0) &&
                      calls.count(callOf(*rc)) > 0;
           });
}

// transformers installing its output-capturing hooks on the model's first
// call (utils/output_capturing.py, as graph_break.library says of its
// breaks): torch compiled the installing function once per output name it
// hooks. Calling the model once before torch.compile installs them
// uncompiled: a DPT's 1 recompile, 10 breaks and 2 graphs became none, none
// and 1 (torch 2.15, transformers 5.25).
bool hookInstallation(const FunctionRecompiles& fr) {
    return containsText(fr.function, "install") &&
           std::any_of(fr.events.begin(), fr.events.end(), [](const Recompile* rc) {
               return containsText(rc->reason, kOutputCapturingFile);
           });
}

constexpr const char* kHookInstallationRemedy =
    "This is transformers installing its output-capturing hooks on the model's first call, "
    "which torch compiled: one graph of the installing function per output it hooks, paid "
    "once. Call the model once before torch.compile, under torch.no_grad() on inputs like the "
    "real ones: the hooks are then in place and nothing of theirs is compiled (a DPT went from "
    "1 recompile, 10 graph breaks and 2 graphs to none, none and 1).";

// Another input dimension that took the guarded one's size at the first call
// and at every recompile: they change together (token ids and their attention
// mask). Marking one of them dynamic alone fails: torch finds it equal to the
// other, still static, and stops with "Constraints violated".
struct Companion {
    std::string tensor;
    int dim = -1;
};

std::vector<Companion> changedWith(const Run& run, const std::string& function,
                                   const DimChange& d) {
    if (d.what != "size")
        return {};
    const NamedInputs model = parseModelInputs(run.model.inputs);
    const auto named = std::find(model.names.begin(), model.names.end(), d.tensor);
    if (named == model.names.end())
        return {}; // not one of the model's own inputs (a frame after a break)
    const auto guarded = static_cast<size_t>(named - model.names.begin());
    std::vector<InputSizes> calls{model.sizes}; // the first compile ran on get_inputs()
    for (const auto& rc : run.recompiles) {
        if (rc.function != function)
            continue;
        auto sizes = parseInputShapes(rc.inputShapes);
        if (sizes.size() == model.sizes.size())
            calls.push_back(std::move(sizes));
    }
    auto sizeAt = [](const InputSizes& call, size_t input, int dim) -> std::optional<int64_t> {
        if (input >= call.size() || !call[input] || dim < 0 ||
            static_cast<size_t>(dim) >= call[input]->size())
            return std::nullopt;
        return (*call[input])[static_cast<size_t>(dim)];
    };
    std::vector<int64_t> guardedSizes;
    for (const auto& call : calls) {
        const auto size = sizeAt(call, guarded, d.dim);
        if (!size)
            return {};
        guardedSizes.push_back(*size);
    }
    if (std::set<int64_t>(guardedSizes.begin(), guardedSizes.end()).size() < 2)
        return {};
    std::vector<Companion> out;
    for (size_t input = 0; input < model.sizes.size(); ++input) {
        if (!model.sizes[input])
            continue;
        for (int dim = 0; dim < static_cast<int>(model.sizes[input]->size()); ++dim) {
            if (input == guarded && dim == d.dim)
                continue;
            bool same = true;
            for (size_t c = 0; c < calls.size() && same; ++c)
                same = sizeAt(calls[c], input, dim) == guardedSizes[c];
            if (same)
                out.push_back({model.names[input].empty() ? "args[" + std::to_string(input) + "]"
                                                          : model.names[input],
                               dim});
        }
    }
    return out;
}

std::string markCall(const std::string& tensor, int dim, const std::set<int64_t>& sizes,
                     bool bounds) {
    std::string text = "torch._dynamo.mark_dynamic(" + tensor + ", " + std::to_string(dim);
    // Bounds from the sizes seen; below 2 torch specialises 0 and 1 anyway.
    if (bounds && sizes.size() >= 2 && *sizes.begin() >= 2)
        text +=
            ", min=" + std::to_string(*sizes.begin()) + ", max=" + std::to_string(*sizes.rbegin());
    return text + ")";
}

// Every mark the fix needs: the guarded dimension's and its companions', and
// those of the other dimensions that changed on their own (an image's height
// beside its width), each with its own sizes.
std::string markCalls(const DimChange& d, const std::vector<Companion>& with, bool bounds,
                      const std::vector<DimChange>& others = {}) {
    std::vector<std::string> calls{markCall(d.tensor, d.dim, d.sizes, bounds)};
    for (const auto& c : with)
        calls.push_back(markCall(c.tensor, c.dim, d.sizes, bounds));
    for (const auto& o : others)
        calls.push_back(markCall(o.tensor, o.dim, o.sizes, bounds));
    return joinWords(calls);
}

const char* kMarkAll = "mark all of them: they change together, and one marked alone is "
                       "specialised to the other's size, which fails with 'Constraints violated'";

// The sizes of the guarded dimension the calls passed: the measured inputs'
// and every input-sweep item's (the probe's sweep_inputs lines). A guard
// shows only the sizes that compiled: under dynamic=auto, or past the
// recompile limit, later sizes ran an existing graph or eagerly. Empty when
// the report cannot tell (no sweep lines, an input it cannot name).
std::set<int64_t> sizesCalled(const Run& run, const DimChange& d) {
    if (d.what != "size" || d.dim < 0)
        return {};
    const NamedInputs model = parseModelInputs(run.model.inputs);
    const auto named = std::find(model.names.begin(), model.names.end(), d.tensor);
    if (named == model.names.end())
        return {};
    const auto input = static_cast<size_t>(named - model.names.begin());
    const auto dim = static_cast<size_t>(d.dim);
    std::set<int64_t> sizes;
    auto add = [&](const InputSizes& call) {
        if (input < call.size() && call[input] && dim < call[input]->size())
            sizes.insert((*call[input])[dim]);
    };
    add(model.sizes);
    bool swept = false;
    for (const LogLine& line : run.logs) {
        if (line.code == "sweep_inputs") {
            add(parseInputShapes(line.detail));
            swept = true;
        }
    }
    return swept ? sizes : std::set<int64_t>{};
}

// A guarded dimension with the sizes the calls passed added to those that
// compiled; `complete` when that is every size the calls took.
struct SizesSeen {
    DimChange dim;
    bool complete = false;
    size_t uncompiled = 0; // sizes the calls took that compiled no graph
};

SizesSeen sizesSeen(const Run& run, const DimChange& d, bool everySizeCompiled) {
    SizesSeen seen{d, everySizeCompiled, 0};
    const std::set<int64_t> called = sizesCalled(run, d);
    for (const int64_t size : called)
        seen.uncompiled += seen.dim.sizes.insert(size).second ? 1 : 0;
    seen.complete |= !called.empty();
    return seen;
}

// "pad dimension 1 of input_ids and attention_mask to a few fixed sizes (…)".
// Without every size the calls took (`complete`), no count of graphs.
std::string padText(const DimChange& d, const std::vector<Companion>& with, bool complete) {
    const auto padded = paddedSizes(d.sizes);
    std::string text = "pad dimension " + std::to_string(d.dim);
    if (!with.empty()) {
        std::vector<std::string> tensors{d.tensor};
        for (const auto& c : with)
            tensors.push_back(c.dim == d.dim ? c.tensor
                                             : c.tensor + "'s dimension " + std::to_string(c.dim));
        text += " of " + joinWords(tensors);
    } else {
        text += " of " + d.tensor;
    }
    text += " to a few fixed sizes";
    if (!complete)
        text += " that cover the sizes your calls take";
    else if (padded.size() < d.sizes.size())
        text += " (" + sizesText(padded) + " would compile " +
                plural(static_cast<long long>(padded.size()), "graph", "graphs") + " instead of " +
                std::to_string(d.sizes.size()) + ")";
    return text;
}

// The recompiles among `derived` on guards computed from dimension d's size.
std::vector<const DerivedSizeGuardFailure*>
derivedFrom(const std::vector<DerivedSizeGuardFailure>& derived, const DimChange& d) {
    std::vector<const DerivedSizeGuardFailure*> out;
    for (const auto& g : derived)
        if (g.tensor == d.tensor && g.dim == d.dim && d.what == "size")
            out.push_back(&g);
    return out;
}

// "3 recompiles came on guards computed from its size, …: `…` and 2 more
// guards, from vmap.py:72 in f and modeling_mamba.py:288 in combine_fn":
// every place named, since torch's own frame often comes first.
std::string derivedText(const std::vector<const DerivedSizeGuardFailure*>& derived) {
    std::vector<std::string> expressions;
    std::vector<std::string> places;
    for (const auto* g : derived) {
        if (std::find(expressions.begin(), expressions.end(), g->expression) == expressions.end())
            expressions.push_back(g->expression);
        if (!g->where.empty() && std::find(places.begin(), places.end(), g->where) == places.end())
            places.push_back(g->where);
    }
    std::string text = plural(static_cast<long long>(derived.size()), "recompile", "recompiles") +
                       " came on guards computed from its size, with the dimension symbolic "
                       "already: the code branches on such values, and each branch is a graph "
                       "of its own: `" +
                       expressions.front() + "`";
    if (expressions.size() > 1)
        text += " and " +
                plural(static_cast<long long>(expressions.size() - 1), "more guard", "more guards");
    if (!places.empty())
        text += ", from " + joinWords(places);
    return text;
}

// Padding, since a symbolic size keeps the branches: transformers' Mamba
// (torch 2.15, CPU) scanned its sequence with associative_scan and
// recompiled 4 times over 5 lengths under dynamic=auto and dynamic=True alike.
// `measured`: how the report's dynamic=True run showed it, or "".
std::string derivedSizeRemedy(const SizesSeen& seen, const std::vector<Companion>& with,
                              const std::string& measured) {
    std::string pad = padText(seen.dim, with, seen.complete);
    pad[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(pad[0])));
    return "Marking the dimension dynamic does not keep one graph here: the code branches on "
           "values computed from its size, and torch compiles a graph for each branch" +
           measured + ". " + pad +
           " and compile with dynamic=False: one compile per padded size, with specialised "
           "kernels. Where the branching code is yours, computing it without the size takes "
           "these recompiles away.";
}

// "3 graphs instead of 5, padded to 16, 32 and 64"; "" without every size
// the calls took, or where padding saves none.
std::string paddedGain(const SizesSeen& seen) {
    const auto padded = paddedSizes(seen.dim.sizes);
    if (!seen.complete || padded.size() >= seen.dim.sizes.size())
        return {};
    return plural(static_cast<long long>(padded.size()), "graph", "graphs") + " instead of " +
           std::to_string(seen.dim.sizes.size()) + ", padded to " + sizesText(padded);
}

// The specialised sizes among a dimension's: "size 0", "size 1" or, both
// of them, "sizes 0 and 1".
struct SpecialSizes {
    std::string text;
    bool both = false;
};

SpecialSizes zeroOneSizes(const std::set<int64_t>& sizes) {
    const bool zero = sizes.count(0) > 0;
    const bool one = sizes.count(1) > 0;
    if (zero && one)
        return {"sizes 0 and 1", true};
    return {zero ? "size 0" : "size 1", false};
}

// Size 1 among a dimension's sizes (0/1 specialization), checked on torch
// 2.15: an MLP called with batches 1, 4, 8, 1 and 16 compiled 2 graphs
// under dynamic=True and with mark_dynamic(x, 0), 1 graph with
// mark_unbacked(x, 0) on the first call's input (Inductor; under
// dynamic=True, auto and False alike); a 2-layer Qwen2 called by keyword
// with (batch, length) 1x20, 4x20, 1x33 and 4x48 compiled 2 graphs under
// dynamic=True, 1 with mark_unbacked on dimension 0 of input_ids and of
// attention_mask as well.
std::string zeroOneEvidence(const DimChange& d, const SpecialSizes& special,
                            const std::string& dynamicMode, const Run* dynamicSibling,
                            const RunSummary& theirs) {
    std::string text = dimName(d) + " took " + special.text +
                       ": torch specialises sizes 0 and 1 even for a dynamic dimension (0/1 "
                       "specialization), so " +
                       special.text + (special.both ? " compile graphs" : " compiles a graph") +
                       " apart from the other sizes";
    if (dynamicMode == "true")
        text += ", as here under dynamic=True";
    else if (dynamicSibling && theirs.recompiles > 0)
        text += ", as " + dynamicSibling->setting.label() + " (dynamic=True) did here, with " +
                plural(theirs.recompiles, "recompile", "recompiles");
    return text;
}

std::string zeroOneRemedy(const DimChange& d, const SpecialSizes& special,
                          const std::vector<Companion>& with, bool otherDims) {
    const std::string where = d.tensor + ", " + std::to_string(d.dim);
    std::vector<std::string> unbacked{"torch._dynamo.decorators.mark_unbacked(" + where + ")"};
    for (const auto& c : with)
        unbacked.push_back("torch._dynamo.decorators.mark_unbacked(" + c.tensor + ", " +
                           std::to_string(c.dim) + ")");
    // With other dimensions changing too, dynamic=True makes them symbolic.
    return "Sizes 0 and 1 stay specialised in a dynamic dimension, so "
           "torch._dynamo.mark_dynamic(" +
           where + ") and dynamic=True leave " + special.text + " of " + dimName(d) +
           (special.both ? " graphs of their own" : " a graph of its own") + ". For one graph, " +
           (otherDims ? "compile with dynamic=True and " : "") + "mark " +
           (with.empty() ? "the dimension" : "it and the dimensions that change with it") +
           " unbacked on the first call's " + (with.empty() ? "input" : "inputs") + ": " +
           joinWords(unbacked) +
           ", which drops that specialization (a branch on the size can then no longer be "
           "decided while compiling: it breaks the graph or raises). Else a graph for " +
           (special.both ? "each of " : "") + special.text +
           " and one for the rest are the least: dynamic=True compiles no more.";
}

// "1 recompile came where torch's convolution changes algorithm with the
// input's size: `…` (conv.py:560 in _conv_forward)".
std::string convolutionText(const std::vector<DerivedSizeGuardFailure>& guards) {
    const DerivedSizeGuardFailure& g = guards.front();
    return plural(static_cast<long long>(guards.size()), "recompile", "recompiles") +
           " came where torch's convolution picks its CPU algorithm by the input's size: `" +
           g.expression + "`" + (g.where.empty() ? std::string() : " (" + g.where + ")") +
           ", torch's guard, not a branch of the model's code: inputs on either side of that "
           "size compile a graph each, once";
}

// A frame whose every recompile is torch's convolution choosing its algorithm
// by the input's size under symbolic sizes (a conv net under dynamic=True
// over 64x80 to 128x128 images, torch 2.15: `3*H*W <= 20480`, 2 graphs, the
// same with duck sizing off and with both dimensions marked): the least
// there is, nothing to change.
Finding convolutionFinding(const FunctionRecompiles& fr, const std::string& fnWhere,
                           const std::string& inRun) {
    const int count = static_cast<int>(fr.convolutions.size());
    Finding f;
    f.rule = "recompile.shape";
    f.severity = Severity::Info;
    f.title = fnWhere + " recompiled " + plural(count, "time", "times") +
              " where torch's convolution changes algorithm with the input's size";
    f.evidence.push_back(plural(count, "recompile", "recompiles") + " of " +
                         functionLabel(fr.function) + " in " + inRun);
    f.evidence.push_back(convolutionText(fr.convolutions));
    f.remedy = "Nothing to change: the sizes stay symbolic, and a graph for each side of "
               "torch's size thresholds is the least a dynamic compile of this model takes. "
               "Padding to fixed sizes with dynamic=False would compile a graph per size instead.";
    f.confidence = 0.8;
    return f;
}

// Recompiles on an equality duck sizing added: two dimensions of one size in
// the first compile shared a symbol. Checked on torch 2.15 under
// dynamic=True: a convolution net over 64x64, 64x96, 96x64, 128x128 and
// 80x120 images compiled 3 graphs, 2 with use_duck_shape = False and 2 with
// both dimensions marked dynamic (the other graph, its convolution's size
// guard); SegFormer over 64x64, 64x96, 96x64 and 128x128: 4 graphs, 3 without
// duck sizing; DINOv2 over 112x112, 112x168, 168x112 and 224x224: 2 graphs
// either way, its own code branching on height == width.
Finding duckSizeFinding(const FunctionRecompiles& fr, const std::string& fnWhere,
                        const std::string& inRun, const std::string& dynamicMode, bool canMark) {
    const DuckSizeGuardFailure& d = fr.ducks.front();
    const bool oneTensor = d.tensor == d.otherTensor;
    const int low = std::min(d.dim, d.otherDim);
    const int high = std::max(d.dim, d.otherDim);
    const std::string dims = oneTensor ? "dimensions " + std::to_string(low) + " and " +
                                             std::to_string(high) + " of " + d.tensor
                                       : "dimension " + std::to_string(d.dim) + " of " + d.tensor +
                                             " and dimension " + std::to_string(d.otherDim) +
                                             " of " + d.otherTensor;
    const int count = static_cast<int>(fr.ducks.size());
    Finding f;
    f.rule = "recompile.shape";
    f.severity = Severity::Warning;
    f.title = fnWhere + " recompiled " + plural(count, "time", "times") + " because " + dims +
              ", one size in the first compile, differed";
    f.evidence.push_back(plural(count, "recompile", "recompiles") + " of " +
                         functionLabel(fr.function) + " in " + inRun);
    f.evidence.push_back(
        "the first compile saw " + dims +
        (d.size >= 0 ? " both of size " + std::to_string(d.size) : std::string(" of one size")) +
        ", so torch gave them one symbol (duck sizing) and guarded on their equality, `" +
        d.expression + "`: a call where they differ failed the guard and compiled again");
    if (dynamicMode == "true")
        f.evidence.push_back("compiled with dynamic=True: both were symbolic from the first "
                             "compile, and still one symbol");
    const auto mark = [](const std::string& tensor, int dim) {
        return "torch._dynamo.mark_dynamic(" + tensor + ", " + std::to_string(dim) + ")";
    };
    f.remedy =
        "Before compiling, set torch.fx.experimental._config.use_duck_shape = False: "
        "dimensions of one size then get a symbol each, and one graph serves both equal "
        "and unequal sizes. " +
        (canMark
             ? "Or mark both dynamic on the first call's input (" +
                   (oneTensor ? mark(d.tensor, low) + " and " + mark(d.tensor, high)
                              : mark(d.tensor, d.dim) + " and " + mark(d.otherTensor, d.otherDim)) +
                   "), which torch does not duck-size, or make"
             : std::string("Or make")) +
        " the first call's sizes differ. Where the model's own code compares the two sizes (a "
        "square image taking a path of its own), the recompile stays, then on that line's "
        "guard.";
    // No gain claimed: DINOv2 (transformers 5.25) recompiled as often without
    // duck sizing, on its interpolate_pos_encoding's `height == width`.
    f.confidence = 0.85;
    return f;
}

std::string remedyFor(const DimChange& d, const std::vector<Companion>& with, bool complete,
                      const std::vector<DimChange>& others = {}) {
    // Bounds from sizes that may not be all of them would refuse the others.
    std::string text =
        "Choose one: (1) " + markCalls(d, with, complete, others) + " before the first call";
    if (!with.empty())
        text += std::string(" (") + kMarkAll + ")";
    text += std::string(": one graph for every size of ") +
            (with.empty() && others.empty() ? "that dimension" : "them") +
            "; (2) torch.compile(..., dynamic=True): all sizes symbolic from the first compile; ";
    if (others.empty())
        return text + "(3) " + padText(d, with, complete) +
               ": specialised kernels, one compile per size.";
    // "dimensions 3 and 2 of pixel_values" where they are one tensor's.
    const bool oneTensor = std::all_of(others.begin(), others.end(),
                                       [&](const DimChange& o) { return o.tensor == d.tensor; });
    std::vector<std::string> dims{oneTensor ? std::to_string(d.dim) : dimName(d)};
    for (const auto& o : others)
        dims.push_back(oneTensor ? std::to_string(o.dim) : dimName(o));
    const std::string padded =
        oneTensor ? "dimensions " + joinWords(dims) + " of " + d.tensor : joinWords(dims);
    return text + "(3) pad " + padded +
           " to a few fixed sizes each: specialised kernels, one compile per combination of "
           "sizes.";
}

// The guard itself: its first line, with the padding before torch's "# source"
// comment folded ("0/7: self.calls == 7   # self.calls += 1  # m.py:10 ...")
// and the path torch cut ("mp/nc/m.py:10") left to the file's name.
std::string guardLine(const std::string& reason) {
    std::string out;
    for (const char c : firstLine(regexInput(reason))) {
        if (c == ' ' && !out.empty() && out.back() == ' ')
            continue;
        out += c;
    }
    static const std::regex cutPath(R"(# \S*/([^/\s]+:\d+ in \w+))");
    return std::regex_replace(out, cutPath, "# $1");
}

std::string valuesText(const std::vector<std::string>& values) {
    constexpr size_t kShown = 6;
    if (values.size() <= kShown)
        return joinWords(values);
    std::string text;
    for (size_t i = 0; i + 1 < kShown; ++i)
        text += values[i] + ", ";
    return text + "… " + values.back();
}

// Strings a model may take by design (task names, modes), each compiled once.
constexpr size_t kFewTextValues = 4;

// A module's train()/eval() flag: "self.drop.training".
bool isModeFlag(const ValueChange& v) {
    const std::string suffix = ".training";
    return v.name.size() > suffix.size() &&
           v.name.compare(v.name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A value torch printed quoted: a string.
bool isText(const ValueChange& v) {
    return !v.values.empty() && !v.values.front().empty() &&
           (v.values.front().front() == '\'' || v.values.front().front() == '"');
}

// torch compiled a number argument as a symbol once it changed (automatic
// dynamic, dynamic=auto): a graph of the function takes it as a SymInt or
// SymFloat input, which later values reuse without compiling.
bool compiledAsSymbol(const Run& run, const std::string& function, const std::string& name) {
    const std::string target = "L_" + name + "_";
    return std::any_of(run.graphs.begin(), run.graphs.end(), [&](const Graph& g) {
        return g.function == function &&
               std::any_of(g.nodes.begin(), g.nodes.end(), [&](const GraphNode& n) {
                   return n.op == "placeholder" && n.target == target &&
                          n.dtype.rfind("Sym", 0) == 0;
               });
    });
}

// One recompile, after which the value was a symbol: the whole cost.
std::string symbolAfterRemedy(const ValueChange& v) {
    return "torch compiled " + v.name + " in as the constant " + v.values.front() +
           " first; when it changed, torch compiled it as a symbol (dynamic=auto), and later "
           "values reuse that graph: one extra compile, paid once. To compile the symbolic graph "
           "from the first call, compile with dynamic=True, or pass " +
           v.name + " as a tensor (torch.tensor(value)).";
}

// A number or flag held on the module whose frame compiled: "self.seed".
bool moduleAttribute(const ValueChange& v) {
    return v.name.rfind("self.", 0) == 0 || v.name.find("'self'") != std::string::npos;
}

// The modules whose own frame compiled a graph of this function, in compile
// order: several when each module of a class compiled its own.
std::vector<std::string> modulesOfFrame(const Run& run, const FunctionRecompiles& fr) {
    std::vector<std::string> modules;
    for (const auto& g : run.graphs) {
        if (fr.frame.empty() || g.compileId.rfind(fr.frame + "/", 0) != 0 ||
            !namesGraph(fr.function, g) || !g.frameModule || g.frameModule->empty())
            continue;
        if (std::find(modules.begin(), modules.end(), *g.frameModule) == modules.end())
            modules.push_back(*g.frameModule);
    }
    return modules;
}

// Whether a module's attribute differs between the modules of one class that
// share the frame (BigBird's self.seed, the layer's index): each module
// compiled its own graph, all in one call. A counter bumped per call would
// recompile across calls instead.
bool perModuleAttribute(const Run& run, const FunctionRecompiles& fr, const ValueChange& v) {
    const bool oneCall = std::all_of(fr.events.begin(), fr.events.end(), [&](const Recompile* rc) {
        return rc->callIndex == fr.events.front()->callIndex;
    });
    return moduleAttribute(v) && !isModeFlag(v) && !isText(v) && v.clock.empty() && oneCall &&
           modulesOfFrame(run, fr).size() >= 2;
}

// A number on the module that differed between compiles of a frame that no
// event places (an imported log: no calls, no modules): each module of the
// class may hold its own, or one module's may have changed between calls.
bool unplacedModuleAttribute(const FunctionRecompiles& fr, const ValueChange& v) {
    const bool unplaced = std::all_of(fr.events.begin(), fr.events.end(), [](const Recompile* rc) {
        return rc->phase.empty() && rc->callIndex < 0;
    });
    return unplaced && moduleAttribute(v) && !isModeFlag(v) && !isText(v) && v.clock.empty();
}

// "a, b, c and 6 more"; four or fewer all named.
std::string modulesText(const std::vector<std::string>& modules) {
    constexpr size_t kShown = 3;
    if (modules.size() <= kShown + 1)
        return joinWords(modules);
    std::vector<std::string> shown(modules.begin(), modules.begin() + kShown);
    shown.push_back(std::to_string(modules.size() - kShown) + " more");
    return joinWords(shown);
}

// " (8)" for a known recompile limit, "" for 0.
std::string limitText(int limit) {
    return limit > 0 ? " (" + std::to_string(limit) + ")" : "";
}

// torch's recompile limit as its events told it; 0 when unknown.
int recompileLimit(const FunctionRecompiles& fr) {
    if (fr.limit)
        return fr.limit->limit;
    return fr.events.empty() ? 0 : fr.events.front()->limit;
}

// Checked with torch 2.15 on transformers' BigBird (10 layers, each
// attention's self.seed its layer's index): without the flag the attention's
// forward compiled 9 times and hit the limit; with it, twice.
std::string perModuleRemedy(const ValueChange& v, int limit) {
    const bool integral =
        std::all_of(v.values.begin(), v.values.end(), [](const std::string& value) {
            static const std::regex integer(R"(^-?\d+$)");
            return std::regex_match(value, integer);
        });
    std::string text =
        "torch treats " + v.name +
        ", a number held on the module, as a constant, and each module of this class holds "
        "its own value, so each compiles its own graph: a "
        "model with more such modules than torch's recompile limit" +
        limitText(limit) + " runs the rest eagerly. ";
    if (integral)
        text += "Set torch._dynamo.config.allow_unspec_int_on_nn_module = True before "
                "compiling: torch then takes the modules' integer attributes as inputs, and "
                "after one recompile a single graph serves every module (checked on BigBird's "
                "10 layers: 2 compiles of the attention's forward instead of 9 and the limit). "
                "Or hold it in a tensor (self.register_buffer(...)).";
    else
        text += "Hold it in a tensor (self.register_buffer(...)) so that it is data in one "
                "graph.";
    return text;
}

// A Python value torch compiled in as a constant, so every new value compiles
// again: make it data (a tensor) or keep it out of the compiled call; a clock
// reading in `function`, read outside it.
std::string valueRemedy(const ValueChange& v, const std::string& function) {
    if (!v.clock.empty())
        return clockReadRemedy(v.clock, core::functionName(function));
    const bool attribute = moduleAttribute(v);
    std::string text;
    if (isModeFlag(v))
        // Dropout and batch norm trace differently in each mode.
        text = "torch compiles a graph for train() and one for eval(): dropout and batch norm "
               "run differently in each, so a model that switches (an evaluation inside "
               "training) compiles once per mode, and after that each switch costs nothing. "
               "Call the compiled model once in each mode before the calls that count; for "
               "inference alone, call model.eval() before torch.compile and keep it there";
    else if (isText(v))
        // A string picks code (a head, a branch): no tensor can stand for it.
        text = "torch compiles a graph for each value of " + v.name +
               ": a string selects code, so it cannot be data in one graph. For a few values "
               "(task names, modes) that is one compile each, paid once: call the compiled "
               "model once per value before the calls that count. For values that keep "
               "changing (a name built per call), keep the string out of the compiled call: "
               "map it to a fixed choice outside, or compile the part it selects";
    else if (v.global)
        // Checked with torch 2.15: a global step counter recompiled on every
        // call; a long buffer counted in place compiled one graph.
        text = "torch treats " + v.name +
               ", a global of the model's code, as a constant: every new value compiles "
               "another graph. Keep it out of the compiled forward (change it from the caller "
               "and pass what it decides as a tensor), or count in a tensor on the module "
               "(self.register_buffer(\"step\", torch.zeros((), dtype=torch.long)), then "
               "self.step += 1 and tensor math on it) so that it is data in one graph";
    else if (attribute)
        text = "torch treats " + v.name +
               ", a number held on the module, as a constant: every new value compiles "
               "another graph. Keep it out of the compiled forward (update it outside the "
               "call), or hold it in a tensor (self.register_buffer(...)) so that it is data "
               "in one graph";
    else
        text = "torch compiled " + v.name +
               " in as a constant: every new value compiles another graph. Pass it as a "
               "tensor (torch.tensor(value)) so that it is data in one graph, or keep it "
               "constant";
    if (!v.hint.empty())
        text += "; torch's hint: " + v.hint;
    return text.back() == '.' ? text : text + "."; // torch's hint ends in one already
}

// A finding in the graph's file goes to the line the guard comes from
// ("global_step.py:19 in forward", as torch cuts the path), not the def line.
void placeAtGuard(Finding& f, const ValueChange& v) {
    static const std::regex at(R"(^([^:\s]+):(\d+) in )");
    std::smatch m;
    if (f.file.empty() || v.code.empty() || !std::regex_search(v.where, m, at) ||
        baseName(f.file) != m[1].str())
        return;
    f.line = lineNumber(m[2].str());
    f.code = v.code;
}

// Where a value guard's value comes from, after its evidence line.
std::string sourceText(const ValueChange& v) {
    if (!v.clock.empty())
        return v.code.empty() ? " (what " + v.clock + " returned)"
                              : " (`" + v.code + "` reads " + v.clock + ")";
    return v.code.empty() ? std::string() : "; the guard comes from `" + v.code + "`";
}

// The break at a requires_grad_() call on `tensor` in forward (any such
// call when none names it); nullptr when none.
const GraphBreak* requiresGradBreak(const Run& run, const std::string& tensor) {
    const GraphBreak* any = nullptr;
    for (const auto& gb : run.graphBreaks) {
        const auto diagnosis = diagnoseBreak(gb);
        if (!diagnosis || diagnosis->cause != BreakCause::Autograd ||
            diagnosis->what != "requires_grad_()")
            continue;
        const SourceFrame* at = gb.location();
        if (at && containsText(at->code, tensor + ".requires_grad_("))
            return &gb;
        any = any ? any : &gb;
    }
    return any;
}

// "False, then True".
std::string inOrder(const std::vector<std::string>& values) {
    std::string text;
    for (const auto& v : values)
        text += (text.empty() ? "" : ", then ") + v;
    return text;
}

// An input passed as another kind of tensor than torch compiled for.
std::string tensorKindRemedy(const TensorKindChange& k, bool flippedInForward) {
    if (k.property == "requires_grad")
        return flippedInForward
                   ? "Take a detached copy in forward (" + k.tensor + " = " + k.tensor +
                         ".detach().requires_grad_(True)) instead of calling requires_grad_() "
                         "on the input: the caller's tensor then stays as it was, and every "
                         "call compiles for the same kind (graph_break.autograd)."
                   : "Pass " + k.tensor +
                         " the same way on every call: with requires_grad or without (detach() "
                         "it, or call under torch.no_grad(), for inference). torch compiles a "
                         "graph for each.";
    if (k.property == "dispatch keys") {
        const bool autograd = std::any_of(k.values.begin(), k.values.end(), [](const auto& v) {
            return v.find("Autograd") != std::string::npos;
        });
        return autograd
                   ? k.tensor +
                         " came as an inference tensor (made under torch.inference_mode(), which "
                         "leaves out the autograd keys) at some calls and as a normal tensor at "
                         "others: torch compiles a graph for each. Make the inputs the same way "
                         "on every call: all under torch.inference_mode(), or all under "
                         "torch.no_grad()."
                   : "Pass " + k.tensor +
                         " with the same dispatch keys on every call (the kind of tensor: "
                         "conjugated, negated, wrapped): torch compiles a graph for each.";
    }
    if (k.property == "rank")
        return "Pass " + k.tensor +
               " with one number of dimensions (unsqueeze or reshape before the call), or "
               "expect a graph per rank: a tensor's number of dimensions is never symbolic, so "
               "dynamic=True does not change it.";
    if (k.property == "dtype")
        return "Cast " + k.tensor +
               " to one dtype before the call (x.to(torch.float32)), or "
               "expect one compile per dtype: torch compiles a graph for each.";
    return "Move " + k.tensor +
           " to one device before the call: torch compiles a graph for "
           "each device.";
}

// A container the compiled code changes: torch guards on its length, so every
// call that appends compiles again. Checked with torch 2.15 on a forward hook
// logging into a list (tests/probe/models/growing_list.py).
std::string lengthRemedy(const LengthChange& l) {
    const std::string change = l.code.empty() ? "the code that changes it" : "`" + l.code + "`";
    return "torch compiled the length of " + l.container +
           " into the graph: each call that changes it makes the next call compile again "
           "(keeping the items tensors does not help: the guard is on the length). Keep " +
           l.container + " out of the compiled code: move " + change +
           " into a function marked @torch.compiler.disable, which runs in Python between the "
           "graphs (one graph break, no recompiles), or fill it from outside the compiled call "
           "(from the caller, on the outputs).";
}

// The frame's own *args or **kwargs, guarded on how many it got: the line
// behind the guard unpacks the container (`func(self, *args, **kwargs)`), so
// its length is how many arguments the caller passed, not a list the code fills.
bool unpackedArguments(const LengthChange& l) {
    return !l.code.empty() && containsText(l.code, "*" + l.container);
}

// "keyword" for a **kwargs the line unpacks, else "positional".
std::string argumentKind(const LengthChange& l) {
    return containsText(l.code, "**" + l.container) ? "keyword" : "positional";
}

// Callers that passed another number of arguments: each number is a graph.
std::string argumentCountRemedy(const LengthChange& l, const std::string& fn,
                                const std::string& package) {
    const bool keywords = argumentKind(l) == "keyword";
    const std::string what = argumentKind(l) + " arguments";
    if (!package.empty())
        return fn + " is code in " + package + ", and its callers passed it another number of " +
               what +
               " on some calls (generate() calls a model's forward with other arguments "
               "for the prompt than for each token after it): torch compiles a graph per "
               "number, once each, and none of it is in your code. Expect one graph per set "
               "of arguments rather than a fix; it costs warmup only.";
    return "torch compiled how many " + what + " " + fn + " got into the graph: a call with " +
           "another number compiles again. Pass the same " + what + " in every call (" +
           (keywords ? "None, or the default, for those a call does not need" : "the same arity") +
           "), or expect one graph per set.";
}

// "L['___stack0']" of torch's "Cache line invalidated because L['___stack0']
// got deallocated": a guard held that object, and the call freed it.
std::string freedObject(const std::string& reason) {
    static const std::regex freed(R"(Cache line invalidated because (.+?) got deallocated)");
    std::smatch m;
    return std::regex_search(reason, m, freed) ? m[1].str() : std::string();
}

// Why a frame compiles again on every call when a guard held an object that
// lived one call, and what ends it. A resume function's "___stackN" is a value
// Dynamo carried across the break it resumes after (a file from open(), with
// .write() the call that broke). Checked with torch 2.15 on a forward writing
// to a file: guarded by is_compiling() 1 graph and no recompile.
std::string freedObjectRemedy(const FunctionRecompiles& fr) {
    const UserFunction fn = userFunction(fr.function);
    const bool carried = fn.afterLine > 0 && containsText(fr.freed, "___stack");
    if (!carried)
        return "torch compiled for that very object, and each call made a new one: create it "
               "once, outside the compiled call, and pass it in or keep it on the module, or keep "
               "it out of the compiled code.";
    return "The object is a value Dynamo carried across the graph break at line " +
           std::to_string(fn.afterLine) +
           ", made anew by each call: remove that break (its finding says how), and no value "
           "crosses it. Until then keep the object off that line: guard the line with if not "
           "torch.compiler.is_compiling() when it only logs or writes (then no break and no "
           "recompile), or move it into a helper marked @torch.compiler.disable (one break, no "
           "recompile).";
}

// "0, 1, 2, … 7" of the lengths a guard was compiled for.
std::string lengthsText(const std::set<int64_t>& lengths) {
    std::vector<std::string> values;
    for (const int64_t n : lengths)
        values.push_back(std::to_string(n));
    return valuesText(values);
}

// What one run's shape changes cost: its counts, first call, median and sweep.
std::string shapeCostText(const Run& run) {
    const RunSummary summary = summarizeRun(run);
    std::string text = plural(summary.graphs, "graph", "graphs") + ", " +
                       plural(summary.recompiles, "recompile", "recompiles");
    if (summary.firstCallNs >= 0)
        text += ", first call " + formatDuration(static_cast<double>(summary.firstCallNs));
    if (summary.latency)
        text += ", median " + formatDuration(summary.latency->median);
    if (const PhaseSpan* sweep = run.phase("sweep"); sweep && sweep->endNs > sweep->beginNs)
        text +=
            ", input sweep " + formatDuration(static_cast<double>(sweep->endNs - sweep->beginNs));
    return text;
}

// The same setting with dynamic=true, run in this report: the remedy's
// gain as measured. nullptr when the report has none.
const Run* dynamicTrueSibling(const std::vector<Run>& runs, size_t r) {
    for (const Run& other : runs) {
        if (other.status != RunStatus::Ok || other.setting.dynamic != "true")
            continue;
        Setting same = other.setting;
        same.dynamic = runs[r].setting.dynamic;
        if (same == runs[r].setting && &other != &runs[r])
            return &other;
    }
    return nullptr;
}

// How much faster per call the dynamic=true sibling is than this run, when
// the two medians' intervals do not overlap; nullopt when they do or either
// has no measured calls. Below 1: dynamic kernels are slower. Over repeated
// probes, every round must agree.
std::optional<Speedup> dynamicSpeedup(const Run& run, const Run& dynamic, const RunSummary& mine,
                                      const RunSummary& theirs) {
    if (!mine.latency || !theirs.latency)
        return std::nullopt;
    return significantSpeedup(run, dynamic, *mine.latency, *theirs.latency);
}

// ", in each of 3 probe rounds (1.08× to 1.44×)" after "N× slower" over
// repeated probes; empty for a single pair.
std::string roundsAgreed(const Speedup& speedup) {
    if (speedup.rounds < 2)
        return {};
    const bool slower = speedup.value < 1;
    return ", in each of " + std::to_string(speedup.rounds) + " probe rounds (" +
           formatRatio(slower ? 1 / speedup.roundsHigh : speedup.roundsLow) + " to " +
           formatRatio(slower ? 1 / speedup.roundsLow : speedup.roundsHigh) + ")";
}

// "measured here as default dyn: 0 recompiles instead of 7, input sweep 22 ms
// instead of 55.4 s, median 1.76 ms against 1.58 ms"; "…, but 2.61× slower
// per call: median …" when its calls are measurably slower.
std::string measuredDynamicGain(const Run& run, const Run& dynamic, const RunSummary& mine,
                                const RunSummary& theirs) {
    std::string text = "measured here as " + dynamic.setting.label() + ": " +
                       plural(theirs.recompiles, "recompile", "recompiles") + " instead of " +
                       std::to_string(mine.recompiles);
    const PhaseSpan* a = run.phase("sweep");
    const PhaseSpan* b = dynamic.phase("sweep");
    if (a && b && a->endNs > a->beginNs && b->endNs > b->beginNs)
        text += ", input sweep " + formatDuration(static_cast<double>(b->endNs - b->beginNs)) +
                " instead of " + formatDuration(static_cast<double>(a->endNs - a->beginNs));
    if (mine.latency && theirs.latency) {
        const auto speedup = dynamicSpeedup(run, dynamic, mine, theirs);
        text += speedup && speedup->value < 1
                    ? ", but " + formatRatio(1 / speedup->value) + " slower per call: median "
                    : ", median ";
        text += formatDuration(theirs.latency->median) + " against " +
                formatDuration(mine.latency->median);
    }
    return text;
}

// The same setting under the other dynamic choices, run in this report
// (--settings default,default:dynamic=true, or the GUI's "compare all
// three"): the remedy's alternatives measured rather than described.
std::vector<std::string> dynamicSiblings(const std::vector<Run>& runs, size_t r) {
    std::vector<std::string> out;
    for (size_t o = 0; o < runs.size(); ++o) {
        if (o == r || runs[o].status != RunStatus::Ok)
            continue;
        Setting other = runs[o].setting;
        if (other.dynamic == runs[r].setting.dynamic)
            continue;
        other.dynamic = runs[r].setting.dynamic;
        if (!(other == runs[r].setting))
            continue;
        if (out.empty())
            out.push_back(
                "dynamic choices measured side by side in this report: " + runs[r].setting.label() +
                " (dynamic=" + runs[r].setting.dynamic + ", this one): " + shapeCostText(runs[r]));
        out.push_back(runs[o].setting.label() + " (dynamic=" + runs[o].setting.dynamic +
                      "): " + shapeCostText(runs[o]));
    }
    return out;
}

// The package of a recompiled frame's code ("transformers"), from its graph,
// the library code torch compiled around it or a break's stack through it;
// "" for the user's code and torch's; nullopt where nothing gives its file (a
// dataclass's generated __init__, which compiled no graph).
std::optional<std::string> packageOfFrame(const Run& run, const FunctionRecompiles& fr) {
    std::optional<std::string> file;
    if (const Graph* graph = graphOfFrame(run, fr))
        file = graph->file;
    else if (!fr.libraryFrame.empty())
        file = fr.libraryFrame;
    // A frame that compiled no graph (transformers' checkpointing wrapper).
    for (size_t b = 0; !file && b < run.graphBreaks.size(); ++b) {
        for (const auto& frame : run.graphBreaks[b].frames) {
            if (frame.function == fr.function) {
                file = frame.file;
                break;
            }
        }
    }
    if (!file)
        return std::nullopt;
    const std::string package = installedPackage(*file);
    return package == "torch" ? std::string() : package;
}

// The input sweep's new sizes recompile the model's forward (frame 0) and,
// where a library's code breaks into frames of its own (Longformer: 14 of
// them, 30 recompiles over five lengths), each of those frames again on the
// sizes it derives. The library's frames that recompiled only in the sweep
// are that one change: told in the forward's finding, not one finding each.
void foldLibraryFrames(const Run& run, std::vector<FunctionRecompiles>& functions) {
    if (inputsNeverChanged(run))
        return;
    const auto inSweep = [](const FunctionRecompiles& fr) {
        return !fr.events.empty() &&
               std::all_of(fr.events.begin(), fr.events.end(),
                           [](const Recompile* rc) { return rc->phase == "sweep"; });
    };
    auto root = std::find_if(functions.begin(), functions.end(), [&](const FunctionRecompiles& fr) {
        return !fr.foldedIntoCaller && !fr.dims.empty() && inSweep(fr) && fr.frame == "0";
    });
    if (root == functions.end())
        return;
    for (auto& fr : functions) {
        const auto package = packageOfFrame(run, fr);
        if (&fr == &*root || fr.foldedIntoCaller || fr.limit || !inSweep(fr) ||
            (package && package->empty()))
            continue;
        root->following.push_back(&fr);
        // The frames after its breaks that recompiled with it, folded into it
        // already, are counted with it.
        root->following.insert(root->following.end(), fr.resumed.begin(), fr.resumed.end());
        fr.foldedIntoCaller = true;
    }
}

// "14 frames of transformers's code (30 recompiles)", `named`: ": _pad_to_window_size 2, …";
// frames of no known file ("and 1 frame with no file to place it") told as such.
std::string followingText(const Run& run, const std::vector<const FunctionRecompiles*>& following,
                          bool named) {
    // Frames of one name (each module's forward) are told together:
    // "forward 5 (5 frames)", in the order first seen.
    struct Named {
        std::string label;
        int frames = 0;
        int recompiles = 0;
    };
    std::vector<Named> byName;
    int recompiles = 0;
    for (const auto* fr : following) {
        recompiles += fr->recompiles;
        const std::string label = functionLabel(fr->function);
        auto it = std::find_if(byName.begin(), byName.end(),
                               [&](const Named& n) { return n.label == label; });
        if (it == byName.end())
            it = byName.insert(byName.end(), {label, 0, 0});
        ++it->frames;
        it->recompiles += fr->recompiles;
    }
    constexpr size_t kNamed = 5;
    std::vector<std::string> names;
    for (size_t i = 0; i < byName.size() && i < kNamed; ++i)
        names.push_back(
            byName[i].label + " " + std::to_string(byName[i].recompiles) +
            (byName[i].frames > 1 ? " (" + std::to_string(byName[i].frames) + " frames)" : ""));
    if (byName.size() > kNamed)
        names.push_back(std::to_string(byName.size() - kNamed) + " more");
    std::set<std::string> packages;
    long long placed = 0;
    for (const auto* fr : following) {
        if (const auto package = packageOfFrame(run, *fr)) {
            packages.insert(*package);
            ++placed;
        }
    }
    const long long unplaced = static_cast<long long>(following.size()) - placed;
    std::string frames;
    if (placed > 0)
        frames = plural(placed, "frame", "frames") + " of " +
                 (packages.size() == 1 ? *packages.begin() + "'s code" : "library code");
    if (unplaced > 0)
        frames += (frames.empty() ? "" : " and ") + plural(unplaced, "frame", "frames") +
                  " with no file to place " + (unplaced == 1 ? "it" : "them");
    return frames + " (" + plural(recompiles, "recompile", "recompiles") +
           (named ? "): " + joinWords(names) : ")");
}

// "; the guard comes from `code` (where)", after an evidence line; "" without code.
std::string guardSourceText(const std::string& code, const std::string& where) {
    if (code.empty())
        return {};
    return "; the guard comes from `" + code + "`" + (where.empty() ? "" : " (" + where + ")");
}

// " (deprecation.py:131)" of a guard's "deprecation.py:131 in wrapped_func".
std::string guardPlace(const std::string& where) {
    return where.empty() ? "" : " (" + where.substr(0, where.find(" in ")) + ")";
}

// One function called with an argument of several types: torch keeps a graph
// per type. A library's decorator wraps many classes' methods in one function
// (transformers' deprecate_kwarg: BigBird's wrapped_func for the encoder, the
// layer, …), so each class it meets at a frame's start compiles it again; the
// other guards its calls failed (another method's arguments) are that too.
// `place`: " (deprecation.py:131)", where the frame is.
Finding typeFinding(const FunctionRecompiles& fr, const std::string& fn, const std::string& place,
                    const std::string& label, const std::string& tabNote) {
    const TypeGuardFailure& main = fr.types.front();
    std::vector<std::string> types;
    for (const auto& t : fr.types) {
        if (t.name == main.name && !t.type.empty())
            types.push_back(t.type);
    }
    std::string typesText;
    for (const auto& t : types)
        typesText += (typesText.empty() ? " (" : ", ") + t;
    if (!typesText.empty())
        typesText += ", …)";
    Finding f;
    f.rule = "recompile.type";
    f.severity = fr.limit ? Severity::Warning : Severity::Info;
    const std::string limit = limitText(recompileLimit(fr));
    f.title = fn + place + " recompiled " + plural(fr.recompiles, "time", "times") +
              ": it is called with " + main.name + " of several types" + typesText +
              (fr.limit ? ", and hit the recompile limit" + limit : "");
    f.evidence.push_back(plural(fr.recompiles, "recompile", "recompiles") + " of " + fn + " in " +
                         label + tabNote);
    std::string guarded = "torch compiled " + fn + " for " + main.name +
                          (types.empty()       ? ""
                           : types.size() == 1 ? " of type " + types.front()
                                               : " of types " + joinWords(types)) +
                          " and guarded on its type: a call with another type compiled its own "
                          "graph";
    f.evidence.push_back(guarded + guardSourceText(main.code, main.where));
    std::vector<std::string> others;
    for (const auto& k : fr.kinds)
        others.push_back(k.tensor + "'s " + k.property);
    for (const auto& d : fr.dims)
        others.push_back(dimName(d));
    for (const auto& v : fr.values)
        others.push_back(v.name);
    if (!others.empty())
        f.evidence.push_back("its other failed guards (" + joinWords(others) +
                             ") came with those calls: a call for another type passes "
                             "arguments of its own");
    if (!fr.typesPackage.empty())
        f.remedy = fn + " is " + fr.typesPackage +
                   "'s code, one function that several classes' methods go through (a "
                   "decorator's wrapper, or a helper they share): torch keeps a graph of it for "
                   "each class it is called "
                   "for, compiled on the first call that reaches it, so these recompiles are "
                   "bounded by the classes that use it and cost compile time once. Nothing in "
                   "your code sets them; graph breaks around those calls are what make torch "
                   "start a frame at " +
                   fn + " (graph_break findings).";
    else
        f.remedy = fn + " is called with " + main.name +
                   " of several types, and torch compiles a graph for each. Where that is by "
                   "design (one helper for several classes) it is one compile per type, paid "
                   "once; otherwise convert the argument to one type before the call.";
    if (fr.limit)
        f.remedy += " It reached torch's recompile limit" + limit +
                    " and runs eagerly for the types after it: raise "
                    "torch._dynamo.config.recompile_limit above the number of types it meets.";
    f.gain = fr.limit ? "no fall back to eager at the limit" : std::string();
    f.confidence = 0.8;
    return f;
}

// torch's name of a global state ("grad_mode", "autocast(cpu)_enabled") as the
// call that sets it.
std::string globalStateText(const std::string& state) {
    if (state == "grad_mode")
        return "grad mode (torch.no_grad() at some calls, not at others)";
    if (state.rfind("autocast", 0) == 0)
        return "autocast (torch.autocast(...) at some calls)";
    if (state == "num_threads")
        return "thread count (torch.set_num_threads())";
    if (state == "default_dtype")
        return "default dtype (torch.set_default_dtype())";
    if (state.rfind("deterministic_algorithms", 0) == 0)
        return "deterministic mode (torch.use_deterministic_algorithms())";
    if (state.rfind("torch_function", 0) == 0)
        return "__torch_function__ mode";
    return state;
}

// Checked with torch 2.15: a Linear compiled and called under torch.no_grad(),
// then without, then under torch.autocast: each state compiled its own graph.
std::string globalStateRemedy() {
    return "torch guards each graph on the global state it was compiled under, so every state "
           "the compiled code is called in compiles a graph of its own, once (a training loop "
           "that evaluates under torch.no_grad(): one graph per mode). Call it under one state: "
           "for inference always under torch.no_grad() or torch.inference_mode(); set the "
           "thread count, default dtype and deterministic mode once, before the first call.";
}

Finding globalStateFinding(const FunctionRecompiles& fr, const std::string& fn,
                           const std::string& place, const std::string& label,
                           const std::string& tabNote) {
    std::vector<std::string> states;
    for (const auto& state : fr.states) {
        const std::string text = globalStateText(state);
        if (std::find(states.begin(), states.end(), text) == states.end())
            states.push_back(text);
    }
    Finding f;
    f.rule = "recompile.global_state";
    f.severity = fr.limit || fr.stateRecompiles > 2 ? Severity::Warning : Severity::Info;
    f.title = fn + place + " recompiled " + plural(fr.stateRecompiles, "time", "times") +
              " because calls ran under another " + joinWords(states);
    f.evidence.push_back(plural(fr.stateRecompiles, "recompile", "recompiles") + " of " + fn +
                         " in " + label + tabNote);
    f.evidence.push_back("torch's guard: GLOBAL_STATE changed: " + joinWords(fr.states));
    f.remedy = globalStateRemedy();
    f.gain = f.severity == Severity::Warning ? "one compile of " + fn + " per state it runs under"
                                             : std::string();
    f.confidence = 0.85;
    return f;
}

// How a frame came to recompile on None: its first call set a module's
// attribute; the model's first call passed an argument both ways (T5's first
// layer computes position_bias, the later layers are handed it); or the calls
// differ. Unplaced: no event says when (an imported log).
enum class NoneChange { FirstCallSet, WithinFirstCall, AcrossCalls, Unplaced };

NoneChange noneChange(const FunctionRecompiles& fr) {
    const NoneGuardFailure& main = fr.nones.front();
    const auto all = [&](auto pred) {
        return std::all_of(fr.noneEvents.begin(), fr.noneEvents.end(), pred);
    };
    if (main.compiledNone && main.name.rfind("self.", 0) == 0 &&
        all([](const Recompile* rc) { return rc->callIndex >= 1; }))
        return NoneChange::FirstCallSet;
    if (all([](const Recompile* rc) { return rc->phase == "compile"; }))
        return NoneChange::WithinFirstCall;
    if (all([](const Recompile* rc) { return rc->phase.empty() && rc->callIndex < 0; }))
        return NoneChange::Unplaced;
    return NoneChange::AcrossCalls;
}

// Checked with torch 2.15 on torchvision's MultiScaleRoIAlign, which sets
// self.scales on its first call: one eager call before torch.compile made 4
// graphs instead of 6, and its forward no longer recompiled.
std::string noneRemedy(const FunctionRecompiles& fr, const std::string& fn, const Graph* graph) {
    const NoneGuardFailure& main = fr.nones.front();
    // A frame that compiled no graph (its forward breaks at once) is placed
    // by the guard's own file.
    const std::string package = installedPackage(graph ? graph->file : main.file);
    switch (noneChange(fr)) {
    case NoneChange::FirstCallSet:
        return (package.empty() ? std::string("Your code") : package + "'s code") + " sets " +
               main.name +
               " on the module's first call, so the graph compiled then (with it None) fails its "
               "guard on the next call and torch compiles " +
               fn +
               " again, once. Call the model once before torch.compile (under torch.no_grad(), on "
               "an input like the real ones), so that " +
               main.name +
               " is set when torch compiles (checked on torchvision's MultiScaleRoIAlign: no "
               "recompile of its forward, 4 graphs instead of 6).";
    case NoneChange::WithinFirstCall:
        return "Within one call of the model, " + fn + " is reached with " + main.name +
               " None and with a value (one module's call and another's, as where a model's "
               "first layer computes a value and hands it to the later ones: T5's "
               "position_bias), so "
               "torch compiles a graph for each: one extra compile, paid on the first call. "
               "Nothing to change.";
    case NoneChange::Unplaced:
        return "torch compiles a graph of " + fn + " for " + main.name +
               " None and one for a value. Where the model itself passes both (one module's "
               "call and another's), that is one extra compile, paid once; where the calls "
               "differ, pass it the same way on every call (a value that changes nothing rather "
               "than None) to keep one graph.";
    case NoneChange::AcrossCalls:
        break;
    }
    return "torch compiles a graph of " + fn + " for " + main.name +
           " None and one for a value. Pass it the same way on every call (a value that changes "
           "nothing, such as an all-ones mask, rather than None) to keep one graph.";
}

Finding noneFinding(const FunctionRecompiles& fr, const std::string& fn, const std::string& place,
                    const std::string& label, const std::string& tabNote, const Graph* graph) {
    const NoneGuardFailure& main = fr.nones.front();
    const NoneChange change = noneChange(fr);
    Finding f;
    f.rule = "recompile.none";
    const int recompiles = static_cast<int>(fr.noneEvents.size());
    f.severity = fr.limit || (change == NoneChange::AcrossCalls && recompiles > 2)
                     ? Severity::Warning
                     : Severity::Info;
    f.title = fn + place + " recompiled " + plural(recompiles, "time", "times") +
              (change == NoneChange::FirstCallSet
                   ? ": its first call set " + main.name + ", which the first graph took as None"
               : change == NoneChange::WithinFirstCall
                   ? ": the model's first call passed " + main.name + " both as None and not"
               : change == NoneChange::Unplaced
                   ? " because " + main.name + " was None at one call and not at another"
                   : " because " + main.name + " was None at some calls and not at others");
    f.evidence.push_back(plural(recompiles, "recompile", "recompiles") + " of " + fn + " in " +
                         label + tabNote);
    for (const auto& n : fr.nones) {
        std::string line = "torch compiled " + fn + " with " + n.name +
                           (n.compiledNone ? " None" : " set") + " and guarded on it (`" + n.name +
                           (n.compiledNone ? " is None`" : " is not None`") + "); a call with it " +
                           (n.compiledNone ? "set" : "None") + " compiled another graph";
        f.evidence.push_back(line + guardSourceText(n.code, n.where));
    }
    if (change == NoneChange::FirstCallSet)
        f.evidence.push_back(
            "the recompile came at call " + std::to_string(fr.noneEvents.front()->callIndex + 1) +
            (fr.noneEvents.front()->phase.empty() ? ""
                                                  : " (" + fr.noneEvents.front()->phase + ")") +
            ", after the first call had set it");
    f.remedy = noneRemedy(fr, fn, graph);
    if (!graph && !main.file.empty()) {
        f.file = main.file;
        f.line = main.line;
        f.code = main.code;
    }
    f.gain = change == NoneChange::WithinFirstCall || change == NoneChange::Unplaced
                 ? std::string()
                 : "one compile of " + fn + " instead of " + std::to_string(recompiles + 1);
    f.confidence = 0.8;
    return f;
}

// A library frame's one recompile on sizes its package made, which
// dynamic=auto made symbolic: its finding, and the line that tells it among
// its package's others.
struct OnceInLibrary {
    Finding finding;
    std::string sizes; // "nms (boxes.py:20): dimension 0 of boxes took 2 sizes: 450 and 600"
};

Finding onceInLibraryFinding(const std::string& package, std::vector<OnceInLibrary>& frames) {
    Finding f = std::move(frames.front().finding); // placed at the first frame's graph
    const long long count = static_cast<long long>(frames.size());
    f.title = package + "'s code made new sizes itself: " + std::to_string(count) +
              " of its functions recompiled once each";
    f.evidence = {plural(count, "recompile", "recompiles") + " in " + f.setting +
                  (f.tab == EvidenceTab::Breaks ? " (Breaks tab)" : " (Compare tab)")};
    for (const auto& frame : frames)
        f.evidence.push_back(frame.sizes);
    f.evidence.push_back("dynamic=auto: after each one's first change torch compiled the "
                         "dimension as a symbol and later sizes reused that graph");
    f.remedy = "These functions are " + package +
               "'s code, and every call passed the same inputs: " + package +
               " made the new sizes itself, where mark_dynamic before the first call cannot "
               "reach them. Each cost one extra compile, paid once, after which dynamic=auto "
               "made the dimension symbolic; torch.compile(..., dynamic=True) would skip these " +
               std::to_string(count) + " recompiles too.";
    f.gain.clear();
    return f;
}

} // namespace

void recompileRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        // A batch-size walk compiles each size on purpose (docs/measuring.md).
        if (run.scaling && !run.scaling->dynamic)
            continue;
        std::vector<FunctionRecompiles> functions;
        auto entry = [&](const std::string& name, const std::string& frame) -> FunctionRecompiles& {
            for (auto& f : functions) {
                if (f.function == name && f.frame == frame)
                    return f;
            }
            FunctionRecompiles added;
            added.function = name;
            added.frame = frame;
            functions.push_back(std::move(added));
            return functions.back();
        };
        // The guard failure that hits the limit also arrives as a recompile
        // without a function: it compiled nothing, the limit event covers it.
        std::set<std::string> limitReasons;
        for (const auto& rc : run.recompiles) {
            if (rc.limitHit)
                limitReasons.insert(rc.reason);
        }
        for (const auto& rc : run.recompiles) {
            if (!rc.limitHit && rc.function.empty() && limitReasons.count(rc.reason))
                continue;
            FunctionRecompiles& fr = entry(recompiledFunction(run, rc), frameId(rc.reason));
            if (fr.libraryFrame.empty())
                fr.libraryFrame = rc.libraryFrame;
            if (rc.limitHit) {
                fr.limit = &rc;
            } else {
                ++fr.recompiles;
                fr.events.push_back(&rc);
            }
            auto guard = parseShapeGuard(rc.reason);
            if (!guard) {
                if (const auto value = parseValueGuard(rc.reason)) {
                    auto v =
                        std::find_if(fr.values.begin(), fr.values.end(),
                                     [&](const ValueChange& c) { return c.name == value->name; });
                    if (v == fr.values.end())
                        v = fr.values.insert(fr.values.end(),
                                             {value->name,
                                              {},
                                              value->hint,
                                              clockReadBehind(run, fr.function, *value),
                                              value->code,
                                              value->where,
                                              value->global});
                    if (std::find(v->values.begin(), v->values.end(), value->value) ==
                        v->values.end())
                        v->values.push_back(value->value);
                } else if (auto key = parseDictKeyGuard(rc.reason)) {
                    const bool seen =
                        std::any_of(fr.keys.begin(), fr.keys.end(), [&](const auto& k) {
                            return k.dict == key->dict && k.key == key->key;
                        });
                    if (!seen)
                        fr.keys.push_back(std::move(*key));
                } else if (const auto length = parseLengthGuard(rc.reason)) {
                    auto l = std::find_if(
                        fr.lengths.begin(), fr.lengths.end(),
                        [&](const LengthChange& c) { return c.container == length->container; });
                    if (l == fr.lengths.end())
                        l = fr.lengths.insert(fr.lengths.end(), {length->container,
                                                                 {},
                                                                 false,
                                                                 length->code,
                                                                 length->where,
                                                                 length->file,
                                                                 length->line});
                    l->lengths.insert(length->length);
                    l->counted = l->counted || !length->emptiness;
                } else if (const std::string freed = freedObject(rc.reason); !freed.empty()) {
                    if (fr.freed.empty())
                        fr.freed = freed;
                } else if (const auto states = parseGlobalStateGuard(rc.reason)) {
                    fr.stateRecompiles += rc.limitHit ? 0 : 1;
                    for (const auto& state : *states) {
                        if (std::find(fr.states.begin(), fr.states.end(), state) == fr.states.end())
                            fr.states.push_back(state);
                    }
                } else if (const auto none = parseNoneGuard(rc.reason)) {
                    if (!rc.limitHit)
                        fr.noneEvents.push_back(&rc);
                    if (std::none_of(fr.nones.begin(), fr.nones.end(),
                                     [&](const auto& n) { return n.name == none->name; }))
                        fr.nones.push_back(*none);
                } else if (const auto type = parseTypeGuard(rc.reason)) {
                    const bool seen =
                        std::any_of(fr.types.begin(), fr.types.end(), [&](const auto& t) {
                            return t.name == type->name && t.type == type->type;
                        });
                    if (!seen)
                        fr.types.push_back(*type);
                    if (fr.typesPackage.empty())
                        fr.typesPackage =
                            installedPackage(rc.reason.substr(0, rc.reason.find('\n')));
                } else if (const auto kind = parseTensorKindGuard(rc.reason)) {
                    auto k = std::find_if(fr.kinds.begin(), fr.kinds.end(), [&](const auto& c) {
                        return c.tensor == kind->tensor && c.property == kind->property;
                    });
                    if (k == fr.kinds.end())
                        k = fr.kinds.insert(fr.kinds.end(), {kind->tensor, kind->property, {}});
                    for (const std::string& value : {kind->expected, kind->actual}) {
                        if (!value.empty() &&
                            std::find(k->values.begin(), k->values.end(), value) == k->values.end())
                            k->values.push_back(value);
                    }
                } else if (auto duck = parseDuckSizeGuard(rc.reason); duck && !rc.limitHit) {
                    fr.ducks.push_back(std::move(*duck));
                } else if (auto derived = parseDerivedSizeGuard(rc.reason);
                           derived && !rc.limitHit) {
                    (derived->convolutionBackend ? fr.convolutions : fr.derived)
                        .push_back(std::move(*derived));
                }
                continue;
            }
            auto it = std::find_if(fr.dims.begin(), fr.dims.end(), [&](const DimChange& d) {
                return d.tensor == guard->tensor && d.dim == guard->dim && d.what == guard->what;
            });
            if (it == fr.dims.end()) {
                fr.dims.push_back({guard->tensor, guard->what, guard->dim, {}});
                it = fr.dims.end() - 1;
            }
            it->sizes.insert(guard->expected);
            if (guard->actual >= 0)
                it->sizes.insert(guard->actual);
        }

        // A frame after a break that recompiled on a dimension only when its
        // caller did is the caller's change, met again past the break.
        for (auto& resumed : functions) {
            const UserFunction after = userFunction(resumed.function);
            if (after.afterLine == 0 || resumed.dims.empty() || resumed.limit)
                continue;
            for (auto& caller : functions) {
                const UserFunction own = userFunction(caller.function);
                if (&caller != &resumed && own.afterLine == 0 && own.name == after.name &&
                    !caller.dims.empty() && sameCalls(caller, resumed)) {
                    caller.resumed.push_back(&resumed);
                    resumed.foldedIntoCaller = true;
                    break;
                }
            }
        }

        foldLibraryFrames(run, functions);
        // Frames of one package's code that each recompiled once on sizes
        // the package made, which dynamic=auto then made symbolic: one
        // finding per package, not one per frame (torchvision's detection
        // post-processing: nms, batched_nms, remove_small_boxes, …).
        std::map<std::string, std::vector<OnceInLibrary>> onceInLibrary;

        for (const auto& fr : functions) {
            if (fr.foldedIntoCaller)
                continue;
            const Graph* graph = graphOfFrame(run, fr);
            // Under as-written, the file's own call that compiled this frame
            // set its dynamic=, not the setting.
            const OwnCompile* ownCall = ownCallOfFrame(input.report, run, graph);
            const std::string& dynamicMode = ownCall ? ownCall->dynamic : run.setting.dynamic;
            const std::string fn =
                fr.function.empty() ? "the compiled function" : functionLabel(fr.function);
            const std::string label = runLabel(run, static_cast<int>(r));
            // An imported log has no comparison table: its recompiles are listed
            // under the Breaks tab.
            const bool imported = run.status == RunStatus::Imported;
            const std::string tabNote = imported ? " (Breaks tab)" : " (Compare tab)";
            auto locate = [&](Finding& f) {
                f.run = static_cast<int>(r);
                f.setting = label;
                f.tab = imported ? EvidenceTab::Breaks : EvidenceTab::Compare;
                if (graph) {
                    f.file = graph->file;
                    f.line = graph->line;
                    f.graph = static_cast<int>(graph - run.graphs.data());
                }
            };
            const std::string where =
                graph ? " (" + shortLocation(graph->file, graph->line) + ")" : "";
            if (!fr.types.empty()) {
                Finding f = typeFinding(fr, fn, graph ? where : guardPlace(fr.types.front().where),
                                        label, tabNote);
                locate(f);
                out.push_back(std::move(f));
                continue;
            }
            // None and global-state guards are told each with its own count,
            // beside each other (an imported loop: a bias given at one call,
            // no_grad at others); other guards take the frame's finding.
            const bool otherGuards = !fr.dims.empty() || !fr.values.empty() || !fr.keys.empty() ||
                                     !fr.lengths.empty() || !fr.kinds.empty() || !fr.freed.empty();
            const bool toldByNone = !fr.nones.empty() && !otherGuards;
            const bool toldByState = !fr.states.empty() && !otherGuards;
            if (toldByState && fr.stateRecompiles > 0) {
                Finding f = globalStateFinding(fr, fn, where, label, tabNote);
                locate(f);
                out.push_back(std::move(f));
            }
            if (toldByNone && !fr.noneEvents.empty()) {
                Finding f = noneFinding(fr, fn, graph ? where : guardPlace(fr.nones.front().where),
                                        label, tabNote, graph);
                locate(f);
                out.push_back(std::move(f));
            }
            const std::vector<Companion> with =
                fr.dims.empty() ? std::vector<Companion>{}
                                : changedWith(run, fr.function, fr.dims.front());
            // The requires_grad_() break in forward that flipped the input, if any.
            const GraphBreak* flips =
                !fr.kinds.empty() && fr.kinds.front().property == "requires_grad"
                    ? requiresGradBreak(run, fr.kinds.front().tensor)
                    : nullptr;
            if (!fr.dims.empty() && fr.recompiles > 0) {
                const DimChange& main = fr.dims.front();
                Finding f;
                f.rule = "recompile.shape";
                const bool onlyAutomatic = dynamicMode == "auto" && fr.recompiles == 1 &&
                                           !fr.limit && fr.following.empty();
                f.severity = onlyAutomatic ? Severity::Info : Severity::Warning;
                f.title = fn + where + " recompiled " + plural(fr.recompiles, "time", "times") +
                          " because " + dimName(main) + " changed";
                if (!fr.following.empty())
                    f.title += ", and so did " + followingText(run, fr.following, false);
                locate(f);
                f.evidence.push_back(plural(fr.recompiles, "recompile", "recompiles") + " of " +
                                     fn + " in " + label + tabNote);
                if (!fr.libraryFrame.empty())
                    f.evidence.push_back("torch compiled library code around " + fn + ": " +
                                         libraryText(fr.libraryFrame) +
                                         "; its inputs are named here by " + fn + "'s parameters");
                // A companion's own guard failures are told by the line below.
                size_t changing = 0;
                for (const auto& d : fr.dims) {
                    const bool companion = std::any_of(with.begin(), with.end(), [&](auto& c) {
                        return c.tensor == d.tensor && c.dim == d.dim && d.what == "size";
                    });
                    if (companion)
                        continue;
                    ++changing;
                    f.evidence.push_back(
                        dimName(d) + " took " +
                        plural(static_cast<long long>(d.sizes.size()), "size", "sizes") + ": " +
                        sizesText(d.sizes));
                }
                // Under dynamic=false each size compiled, until the limit.
                const SizesSeen seen = sizesSeen(run, main, dynamicMode == "false" && !fr.limit);
                // The other dimensions that changed on their own, with the
                // sizes the calls passed: marking the main one alone leaves
                // their recompiles.
                std::vector<DimChange> others;
                for (const auto& d : fr.dims) {
                    const bool companion = std::any_of(with.begin(), with.end(), [&](auto& c) {
                        return c.tensor == d.tensor && c.dim == d.dim;
                    });
                    if (&d == &main || companion || d.what != "size" ||
                        !markable(run, fr.function, d))
                        continue;
                    others.push_back(d);
                    others.back().sizes.merge(sizesCalled(run, d));
                }
                if (seen.uncompiled > 0)
                    f.evidence.push_back(
                        "the calls passed " +
                        plural(static_cast<long long>(seen.dim.sizes.size()), "size", "sizes") +
                        " of it (the measured inputs and the input sweep): " +
                        sizesText(seen.dim.sizes) + "; " +
                        plural(static_cast<long long>(seen.uncompiled), "size", "sizes") +
                        " ran a graph compiled before" +
                        (fr.limit ? " or, past the recompile limit, eagerly" : ""));
                for (const auto& c : with)
                    f.evidence.push_back(dimName({c.tensor, "size", c.dim, {}}) +
                                         " took the same size as " + dimName(main) +
                                         " at every compile: they change together");
                if (dynamicMode == "false")
                    f.evidence.push_back("compiled with dynamic=False: every new size compiles "
                                         "another graph");
                else if (onlyAutomatic)
                    f.evidence.push_back("dynamic=auto: after the first change torch compiled the "
                                         "dimension as a symbol and later sizes reused that graph");
                const auto derived = derivedFrom(fr.derived, main);
                if (!derived.empty())
                    f.evidence.push_back(derivedText(derived));
                if (!fr.convolutions.empty())
                    f.evidence.push_back(convolutionText(fr.convolutions));
                if (const PhaseSpan* sweep = run.phase("sweep");
                    sweep && sweep->endNs > sweep->beginNs)
                    f.evidence.push_back(
                        "the input sweep took " +
                        formatDuration(static_cast<double>(sweep->endNs - sweep->beginNs)) +
                        " (Warmup tab)");
                for (const FunctionRecompiles* after : fr.resumed)
                    f.evidence.push_back(
                        functionLabel(after->function) + " recompiled at the same " +
                        (after->recompiles == 1 ? "call" : "calls") + ": " +
                        dimName(after->dims.front()) + " took " +
                        plural(static_cast<long long>(after->dims.front().sizes.size()), "size",
                               "sizes") +
                        ": " + sizesText(after->dims.front().sizes));
                if (!fr.following.empty())
                    f.evidence.push_back(
                        "the same calls of the input sweep recompiled " +
                        followingText(run, fr.following, true) +
                        ", frames torch compiled on their own after the breaks in that code: "
                        "their guards follow the new sizes (Compare tab)");
                for (auto& line : dynamicSiblings(runs, r))
                    f.evidence.push_back(std::move(line));
                const std::string builder = packageBuildingSizes(run, graph, fr.libraryFrame);
                const bool canMark = builder.empty() && markable(run, fr.function, main);
                f.remedy =
                    canMark ? remedyFor(seen.dim, with, seen.complete, others)
                    : !builder.empty()
                        ? libraryFrameRemedy(fn, builder, main, onlyAutomatic, ownCall,
                                             decodesWithGenerate(run), submoduleForward(graph, fr))
                        : resumedFrameRemedy(fr.function, main);
                if (onlyAutomatic && canMark)
                    f.remedy = "Mark the dimension dynamic up front to skip the first, specialised "
                               "compile: " +
                               markCalls(main, with, false, others) +
                               (with.empty() ? std::string() : std::string(" (") + kMarkAll + ")") +
                               ".";
                if (isKvCache(main.tensor))
                    f.remedy = kvCacheRemedy(main);
                if (!fr.resumed.empty()) {
                    std::vector<std::string> lines;
                    for (const FunctionRecompiles* after : fr.resumed)
                        lines.push_back(std::to_string(userFunction(after->function).afterLine));
                    f.remedy += " mark_dynamic reaches " + fn +
                                "'s own inputs only: the frame after the break at line " +
                                joinWords(lines) +
                                " recompiles on values torch carries across the break. "
                                "dynamic=True covers every frame; removing the break leaves one.";
                }
                if (!fr.following.empty())
                    f.remedy += " mark_dynamic reaches " + fn +
                                "'s own inputs only: the library's frames recompile on the sizes "
                                "they derive. dynamic=True covers every frame, padding to a few "
                                "sizes bounds them, and fewer breaks in that code leave fewer "
                                "frames (graph_break.library).";
                f.gain = changing == 1 && !onlyAutomatic && canMark && fr.resumed.empty() &&
                                 fr.following.empty()
                             ? "one compile of " + fn + " instead of " +
                                   std::to_string(fr.recompiles + 1) +
                                   " with mark_dynamic or dynamic=True"
                             : std::string();
                const Run* dynamic = dynamicMode != "true" ? dynamicTrueSibling(runs, r) : nullptr;
                const RunSummary mine = summarizeRun(run);
                const RunSummary theirs = dynamic ? summarizeRun(*dynamic) : RunSummary{};
                if (dynamic)
                    f.gain = "dynamic=True, " + measuredDynamicGain(run, *dynamic, mine, theirs);
                // Branches on values computed from the symbolic size: marking
                // it dynamic keeps them, padding bounds them.
                const bool branches = !derived.empty() && !isKvCache(main.tensor) &&
                                      fr.resumed.empty() && fr.following.empty();
                if (branches) {
                    f.remedy = derivedSizeRemedy(
                        seen, with,
                        dynamic && theirs.recompiles > 0
                            ? " (" + dynamic->setting.label() +
                                  ", compiled with dynamic=True, recompiled " +
                                  plural(theirs.recompiles, "time", "times") + " too)"
                            : std::string());
                    f.gain = paddedGain(seen);
                }
                // A dimension that took size 1 (or 0): torch specialises it
                // even when dynamic, so mark_dynamic and dynamic=True leave it
                // a graph of its own; an unbacked size has none.
                const DimChange* one = nullptr;
                SpecialSizes special;
                if (canMark && !branches && !isKvCache(main.tensor) && fr.resumed.empty() &&
                    fr.following.empty()) {
                    for (const auto& d : fr.dims) {
                        std::set<int64_t> sizes = &d == &main ? seen.dim.sizes : d.sizes;
                        if (&d != &main)
                            sizes.merge(sizesCalled(run, d));
                        if (d.what == "size" && (sizes.count(0) > 0 || sizes.count(1) > 0)) {
                            one = &d;
                            special = zeroOneSizes(sizes);
                            break;
                        }
                    }
                }
                const bool sizeOne = one != nullptr;
                if (sizeOne) {
                    const auto together = one == &main ? with : changedWith(run, fr.function, *one);
                    f.evidence.push_back(
                        zeroOneEvidence(*one, special, dynamicMode, dynamic, theirs));
                    f.remedy = zeroOneRemedy(*one, special, together, changing > 1);
                    f.gain = "one compile of " + fn + " instead of " +
                             std::to_string(fr.recompiles + 1) + " with " +
                             (changing > 1 ? "dynamic=True and " : "") + "mark_unbacked";
                }
                // Symbolic sizes can make slower kernels; padding keeps the
                // specialised ones. Two probes can differ by more than their
                // intervals on a shared machine (docs/measuring.md), so the
                // remedy names the trade and asks for a second measurement.
                const auto speedup =
                    dynamic ? dynamicSpeedup(run, *dynamic, mine, theirs) : std::nullopt;
                if (speedup && speedup->value < 1 && canMark && !branches) {
                    const std::string measured =
                        dynamic->setting.label() + "'s median " +
                        formatDuration(theirs.latency->median) + " against " +
                        formatDuration(mine.latency->median) + ", " +
                        formatRatio(1 / speedup->value) + " slower" + roundsAgreed(*speedup);
                    f.evidence.push_back(
                        "the dynamic graph ran slower per call on the same inputs: " + measured +
                        (onlyAutomatic ? "; under dynamic=auto every size after the first runs "
                                         "such a graph too"
                                       : ""));
                    if (!isKvCache(main.tensor)) // a StaticCache needs neither way
                        f.remedy +=
                            " This report measured dynamic kernels slower, though (" + measured +
                            (speedup->rounds > 1
                                 ? ""
                                 : "; two processes can differ by more than their intervals on "
                                   "a shared machine, so measure the pair again (--repeat 3) "
                                   "before relying on it") +
                            "): where that holds and most calls come in a few sizes, " +
                            (sizeOne ? std::string("an unbacked size runs such kernels too, and "
                                                   "padding to a few fixed sizes with "
                                                   "dynamic=False keeps specialised ones, one "
                                                   "compile per size.")
                             : onlyAutomatic ? padText(seen.dim, with, seen.complete) +
                                                   " and compile with dynamic=False instead: "
                                                   "specialised kernels, one compile per size."
                                             : std::string("(3) keeps the faster kernels."));
                }
                f.confidence = 0.9;
                if (onlyAutomatic && !builder.empty() && changing == 1 && !isKvCache(main.tensor) &&
                    fr.resumed.empty() && !dynamic) {
                    onceInLibrary[builder].push_back(
                        {std::move(f),
                         fn + where + ": " + dimName(main) + " took " +
                             plural(static_cast<long long>(main.sizes.size()), "size", "sizes") +
                             ": " + sizesText(main.sizes)});
                } else {
                    out.push_back(std::move(f));
                }
            }
            // Every recompile on a guard computed from a size that was symbolic
            // from the start (dynamic=True): no size guard names the dimension.
            // torch's convolution thresholds count here too; duck sizing has
            // its own finding below.
            const int computed = static_cast<int>(fr.derived.size() + fr.convolutions.size());
            if (fr.dims.empty() && !fr.derived.empty() &&
                computed + static_cast<int>(fr.ducks.size()) == fr.recompiles) {
                const DerivedSizeGuardFailure& first = fr.derived.front();
                const DimChange dim{first.tensor, "size", first.dim, {}};
                const auto derived = derivedFrom(fr.derived, dim);
                const SizesSeen seen = sizesSeen(run, dim, false);
                Finding f;
                f.rule = "recompile.shape";
                f.severity = Severity::Warning;
                f.title = fn + where + " recompiled " + plural(computed, "time", "times") +
                          " on values computed from " + dimName(dim);
                locate(f);
                f.evidence.push_back(plural(computed, "recompile", "recompiles") + " of " + fn +
                                     " in " + label + tabNote);
                if (!seen.dim.sizes.empty())
                    f.evidence.push_back(
                        "the calls passed " +
                        plural(static_cast<long long>(seen.dim.sizes.size()), "size", "sizes") +
                        " of it (the measured inputs and the input sweep): " +
                        sizesText(seen.dim.sizes));
                if (dynamicMode == "true")
                    f.evidence.push_back("compiled with dynamic=True: the dimension was "
                                         "symbolic from the first compile");
                f.evidence.push_back(derivedText(derived));
                if (!fr.convolutions.empty())
                    f.evidence.push_back(convolutionText(fr.convolutions));
                f.remedy = derivedSizeRemedy(seen, {}, "");
                f.gain = paddedGain(seen);
                // Padding that compiles no fewer graphs than the symbolic
                // size did is no remedy (Gemma3's sliding window, 16 <=
                // length: 2 graphs over 4 lengths, padding 3).
                const size_t graphs = static_cast<size_t>(fr.recompiles) + 1;
                if (seen.complete && paddedSizes(seen.dim.sizes).size() >= graphs) {
                    f.severity = Severity::Info;
                    f.remedy =
                        "With the dimension symbolic, " + fn + " compiled " +
                        plural(static_cast<long long>(graphs), "graph", "graphs") + " for " +
                        plural(static_cast<long long>(seen.dim.sizes.size()), "size", "sizes") +
                        ", a graph per branch: no more than padding to fixed sizes would "
                        "compile (" +
                        sizesText(paddedSizes(seen.dim.sizes)) +
                        "), so nothing to change for the compiles. Where the branching "
                        "code is yours, computing it without the size takes these "
                        "recompiles away.";
                    f.gain.clear();
                }
                f.confidence = 0.8;
                out.push_back(std::move(f));
            }
            if (fr.dims.empty() && fr.derived.empty() && !fr.convolutions.empty() &&
                computed + static_cast<int>(fr.ducks.size()) == fr.recompiles) {
                Finding f = convolutionFinding(fr, fn + where, label + tabNote);
                locate(f);
                out.push_back(std::move(f));
            }
            if (fr.dims.empty() && !fr.ducks.empty()) {
                const DuckSizeGuardFailure& duck = fr.ducks.front();
                const bool canMark =
                    markable(run, fr.function, {duck.tensor, "size", duck.dim, {}}) &&
                    markable(run, fr.function, {duck.otherTensor, "size", duck.otherDim, {}});
                Finding f = duckSizeFinding(fr, fn + where, label + tabNote, dynamicMode, canMark);
                locate(f);
                out.push_back(std::move(f));
            }
            if (fr.dims.empty() && !fr.values.empty() && fr.recompiles > 0) {
                const ValueChange& main = fr.values.front();
                // An argument torch made a symbol on its first change: no more recompiles.
                const bool symbolAfter = fr.values.size() == 1 && fr.recompiles == 1 && !fr.limit &&
                                         !isText(main) && !isModeFlag(main) && main.clock.empty() &&
                                         compiledAsSymbol(run, fr.function, main.name);
                const bool perModule = !symbolAfter && perModuleAttribute(run, fr, main);
                const bool eitherReading =
                    !symbolAfter && !perModule && unplacedModuleAttribute(fr, main);
                // Every recompile inside the model's first call: the value
                // changed between two calls of the frame within it.
                const bool firstCallOnly =
                    !symbolAfter && !perModule && !eitherReading && !fr.limit &&
                    main.clock.empty() && !isText(main) && !isModeFlag(main) &&
                    std::all_of(fr.events.begin(), fr.events.end(),
                                [](const Recompile* rc) { return rc->phase == "compile"; });
                const bool cacheState = firstCallOnly && isKvCacheObject(main.name);
                const bool installing = hookInstallation(fr);
                Finding f;
                f.rule = "recompile.value";
                // A few strings (task names), each compiled once: expected.
                f.severity = installing ? Severity::Info
                             : (isText(main) && main.values.size() <= kFewTextValues) ||
                                     (isModeFlag(main) && fr.recompiles <= 2) || symbolAfter ||
                                     (perModule && fr.recompiles == 1) || eitherReading ||
                                     firstCallOnly
                                 ? (fr.limit ? Severity::Warning : Severity::Info)
                                 : Severity::Warning;
                f.title =
                    fn + where + " recompiled " + plural(fr.recompiles, "time", "times") +
                    (main.clock.empty()
                         ? (isModeFlag(main)
                                ? " because the model switched between train() and eval()"
                            : isText(main) ? ", once per value of " + main.name
                            : perModule    ? ": each module of its class holds its own " + main.name
                            : eitherReading ? ": " + main.name + " differed between its compiles"
                            : firstCallOnly ? " within the model's first call, because " +
                                                  main.name + " changed inside it"
                                            : " because " + main.name + " changed")
                         : ": torch compiled " + main.clock +
                               "'s reading in as a constant, and every call reads a new "
                               "time");
                locate(f);
                placeAtGuard(f, main);
                f.evidence.push_back(plural(fr.recompiles, "recompile", "recompiles") + " of " +
                                     fn + " in " + label + tabNote);
                if (perModule)
                    f.evidence.push_back(
                        "its graphs were compiled for " + modulesText(modulesOfFrame(run, fr)) +
                        ", one module each: the guard `" + main.name +
                        " == " + main.values.front() +
                        "` of the first failed for the next module's value" + sourceText(main));
                for (const auto& v : fr.values) {
                    if (perModule && &v == &main)
                        continue;
                    // A string's guard names the value compiled for, never the
                    // one that failed it: "took 1 value" would undercount.
                    f.evidence.push_back(
                        symbolAfter
                            ? "the first graph took " + v.name + " as the constant " +
                                  valuesText(v.values) +
                                  "; the graph compiled when it changed takes it as a symbol "
                                  "(an input of its own), which later values reuse" +
                                  sourceText(v)
                        : isText(v)
                            ? "the graphs compiled for " + v.name + " " + valuesText(v.values) +
                                  " failed their guard `" + v.name +
                                  " == …` on a call with another value, which compiled its own" +
                                  sourceText(v)
                        // A guard names the value compiled for: with one, no
                        // other value was seen.
                        : v.values.size() == 1
                            ? v.name + " was " + v.values.front() +
                                  " when torch compiled it, and a call where it was not "
                                  "failed the guard `" +
                                  v.name + " == " + v.values.front() +
                                  "` and compiled another graph" + sourceText(v)
                            : v.name + " took " +
                                  plural(static_cast<long long>(v.values.size()), "value",
                                         "values") +
                                  ": " + valuesText(v.values) +
                                  "; each new one failed the guard `" + v.name +
                                  " == …` and compiled another graph" + sourceText(v));
                }
                if (firstCallOnly)
                    f.evidence.push_back(
                        "every recompile came within the model's first call (its compile "
                        "phase): " +
                        fn + " ran more than once inside that call, and " + main.name +
                        " changed between those runs; the calls after it reused the graphs");
                f.remedy = installing    ? kHookInstallationRemedy
                           : symbolAfter ? symbolAfterRemedy(main)
                           : perModule   ? perModuleRemedy(main, recompileLimit(fr))
                           : cacheState  ? kvCacheStateRemedy(main)
                           : firstCallOnly
                               ? "One extra graph per value, paid once, on the first call; the "
                                 "calls after it run the graphs compiled then. Nothing to change "
                                 "unless the first call's time matters; then keep " +
                                     main.name + " the same for every run of " + fn +
                                     " within a call, or out of the compiled code."
                           : eitherReading
                               ? "The log does not say when each compile happened, or for which "
                                 "module, so two readings fit. If each module of this class "
                                 "holds its own " +
                                     main.name + " (BigBird keeps its layer's index so): " +
                                     perModuleRemedy(main, recompileLimit(fr)) +
                                     " If one module's value changes between calls: " +
                                     valueRemedy(main, fr.function)
                               : valueRemedy(main, fr.function);
                f.gain = !isText(main) && !isModeFlag(main) && !eitherReading &&
                                 (!firstCallOnly || cacheState) &&
                                 (fr.values.size() == 1 || !main.clock.empty())
                             ? "one compile of " + fn + " instead of " +
                                   std::to_string(fr.recompiles + 1) +
                                   (fr.limit ? ", and no fall back to eager at the limit" : "")
                             : std::string();
                // The flag's symbolic recompile makes two compiles, whatever
                // the number of modules: a gain past two modules.
                if (perModule)
                    f.gain = fr.recompiles > 1 || fr.limit
                                 ? "2 compiles of " + fn + " for all the modules of its class " +
                                       "instead of " + std::to_string(fr.recompiles + 1) +
                                       (fr.limit ? ", and no fall back to eager at the limit" : "")
                                 : std::string();
                f.confidence = 0.85;
                // The clock break this frame resumes after (its finding ranks
                // first) gains the recompiles its reading causes.
                if (const int afterLine = userFunction(fr.function).afterLine;
                    !main.clock.empty() && afterLine > 0) {
                    for (auto& other : out) {
                        if (other.run == f.run && other.rule == "graph_break.clock" &&
                            other.line == afterLine && other.file == f.file && !other.gain.empty())
                            other.gain +=
                                ", and with it the " +
                                plural(fr.recompiles, "recompile", "recompiles") + " of " + fn +
                                " on its reading" +
                                (fr.limit ? " and the fall back to eager at the limit" : "") +
                                " (recompile.value)";
                    }
                }
                out.push_back(std::move(f));
            }
            if (fr.dims.empty() && fr.values.empty() && !fr.keys.empty() && fr.recompiles > 0) {
                const DictKeyGuardFailure& main = fr.keys.front();
                Finding f;
                f.rule = "recompile.dict_key";
                f.severity = Severity::Warning;
                f.title =
                    fn + where + " recompiled " + plural(fr.recompiles, "time", "times") +
                    " because a call " +
                    (main.added ? "put " + main.key + " in " : "took " + main.key + " out of ") +
                    main.dict;
                locate(f);
                f.evidence.push_back(plural(fr.recompiles, "recompile", "recompiles") + " of " +
                                     fn + " in " + label + tabNote);
                for (const auto& k : fr.keys) {
                    std::string line = "torch compiled " + fn + " with " + k.key +
                                       (k.added ? " absent from " : " in ") + k.dict +
                                       " and guarded on it; a later call found it " +
                                       (k.added ? "there" : "gone");
                    f.evidence.push_back(line + guardSourceText(k.code, k.where));
                }
                const double laterCompile = analyzeWarmup(run).laterSeconds();
                if (laterCompile > 0)
                    f.evidence.push_back("the warmup calls after the first compiled for " +
                                         formatDuration(laterCompile * 1e9) + " more (Warmup tab)");
                f.remedy =
                    main.added
                        ? "The first call filled " + main.dict + ", a cache torch saw without " +
                              main.key +
                              ", so the next call compiles again. Call the model once before "
                              "torch.compile (under torch.no_grad(), on an input of the same "
                              "device), so the cache holds " +
                              main.key +
                              " when torch compiles; or fill it where the module is built. "
                              "(Checked on timm's LeViT, levit_128s: one eager call first made "
                              "1 compile of forward instead of 2.)"
                        : "A call took " + main.key + " out of " + main.dict +
                              ", which torch compiled with it in. Keep the dict's keys fixed "
                              "across calls: fill it once, outside the compiled call.";
                f.gain =
                    "one compile of " + fn + " instead of " + std::to_string(fr.recompiles + 1);
                if (laterCompile > 0)
                    f.gain += ": about " + formatDuration(laterCompile * 1e9) + " less warmup";
                f.confidence = 0.85;
                out.push_back(std::move(f));
            }
            const LengthChange* growing =
                fr.lengths.empty() || !fr.lengths.front().counted ? nullptr : &fr.lengths.front();
            if (fr.dims.empty() && fr.values.empty() && fr.keys.empty() && growing &&
                fr.recompiles > 0) {
                const std::set<int64_t>& lengths = growing->lengths;
                // One length known (the guard names the compiled one only) says nothing of growth.
                const bool grew = lengths.size() > 1 && *lengths.rbegin() - *lengths.begin() + 1 ==
                                                            static_cast<int64_t>(lengths.size());
                const bool arguments = unpackedArguments(*growing);
                const std::string package =
                    arguments ? packageBuildingSizes(run, graph, fr.libraryFrame) : std::string();
                Finding f;
                f.rule = "recompile.growing_list";
                // A library's caller changing its arguments costs a compile per set, no more.
                f.severity = !package.empty() && !fr.limit ? Severity::Info : Severity::Warning;
                f.title =
                    fn + where + " recompiled " + plural(fr.recompiles, "time", "times") +
                    " because " +
                    (arguments ? "it was called with another number of " + argumentKind(*growing) +
                                     " arguments (" + growing->container + ")"
                               : growing->container +
                                     (grew ? " grew on every call" : " changed its length"));
                locate(f);
                if (!growing->file.empty()) { // the line that changes it, not torch's frame
                    f.file = growing->file;
                    f.line = growing->line;
                }
                f.evidence.push_back(plural(fr.recompiles, "recompile", "recompiles") + " of " +
                                     fn + " in " + label + tabNote);
                f.evidence.push_back("torch guarded on the length of " + growing->container +
                                     " and compiled for " + lengthsText(lengths) + " items: " +
                                     (grew ? "each later call" : std::string("a call")) +
                                     " found another length and failed the guard `len(" +
                                     growing->container + ") == …`");
                if (!growing->code.empty())
                    f.evidence.push_back(
                        "the guard comes from `" + growing->code + "`" +
                        (growing->where.empty() ? "" : " (" + growing->where + ")"));
                const size_t in = growing->where.rfind(" in ");
                if (const ModuleHook* hook =
                        in == std::string::npos
                            ? nullptr
                            : hookAt(run.model, growing->file, growing->where.substr(in + 4)))
                    f.evidence.push_back(hookText(*hook) +
                                         ": torch.compile traces a module's hooks with its "
                                         "forward, and the list with them");
                f.remedy =
                    arguments ? argumentCountRemedy(*growing, fn, package) : lengthRemedy(*growing);
                f.gain = package.empty() ? "one compile of " + fn + " instead of " +
                                               std::to_string(fr.recompiles + 1)
                                         : std::string();
                f.confidence = 0.85;
                out.push_back(std::move(f));
            }
            if (fr.dims.empty() && fr.values.empty() && fr.keys.empty() && !growing &&
                !fr.kinds.empty() && fr.recompiles > 0) {
                const TensorKindChange& main = fr.kinds.front();
                // A package's function its own code calls with boxes of 2 and of 3
                // dimensions (torchvision's clip_boxes_to_image in Faster R-CNN): a
                // graph per rank, paid on the first call; nothing of the user's.
                const std::string package = graph ? installedPackage(graph->file) : "";
                const bool packageRanks =
                    main.property == "rank" && !package.empty() && !fr.limit &&
                    std::all_of(fr.events.begin(), fr.events.end(),
                                [](const Recompile* rc) { return rc->phase == "compile"; });
                Finding f;
                f.rule = "recompile.tensor_kind";
                f.severity = packageRanks ? Severity::Info : Severity::Warning;
                f.title = fn + where + " recompiled " + plural(fr.recompiles, "time", "times") +
                          " because " + main.tensor + " came with " +
                          (main.property == "dispatch keys" ? "other " : "another ") +
                          main.property;
                locate(f);
                f.evidence.push_back(plural(fr.recompiles, "recompile", "recompiles") + " of " +
                                     fn + " in " + label + tabNote);
                for (const auto& k : fr.kinds)
                    f.evidence.push_back(
                        "torch compiled " + fn + " for " + k.tensor + " with " + k.property + " " +
                        inOrder(k.values) + ": each " +
                        (k.property == "dispatch keys" ? "set of dispatch keys" : k.property) +
                        " an input comes with compiles its own graph");
                if (flips && flips->location()) {
                    f.file = flips->location()->file; // the line that flips it
                    f.line = flips->location()->line;
                    f.code = flips->location()->code;
                    f.evidence.push_back(
                        fn + " calls requires_grad_() on it at " +
                        shortLocation(flips->location()->file, flips->location()->line) +
                        " (Breaks tab): that sets it on the caller's tensor, so the next call "
                        "passes it with requires_grad=True");
                }
                f.remedy = tensorKindRemedy(main, flips != nullptr);
                if (packageRanks)
                    f.remedy = fn + " is " + package +
                               "'s code, which the model's first call "
                               "reached with " +
                               main.tensor + " of " + joinWords(main.values) +
                               " dimensions: a graph for each, paid on that call, and nothing "
                               "in your code sets it (a tensor's number of dimensions is never "
                               "symbolic, so dynamic=True does not change it).";
                f.gain = packageRanks ? std::string()
                                      : "one compile of " + fn + " instead of " +
                                            std::to_string(fr.recompiles + 1);
                f.confidence = 0.85;
                out.push_back(std::move(f));
            }
            if (!fr.freed.empty() && fr.dims.empty() && fr.values.empty() && fr.keys.empty() &&
                fr.lengths.empty() && fr.kinds.empty() && fr.recompiles > 0) {
                Finding f;
                f.rule = "recompile.freed_object";
                f.severity = Severity::Warning;
                f.title = fn + where + " recompiled " + plural(fr.recompiles, "time", "times") +
                          " because each call freed an object its guards held (" + fr.freed + ")";
                locate(f);
                f.evidence.push_back(plural(fr.recompiles, "recompile", "recompiles") + " of " +
                                     fn + " in " + label + tabNote);
                f.evidence.push_back("torch: \"Cache line invalidated because " + fr.freed +
                                     " got deallocated\": the graph was compiled for that object, "
                                     "and went with it");
                if (const auto crossed = breaksResumedAfter(run, fr.function); !crossed.empty()) {
                    const SourceFrame* at = crossed.front()->location();
                    f.evidence.push_back(
                        "the break it resumes after: " + shortLocation(at->file, at->line) + " `" +
                        at->code + "` (Breaks tab)");
                }
                f.remedy = freedObjectRemedy(fr);
                f.gain =
                    "one compile of " + fn + " instead of " + std::to_string(fr.recompiles + 1);
                f.confidence = 0.85;
                out.push_back(std::move(f));
            }
            if (fr.limit) {
                Finding f;
                f.rule = "recompile.limit";
                f.severity = Severity::Warning;
                const std::string limit = limitText(fr.limit->limit);
                f.title =
                    fn + where + " hit the recompile limit" + limit + ": torch now runs it eagerly";
                locate(f);
                if (!fr.libraryFrame.empty())
                    f.evidence.push_back("torch compiled library code around " + fn + ": " +
                                         libraryText(fr.libraryFrame));
                f.evidence.push_back("recompile limit" + limit + " reached in " + label +
                                     " after " + plural(fr.recompiles, "recompile", "recompiles") +
                                     tabNote);
                if (!fr.limit->reason.empty())
                    f.evidence.push_back("last failed guard: " + guardLine(fr.limit->reason));
                std::string cause;
                // Past the limit per module: a limit above their number holds.
                bool limitBounded = false;
                const std::string builder = packageBuildingSizes(run, graph, fr.libraryFrame);
                if (!fr.dims.empty() && !builder.empty()) {
                    cause =
                        libraryFrameRemedy(fn, builder, fr.dims.front(), false, ownCall,
                                           decodesWithGenerate(run), submoduleForward(graph, fr));
                } else if (!fr.dims.empty() && markable(run, fr.function, fr.dims.front())) {
                    // Past the limit, sizes compile no graph: the guards miss them.
                    const SizesSeen seen = sizesSeen(run, fr.dims.front(), false);
                    cause = remedyFor(seen.dim, with, seen.complete);
                } else if (!fr.dims.empty())
                    cause = resumedFrameRemedy(fr.function, fr.dims.front());
                else if (!fr.values.empty() && perModuleAttribute(run, fr, fr.values.front())) {
                    cause = perModuleRemedy(fr.values.front(), recompileLimit(fr)) +
                            " Raising torch._dynamo.config.recompile_limit above the number of "
                            "such modules also keeps them compiled, at one compile each.";
                    limitBounded = true;
                } else if (!fr.values.empty())
                    cause = valueRemedy(fr.values.front(), fr.function);
                else if (growing && fr.keys.empty())
                    cause = lengthRemedy(*growing);
                else if (!fr.kinds.empty() && fr.keys.empty() && !growing)
                    cause = tensorKindRemedy(fr.kinds.front(), flips != nullptr);
                else if (!fr.freed.empty())
                    cause = freedObjectRemedy(fr);
                // Both kinds: the guard the limit's call failed.
                else if (toldByNone && (!toldByState || parseNoneGuard(fr.limit->reason)))
                    cause = noneRemedy(fr, fn, graph);
                else if (toldByState)
                    cause = globalStateRemedy();
                if (!limitBounded)
                    cause = (cause.empty() ? cause : cause + " ") +
                            "Raising torch._dynamo.config.recompile_limit only postpones the "
                            "fall back to eager.";
                f.remedy = cause;
                f.confidence = 0.95;
                out.push_back(std::move(f));
            }
        }
        for (auto& [package, frames] : onceInLibrary) {
            if (frames.size() == 1)
                out.push_back(std::move(frames.front().finding));
            else
                out.push_back(onceInLibraryFinding(package, frames));
        }
    }
}

} // namespace cs::core::advice
