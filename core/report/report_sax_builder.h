// Builds a report from nlohmann::json SAX events without holding the whole
// document as JSON: each element of "runs" becomes a Run as soon as it closes,
// and inside a run every iteration and every graph is converted on the spot.
// So a 100 MB report never exists twice in memory, and reading can stop early:
// on cancel, or as soon as the input is clearly not a report.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/report_from_json.h"
#include "core/report/session.h"

namespace cs::core {

class ReportSaxBuilder {
  public:
    using json = nlohmann::json;

    enum class Stop { None, Cancelled, NotAnObject, WrongFormat, TooDeep, ParseError };

    explicit ReportSaxBuilder(const std::atomic<bool>* cancel = nullptr) : cancel_(cancel) {}

    // The SAX interface nlohmann::json::sax_parse calls.
    bool null();
    bool boolean(bool value);
    bool number_integer(json::number_integer_t value);
    bool number_unsigned(json::number_unsigned_t value);
    bool number_float(json::number_float_t value, const json::string_t& text);
    bool string(json::string_t& value);
    bool binary(json::binary_t& value);
    bool start_object(std::size_t elements);
    bool key(json::string_t& name);
    bool end_object();
    bool start_array(std::size_t elements);
    bool end_array();
    bool parse_error(std::size_t position, const std::string& lastToken,
                     const nlohmann::detail::exception& error);

    Stop stop() const { return stop_; }
    // For Stop::ParseError: nlohmann's error id and the byte where it happened.
    int errorId() const { return errorId_; }
    std::size_t errorPosition() const { return errorPosition_; }
    std::string errorText() const { return errorText_; }

    // The top-level object without the contents of "runs" (they are in runs()).
    const json& root() const { return root_; }
    std::vector<Run>& runs() { return runs_; }
    std::vector<std::string>& warnings() { return warnings_; }
    // Run fields absent from the document → the 1-based numbers of the runs missing them.
    const std::map<std::string, std::vector<std::size_t>>& missingRunFields() const {
        return missing_;
    }

  private:
    // What a container is, from where it sits; decides what happens when it closes.
    enum class Role { Other, Root, Runs, Run, Latency, Iterations, Iteration, Graphs, Graph };
    struct Frame {
        json value;
        Role role = Role::Other;
        std::string key; // the key whose value comes next, in an object
    };

    bool cancelled();
    Role childRole() const;
    bool open(json value);
    bool close();
    bool scalar(json value);
    void attach(json value);
    void finishRun(const json& run);

    const std::atomic<bool>* cancel_;
    std::vector<Frame> stack_;
    json root_;
    RunParts parts_;
    std::vector<Run> runs_;
    std::size_t runElements_ = 0;
    std::vector<std::string> warnings_;
    std::map<std::string, std::vector<std::size_t>> missing_;
    Stop stop_ = Stop::None;
    int errorId_ = 0;
    std::size_t errorPosition_ = 0;
    std::string errorText_;
};

} // namespace cs::core
