// Rule 6: a setting that failed, where the failure says what to change:
// out of memory under CUDA-graph modes, symbolic shapes, fullgraph, toolchain,
// a function torch refuses to trace; and every other failure (failure.run),
// so that no failed setting goes without a finding.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <vector>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/break_cause.h"

namespace cs::core::advice {

namespace {

bool mentionsSymbolicShapes(const std::string& text) {
    for (const char* word :
         {"SymInt", "SymFloat", "SymBool", "symbolic shape", "GuardOnDataDependentSymNode",
          "data-dependent expression", "ConstraintViolation"}) {
        if (containsText(text, word))
            return true;
    }
    return false;
}

// Unbacked sizes: torch could not decide a condition on a size that comes
// from tensor values, which no dynamic setting changes.
bool dataDependent(const std::string& text) {
    return containsText(text, "GuardOnDataDependentSymNode") ||
           containsText(text, "data-dependent expression");
}

bool mentionsMissingTriton(const std::string& text) {
    return containsText(text, "No module named 'triton'") ||
           containsNoCase(text, "Cannot find a working triton installation") ||
           containsNoCase(text, "triton is not installed");
}

// Where in the user's code it failed: the probe's "(while compiling FILE:LINE)",
// else the innermost traceback frame in the model's file.
// The model's file: the run's own, else the report's.
const std::string& modelFileOf(const Run& run, const Report& report) {
    return run.model.file.empty() ? report.model.file : run.model.file;
}

// " at model.py:12", or "" where the failure names no line.
std::string atLocation(const std::string& file, int line) {
    return file.empty() ? std::string() : " at " + shortLocation(file, line);
}

// A traceback's frames, outermost first, each with the source line Python
// printed under it ("" where it printed none).
struct TracebackFrame {
    std::string file;
    int line = 0;
    std::string function;
    std::string code;
};

std::vector<TracebackFrame> tracebackFrames(const std::string& traceback) {
    static const std::regex frame(R"re(File "([^"]+)", line (\d+)(?:, in (\S+))?)re");
    std::vector<TracebackFrame> frames;
    bool codeNext = false;
    forEachRegexLine(traceback, [&](const std::string& text) {
        std::smatch m;
        if (std::regex_search(text, m, frame)) {
            frames.push_back({m[1].str(), lineNumber(m[2].str()), m[3].str(), {}});
            codeNext = true;
            return;
        }
        // The source line, not the carets under it.
        const size_t start = text.find_first_not_of(' ');
        if (codeNext && start != std::string::npos && text[start] != '^' && text[start] != '~')
            frames.back().code = text.substr(start);
        codeNext = false;
    });
    return frames;
}

std::pair<std::string, int> failingLine(const ErrorInfo& error, const std::string& modelFile) {
    static const std::regex compiling(R"(while compiling (.+?):(\d+)\))");
    std::pair<std::string, int> found;
    forEachRegexLine(error.message, [&](const std::string& text) {
        std::smatch m;
        if (found.first.empty() && std::regex_search(text, m, compiling))
            found = {m[1].str(), lineNumber(m[2].str())};
    });
    if (!found.first.empty() || modelFile.empty())
        return found;
    for (const TracebackFrame& frame : tracebackFrames(error.traceback))
        if (frame.file == modelFile)
            found = {frame.file, frame.line};
    return found;
}

Finding base(const Run& run, int index, const char* rule, const std::string& title) {
    Finding f;
    f.rule = rule;
    f.severity = Severity::Critical;
    f.title = title;
    f.run = index;
    f.setting = run.setting.label();
    f.tab = EvidenceTab::Compare;
    f.evidence.push_back(run.setting.label() + " failed (" + run.error->kind +
                         "): " + firstLine(run.error->message) + " (Compare tab)");
    return f;
}

// The function the model called that torch refuses to trace inside compiled
// code ("Attempt to trace forbidden callable <function set_stance at 0x...>");
// "" for any other error.
std::string forbiddenCallable(const std::string& text) {
    static const std::regex forbidden(
        R"(forbidden callable <(?:built-in )?(?:function|method) ([\w.]+))");
    std::string name;
    forEachRegexLine(text, [&](const std::string& line) {
        std::smatch m;
        if (name.empty() && std::regex_search(line, m, forbidden))
            name = m[1].str();
    });
    return name;
}

// The function whose frame holds FILE:LINE in the traceback ("forward"); ""
// when no frame does.
std::string functionAt(const std::string& traceback, const std::string& file, int line) {
    std::string found;
    for (const TracebackFrame& frame : tracebackFrames(traceback))
        if (frame.file == file && frame.line == line)
            found = frame.function;
    return found;
}

// The innermost frame outside torch and compilescope's probe: where a library
// raised, or the line that called into torch when torch raised ("The size of
// tensor a (32) must match ...").
std::optional<TracebackFrame> raisingFrame(const std::string& traceback) {
    std::optional<TracebackFrame> found;
    for (TracebackFrame& frame : tracebackFrames(traceback))
        if (installedPackage(frame.file) != "torch" &&
            frame.file.find("compilescope_probe/") == std::string::npos)
            found = std::move(frame);
    return found;
}

// "it raised in transformers's code at modeling_perceiver.py:329 in forward:
// attention_output = ..."; "" where the traceback has no such frame.
std::string raisedAtText(const std::string& traceback) {
    const auto at = raisingFrame(traceback);
    if (!at)
        return {};
    const std::string package = installedPackage(at->file);
    return "it raised" + (package.empty() ? std::string() : " in " + package + "'s code") + " at " +
           shortLocation(at->file, at->line) + " in " + at->function +
           (at->code.empty() ? std::string() : ": " + at->code);
}

// What each of the probe's tries below the setting's backend did.
std::string stageCheckText(const StageCheck& c) {
    const std::string what = c.backend == "eager"       ? " (Dynamo alone)"
                             : c.backend == "aot_eager" ? " (Dynamo and AOTAutograd)"
                                                        : "";
    return "compiled again under backend " + c.backend + what +
           (c.ok ? ", the first call ran" : ", it failed too: " + c.error);
}

// A compile failure with no known cause, by the stage the probe found.
Finding compileFailure(const Run& run, int index, const AdviceInput& input) {
    const ErrorInfo& e = *run.error;
    const std::string label = run.setting.label();
    const auto [file, line] = failingLine(e, modelFileOf(run, input.report));
    const std::string at = atLocation(file, line);
    const std::string backend = run.setting.backend.empty() ? "inductor" : run.setting.backend;
    const std::string title =
        e.stage == "dynamo" ? label + ": Dynamo cannot trace the code" + at +
                                  ", under any backend, though it runs eagerly"
        : e.stage == "aot_autograd" ? label + ": AOTAutograd fails on the graph of the code" + at
        : e.stage == "backend"
            ? label + ": " + backend + " fails to compile the graph of the code" + at +
                  ", which Dynamo traced"
            : label + ": torch.compile failed on the code" + at + ", which runs eagerly";
    Finding f = base(run, index, "failure.compile", title);
    // The probe's own advice after the error is this finding's evidence and fix.
    const size_t advice = f.evidence.front().find(". The model runs without torch.compile");
    if (advice != std::string::npos)
        f.evidence.front() = f.evidence.front().substr(0, advice) + " (Compare tab)";
    f.file = file;
    f.line = line;
    for (const auto& c : e.stageChecks)
        f.evidence.push_back(stageCheckText(c));
    if (const Run* eager = input.baselineRun(); eager && eager->status == RunStatus::Ok)
        f.evidence.push_back("eager ran the same model and inputs (" + eager->setting.label() +
                             ")");
    const std::string fn = functionAt(e.traceback, file, line);
    const std::string holder =
        "mark the function holding " + (file.empty() ? "that code" : shortLocation(file, line)) +
        (fn.empty() ? std::string() : " (" + fn + ")") +
        " @torch.compiler.disable: Dynamo then runs it eagerly, a graph break, and compiles the "
        "rest";
    const std::string minifier =
        " torch's minifier cuts the graph down to a small repro for the report: "
        "TORCHDYNAMO_REPRO_AFTER=\"dynamo\" in the environment (--env) writes "
        "minifier_launcher.py.";
    if (e.stage == "dynamo" || e.stage == "aot_autograd") {
        f.remedy = "No backend avoids it: " + holder +
                   ". It is torch's failure, not the model's (eager runs the code): report it "
                   "to PyTorch with that line and torch's version." +
                   (e.stage == "aot_autograd" ? minifier : std::string());
    } else if (e.stage == "backend") {
        const std::string lower =
            e.stageChecks.empty() ? "aot_eager" : e.stageChecks.back().backend;
        f.remedy = "Only " + backend + " fails: run this setting with --backend " + lower +
                   " meanwhile (Dynamo's graphs, breaks and recompiles, without " + backend +
                   "'s kernels or speed), or " + holder + ". Report it to PyTorch." + minifier;
    } else {
        f.remedy = "Find the stage that fails: compile with --backend eager (Dynamo alone), then "
                   "--backend aot_eager (with AOTAutograd); where both run, only " +
                   backend + " fails. Meanwhile " + holder + ".";
    }
    f.confidence = e.stage.empty() ? 0.5 : 0.8;
    return f;
}

std::string pythonVersion(const std::string& version) {
    static const std::regex majorMinor(R"((\d+\.\d+))");
    std::smatch m;
    const std::string text = regexInput(version);
    return std::regex_search(text, m, majorMinor) ? m[1].str() : std::string("3");
}

// What a failure the other rules leave says in a title's few words, by its
// kind; "" where its status says it better.
std::string failureWords(const ErrorInfo& e, const std::string& at) {
    static const std::regex raised(R"(raised ([A-Za-z_][\w.]*))");
    static const std::regex caller(R"(^(\w+\(\)) in )");
    const std::string head = regexInput(firstLine(e.message));
    std::smatch m;
    const std::string type = std::regex_search(head, m, raised) ? " " + m[1].str() : "";
    if (e.kind == "model_raised")
        return containsText(e.message, "without torch.compile too")
                   ? "the model raises" + type + at + ", with or without torch.compile"
                   : "the model's code raises" + type + at;
    if (e.kind == "get_model_raised") {
        const std::string function =
            std::regex_search(head, m, caller) ? m[1].str() : std::string("get_model()");
        if (containsText(head, "asks for CUDA"))
            return function + " asks for CUDA" + at + ", which this machine lacks";
        return function + (type.empty() ? " fails" : " raises" + type) + at;
    }
    if (e.kind == "model_syntax_error")
        return "the model file has a syntax error" + at;
    if (e.kind == "missing_get_model" || e.kind == "missing_get_inputs") {
        // The kinds also cover what those functions returned or need.
        static const std::regex undefined(R"(does not define (\w+\(\)))");
        static const std::regex returned(R"(^(\w+\(\)) in \S+ returned ([^;]+);)");
        static const std::regex needs(R"(^(\w+\(\)) in \S+ needs an argument)");
        if (std::regex_search(head, m, undefined))
            return "the model file defines no " + m[1].str();
        if (std::regex_search(head, m, returned))
            return m[1].str() + " returned " + m[2].str();
        if (std::regex_search(head, m, needs))
            return m[1].str() + " needs an argument";
        return e.kind == "missing_get_model" ? "the model file gives no model to run"
                                             : "the model gives no example inputs to run on";
    }
    if (e.kind == "timeout") {
        // Where the time ran out, as the runner's message says it.
        std::string where;
        if (containsText(e.message, "it was in the input sweep"))
            where = " in the input sweep";
        else if (containsText(e.message, "it was in the first call, which compiles"))
            where = " while compiling the first call";
        else if (containsText(e.message, "still importing torch"))
            where = " while importing torch";
        return "it ran past its time limit" + where;
    }
    if (e.kind == "bad_arguments")
        return containsText(head, "Mode as-written")
                   ? "the model file makes no torch.compile call for as-written to keep"
                   : "the probe refused its arguments";
    // Kinds whose words need nothing from the message. compilescope's own
    // steps are among them: a title of their code alone ("did not finish:
    // no_batch_dimension") told the user nothing.
    static const std::map<std::string, std::string, std::less<>> plainWords{
        {"model_import_error", "the model file cannot be imported"},
        {"model_not_found", "the model file is not there"},
        {"no_torch", "the interpreter has no torch"},
        {"no_cuda", "CUDA was asked for and there is none"},
        {"out_of_memory", "it ran out of memory"},
        {"internal", "the probe itself failed"},
        {"no_batch_dimension", "the batch size cannot be scaled for these inputs"},
        {"package_failed", "AOTInductor could not package the exported model"},
        {"no_aoti_runner", "the AOTInductor runner was not found"},
        {"aoti_runner_mismatch", "the AOTInductor runner was built for another torch"},
        {"aoti_runner_build_failed", "the AOTInductor runner could not be built for this torch"},
        {"aoti_runner_failed", "the AOTInductor runner failed"},
    };
    const auto plain = plainWords.find(e.kind);
    return plain == plainWords.end() ? std::string() : plain->second;
}

// Where the model's file failed: the traceback's frame in it, else the first
// "at FILE.py:LINE" or "in FILE.py:LINE" the message names (a syntax error, a
// get_model() that raised before the model file was known).
std::pair<std::string, int> failureLocation(const ErrorInfo& e, const std::string& modelFile) {
    auto found = failingLine(e, modelFile);
    if (!found.first.empty())
        return found;
    static const std::regex named(R"((?:at|in) (/[^\s:]+\.py):(\d+))");
    const std::string head = regexInput(firstLine(e.message));
    std::smatch m;
    if (std::regex_search(head, m, named))
        found = {m[1].str(), lineNumber(m[2].str())};
    return found;
}

// What to do when the message says nothing past its first sentence.
std::string statusRemedy(RunStatus status) {
    switch (status) {
    case RunStatus::Timeout:
        return "Raise the time limit (--timeout; GUI: Run settings), or measure fewer calls "
               "(--warmup, --iters); the Warmup tab shows how far it got.";
    case RunStatus::Crashed:
        return "The probe process died without a word: its last output is in the Console tab. "
               "Run the model without compilescope to see whether it dies there too; if only "
               "the compiled setting does, report it to PyTorch.";
    case RunStatus::Disconnected:
        return "The connection to the target was lost: check the host (Test connection) and "
               "run again.";
    default:
        return "Its message and traceback are in the Compare tab (hover the status) and the "
               "Console tab.";
    }
}

} // namespace

void failureRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        if (!run.error || run.exportFailure)
            continue; // an export refusal is the export rule's finding
        const ErrorInfo& e = *run.error;
        const int index = static_cast<int>(r);
        const std::string& mode = run.setting.mode;
        const std::string label = run.setting.label();
        const std::string text = e.message + "\n" + e.traceback;

        if (e.kind == "out_of_memory" && (mode == "max-autotune" || mode == "reduce-overhead")) {
            Finding f = base(run, index, "failure.oom", label + " ran out of memory");
            if (mode == "max-autotune") {
                f.remedy =
                    "Use max-autotune-no-cudagraphs (autotuned kernels without the CUDA-graph "
                    "memory pool) or reduce-overhead (CUDA graphs without autotuning "
                    "benchmarks).";
            } else {
                f.remedy = "Use mode default (no CUDA-graph memory pool), or a smaller batch.";
            }
            if (const Run* eager = input.baselineRun())
                f.evidence.push_back("eager ran the same model and inputs without running out of "
                                     "memory (" +
                                     eager->setting.label() + ")");
            f.confidence = 0.8;
            out.push_back(std::move(f));
        } else if (e.kind == "fullgraph_break") {
            const GraphBreak* gb = run.graphBreaks.empty() ? nullptr : &run.graphBreaks.back();
            const auto diagnosis = gb ? diagnoseBreak(*gb) : std::nullopt;
            const SourceFrame* frame = gb ? gb->location() : nullptr;
            const std::string where =
                frame ? shortLocation(frame->file, frame->line) : std::string();
            Finding f = base(run, index, "failure.fullgraph",
                             "fullgraph=True failed: Dynamo must break the graph" +
                                 (where.empty() ? std::string() : " at " + where));
            f.tab = EvidenceTab::Breaks;
            if (frame) {
                f.file = frame->file;
                f.line = frame->line;
                f.code = frame->code;
            }
            if (gb) {
                f.graphBreak = static_cast<int>(run.graphBreaks.size()) - 1;
                f.evidence.push_back("the break: " + gb->cause() + " (Breaks tab)");
            }
            f.remedy = (diagnosis ? diagnosis->remedy + " " : std::string()) +
                       "Or compile without fullgraph=True to accept the break.";
            f.confidence = diagnosis ? diagnosis->confidence : 0.6;
            out.push_back(std::move(f));
        } else if (e.kind == "no_compiler") {
            Finding f = base(run, index, "failure.toolchain",
                             "Inductor cannot build its kernels: " +
                                 std::string("a compiler or headers are missing"));
            std::vector<std::string> install;
            if (containsText(e.message, "C++ compiler") || containsText(e.message, "g++") ||
                containsText(e.message, "InvalidCxxCompiler"))
                install.push_back("a C++ compiler (e.g. sudo apt-get install g++, or set $CXX)");
            if (containsText(e.message, "Python.h"))
                install.push_back("Python's headers (e.g. sudo apt-get install python" +
                                  pythonVersion(run.probe.python) + "-dev)");
            if (install.empty())
                continue; // the message names nothing we could tell the user to install
            f.remedy = "Install " + joinWords(install) +
                       "; meanwhile --backend aot_eager shows graphs and breaks without Inductor.";
            f.confidence = 0.9;
            out.push_back(std::move(f));
        } else if (mentionsMissingTriton(text)) {
            Finding f = base(run, index, "failure.toolchain",
                             "Inductor needs Triton for GPU kernels, and it is missing");
            f.remedy = "Install the Triton that matches your torch into the interpreter that runs "
                       "the model (pip install triton; CUDA builds of torch depend on it), or run "
                       "this setting with --backend aot_eager.";
            f.confidence = 0.85;
            out.push_back(std::move(f));
        } else if (const std::string name = forbiddenCallable(text);
                   !name.empty() && mode != "eager") {
            const auto [file, line] = failingLine(e, modelFileOf(run, input.report));
            Finding f = base(run, index, "failure.forbidden_call",
                             label + " failed: torch refuses to trace " + name +
                                 " inside compiled code" + atLocation(file, line));
            f.file = file;
            f.line = line;
            f.remedy = name == "set_stance"
                           ? "Set the stance around the call instead, outside forward: "
                             "with torch.compiler.set_stance(\"force_eager\"): model(x). "
                             "torch changes stance only between compiled calls."
                           : "Call " + name +
                                 " outside the compiled function (before or after the model's "
                                 "call), or move it into a function marked "
                                 "@torch.compiler.disable, which Dynamo runs eagerly.";
            f.confidence = 0.85;
            out.push_back(std::move(f));
        } else if (mentionsSymbolicShapes(text) && mode != "eager") {
            const auto [file, line] = failingLine(e, modelFileOf(run, input.report));
            Finding f = base(run, index, "failure.symbolic_shapes",
                             label + " failed on symbolic shapes" + atLocation(file, line));
            f.file = file;
            f.line = line;
            if (dataDependent(text)) {
                f.title = label + " failed on a size that depends on tensor data" +
                          atLocation(file, line);
                f.remedy = "The sizes in that expression (u0, u1, …) come from tensor values "
                           "(nonzero, unique, a boolean mask, .item()): no dynamic setting or "
                           "mark_static fixes them. ";
                // In an installed package the line is not the user's to annotate.
                const std::string package = installedPackage(file);
                if (!package.empty())
                    f.remedy += "The line is in " + package +
                                "'s code, not the model file: rather than edit it, " +
                                (run.setting.fullgraph
                                     ? "drop fullgraph=True (Dynamo then breaks the graph there "
                                       "and runs on; the Breaks tab shows where), or "
                                     : std::string()) +
                                "keep that step out of the compiled function: wrap the library "
                                "function your model calls on the way to it in "
                                "torch.compiler.disable, or compile only the modules that do the "
                                "heavy work.";
                else
                    f.remedy +=
                        run.setting.fullgraph
                            ? "Without fullgraph=True Dynamo breaks the graph there and runs "
                              "on (the Breaks tab then shows where); to keep one graph, state "
                              "what holds with torch._check(...) before the line, or move the "
                              "data-dependent step out of the compiled function."
                            : "State what holds with torch._check(...) before the line (for "
                              "a size: torch._check(n <= limit)), or move the data-dependent "
                              "step out of the compiled function (torch.compiler.disable).";
            } else if (run.setting.dynamic == "true")
                f.remedy = "Compile with dynamic=False (or leave dynamic at auto) so sizes are "
                           "specialised, or mark the offending dimension static with "
                           "torch._dynamo.mark_static(tensor, dim).";
            else
                f.remedy = "Mark the offending dimension static with "
                           "torch._dynamo.mark_static(tensor, dim), or compile with dynamic=False.";
            f.confidence = 0.7;
            out.push_back(std::move(f));
        } else if (e.kind == "compile_failed" && mode != "eager" &&
                   !containsText(e.message, "cannot be set up") &&
                   !containsText(e.message, "own torch.compile calls")) {
            out.push_back(compileFailure(run, index, input));
        }
    }
}

void unexplainedFailureRule(const AdviceInput& input, const std::vector<Finding>& found,
                            std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    // Settings that failed the same way share one finding: the model's error
    // repeats in every setting, eager's included.
    std::vector<std::vector<size_t>> groups;
    auto sameFailure = [&](size_t a, size_t b) {
        const Run& x = runs[a];
        const Run& y = runs[b];
        if (x.status != y.status || x.error.has_value() != y.error.has_value())
            return false;
        return !x.error || (x.error->kind == y.error->kind &&
                            firstLine(x.error->message) == firstLine(y.error->message));
    };
    for (size_t r = 0; r < runs.size(); ++r) {
        const RunStatus status = runs[r].status;
        if (status != RunStatus::Failed && status != RunStatus::Crashed &&
            status != RunStatus::Timeout && status != RunStatus::Disconnected)
            continue;
        const int index = static_cast<int>(r);
        const bool explained = std::any_of(found.begin(), found.end(), [&](const Finding& f) {
            return f.run == index && f.severity == Severity::Critical;
        });
        if (explained)
            continue;
        auto group = std::find_if(groups.begin(), groups.end(),
                                  [&](const auto& g) { return sameFailure(g.front(), r); });
        if (group == groups.end())
            groups.push_back({r});
        else
            group->push_back(r);
    }
    for (const auto& group : groups) {
        const Run& run = runs[group.front()];
        std::vector<std::string> labels;
        for (size_t r : group) {
            // Probe rounds (--repeat) repeat a label.
            const std::string label = runs[r].setting.label();
            if (std::find(labels.begin(), labels.end(), label) == labels.end())
                labels.push_back(label);
        }
        Finding f;
        f.rule = "failure.run";
        f.severity = Severity::Critical;
        f.tab = run.status == RunStatus::Crashed ? EvidenceTab::Console : EvidenceTab::Compare;
        f.run = group.size() == 1 ? static_cast<int>(group.front()) : -1;
        f.setting = joinWords(labels);
        std::string what = toString(run.status);
        if (run.error) {
            const ErrorInfo& e = *run.error;
            const auto [file, line] = failureLocation(e, modelFileOf(run, input.report));
            f.file = file;
            f.line = line;
            const std::string at = atLocation(file, line);
            const std::string words = failureWords(e, at);
            what = words.empty() ? e.kind + at : words;
            // The message's first sentence is what failed, the rest what to do.
            const std::string first = firstSentence(e.message);
            const bool period = !first.empty() && first.back() == '.';
            f.evidence.push_back(run.setting.label() + " " + toString(run.status) + " (" + e.kind +
                                 "): " + first.substr(0, first.size() - (period ? 1 : 0)) +
                                 " (Compare tab)");
            // No line of the model's file in it: the traceback's own, so the
            // finding still says where (a config that does not fit the inputs
            // raises deep in the library).
            if (file.empty())
                if (const std::string raised = raisedAtText(e.traceback); !raised.empty())
                    f.evidence.push_back(raised);
            const std::string rest = firstLine(e.message).substr(first.size());
            const size_t start = rest.find_first_not_of(' ');
            f.remedy = start == std::string::npos ? std::string() : rest.substr(start);
        } else {
            f.evidence.push_back(run.setting.label() + " " + toString(run.status) +
                                 " with no error message (Compare tab)");
        }
        f.title = joinWords(labels) + " did not finish: " + what;
        if (labels.size() > 1)
            f.evidence.push_back(
                "the same in " +
                plural(static_cast<long long>(labels.size()), "setting", "settings") + ": " +
                joinWords(labels));
        const bool eagerToo = std::any_of(
            group.begin(), group.end(), [&](size_t r) { return runs[r].setting.mode == "eager"; });
        if (eagerToo && labels.size() > 1)
            f.evidence.push_back("eager fails the same way, so torch.compile is not the cause");
        if (f.remedy.empty())
            f.remedy = statusRemedy(run.status);
        f.confidence = 0.9;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
