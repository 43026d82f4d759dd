// The versioned JSON report: writer and reader. See docs/report-format.md and
// resources/report.schema.json.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

inline constexpr const char* kReportFormat = "compilescope.report";
// Version 2: every duration is an integer number of ns (version 1 wrote compile
// phases in float seconds and statistics as floats). Bump when a field changes meaning.
inline constexpr int kReportVersion = 2;
inline constexpr int kOldestReportVersion = 1;

nlohmann::json settingToJson(const Setting& setting);
Setting settingFromJson(const nlohmann::json& j);

nlohmann::json runToJson(const Run& run);
nlohmann::json reportToJson(const Report& report);
std::string writeReportJson(const Report& report, int indent = 1);

struct ReportReadResult {
    bool ok = false;
    bool cancelled = false;
    Report report;
    std::string error;                 // when !ok: what is wrong, in plain words
    std::vector<std::string> warnings; // e.g. fields missing in an older version
};

// How a long read reports progress and learns it should stop. Both optional;
// `progress` is called from the reading thread with bytes read so far and the total.
struct ReadControl {
    std::function<void(int64_t done, int64_t total)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

// Parses a report document. `source` names the input in messages (a path).
// Both read through the same streaming parser (report_reader.cpp).
ReportReadResult readReportJson(const std::string& text, const std::string& source);
ReportReadResult readReportFile(const std::string& path, const ReadControl& control = {});

// Saves atomically: the text goes to a temporary file of its own in the same
// folder (".NAME.cs-saving-XXXXXX", hidden, never a report's extension),
// written, checked and fsync'ed, then renamed over `path`, and the folder
// fsync'ed. On any failure the temporary is removed, the previous file is left
// as it was, and `error` names the path and the cause ("the disk is full (ENOSPC)").
// A save killed midway leaves at most such a temporary, never a truncated `path`.
bool saveTextFile(const std::string& path, const std::string& text, std::string* error);

// What marks a save's temporary file, and the prefix of those for `path`
// (".NAME.cs-saving-"): readers of folders can recognise and skip them.
inline constexpr const char* kSaveTempMarker = ".cs-saving-";
std::string saveTempPrefix(const std::string& path);

} // namespace cs::core
