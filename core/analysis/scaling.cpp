#include "core/analysis/scaling.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/analysis/units.h"

namespace cs::core {

bool hasScaling(const Report& report) {
    return std::any_of(report.runs.begin(), report.runs.end(),
                       [](const Run& r) { return r.scaling && !r.scaling->points.empty(); });
}

std::vector<ScaleCurve> scaleCurves(const Report& report) {
    std::vector<ScaleCurve> curves;
    for (size_t i = 0; i < report.runs.size(); ++i) {
        const Run& run = report.runs[i];
        if (!run.scaling)
            continue;
        ScaleCurve curve;
        curve.runIndex = i;
        curve.label = run.setting.label();
        curve.eager = run.setting.mode == "eager";
        curve.stop = run.scaling->stop;
        for (const auto& p : run.scaling->points) {
            ScaleRow row;
            row.batchSize = p.batchSize;
            row.latency = computeStats(p.latencyNs);
            row.peakMemoryBytes = p.peakMemoryBytes;
            row.firstCallNs = p.firstCallNs;
            if (row.latency && row.latency->median > 0) {
                const double n = static_cast<double>(p.batchSize) * 1e9;
                row.throughput = n / row.latency->median;
                // A slower call bounds throughput from below, a faster one from above.
                row.throughputLow =
                    row.latency->medianCiHigh > 0 ? n / row.latency->medianCiHigh : row.throughput;
                row.throughputHigh =
                    row.latency->medianCiLow > 0 ? n / row.latency->medianCiLow : row.throughput;
            }
            curve.rows.push_back(row);
        }
        std::sort(curve.rows.begin(), curve.rows.end(),
                  [](const ScaleRow& a, const ScaleRow& b) { return a.batchSize < b.batchSize; });
        curves.push_back(std::move(curve));
    }
    // Speedup over eager at the same size (the first eager curve).
    const auto eager =
        std::find_if(curves.begin(), curves.end(), [](const ScaleCurve& c) { return c.eager; });
    if (eager == curves.end())
        return curves;
    for (auto& curve : curves) {
        if (curve.eager)
            continue;
        for (auto& row : curve.rows) {
            for (const auto& base : eager->rows) {
                if (base.batchSize == row.batchSize && base.latency && row.latency &&
                    row.latency->median > 0)
                    row.speedup = base.latency->median / row.latency->median;
            }
        }
    }
    return curves;
}

std::optional<std::string> checkBatchSizes(const std::string& text) {
    if (text == "auto")
        return std::nullopt;
    std::stringstream in(text);
    std::string item;
    long long previous = 0;
    int count = 0;
    while (std::getline(in, item, ',')) {
        char* end = nullptr;
        const long long value = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || value < 1 || value > (1LL << 30))
            return "\"" + item + "\" is not a batch size (a whole number from 1)";
        if (value <= previous)
            return "batch sizes go up: " + std::to_string(value) + " after " +
                   std::to_string(previous);
        previous = value;
        ++count;
    }
    if (count == 0)
        return "no batch sizes given (e.g. --batch-sizes 1,4,16 or auto)";
    return std::nullopt;
}

std::string scalingTable(const Report& report) {
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%-28s %7s %22s %16s %8s %11s %11s\n", "setting", "batch",
                  "median (95% CI)", "samples/s", "speedup", "peak mem", "first call");
    out += line;
    for (const auto& curve : scaleCurves(report)) {
        for (const auto& row : curve.rows) {
            const std::string median = row.latency
                                           ? formatDuration(row.latency->median) + " (" +
                                                 formatDuration(row.latency->medianCiLow) + "–" +
                                                 formatDuration(row.latency->medianCiHigh) + ")"
                                           : std::string("—");
            char speedup[32] = "—";
            if (row.speedup)
                std::snprintf(speedup, sizeof speedup, "%.2fx", *row.speedup);
            std::snprintf(
                line, sizeof line, "%-28s %7lld %22s %16s %8s %11s %11s\n", curve.label.c_str(),
                static_cast<long long>(row.batchSize), median.c_str(),
                row.throughput > 0 ? formatCount(row.throughput).c_str() : "—", speedup,
                row.peakMemoryBytes >= 0
                    ? formatBytes(static_cast<double>(row.peakMemoryBytes)).c_str()
                    : "—",
                row.firstCallNs >= 0 ? formatDuration(static_cast<double>(row.firstCallNs)).c_str()
                                     : "—");
            out += line;
        }
        if (curve.stop && curve.stop->reason != "done")
            out += "    " + curve.label + " stopped (" + curve.stop->reason +
                   (curve.stop->batchSize <= 0 ? std::string()
                    : curve.stop->reason == "budget"
                        ? ", before batch " + std::to_string(curve.stop->batchSize)
                        : " at batch " + std::to_string(curve.stop->batchSize)) +
                   ")" + (curve.stop->message.empty() ? "" : ": " + curve.stop->message) + "\n";
        else if (!curve.stop)
            out += "    " + curve.label + ": the walk did not finish (the probe ended first)\n";
    }
    return out;
}

} // namespace cs::core
