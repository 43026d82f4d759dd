#include "core/analysis/memory_timeline.h"

#include <algorithm>

namespace cs::core {

namespace {

void earliest(int64_t& best, int64_t t) {
    if (t >= 0 && (best < 0 || t < best))
        best = t;
}

void latest(int64_t& best, int64_t t) {
    best = std::max(best, t);
}

} // namespace

int64_t runOriginNs(const Run& run) {
    int64_t t = -1;
    earliest(t, run.firstEventNs);
    for (const auto& p : run.phases)
        earliest(t, p.beginNs >= 0 ? p.beginNs : p.endNs);
    for (const auto& m : run.memory) {
        if (!m.samples.empty())
            earliest(t, m.samples.front().first);
    }
    return t;
}

int64_t runEndNs(const Run& run) {
    int64_t t = run.lastEventNs;
    for (const auto& p : run.phases)
        latest(t, std::max(p.beginNs, p.endNs));
    for (const auto& m : run.memory) {
        if (!m.samples.empty())
            latest(t, m.samples.back().first);
    }
    for (const auto& s : run.gpuTrace)
        latest(t, s.endNs);
    return t;
}

std::map<std::string, int64_t> phasePeaks(const MemorySeries& series, const Run& run) {
    if (!series.phasePeaks.empty())
        return series.phasePeaks;
    std::map<std::string, int64_t> peaks;
    if (series.samples.empty())
        return peaks;
    // Two threads sample host RSS: order by time before searching.
    auto byTime = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::vector<std::pair<int64_t, int64_t>> sorted;
    if (!std::is_sorted(series.samples.begin(), series.samples.end(), byTime)) {
        sorted = series.samples;
        std::stable_sort(sorted.begin(), sorted.end(), byTime);
    }
    const auto& samples = sorted.empty() ? series.samples : sorted;
    const int64_t open = std::max(runEndNs(run), samples.back().first); // a phase never ended
    for (const auto& span : run.phases) {
        if (span.beginNs < 0)
            continue;
        const int64_t end = span.endNs >= 0 ? span.endNs : open;
        // What was held as the phase began: the last sample at or before it.
        auto first = std::upper_bound(samples.begin(), samples.end(), span.beginNs,
                                      [](int64_t t, const auto& s) { return t < s.first; });
        int64_t best = -1;
        if (first != samples.begin())
            best = std::prev(first)->second;
        for (auto it = first; it != samples.end() && it->first <= end; ++it)
            best = std::max(best, it->second);
        if (best >= 0) {
            auto [slot, fresh] = peaks.try_emplace(span.name, best);
            if (!fresh)
                slot->second = std::max(slot->second, best);
        }
    }
    return peaks;
}

std::vector<MemoryStatsPoint> memoryStatsTimeline(const Run& run) {
    std::vector<MemoryStatsPoint> out;
    std::map<std::pair<std::string, std::string>, size_t> seen;
    for (const auto& s : run.memoryStats) {
        const size_t nth = seen[{s.phase, s.edge}]++;
        size_t k = 0;
        for (const auto& span : run.phases) {
            if (span.name != s.phase)
                continue;
            if (k++ != nth)
                continue;
            const int64_t t = s.edge == "end" ? span.endNs : span.beginNs;
            if (t >= 0)
                out.push_back({t, s});
            break;
        }
    }
    std::stable_sort(
        out.begin(), out.end(),
        [](const MemoryStatsPoint& a, const MemoryStatsPoint& b) { return a.tNs < b.tNs; });
    return out;
}

std::vector<std::string> phaseOrder(const Report& report) {
    std::vector<std::string> order = {"load", "compile", "warmup", "measure", "sweep"};
    std::vector<bool> used(order.size(), false);
    std::vector<std::string> extra;
    for (const auto& run : report.runs) {
        for (const auto& p : run.phases) {
            auto it = std::find(order.begin(), order.end(), p.name);
            if (it != order.end())
                used[static_cast<size_t>(it - order.begin())] = true;
            else if (std::find(extra.begin(), extra.end(), p.name) == extra.end())
                extra.push_back(p.name);
        }
    }
    std::vector<std::string> out;
    for (size_t i = 0; i < order.size(); ++i) {
        if (used[i])
            out.push_back(order[i]);
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

} // namespace cs::core
