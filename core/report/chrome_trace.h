// A report's timeline as Chrome Trace Event Format JSON, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open.
//
// One file for the whole report, one process per run: every probe stamps its
// events with CLOCK_MONOTONIC, so the runs of a session sit one after another
// on one time axis and can be compared side by side. Each process has tracks
// for the phases, the calls (iterations) and the probe's log; counters for
// host RSS, device bytes held (CUPTI) and torch's allocated/reserved at phase
// edges; and on GPU one track per CUDA stream with the kernel, memcpy and memset
// records of the gpu_trace event. Times are µs from the earliest event in the
// report (otherData.origin_ns says which CLOCK_MONOTONIC ns that was).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

nlohmann::json chromeTrace(const Report& report);
std::string writeChromeTrace(const Report& report);

} // namespace cs::core
