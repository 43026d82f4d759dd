// Hand-built runs and reports for the advice rule tests.
#pragma once

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/advice/advice.h"
#include "core/events/event_parser.h"
#include "core/report/session.h"

namespace advice_test {

using namespace cs::core;

// A finished run: `warmup` calls (the first one compiles), then `measured` calls.
inline Run timedRun(const std::string& mode, const std::vector<int64_t>& warmup,
                    const std::vector<int64_t>& measured, const std::string& backend = "inductor") {
    Run run;
    run.setting.mode = mode;
    run.setting.backend = backend;
    run.status = RunStatus::Ok;
    run.probe.device = "cpu";
    int index = 0;
    for (auto ns : warmup) {
        run.iterations.push_back({index, ns, ns, 0, true, index == 0});
        ++index;
    }
    for (auto ns : measured) {
        run.iterations.push_back({index, ns, ns, 0, false, false});
        ++index;
    }
    return run;
}

inline std::vector<int64_t> constant(size_t n, int64_t ns) {
    return std::vector<int64_t>(n, ns);
}

inline GraphBreak makeBreak(const std::string& gbType, const std::string& reason,
                            const std::string& file, int line, const std::string& code,
                            int before = 0, int after = 1) {
    GraphBreak b;
    b.gbType = gbType;
    b.reason = reason;
    b.frames.push_back({file, line, "forward", code, true});
    b.userFrame = 0;
    b.graphBefore = before;
    b.graphAfter = after;
    return b;
}

inline Report reportOf(std::vector<Run> runs) {
    Report report;
    report.runs = std::move(runs);
    return report;
}

inline std::vector<Finding> withRule(const std::vector<Finding>& findings,
                                     const std::string& rule) {
    std::vector<Finding> out;
    for (const auto& f : findings) {
        if (f.rule == rule)
            out.push_back(f);
    }
    return out;
}

// Whether any line of `lines` (a finding's evidence) contains `part`.
inline bool hasLine(const std::vector<std::string>& lines, const std::string& part) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

inline std::string readFixture(const std::string& name) {
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/streams/" + name, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// A real probe stream replayed into a finished run.
inline Run fixtureRun(const std::string& name, const Setting& setting) {
    Run run = replayStream(readFixture(name), setting);
    run.status = run.doneStatus == "ok" ? RunStatus::Ok : RunStatus::Failed;
    return run;
}

} // namespace advice_test
