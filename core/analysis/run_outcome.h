// Decides a run's status from how its probe process ended and what it said.
#pragma once

#include <string>

#include "core/report/session.h"

namespace cs::core {

enum class ProcessEnd {
    Exited,        // returned an exit code
    Signalled,     // killed by a signal or crashed
    FailedToStart, // the interpreter could not be started
    TimedOut,      // we killed it at the time limit
    Cancelled,     // we killed it at the user's request
    Disconnected,  // the SSH connection to its host was lost (detail: what ssh said)
};

// `detail`: the interpreter path for FailedToStart, the limit in seconds for
// TimedOut, otherwise free text appended to crash messages.
void settleRun(Run& run, ProcessEnd end, int exitCode, const std::string& detail = {});

// The input-sweep item the probe started last ("2/5: inputs [2, 3, 128, 128]"),
// from its sweep_inputs lines; "" before the sweep.
std::string lastSweepItem(const Run& run);

} // namespace cs::core
