// Streams one TORCH_TRACE file record by record. A record is a glog-style
// line, `[VIWEC]MMDD HH:MM:SS.uuuuuu PID file:line] {json}`, followed by its
// payload lines (each starts with a tab) when the envelope has `has_payload`
// (the md5 of the payload: tab-stripped lines joined with newlines).
//
// The file is read in large blocks; a payload is checked against its md5 as it
// streams past and kept in memory only when the caller asks for it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace cs::core::trace {

struct TraceRecord {
    int64_t line = 0;  // 1-based line of the record in the file
    std::string kind;  // the envelope's first key: "dynamo_start", "artifact", ...
    std::string json;  // the whole envelope
    std::string stamp; // "MMDD HH:MM:SS.uuuuuu"
    int64_t pid = -1;
    bool hasPayload = false;
    int64_t payloadOffset = -1; // byte offset of the first payload line (its tab)
    int64_t payloadBytes = 0; // bytes of the payload lines in the file, tabs and newlines included
    bool payloadOk = true;    // md5 matched (true when there is no payload)
    bool payloadCut = false;  // the file ended inside this record's payload
    std::string payload;      // filled only when wantPayload said so
};

// A line that is neither a record nor a payload line.
struct TraceLineProblem {
    int64_t line = 0;
    std::string message;
};

class TraceReader {
  public:
    struct Callbacks {
        // Asked once per record with a payload, before it is read: keep it?
        std::function<bool(const TraceRecord&)> wantPayload;
        // Every complete record, in file order.
        std::function<void(TraceRecord&)> record;
        std::function<void(const TraceLineProblem&)> problem;
        // Bytes read since the last call.
        std::function<void(int64_t)> progress;
    };

    struct Summary {
        int64_t bytes = 0;
        int64_t lines = 0;
        int64_t records = 0;
        bool cancelled = false;
        bool endsMidLine = false; // the last line has no newline: the writer was cut off
        std::string error;        // the file could not be opened or read
    };

    static Summary read(const std::string& path, const Callbacks& callbacks,
                        const std::atomic<bool>* cancel = nullptr);
};

// The parts of a record line before the JSON; false when the line is not one.
struct RecordPrefix {
    std::string_view stamp;
    int64_t pid = -1;
    std::string_view json;
};
bool parseRecordPrefix(std::string_view line, RecordPrefix& out);

// The first key of a JSON object's text without parsing the rest; empty when
// the text does not start like an object with a string key.
std::string_view firstKey(std::string_view json);

} // namespace cs::core::trace
