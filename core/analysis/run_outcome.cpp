#include "core/analysis/run_outcome.h"

#include <algorithm>
#include <csignal>
#include <string_view>

namespace cs::core {

namespace {

// Between hello and the first phase the probe imports torch (docs/protocol.md),
// then loads torch's cache artifacts for such a start (their event ends that).
bool importingTorch(const Run& run) {
    return run.sawHello && !run.sawDone && run.phases.empty() && !run.cacheArtifacts;
}

std::string torchImport(const Run& run) {
    return run.setting.cacheArtifacts() ? "torch's import, or the load of its cache artifacts,"
                                        : "torch's import";
}

// "; it was in the input sweep, at 2/5: inputs [2, 3, 128, 128], while torch
// compiled it (AOT autograd)": each new size can compile for minutes.
std::string inTheSweep(const Run& run) {
    std::string text = "; it was in the input sweep";
    if (const std::string item = lastSweepItem(run); !item.empty())
        text += ", at " + item;
    if (!run.compileStage.empty())
        text += ", while torch compiled it (" + run.compileStage + ")";
    return text;
}

std::string openPhase(const Run& run) {
    const PhaseSpan* open = run.openPhase();
    return open ? open->name : std::string();
}

std::string progressSoFar(const Run& run) {
    const auto measured = run.measuredLatencies().size();
    const auto warmup = run.warmupLatencies().size();
    std::string text = std::to_string(warmup) + " warmup and " + std::to_string(measured) +
                       " measured iterations were read and are kept";
    const std::string phase = openPhase(run);
    if (phase == "sweep")
        text += inTheSweep(run);
    else if (!phase.empty())
        // The probe's "compile" phase is the first call, which eager compiles nothing in.
        text += phase != "compile"            ? "; it was in the " + phase + " phase"
                : run.setting.mode == "eager" ? std::string("; it was in the model's first call")
                                              : std::string("; it was in the first call, which "
                                                            "compiles");
    if (importingTorch(run))
        text += "; it was still importing torch, before the model was loaded";
    return text;
}

// What to change where the time ran out: the iteration count shortens only
// the calls, not a compile.
std::string timeoutRemedy(const Run& run) {
    constexpr const char* raise = "raise the limit (--timeout, or the time limit)";
    const std::string phase = openPhase(run);
    if (phase == "sweep")
        return std::string("The measured calls had finished before the sweep, but a setting that "
                           "timed out is not compared: run again without the input sweep "
                           "(--no-sweep, or untick it), or ") +
               raise + " for its compiles.";
    if (phase == "compile" && run.setting.mode != "eager" && run.setting.mode != "aoti") {
        // Symbolic shapes lengthen a compile: torchvision's swin_t on CPU
        // compiled in 55 s static and did not finish in 25 minutes under
        // dynamic=True (torch 2.15, sympy in Inductor's CPU codegen).
        const std::string staticShapes =
            run.setting.dynamic == "true"
                ? "compile with dynamic=False (or auto): symbolic shapes can make a compile many "
                  "times longer; "
                : "";
        return "Make the first compile shorter (" + staticShapes +
               "smaller inputs, or --backend aot_eager, which finds the graphs and breaks without "
               "Inductor's code generation), or " +
               std::string(raise) + ".";
    }
    return "Lower the iteration count, or " + std::string(raise) + ".";
}

std::string signalName(int signal) {
    switch (signal) {
    case SIGSEGV:
        return "SIGSEGV, a segmentation fault";
    case SIGABRT:
        return "SIGABRT, an abort";
    case SIGBUS:
        return "SIGBUS";
    case SIGILL:
        return "SIGILL, an illegal instruction";
    case SIGFPE:
        return "SIGFPE";
    default:
        return "signal " + std::to_string(signal);
    }
}

} // namespace

std::string lastSweepItem(const Run& run) {
    const auto item = std::find_if(run.logs.rbegin(), run.logs.rend(),
                                   [](const LogLine& l) { return l.code == "sweep_inputs"; });
    constexpr std::string_view prefix = "sweep ";
    if (item == run.logs.rend() || item->message.rfind(prefix, 0) != 0)
        return {};
    return item->message.substr(prefix.size());
}

void settleRun(Run& run, ProcessEnd end, int exitCode, const std::string& detail) {
    switch (end) {
    case ProcessEnd::Cancelled:
        run.status = RunStatus::Cancelled;
        if (!run.error)
            run.error =
                ErrorInfo{"cancelled", "Cancelled by the user; " + progressSoFar(run) + ".", ""};
        return;
    case ProcessEnd::TimedOut:
        run.status = RunStatus::Timeout;
        run.error =
            ErrorInfo{"timeout",
                      "The probe did not finish within its time limit (" + detail +
                          " s) and was stopped; " + progressSoFar(run) + ". " + timeoutRemedy(run),
                      ""};
        return;
    case ProcessEnd::FailedToStart:
        run.status = RunStatus::Failed;
        run.error = ErrorInfo{"probe_start",
                              "Could not start the Python interpreter \"" + detail +
                                  "\". Check the path, or pick another interpreter.",
                              ""};
        return;
    case ProcessEnd::Disconnected:
        run.status = RunStatus::Disconnected;
        run.exitCode = exitCode;
        run.error = ErrorInfo{"disconnected",
                              "The connection was lost: " + detail + "; " + progressSoFar(run) +
                                  ". The probe there was stopped; run the setting again.",
                              ""};
        return;
    case ProcessEnd::Exited:
    case ProcessEnd::Signalled:
        break;
    }
    run.exitCode = exitCode;
    if (run.sawDone && end == ProcessEnd::Exited) {
        if (run.doneStatus == "ok" && exitCode == 0) {
            run.status = RunStatus::Ok;
            return;
        }
        run.status = RunStatus::Failed;
        if (!run.error)
            run.error = ErrorInfo{"failed",
                                  "The probe reported failure (exit code " +
                                      std::to_string(exitCode) + ") without saying why.",
                                  ""};
        return;
    }
    run.status = RunStatus::Crashed;
    // A crash (not a kill: the general words say where a kill landed) while
    // importing torch is torch's own: say so, and how to check it.
    const bool crashSignal = exitCode > 0 && exitCode < 65 && exitCode != SIGKILL &&
                             exitCode != SIGTERM; // a remote ssh's 255 is no signal
    if (end == ProcessEnd::Signalled && importingTorch(run) && !run.error && crashSignal) {
        const std::string python =
            run.probe.pythonExecutable.empty() ? "python" : run.probe.pythonExecutable;
        run.error = ErrorInfo{
            "crashed",
            torchImport(run) + " crashed (" + signalName(exitCode) + ") in " + python +
                ", before the model was loaded: the torch installed there is broken or does not "
                "match this machine (its CUDA driver, CPU or libraries). Check it with: \"" +
                python +
                "\" -c \"import torch\"; reinstall torch there, or pick another "
                "interpreter.",
            ""};
        return;
    }
    std::string how =
        end == ProcessEnd::Signalled
            ? "was killed or crashed" + (detail.empty() ? std::string() : " (" + detail + ")")
            : "exited with code " + std::to_string(exitCode);
    if (!run.sawHello)
        how += " before saying hello; see the console for what the interpreter printed";
    std::string message = "The probe " + how + " before finishing; " + progressSoFar(run) + ".";
    if (const PhaseSpan* open = run.openPhase(); open && open->name == "load")
        // The probe's own code there raises what it meets; an exit is the file's.
        message += " The load phase runs the model file's own code (its imports, get_model(), "
                   "get_inputs()): something there ended the process (os._exit(), or a native "
                   "extension that exits or crashes); see the console for what it printed.";
    ErrorInfo crash{"crashed", message, ""};
    if (run.error) {
        // Keep the probe's own explanation; it is the better message.
        run.error->message += " (then the probe " + how + ")";
    } else {
        run.error = crash;
    }
}

} // namespace cs::core
