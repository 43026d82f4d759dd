// Reading a report: both a string and a file go through the streaming SAX
// builder; this file turns what it found into a result with plain messages.
#include <algorithm>
#include <istream>

#include "core/advice/advice_json.h"
#include "core/report/progress_file_buffer.h"
#include "core/report/report_from_json.h"
#include "core/report/report_json.h"
#include "core/report/report_sax_builder.h"

namespace cs::core {

using nlohmann::json;

namespace {

constexpr const char* kWhatToDo = " Open a .json report written by compilescope.";

std::string joinNumbers(const std::vector<std::size_t>& numbers, std::size_t runCount) {
    if (numbers.size() == runCount && runCount > 1)
        return "every run";
    std::string text = numbers.size() == 1 ? "run " : "runs ";
    for (std::size_t i = 0; i < numbers.size(); ++i)
        text += (i ? ", " : "") + std::to_string(numbers[i]);
    return text;
}

std::string parseErrorMessage(const ReportSaxBuilder& builder, const std::string& source,
                              int64_t totalBytes) {
    if (totalBytes == 0)
        return source + " is empty: it is not a compilescope report." + kWhatToDo;
    // 101 "unexpected end of input" at the last byte: the document stops mid-way.
    const bool truncated =
        builder.errorId() == 101 && static_cast<int64_t>(builder.errorPosition()) >= totalBytes;
    if (truncated) {
        return source + " is not a complete compilescope report: the file ends early at byte " +
               std::to_string(totalBytes) +
               " (truncated? it may have been cut off while being written or copied)." + kWhatToDo;
    }
    return source + " is not a compilescope report: not valid JSON (byte " +
           std::to_string(builder.errorPosition()) + ")." + kWhatToDo;
}

ReportReadResult finish(ReportSaxBuilder& builder, const std::string& source, int64_t totalBytes) {
    ReportReadResult result;
    switch (builder.stop()) {
    case ReportSaxBuilder::Stop::None:
        break;
    case ReportSaxBuilder::Stop::Cancelled:
        result.cancelled = true;
        result.error = "Opening " + source + " was cancelled.";
        return result;
    case ReportSaxBuilder::Stop::NotAnObject:
    case ReportSaxBuilder::Stop::WrongFormat:
        result.error = source + " is valid JSON but not a compilescope report (no \"format\": \"" +
                       kReportFormat + "\")." + kWhatToDo;
        return result;
    case ReportSaxBuilder::Stop::TooDeep:
        result.error =
            source + " is not a compilescope report: its JSON is nested far deeper than a report." +
            kWhatToDo;
        return result;
    case ReportSaxBuilder::Stop::ParseError:
        result.error = parseErrorMessage(builder, source, totalBytes);
        return result;
    }

    const json& doc = builder.root();
    auto format = doc.find("format");
    if (format == doc.end() || !format->is_string() ||
        format->get<std::string>() != kReportFormat) {
        result.error = source + " is valid JSON but not a compilescope report (no \"format\": \"" +
                       kReportFormat + "\")." + kWhatToDo;
        return result;
    }
    auto versionIt = doc.find("version");
    const int64_t rawVersion =
        versionIt != doc.end() && versionIt->is_number_integer() ? versionIt->get<int64_t>() : 0;
    const int version = static_cast<int>(std::clamp<int64_t>(rawVersion, 0, 1 << 20));
    if (version < kOldestReportVersion) {
        result.error = source + " has no valid report \"version\" (a whole number from " +
                       std::to_string(kOldestReportVersion) +
                       "); it may be damaged or hand-edited.";
        return result;
    }
    auto runs = doc.find("runs");
    if (runs == doc.end() || !runs->is_array()) {
        result.error =
            source + " is a compilescope report without a \"runs\" list; it may be damaged.";
        return result;
    }
    if (version > kReportVersion) {
        result.warnings.push_back(
            source + " is report version " + std::to_string(version) +
            ", newer than this compilescope reads (" + std::to_string(kReportVersion) +
            "); showing what this version knows. Update compilescope to see all of it.");
    }

    Report& r = result.report;
    r.version = version;
    auto text = [&doc](const char* key) {
        auto it = doc.find(key);
        return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    r.generator = text("generator");
    r.created = text("created");
    auto object = [&doc](const char* key) {
        auto it = doc.find(key);
        return it != doc.end() && it->is_object() ? *it : json::object();
    };
    r.model = modelFromJson(object("model"));
    r.environment = environmentFromJson(object("environment"));
    r.runs = std::move(builder.runs());
    // Findings are derived: keep only the options they were derived with (advice_json.h).
    r.adviceOptions = adviceOptionsFromJson(object("advice"));

    // Say which fields are absent (an older or hand-made report), without flooding.
    const std::string versionNote = version < kReportVersion
                                        ? " (report version " + std::to_string(version) + ")"
                                        : std::string();
    std::vector<std::string> absent;
    for (const auto& field : reportFieldNames()) {
        if (!doc.contains(field))
            absent.push_back("\"" + field + "\"");
    }
    if (!absent.empty()) {
        std::string list;
        for (const auto& a : absent)
            list += (list.empty() ? "" : ", ") + a;
        result.warnings.push_back(source + versionNote + " has no " + list + "; shown empty.");
    }
    for (const auto& [field, numbers] : builder.missingRunFields()) {
        result.warnings.push_back(source + versionNote + ": field \"" + field +
                                  "\" is missing in " + joinNumbers(numbers, r.runs.size()) +
                                  "; shown empty.");
    }
    for (auto& w : builder.warnings())
        result.warnings.push_back(std::move(w));
    result.ok = true;
    return result;
}

} // namespace

ReportReadResult readReportJson(const std::string& text, const std::string& source) {
    ReportSaxBuilder builder;
    json::sax_parse(text, &builder);
    return finish(builder, source, static_cast<int64_t>(text.size()));
}

ReportReadResult readReportFile(const std::string& path, const ReadControl& control) {
    ProgressFileBuffer buffer(path, control.progress, control.cancel);
    if (!buffer.isOpen()) {
        ReportReadResult result;
        result.error = "Cannot open " + path + ": the file does not exist or is not readable.";
        return result;
    }
    ReportSaxBuilder builder(control.cancel);
    std::istream in(&buffer);
    json::sax_parse(in, &builder);
    if (buffer.readFailed()) {
        ReportReadResult result;
        result.error = "Reading " + path + " failed after " + std::to_string(buffer.bytesRead()) +
                       " bytes (a disk or network file system error).";
        return result;
    }
    // The input ends early when cancelled; say cancelled rather than truncated.
    if (control.cancel && control.cancel->load() &&
        builder.stop() != ReportSaxBuilder::Stop::None) {
        ReportReadResult result;
        result.cancelled = true;
        result.error = "Opening " + path + " was cancelled.";
        return result;
    }
    return finish(builder, path, buffer.bytesRead());
}

} // namespace cs::core
