// Hand-built batch-size walks for the scaling analysis, rule and views.
#pragma once

#include <cmath>
#include <map>
#include <string>

#include "core/report/session.h"

namespace scale_test {

// 30 calls spread ±1% around `medianNs`, deterministic.
inline std::vector<int64_t> calls(double medianNs) {
    std::vector<int64_t> out;
    for (int i = 0; i < 30; ++i)
        out.push_back(
            static_cast<int64_t>(std::llround(medianNs * (1.0 + 0.01 * ((i % 7) - 3) / 3.0))));
    return out;
}

// A run walking `mediansUs` (batch size -> median µs), ending with `stop`.
inline cs::core::Run walk(const std::string& mode, const std::map<int64_t, double>& mediansUs,
                          const cs::core::ScaleStop& stop = {"done", 0, ""},
                          const std::map<int64_t, int64_t>& peakBytes = {}) {
    cs::core::Run run;
    run.setting.mode = mode;
    run.status = cs::core::RunStatus::Ok;
    cs::core::Scaling s;
    s.batchSource = "dim0";
    for (const auto& [batch, us] : mediansUs) {
        cs::core::ScalePoint p;
        p.batchSize = batch;
        p.firstCallNs = mode == "eager" ? 2'000'000 : 900'000'000;
        p.latencyNs = calls(us * 1000);
        auto peak = peakBytes.find(batch);
        p.peakMemoryBytes = peak == peakBytes.end() ? batch * 1'000'000 : peak->second;
        p.memoryKind = "host_rss";
        s.requested.push_back(batch);
        s.points.push_back(p);
    }
    s.stop = stop;
    run.scaling = s;
    return run;
}

inline cs::core::Report report(std::vector<cs::core::Run> runs) {
    cs::core::Report r;
    r.model.spec = "mlp.py";
    r.runs = std::move(runs);
    return r;
}

} // namespace scale_test
