#include "core/report/session.h"

#include <algorithm>
#include <regex>

#include "core/report/text_lines.h"

namespace cs::core {

std::string environmentText(const std::map<std::string, std::string>& variables) {
    std::string text;
    for (const auto& [name, value] : variables) {
        // Quoted as a settings list and the GUI's field take it back.
        const bool quote = value.find_first_of(" \t,:") != std::string::npos;
        text += (text.empty() ? "" : " ") + name + "=" + (quote ? "\"" + value + "\"" : value);
    }
    return text;
}

std::string Setting::label() const {
    std::string text = mode;
    if (mode == "aoti" && strictExport)
        text += " strict";
    // as-written compiles with the model file's own backend and dynamic=.
    const bool ownOptions = mode == "eager" || mode == "aoti" || mode == kAsWritten;
    if (!ownOptions && backend != "inductor")
        text += "/" + backend;
    if (mode != "eager" && mode != kAsWritten && dynamic != "auto")
        text += dynamic == "true" ? " dyn" : " static";
    if (fullgraph)
        text += " fullgraph";
    if (autocast != "none")
        text += " " + autocast;
    if (warmCache())
        text += " warm";
    else if (cacheArtifacts())
        text += " artifacts";
    if (!environment.empty())
        text += " " + environmentText(environment);
    return text;
}

bool Setting::warmCache() const {
    return start == kStartWarmCache;
}

bool Setting::cacheArtifacts() const {
    return start == kStartCacheArtifacts;
}

const std::vector<std::string>& knownStarts() {
    static const std::vector<std::string> starts{kStartFresh, kStartWarmCache,
                                                 kStartCacheArtifacts};
    return starts;
}

const char* toString(RunStatus status) {
    switch (status) {
    case RunStatus::Pending:
        return "pending";
    case RunStatus::Running:
        return "running";
    case RunStatus::Ok:
        return "ok";
    case RunStatus::Failed:
        return "failed";
    case RunStatus::Cancelled:
        return "cancelled";
    case RunStatus::Crashed:
        return "crashed";
    case RunStatus::Timeout:
        return "timeout";
    case RunStatus::Imported:
        return "imported";
    case RunStatus::Disconnected:
        return "disconnected";
    }
    return "unknown";
}

std::optional<RunStatus> runStatusFromString(const std::string& text) {
    for (auto status : {RunStatus::Pending, RunStatus::Running, RunStatus::Ok, RunStatus::Failed,
                        RunStatus::Cancelled, RunStatus::Crashed, RunStatus::Timeout,
                        RunStatus::Imported, RunStatus::Disconnected}) {
        if (text == toString(status))
            return status;
    }
    return std::nullopt;
}

const SourceFrame* GraphBreak::location() const {
    if (userFrame >= 0 && userFrame < static_cast<int>(frames.size()))
        return &frames[static_cast<size_t>(userFrame)];
    return frames.empty() ? nullptr : &frames.back();
}

namespace {
constexpr const char* kChainedBreak =
    "*** While handling this graph break, another graph break occurred: ***";
} // namespace

std::string GraphBreak::rootReason() const {
    const size_t chain = reason.find(kChainedBreak);
    return chain == std::string::npos ? reason : reason.substr(0, chain);
}

std::string GraphBreak::rootType() const {
    if (reason.find(kChainedBreak) == std::string::npos)
        return gbType; // empty on torch without break types, as before
    return firstNonBlankLine(rootReason());
}

std::string GraphBreak::cause() const {
    std::string type = rootType();
    return type.empty() ? firstNonBlankLine(reason) : type;
}

std::optional<SourceFrame> GraphBreak::skippedFrame() const {
    static const std::regex skipped(R"(frame skipped: (\S+) \((.+) line (\d{1,9})\))");
    std::optional<SourceFrame> frame;
    forEachRegexLine(reason, [&](const std::string& line) {
        std::smatch m;
        if (frame || !std::regex_search(line, m, skipped))
            return;
        frame.emplace();
        frame->function = m[1].str();
        frame->file = m[2].str();
        frame->line = std::stoi(m[3].str());
    });
    return frame;
}

bool OutputsCheck::wrongResult() const {
    return std::any_of(worst.begin(), worst.end(), [](const OutputLeaf& leaf) {
        return leaf.kind == "nonfinite" || leaf.kind == "shape" || leaf.kind == "type" ||
               leaf.kind == "structure";
    });
}

bool OutputsCheck::sizeFollowsFloat64() const {
    return float64Shape == "compiled" && !worst.empty() &&
           differing == static_cast<int>(worst.size()) &&
           std::all_of(worst.begin(), worst.end(),
                       [](const OutputLeaf& leaf) { return leaf.kind == "shape"; });
}

bool OutputsCheck::maskedRowsOnly() const {
    return status == "differ" && !worst.empty() && differing == static_cast<int>(worst.size()) &&
           std::all_of(worst.begin(), worst.end(), [](const OutputLeaf& leaf) {
               return leaf.kind == "values" && leaf.zeroRows && leaf.zeroRows->within;
           });
}

bool Run::finished() const {
    return status != RunStatus::Pending && status != RunStatus::Running;
}

std::vector<int64_t> Run::measuredLatencies() const {
    std::vector<int64_t> out;
    out.reserve(iterations.size());
    int skip = droppedUnsettled;
    for (const auto& it : iterations) {
        if (it.warmup)
            continue;
        if (skip > 0) {
            --skip;
            continue;
        }
        out.push_back(it.latencyNs);
    }
    return out;
}

std::optional<double> Run::blockEstimateNs() const {
    if (crosscheckBlockMeansNs.empty())
        return std::nullopt;
    std::vector<double> means = crosscheckBlockMeansNs;
    std::sort(means.begin(), means.end());
    const size_t n = means.size();
    return n % 2 ? means[n / 2] : (means[n / 2 - 1] + means[n / 2]) / 2;
}

std::vector<int64_t> Run::warmupLatencies() const {
    std::vector<int64_t> out;
    for (const auto& it : iterations) {
        if (it.warmup)
            out.push_back(it.latencyNs);
    }
    return out;
}

const PhaseSpan* Run::phase(const std::string& name) const {
    for (const auto& span : phases) {
        if (span.name == name)
            return &span;
    }
    return nullptr;
}

const PhaseSpan* Run::openPhase() const {
    for (auto it = phases.rbegin(); it != phases.rend(); ++it) {
        if (it->endNs < 0)
            return &*it;
    }
    return nullptr;
}

const MemorySeries* Run::memorySeries(const std::string& kind) const {
    for (const auto& series : memory) {
        if (series.kind == kind)
            return &series;
    }
    return nullptr;
}

void Report::deriveFromRuns() {
    for (const auto& run : runs) {
        if (!run.sawHello)
            continue;
        environment.python = run.probe.python;
        environment.torch = run.probe.torch;
        environment.cuda = run.probe.cuda;
        environment.device = run.probe.deviceName.empty() ? run.probe.device : run.probe.deviceName;
        environment.cpu = run.probe.cpu;
        environment.host = run.probe.host;
        environment.platform = run.probe.platform;
        break;
    }
    for (const auto& run : runs) {
        if (!run.model.spec.empty()) {
            model = run.model;
            break;
        }
    }
}

} // namespace cs::core
