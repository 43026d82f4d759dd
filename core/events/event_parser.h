// Incremental JSON Lines reader for the probe's event stream. Bytes arrive in
// arbitrary chunks; complete lines become events, a malformed line becomes a
// problem with its line number and is skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

struct StreamItem {
    int64_t line = 0;
    bool ok = false;
    nlohmann::json event; // when ok
    std::string problem;  // when not ok
};

// No event comes near this (a big graph is a few MB); a longer line is a
// broken or hostile stream, so it is reported and dropped, never buffered.
inline constexpr size_t kMaxEventLineBytes = size_t{64} << 20;

// What a run keeps of what no view needs in bulk: a stream of garbage, of
// unknown events or of log lines (a broken or hostile probe writing at full
// speed) must not grow the app without limit. Past each bound one entry says
// that more came and was left out; everything else is kept.
inline constexpr size_t kMaxKeptProblems = 1000;
inline constexpr size_t kMaxKeptUnknownEvents = 1000;
inline constexpr size_t kMaxKeptLogs = 10000;
// Coded lines (LogLine::code) past that cap: the analysis reads them.
inline constexpr size_t kMaxKeptCodedLogs = 64;

class EventParser {
  public:
    // A line longer than maxLineBytes (without its newline) becomes one problem
    // naming its line number; its bytes are skipped up to the next newline.
    // The same whether it arrives in one chunk or many.
    explicit EventParser(size_t maxLineBytes = kMaxEventLineBytes) : maxLineBytes_(maxLineBytes) {}

    std::vector<StreamItem> feed(std::string_view chunk);
    // The stream ended: a last line without newline is still parsed (a probe
    // that died mid-write leaves a partial line, reported as such).
    std::vector<StreamItem> finish();

  private:
    void takeLine(std::string_view text, bool complete, std::vector<StreamItem>& out);
    void tooLong(std::vector<StreamItem>& out);

    std::string pending_;
    int64_t line_ = 0;
    size_t maxLineBytes_;
    bool skippingLongLine_ = false;
};

// Applies one parsed event to a run. Unknown types and fields are kept.
void applyEvent(Run& run, const nlohmann::json& event);
void applyStreamItem(Run& run, const StreamItem& item);

// Replays a whole saved stream (a fixture or a .jsonl file) into a run.
Run replayStream(std::string_view text, const Setting& setting = {});

} // namespace cs::core
