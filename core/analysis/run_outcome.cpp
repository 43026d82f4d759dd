#include "core/analysis/run_outcome.h"

namespace cs::core {

namespace {

std::string progressSoFar(const Run& run) {
    const auto measured = run.measuredLatencies().size();
    const auto warmup = run.warmupLatencies().size();
    std::string text = std::to_string(warmup) + " warmup and " + std::to_string(measured) +
                       " measured iterations were read and are kept";
    for (auto it = run.phases.rbegin(); it != run.phases.rend(); ++it) {
        if (it->endNs < 0) {
            text += "; it was in the " + it->name + " phase";
            break;
        }
    }
    return text;
}

} // namespace

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
        run.error = ErrorInfo{"timeout",
                              "The probe did not finish within its time limit (" + detail +
                                  " s) and was stopped; " + progressSoFar(run) +
                                  ". Raise the limit or lower the iteration count.",
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
    std::string how =
        end == ProcessEnd::Signalled
            ? "was killed or crashed" + (detail.empty() ? std::string() : " (" + detail + ")")
            : "exited with code " + std::to_string(exitCode);
    if (!run.sawHello)
        how += " before saying hello; see the console for what the interpreter printed";
    ErrorInfo crash{"crashed",
                    "The probe " + how + " before finishing; " + progressSoFar(run) + ".", ""};
    if (run.error) {
        // Keep the probe's own explanation; it is the better message.
        run.error->message += " (then the probe " + how + ")";
    } else {
        run.error = crash;
    }
}

} // namespace cs::core
