#include "core/report/report_sax_builder.h"

#include "core/report/report_json.h"

namespace cs::core {

namespace {
// Reports are a few levels deep; anything deeper is not one (and would only cost memory).
constexpr std::size_t kMaxDepth = 256;
} // namespace

bool ReportSaxBuilder::cancelled() {
    if (cancel_ && cancel_->load(std::memory_order_relaxed)) {
        stop_ = Stop::Cancelled;
        return true;
    }
    return false;
}

ReportSaxBuilder::Role ReportSaxBuilder::childRole() const {
    if (stack_.empty())
        return Role::Root;
    const Frame& parent = stack_.back();
    switch (parent.role) {
    case Role::Root:
        return parent.key == "runs" ? Role::Runs : Role::Other;
    case Role::Runs:
        return Role::Run;
    case Role::Run:
        if (parent.key == "latency")
            return Role::Latency;
        return parent.key == "graphs" ? Role::Graphs : Role::Other;
    case Role::Latency:
        return parent.key == "iterations" ? Role::Iterations : Role::Other;
    case Role::Iterations:
        return Role::Iteration;
    case Role::Graphs:
        return Role::Graph;
    default:
        return Role::Other;
    }
}

bool ReportSaxBuilder::open(json value) {
    if (cancelled())
        return false;
    if (stack_.empty() && !value.is_object()) {
        stop_ = Stop::NotAnObject;
        return false;
    }
    if (stack_.size() >= kMaxDepth) {
        stop_ = Stop::TooDeep;
        return false;
    }
    Role role = childRole();
    if (role == Role::Run && !value.is_object())
        warnings_.push_back("run " + std::to_string(++runElements_) + " is not an object; skipped");
    // Only objects are runs, iterations and graphs; an array there is just kept.
    if (!value.is_object() && (role == Role::Run || role == Role::Iteration ||
                               role == Role::Graph || role == Role::Latency || role == Role::Root))
        role = Role::Other;
    if (value.is_object() &&
        (role == Role::Runs || role == Role::Iterations || role == Role::Graphs))
        role = Role::Other;
    if (role == Role::Run)
        parts_ = {};
    stack_.push_back({std::move(value), role, {}});
    return true;
}

bool ReportSaxBuilder::close() {
    if (cancelled())
        return false;
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    switch (frame.role) {
    case Role::Root:
        root_ = std::move(frame.value);
        return true;
    case Role::Run:
        finishRun(frame.value);
        return true;
    case Role::Iteration:
        parts_.iterations.push_back(iterationFromJson(frame.value));
        return true;
    case Role::Graph:
        parts_.graphs.push_back(graphFromJson(frame.value));
        return true;
    default:
        attach(std::move(frame.value));
        return true;
    }
}

void ReportSaxBuilder::finishRun(const json& run) {
    const std::size_t number = ++runElements_;
    for (const auto& field : runFieldNames()) {
        if (!run.contains(field))
            missing_[field].push_back(number);
    }
    runs_.push_back(runFromJson(run, std::move(parts_), warnings_, number));
    parts_ = {};
}

void ReportSaxBuilder::attach(json value) {
    Frame& parent = stack_.back();
    if (parent.value.is_object())
        parent.value[parent.key] = std::move(value);
    else
        parent.value.push_back(std::move(value));
}

bool ReportSaxBuilder::scalar(json value) {
    if (cancelled())
        return false;
    if (stack_.empty()) {
        stop_ = Stop::NotAnObject;
        return false;
    }
    const Frame& parent = stack_.back();
    if (parent.role == Role::Root && parent.key == "format" &&
        (!value.is_string() || value.get_ref<const std::string&>() != kReportFormat)) {
        stop_ = Stop::WrongFormat; // no need to read 100 MB of someone else's JSON
        return false;
    }
    if (parent.role == Role::Runs) {
        const std::size_t number = ++runElements_;
        warnings_.push_back("run " + std::to_string(number) + " is not an object; skipped");
        return true;
    }
    attach(std::move(value));
    return true;
}

bool ReportSaxBuilder::null() {
    return scalar(nullptr);
}
bool ReportSaxBuilder::boolean(bool value) {
    return scalar(value);
}
bool ReportSaxBuilder::number_integer(json::number_integer_t value) {
    return scalar(value);
}
bool ReportSaxBuilder::number_unsigned(json::number_unsigned_t value) {
    return scalar(value);
}
bool ReportSaxBuilder::number_float(json::number_float_t value, const json::string_t&) {
    return scalar(value);
}
bool ReportSaxBuilder::string(json::string_t& value) {
    return scalar(std::move(value));
}
bool ReportSaxBuilder::binary(json::binary_t& value) {
    return scalar(json::binary(std::move(value)));
}
bool ReportSaxBuilder::start_object(std::size_t) {
    return open(json::object());
}
bool ReportSaxBuilder::start_array(std::size_t) {
    return open(json::array());
}
bool ReportSaxBuilder::end_object() {
    return close();
}
bool ReportSaxBuilder::end_array() {
    return close();
}
bool ReportSaxBuilder::key(json::string_t& name) {
    if (cancelled())
        return false;
    stack_.back().key = std::move(name);
    return true;
}

bool ReportSaxBuilder::parse_error(std::size_t position, const std::string&,
                                   const nlohmann::detail::exception& error) {
    stop_ = Stop::ParseError;
    errorId_ = error.id;
    errorPosition_ = position;
    errorText_ = error.what();
    return false;
}

} // namespace cs::core
