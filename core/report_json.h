// The versioned JSON report: writer and reader. See docs/report-format.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "session.h"

namespace cs::core {

inline constexpr const char* kReportFormat = "compilescope.report";
inline constexpr int kReportVersion = 1;

nlohmann::json settingToJson(const Setting& setting);
Setting settingFromJson(const nlohmann::json& j);

nlohmann::json runToJson(const Run& run);
nlohmann::json reportToJson(const Report& report);
std::string writeReportJson(const Report& report, int indent = 1);

struct ReportReadResult {
    bool ok = false;
    Report report;
    std::string error;                 // when !ok: what is wrong, in plain words
    std::vector<std::string> warnings; // e.g. fields missing in an older version
};

// Parses a report document. `source` names the input in messages (a path).
ReportReadResult readReportJson(const std::string& text, const std::string& source);
ReportReadResult readReportFile(const std::string& path);

// Writes atomically (temp file + rename) so a failed save never truncates a report.
bool saveTextFile(const std::string& path, const std::string& text, std::string* error);

} // namespace cs::core
