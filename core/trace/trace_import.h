// TORCH_TRACE import: torch's structured trace (one file per rank) read into a
// Report with one run per rank, status Imported. Files are streamed, ranks are
// read in parallel, and big payloads (generated code) stay in the file: only
// their offsets are kept (trace_payload.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core::trace {

// One file of a trace directory.
struct TraceFile {
    std::string path;
    int rank = -1; // from dedicated_log_torch_trace_rank_N_*.log; -1 without
    int64_t pid = -1;
    std::string started; // first record's "MMDD HH:MM:SS.uuuuuu"; empty if none could be read
    int64_t bytes = 0;
    bool operator==(const TraceFile&) const = default;
};

// The files of one torch job: one per rank, or one for a single process.
struct TraceJob {
    std::vector<TraceFile> files; // by rank
    std::string label() const;    // "2 ranks, started 1130 18:47:50, pids 101-102"
    int64_t bytes() const;
};

// What a path holds: one job, or several that piled up in one directory
// (oldest first).
struct TraceListing {
    std::vector<TraceJob> jobs;
    std::vector<std::string> skipped; // files that are not traces, with why
    std::string error;                // set when nothing can be imported, says what to do
};

// A directory or one file. Reads only the first line of each file.
TraceListing listTrace(const std::string& path);

struct ImportOptions {
    int job = 0; // 1-based index into listTrace().jobs; 0: the only one (an error if several)
    unsigned threads = 0; // 0: one per file up to the core count
    const std::atomic<bool>* cancel = nullptr;
    // Bytes read so far of all files, and their total; from reader threads.
    std::function<void(int64_t done, int64_t total)> progress;
};

struct ImportResult {
    Report report;                     // runs in rank order; empty on error
    std::vector<std::string> warnings; // per file: bad payloads, a cut-off end, unknown kinds
    std::string error;                 // nothing could be imported: says what and what to do
    bool cancelled = false;
};

ImportResult importTrace(const std::string& path, const ImportOptions& options = {});

} // namespace cs::core::trace
