// Graph breaks wholly in library code (every frame in site-packages:
// torchvision's detection postprocessing, NMS): one finding per package over
// all settings, since the user cannot edit those lines; the lever is keeping
// that code out of the graph.
#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/break_cause.h"
#include "core/analysis/function_name.h"
#include "core/analysis/python_names.h"
#include "core/analysis/rank_divergence.h"

namespace cs::core::advice {

namespace {

struct LibraryBreaks {
    std::vector<std::pair<int, int>> hits; // (run, index into run.graphBreaks)
    std::vector<std::string> sites;        // "ssd.py:436 in postprocess_detections: ..." once each
    bool dynamicOutput = false;
    bool scalar = false;
    std::string loggingMethod; // "logging.Logger.warning_once": a library's log message breaks
};

// The function of frames[i] as a reader knows it. Python 3.11 runs a
// comprehension as a frame of its own, named "<listcomp>": it is told by the
// function it sits in, the frame that called it from the same file
// (transformers' BigBird: "a list comprehension in _bigbird_block_rand_mask").
std::string frameFunction(const std::vector<SourceFrame>& frames, size_t i) {
    static const std::pair<const char*, const char*> comprehensions[] = {
        {"<listcomp>", "a list comprehension"},
        {"<dictcomp>", "a dict comprehension"},
        {"<setcomp>", "a set comprehension"},
        {"<genexpr>", "a generator expression"}};
    const SourceFrame& frame = frames[i];
    for (const auto& [name, kind] : comprehensions)
        if (frame.function == name)
            return i > 0 && frames[i - 1].file == frame.file
                       ? std::string(kind) + " in " + functionLabel(frames[i - 1].function)
                       : std::string(kind);
    return functionLabel(frame.function);
}

// The function a break happens in: its innermost frame's.
std::string breakFunction(const GraphBreak& gb) {
    return frameFunction(gb.frames, gb.frames.size() - 1);
}

// What a break is, in one phrase: our diagnosis, else torch's break type.
std::string breakText(const GraphBreak& gb, const std::optional<BreakDiagnosis>& diagnosis) {
    std::string text =
        diagnosis && diagnosis->cause != BreakCause::Other ? diagnosis->title : gb.cause();
    if (const auto skipped = gb.skippedFrame()) {
        // The skipped frame by its stack's name for it, where the stack has it.
        std::string name = functionLabel(skipped->function);
        for (size_t i = gb.frames.size(); i-- > 0;)
            if (gb.frames[i].function == skipped->function && gb.frames[i].file == skipped->file) {
                name = frameFunction(gb.frames, i);
                break;
            }
        text += "; in a loop, so torch skips " + name + " and runs it eagerly";
    }
    return text;
}

// Whether the compiled frame itself is installed code: the model's forward
// is the library's (a Hugging Face model, torchvision:NAME).
bool compiledInLibrary(const GraphBreak& gb) {
    return !gb.frames.empty() && !installedPackage(gb.frames.front().file).empty();
}

// transformers installs its output-capturing hooks on a model's first call
// (utils/output_capturing.py: maybe_install_capturing_hooks takes a lock, and
// each hook's handle bumps torch's RemovableHandle.next_id): torch compiling
// that call breaks there, and the forward it compiled keeps the breaks. The
// installing function, "" for another break.
std::string firstCallInstall(const GraphBreak& gb) {
    for (const auto& frame : gb.frames)
        if (containsText(frame.file, kOutputCapturingFile) &&
            containsText(frame.function, "install"))
            return frame.function;
    return {};
}

// Checked on a transformers SegFormer (torch 2.15, transformers 5.25, Inductor's
// caches off, twice each way): the breaks went, the compile and the calls'
// time did not change beyond noise, so no time is promised.
std::string firstCallInstallText(const std::string& function) {
    return "transformers installs its output-capturing hooks on the model's first call (" +
           functionLabel(function) +
           "), and torch compiled that call, breaking on the installation (its lock, the hooks' "
           "handles). To be rid of them, call the model once before torch.compile, under "
           "torch.no_grad() on inputs like the real ones: the hooks are then in place, and the "
           "compiled forward never meets the installation. A SegFormer went from 7 breaks and 2 "
           "graphs to none and 1, with its first compiled call (about 21 s) and its time per "
           "call (1.1-1.3 ms) the same within noise.";
}

// `self.fn(` in the call's code: a method of the compiled module, which the
// user can replace on the model object even when the module is a library's.
bool callsOwnMethod(const SourceFrame& caller, const std::string& fn) {
    return caller.code.find("self." + fn + "(") != std::string::npos;
}

// The frame that calls into the library on the way to a break: the user's
// innermost line where the stack has one (`model.generate(...)` in the model
// file), else the compiled frame.
size_t callerIndex(const GraphBreak& gb) {
    return gb.userFrame >= 0 ? static_cast<size_t>(gb.userFrame) : 0;
}

// The library function that caller calls on the way to a break, with the
// call's frame: what torch.compiler.disable should wrap. None when the call
// is library code calling a plain function (a decorator of transformers'
// calling the forward): no line of the user's reaches it.
const SourceFrame* calledInto(const GraphBreak& gb) {
    const size_t at = callerIndex(gb);
    if (gb.frames.size() < at + 2)
        return nullptr;
    if (gb.userFrame < 0 && compiledInLibrary(gb) &&
        !callsOwnMethod(gb.frames[0], gb.frames[1].function))
        return nullptr;
    return &gb.frames[at + 1];
}

// The module whose forward's frame the break is in ("encoder.layer.0.attention.self",
// "" the model), from its graph; nullopt where the report does not say.
std::optional<std::string> compiledFrameModule(const Run& run, const GraphBreak& gb) {
    const int graph = gb.graphBefore >= 0 ? gb.graphBefore : gb.graphAfter;
    if (graph < 0 || static_cast<size_t>(graph) >= run.graphs.size())
        return std::nullopt;
    return run.graphs[static_cast<size_t>(graph)].frameModule;
}

// `self.fn = torch.compiler.disable(self.fn)` as the user writes it: on the
// model where the compiled frame is the model's forward; else on the class of
// the submodule it is (Longformer's attention, which every layer runs), so
// that every instance takes it.
std::string disableCall(const std::optional<std::string>& module, const std::string& fn) {
    if (!module || module->empty())
        return "model." + fn + " = torch.compiler.disable(model." + fn + ")";
    return "cls = type(" + pythonAccess(*module) + "); cls." + fn +
           " = torch.compiler.disable(cls." + fn + "), for every module of its class";
}

// How well disabling the entry's call serves: 2 a line of the model file
// makes it, 1 the model's own forward (one call per call of the model), 0 a
// submodule's forward, which runs once per instance: each disabled call is a
// break (Longformer's attention helper: 4 breaks became 9, torch 2.15).
int wrapRank(const Run& run, const GraphBreak& gb) {
    if (gb.userFrame >= 0)
        return 2;
    const auto module = compiledFrameModule(run, gb);
    return !module || module->empty() ? 1 : 0;
}

std::string disableText(const Run& run, const GraphBreak* entry) {
    if (!entry)
        return "Wrap the library function your model calls on the way to these lines in "
               "torch.compiler.disable: it then runs eagerly with all it calls, and its breaks "
               "become one at the call.";
    const size_t at = callerIndex(*entry);
    const SourceFrame& caller = entry->frames[at];
    const std::string fn = entry->frames[at + 1].function;
    const std::string where = shortLocation(caller.file, caller.line);
    // A decorated function runs as its wrapper (transformers' deprecation
    // wrapper around generate): the call's own code names what is called.
    const bool named = caller.code.empty() || caller.code.find(fn + "(") != std::string::npos;
    std::string text = "Wrap the library function your model calls on the way to them in "
                       "torch.compiler.disable: here " +
                       (named ? functionLabel(fn) + ", called at " + where
                              : "the call at " + where + " (" + caller.code + ")");
    // self.fn(...) in the compiled forward: a method of the module object.
    if (callsOwnMethod(caller, fn))
        text +=
            " (" + disableCall(at == 0 ? compiledFrameModule(run, *entry) : std::nullopt, fn) + ")";
    if (wrapRank(run, *entry) == 0)
        return text + ". It then runs eagerly with all it calls, but every call of it breaks the "
                      "graph, in each module that runs it: measure before keeping it.";
    return text +
           ". It then runs eagerly with all it calls, and its breaks become one at the call.";
}

// Which calls a library function is seen reached through: the (file,
// function) of each frame below another, with its caller's frame.
using FunctionKey = std::pair<std::string, std::string>; // (file, function)
using CallSites = std::multimap<FunctionKey, const SourceFrame*>;

CallSites callSitesOf(const std::vector<const GraphBreak*>& breaks) {
    CallSites sites;
    for (const GraphBreak* gb : breaks)
        for (size_t j = 1; j < gb->frames.size(); ++j)
            sites.emplace(FunctionKey{gb->frames[j].file, gb->frames[j].function},
                          &gb->frames[j - 1]);
    return sites;
}

// Whether a function that a stack starts in runs under the entry's call. The
// frame the call is made from does not; a function seen reached only through
// that call, or through functions that themselves run under it, does
// (torchvision's batched_nms reaching _batched_nms_vanilla through Dynamo's
// polyfill, all below the skipped postprocessing); one of unknown caller is
// taken to (torchvision's NMS, compiled on its own as the skipped
// postprocessing ran it eagerly). `seen` stops a recursive library's cycle,
// which decides nothing by itself.
bool runsUnderCall(const FunctionKey& function, const GraphBreak& entry, const CallSites& sites,
                   std::set<FunctionKey>& seen) {
    const SourceFrame& caller = entry.frames[callerIndex(entry)];
    const SourceFrame& callee = entry.frames[callerIndex(entry) + 1];
    const SourceFrame& compiled = entry.frames.front();
    if (function == FunctionKey{compiled.file, compiled.function})
        return false;
    // Only the call tells one forward from another in the same file.
    if (function == FunctionKey{callee.file, callee.function} && callee.function != "forward")
        return true;
    if (!seen.insert(function).second)
        return true;
    const auto [first, last] = sites.equal_range(function);
    return std::all_of(first, last, [&](const auto& site) {
        const SourceFrame& from = *site.second;
        return (from.file == caller.file && from.line == caller.line) ||
               runsUnderCall({from.file, from.function}, entry, sites, seen);
    });
}

// Whether disabling the function the entry's call reaches takes this break
// with it: its stack runs through that call, or through the function itself
// (a frame of it torch resumed), or starts in a function that runs under it.
bool underCall(const GraphBreak& gb, const GraphBreak& entry, const CallSites& sites) {
    const SourceFrame& caller = entry.frames[callerIndex(entry)];
    const SourceFrame& callee = entry.frames[callerIndex(entry) + 1];
    for (size_t j = 0; j < gb.frames.size(); ++j) {
        const SourceFrame& frame = gb.frames[j];
        if (frame.file != callee.file || frame.function != callee.function)
            continue;
        if (j > 0 && gb.frames[j - 1].file == caller.file && gb.frames[j - 1].line == caller.line)
            return true;
        if (callee.function != "forward")
            return true;
    }
    std::set<FunctionKey> seen;
    return runsUnderCall({gb.frames.front().file, gb.frames.front().function}, entry, sites, seen);
}

// Whether the compiled frame the entry's call is made from holds ops of its
// own in a graph; false where the run's graphs are known and none is that
// frame's (a forward that only returns self.t5.generate(...): every graph
// lies in the code the call reaches, so disabling it leaves nothing compiled).
bool compiledFrameHasGraph(const Run& run, const GraphBreak& entry) {
    if (run.graphs.empty())
        return true; // not known
    const SourceFrame& frame = entry.frames.front();
    return std::any_of(run.graphs.begin(), run.graphs.end(), [&](const Graph& g) {
        return namesFunction(g.function, frame.function) && g.file == frame.file &&
               std::any_of(g.nodes.begin(), g.nodes.end(), [](const GraphNode& n) {
                   return n.op == "call_function" || n.op == "call_method" || n.op == "call_module";
               });
    });
}

// The remedy where disabling the call would leave nothing compiled: compile
// what the call reaches instead. transformers' generate() calls the model's
// forward once per token: `self.t5.forward = torch.compile(self.t5.forward)`.
std::string nothingLeftText(const Report& report, const Run& run, const GraphBreak& entry) {
    const SourceFrame& caller = entry.frames[callerIndex(entry)];
    const SourceFrame& compiled = entry.frames.front();
    const std::string text = "Wrapping the call at " + shortLocation(caller.file, caller.line) +
                             " in torch.compiler.disable would leave nothing compiled: " +
                             functionLabel(compiled.function) +
                             " puts no ops of its own in a graph, and every one of " + "the " +
                             plural(static_cast<long long>(run.graphs.size()), "graph", "graphs") +
                             " lies in the code that call reaches. ";
    static const std::regex generate(R"(([A-Za-z_][\w.]*)\.generate\()");
    std::smatch m;
    const std::string code = regexInput(caller.code);
    if (!std::regex_search(code, m, generate))
        return text + "Compile the modules that do the work instead "
                      "(torch.compile(model.backbone)), rather than the function that calls into "
                      "the library.";
    const std::string model = m[1].str();
    std::string forward = text +
                          "Compile the model's forward instead, which generate() calls once "
                          "per token, and leave generate's loop eager: " +
                          model + ".forward = torch.compile(" + model +
                          ".forward), with generate(..., cache_implementation=\"static\") "
                          "so that every decoding step has the same shapes.";
    // A file that compiles a forward itself: mode as-written runs it so.
    for (const auto& call : report.model.ownCompiles) {
        if (call.how == "attribute" && namesFunction(call.where, "forward"))
            return forward + " Your file's own " + ownCompileText(call) +
                   " does that: setting as-written runs it (--settings ...,as-written).";
    }
    return forward;
}

// " The other 2 breaks (at modeling_longformer.py:1175 in forward) are not under that call."
std::string notUnderText(const std::vector<const GraphBreak*>& outside) {
    std::vector<std::string> where;
    for (const GraphBreak* gb : outside) {
        const SourceFrame& at = gb->frames.back();
        const std::string site = shortLocation(at.file, at.line) + " in " + breakFunction(*gb);
        if (std::find(where.begin(), where.end(), site) == where.end())
            where.push_back(site);
    }
    return " The other " + plural(static_cast<long long>(outside.size()), "break", "breaks") +
           " (at " + joinWords(where) + ") are not under that call.";
}

} // namespace

void libraryBreakRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    std::map<std::string, LibraryBreaks> packages;
    std::vector<std::string> order;
    forEachAdvisedBreak(runs, [&](int r, int b, const GraphBreak& gb) {
        const auto diagnosis = diagnoseBreak(gb);
        if (diagnosis && diagnosis->cause == BreakCause::CompilerDisabled)
            return; // asked for: graphBreakRule says so
        // A break in torch's hook code under transformers' installation of its
        // hooks is that installation's, and goes away with it.
        const std::string package =
            firstCallInstall(gb).empty() ? libraryPackage(gb) : std::string("transformers");
        if (package.empty())
            return;
        auto [it, fresh] = packages.try_emplace(package);
        if (fresh)
            order.push_back(package);
        LibraryBreaks& lib = it->second;
        lib.hits.emplace_back(r, b);
        const SourceFrame& at = gb.frames.back();
        const std::string site = shortLocation(at.file, at.line) + " in " + breakFunction(gb) +
                                 ": " + breakText(gb, diagnosis);
        if (std::find(lib.sites.begin(), lib.sites.end(), site) == lib.sites.end())
            lib.sites.push_back(site);
        lib.dynamicOutput |= diagnosis && diagnosis->cause == BreakCause::DynamicOutputShape;
        lib.scalar |= diagnosis && diagnosis->cause == BreakCause::ScalarValue;
        if (lib.loggingMethod.empty())
            lib.loggingMethod = loggingMethod(gb);
    });

    for (const auto& package : order) {
        const LibraryBreaks& lib = packages.at(package);
        const int firstRun = lib.hits.front().first;
        const Run& run = runs[static_cast<size_t>(firstRun)];
        std::vector<const GraphBreak*> inFirst;
        std::vector<std::string> functions;
        const GraphBreak* entry = nullptr;
        const GraphBreak* firstReached = nullptr; // the first below a line of the model file
        int reached = 0;
        for (const auto& [r, b] : lib.hits) {
            if (r != firstRun)
                break; // hits come in run order
            const GraphBreak& gb = run.graphBreaks[static_cast<size_t>(b)];
            inFirst.push_back(&gb);
            if (gb.userFrame >= 0 && reached++ == 0)
                firstReached = &gb;
            const std::string fn = breakFunction(gb);
            if (std::find(functions.begin(), functions.end(), fn) == functions.end())
                functions.push_back(fn);
            // A call from the model file first: the user can wrap it; then one
            // the model's own forward makes.
            if (calledInto(gb) && (!entry || wrapRank(run, gb) > wrapRank(run, *entry)))
                entry = &gb;
        }
        // The breaks that disabling the entry's call would not take with it.
        std::vector<const GraphBreak*> outside;
        if (entry) {
            const CallSites sites = callSitesOf(inFirst);
            for (const GraphBreak* gb : inFirst)
                if (!underCall(*gb, *entry, sites))
                    outside.push_back(gb);
        }
        const size_t under = inFirst.size() - outside.size();
        std::string installer;
        size_t installs = 0;
        for (const GraphBreak* gb : inFirst) {
            if (const std::string fn = firstCallInstall(*gb); !fn.empty()) {
                installs++;
                if (installer.empty())
                    installer = fn;
            }
        }
        const bool forwardInLibrary =
            std::all_of(inFirst.begin(), inFirst.end(),
                        [](const GraphBreak* gb) { return compiledInLibrary(*gb); });
        const GraphBreak& first = *inFirst.front();
        const SourceFrame& at = first.frames.back();

        Finding f =
            breakFinding(runs, firstRun, lib.hits.front().second, at.file, at.line, at.code);
        f.rule = "graph_break.library";
        f.severity = Severity::Warning;
        f.title = package + "'s code breaks the graph " +
                  plural(static_cast<long long>(inFirst.size()), "time", "times") + " (in " +
                  joinWords(functions) + ")";

        // Breaks below a line of the model file (model.generate(...) calling
        // into the library) are the library's too; the evidence says where.
        std::string fromModel = ", none in the model file";
        if (firstReached) {
            const SourceFrame& line =
                firstReached->frames[static_cast<size_t>(firstReached->userFrame)];
            const std::string at = shortLocation(line.file, line.line);
            fromModel = reached == 1 ? ", one of them reached from the model file's " + at
                                     : ", " + std::to_string(reached) +
                                           " of them reached from the model file, first from " + at;
        }
        f.evidence.push_back(
            plural(static_cast<long long>(inFirst.size()), "graph break", "graph breaks") + " in " +
            f.setting + " lie in " + package + "'s installed code" + fromModel + "; " + f.setting +
            " has " + plural(static_cast<long long>(run.graphs.size()), "graph", "graphs") +
            " and " + plural(static_cast<long long>(run.graphBreaks.size()), "break", "breaks") +
            " in all (Breaks tab)");
        const size_t shown = std::min<size_t>(lib.sites.size(), 5);
        for (size_t i = 0; i < shown; ++i)
            f.evidence.push_back(lib.sites[i]);
        if (lib.sites.size() > shown)
            f.evidence.push_back(plural(static_cast<long long>(lib.sites.size() - shown),
                                        "more site", "more sites"));
        if (const std::string also = alsoInText(runs, lib.hits); !also.empty())
            f.evidence.push_back(also);

        // Every break the first call's hook installation: that remedy alone.
        if (installs == inFirst.size()) {
            f.remedy =
                "These breaks are in " + package + "'s code: " + firstCallInstallText(installer);
            f.gain = "removes the " +
                     plural(static_cast<long long>(installs), "graph break", "graph breaks") +
                     " the hooks' installation made in " + f.setting;
            f.confidence = 0.8;
            f.severity = Severity::Info; // a split of the first call's making, no time measured
            out.push_back(std::move(f));
            continue;
        }

        // Settings that let Dynamo trace through what breaks, each "let …: code".
        std::vector<std::string> levers;
        if (lib.dynamicOutput)
            levers.push_back("let Dynamo trace the data-dependent ops: "
                             "torch._dynamo.config.capture_dynamic_output_shape_ops = True");
        if (lib.scalar)
            levers.push_back("let Dynamo trace .item() where no code branches on the number: "
                             "torch._dynamo.config.capture_scalar_outputs = True");
        // Checked on transformers' Longformer with torch 2.15: its padding
        // warning's breaks go, the .item() ones stay.
        if (!lib.loggingMethod.empty())
            levers.push_back("let torch skip the library's log message under compile: " +
                             ignoreLoggingText(lib.loggingMethod));
        std::string orLevers;
        for (const auto& lever : levers)
            orLevers += " Or " + lever + ".";
        const std::string intro = "These breaks are in " + package +
                                  "'s code, not in the model file: rather than edit the library, ";
        const std::string submodules = " Or compile only the modules that do the work "
                                       "(torch.compile(model.backbone)) instead of the whole "
                                       "model.";
        const std::string rest = outside.empty() ? "" : notUnderText(outside);
        const bool nothingLeft =
            entry && entry->userFrame >= 0 && !compiledFrameHasGraph(run, *entry);
        if (nothingLeft)
            f.remedy = "These breaks are in " + package + "'s code, not in the model file. " +
                       nothingLeftText(input.report, run, *entry) + orLevers;
        else if (forwardInLibrary && !entry)
            f.remedy = "These breaks are in " + package +
                       "'s code, and so is the code torch compiled around them (the model's "
                       "forward is the library's): no line of your file leads into them, so "
                       "torch.compiler.disable has no call of yours to wrap. Compile only the "
                       "submodules whose code does not break (torch.compile on each) instead of "
                       "the whole model, or try a newer " +
                       package + ", whose code may compile without them." + orLevers;
        else if (entry && wrapRank(run, *entry) == 0 && !levers.empty()) {
            // A call every layer makes: the settings first, the wrap last.
            f.remedy = intro + levers.front() + ".";
            for (size_t i = 1; i < levers.size(); ++i)
                f.remedy += " Or " + levers[i] + ".";
            f.remedy += " Or keep the code out of the graph on purpose. " +
                        disableText(run, entry) + rest + submodules;
        } else
            f.remedy = intro + "keep that code out of the graph on purpose. " +
                       disableText(run, entry) + rest + submodules + orLevers;
        if (installs > 0)
            f.remedy += " " +
                        plural(static_cast<long long>(installs), "of them comes", "of them come") +
                        " from the first call: " + firstCallInstallText(installer);
        if (under > 1 && entry && wrapRank(run, *entry) > 0 && !nothingLeft) // they become one
            f.gain = "from the " +
                     plural(static_cast<long long>(run.graphBreaks.size()), "graph break",
                            "graph breaks") +
                     " measured in " + f.setting + " to as few as " +
                     std::to_string(run.graphBreaks.size() - under + 1) +
                     " (one stays at the call)";
        f.confidence = entry ? 0.8 : 0.6;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
