#include "core/report/chrome_trace.h"

#include <algorithm>
#include <map>

#include "core/analysis/memory_timeline.h"

namespace cs::core {

using nlohmann::json;

namespace {

struct Slice {
    int64_t beginNs = 0;
    int64_t endNs = 0;
    std::string name;
    std::string category;
    json args;
};

// Perfetto needs the slices of one track to nest perfectly. Real data mostly
// does; where two overlap without nesting (clock jitter, concurrent kernels
// reported on one stream), the later one moves to a further lane.
std::vector<std::vector<Slice>> intoLanes(std::vector<Slice> slices) {
    std::stable_sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
        return a.beginNs != b.beginNs ? a.beginNs < b.beginNs : a.endNs > b.endNs;
    });
    std::vector<std::vector<Slice>> lanes;
    std::vector<std::vector<int64_t>> openEnds; // per lane: ends of the slices still open
    for (auto& slice : slices) {
        size_t lane = 0;
        for (; lane < lanes.size(); ++lane) {
            auto& open = openEnds[lane];
            while (!open.empty() && open.back() <= slice.beginNs)
                open.pop_back();
            if (open.empty() || slice.endNs <= open.back())
                break; // fits after, or nests inside, what is open in this lane
        }
        if (lane == lanes.size()) {
            lanes.emplace_back();
            openEnds.emplace_back();
        }
        openEnds[lane].push_back(slice.endNs);
        lanes[lane].push_back(std::move(slice));
    }
    return lanes;
}

class TraceWriter {
  public:
    explicit TraceWriter(int64_t originNs) : originNs_(originNs) {}

    double us(int64_t ns) const { return static_cast<double>(ns - originNs_) / 1000.0; }

    void metadata(int pid, int tid, const char* what, json args) {
        meta_.push_back(
            {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}});
    }
    void thread(int pid, int tid, const std::string& name, int sortIndex) {
        metadata(pid, tid, "thread_name", {{"name", name}});
        metadata(pid, tid, "thread_sort_index", {{"sort_index", sortIndex}});
    }
    void complete(int pid, int tid, const Slice& s) {
        json e = {
            {"ph", "X"},           {"name", s.name},
            {"pid", pid},          {"tid", tid},
            {"ts", us(s.beginNs)}, {"dur", static_cast<double>(s.endNs - s.beginNs) / 1000.0}};
        if (!s.category.empty())
            e["cat"] = s.category;
        if (!s.args.is_null())
            e["args"] = s.args;
        add(s.beginNs, s.endNs - s.beginNs, std::move(e));
    }
    void counter(int pid, const std::string& name, int64_t tNs, json args) {
        add(tNs, 0,
            {{"ph", "C"},
             {"name", name},
             {"pid", pid},
             {"tid", 0},
             {"ts", us(tNs)},
             {"args", std::move(args)}});
    }
    void instant(int pid, int tid, const std::string& name, int64_t tNs, json args) {
        add(tNs, 0,
            {{"ph", "i"},
             {"s", "t"},
             {"name", name},
             {"pid", pid},
             {"tid", tid},
             {"ts", us(tNs)},
             {"args", std::move(args)}});
    }
    // Tracks (threads) of a process are numbered in the order they are made,
    // which is also the order they are shown.
    int newTrack(int pid, const std::string& name) {
        const int tid = ++tracks_[pid];
        thread(pid, tid, name, tid);
        return tid;
    }
    // One track of slices, or more where they overlap: the first keeps `name`.
    int slices(int pid, const std::string& name, std::vector<Slice> slices) {
        int first = 0;
        auto laned = intoLanes(std::move(slices));
        for (size_t lane = 0; lane < laned.size(); ++lane) {
            const int tid =
                newTrack(pid, lane ? name + " (overlap " + std::to_string(lane + 1) + ")" : name);
            first = first ? first : tid;
            for (const auto& s : laned[lane])
                complete(pid, tid, s);
        }
        return first;
    }

    json finish(json otherData) {
        std::stable_sort(events_.begin(), events_.end(), [](const Timed& a, const Timed& b) {
            return a.tNs != b.tNs ? a.tNs < b.tNs : a.durNs > b.durNs; // parents before children
        });
        json all = json::array();
        for (auto& m : meta_)
            all.push_back(std::move(m));
        for (auto& e : events_)
            all.push_back(std::move(e.event));
        return {{"traceEvents", std::move(all)},
                {"displayTimeUnit", "ns"},
                {"otherData", std::move(otherData)}};
    }

  private:
    struct Timed {
        int64_t tNs;
        int64_t durNs;
        json event;
    };
    void add(int64_t tNs, int64_t durNs, json event) {
        events_.push_back({tNs, durNs, std::move(event)});
    }

    int64_t originNs_;
    std::map<int, int> tracks_; // pid -> last tid
    std::vector<json> meta_;
    std::vector<Timed> events_;
};

std::vector<Slice> phaseSlices(const Run& run) {
    std::vector<Slice> out;
    const int64_t end = runEndNs(run);
    for (const auto& p : run.phases) {
        if (p.beginNs < 0)
            continue; // an end without a begin: nothing to draw
        Slice s{p.beginNs, p.endNs, p.name, "phase", json()};
        if (p.endNs < 0) {
            s.endNs = std::max(p.beginNs, end);
            s.args = {{"open", true}, {"note", "the probe ended inside this phase"}};
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<Slice> callSlices(const Run& run) {
    std::vector<Slice> out;
    for (const auto& it : run.iterations) {
        const int64_t wall = it.wallNs > 0 ? it.wallNs : it.latencyNs;
        if (it.tNs <= 0 || wall <= 0 || wall > it.tNs)
            continue; // read from a report without times
        // The probe reports a call as soon as it returns: it ran for wall_ns before t_ns.
        std::string name = it.firstCall ? "first call (compiles)"
                           : it.warmup  ? "warmup call " + std::to_string(it.index)
                                        : "call " + std::to_string(it.index);
        out.push_back(
            {it.tNs - wall,
             it.tNs,
             std::move(name),
             it.warmup ? "warmup" : "measure",
             {{"index", it.index}, {"latency_ns", it.latencyNs}, {"wall_ns", it.wallNs}}});
    }
    return out;
}

const char* sliceCategory(int kind) {
    switch (kind) {
    case GpuSlice::Kernel:
        return "kernel";
    case GpuSlice::Memcpy:
        return "memcpy";
    case GpuSlice::Memset:
        return "memset";
    default:
        return "gpu";
    }
}

void addMemory(TraceWriter& w, int pid, const Run& run) {
    for (const auto& m : run.memory) {
        const std::string name = m.kind == "host_rss" ? "host memory (RSS)"
                                 : m.kind == "device" ? "device memory held (CUPTI)"
                                                      : "memory " + m.kind;
        for (const auto& [t, bytes] : m.samples)
            w.counter(pid, name, t, {{"bytes", bytes}});
    }
    for (const auto& point : memoryStatsTimeline(run)) {
        w.counter(pid, "torch.cuda memory", point.tNs,
                  {{"allocated", point.stats.allocated}, {"reserved", point.stats.reserved}});
    }
}

void addGpu(TraceWriter& w, int pid, const Run& run) {
    std::map<int64_t, std::vector<Slice>> byStream;
    for (const auto& g : run.gpuTrace) {
        json args = {{"stream", g.stream}};
        if (g.kind != GpuSlice::Kernel)
            args["bytes"] = g.bytes;
        byStream[g.stream].push_back(
            {g.startNs, g.endNs, g.name, sliceCategory(g.kind), std::move(args)});
    }
    int firstTid = 0;
    for (auto& [stream, slices] : byStream) {
        const int tid = w.slices(pid, "GPU stream " + std::to_string(stream), std::move(slices));
        firstTid = firstTid ? firstTid : tid;
    }
    if (run.gpuTraceTruncated > 0 && firstTid) {
        w.instant(pid, firstTid, "GPU trace cut short", run.gpuTrace.back().endNs,
                  {{"records_left_out", run.gpuTraceTruncated},
                   {"note", "the probe keeps the first records of the " + run.gpuTracePhase +
                                " phase; set COMPILESCOPE_GPU_TRACE_LIMIT to keep more"}});
    }
}

} // namespace

json chromeTrace(const Report& report) {
    int64_t origin = -1;
    for (const auto& run : report.runs) {
        const int64_t t = runOriginNs(run);
        if (t >= 0 && (origin < 0 || t < origin))
            origin = t;
    }
    TraceWriter w(std::max<int64_t>(origin, 0));
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const Run& run = report.runs[r];
        const int pid = static_cast<int>(r) + 1;
        w.metadata(pid, 0, "process_name",
                   {{"name", run.setting.label() + " (" + toString(run.status) + ")"}});
        w.metadata(pid, 0, "process_sort_index", {{"sort_index", pid}});
        w.slices(pid, "phases", phaseSlices(run));
        w.slices(pid, "calls", callSlices(run));
        int logTid = 0;
        for (const auto& log : run.logs) {
            if (log.tNs <= 0)
                continue;
            logTid = logTid ? logTid : w.newTrack(pid, "probe log");
            w.instant(pid, logTid, log.level + ": " + log.message.substr(0, 120), log.tNs,
                      {{"level", log.level}, {"message", log.message}});
        }
        addMemory(w, pid, run);
        addGpu(w, pid, run);
    }
    return w.finish(
        {{"generator", report.generator.empty() ? std::string("compilescope") : report.generator},
         {"clock", "CLOCK_MONOTONIC"},
         {"origin_ns", origin},
         {"model", report.model.spec}});
}

std::string writeChromeTrace(const Report& report) {
    return chromeTrace(report).dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace cs::core
