// The report reader on arbitrary bytes: the streaming SAX reader
// (readReportJson), and where it accepts the document, the DOM path (the whole
// document parsed, each run converted by runFromJson). Both must give the same
// runs. One legitimate difference is skipped: a document with a key twice in
// one object. The DOM keeps the last value; the SAX reader has already turned
// the iterations, graphs and runs of every copy into the model, so it keeps
// them all (it cannot take back what it streamed).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/report_from_json.h"
#include "core/report/report_json.h"

namespace {

using nlohmann::json;

// Parses `text` into a DOM; `duplicate` says whether an object repeats a key.
json parseDom(const std::string& text, bool& duplicate) {
    std::vector<std::set<std::string>> keys;
    duplicate = false;
    auto seen = [&keys, &duplicate](int, json::parse_event_t event, json& value) {
        switch (event) {
        case json::parse_event_t::object_start:
            keys.emplace_back();
            break;
        case json::parse_event_t::object_end:
            keys.pop_back();
            break;
        case json::parse_event_t::key:
            if (!keys.back().insert(value.get<std::string>()).second)
                duplicate = true;
            break;
        default:
            break;
        }
        return true;
    };
    return json::parse(text, seen, false);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const cs::core::ReportReadResult sax = cs::core::readReportJson(text, "fuzz.json");
    if (!sax.ok)
        return 0;
    bool duplicate = false;
    const json doc = parseDom(text, duplicate);
    // What the SAX reader accepted is valid JSON with a "runs" array.
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array())
        std::abort();
    if (duplicate)
        return 0;
    std::vector<cs::core::Run> runs;
    std::vector<std::string> warnings;
    size_t number = 0;
    for (const auto& element : doc["runs"]) {
        ++number;
        if (element.is_object())
            runs.push_back(cs::core::runFromJson(element, {}, warnings, number));
    }
    if (runs.size() != sax.report.runs.size())
        std::abort();
    for (size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].status != sax.report.runs[i].status || !(runs[i] == sax.report.runs[i]))
            std::abort();
    }
    return 0;
}
