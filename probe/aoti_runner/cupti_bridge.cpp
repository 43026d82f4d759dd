#include "cupti_bridge.h"

#include "cupti_abi.h"

#include <algorithm>
#include <dlfcn.h>
#include <memory>

namespace cs::aoti {

namespace {

constexpr uint32_t kPoolTypeLocal = 1;

bool deviceKind(uint16_t subkind) {
    return subkind == 3 || subkind == 4 || subkind == 6; // DEVICE, ARRAY, DEVICE_STATIC
}

bool timed(const MemRecord& r) {
    return (r.flags & cupti_abi::kFlagNoTimestamp) == 0;
}

bool byTime(const MemRecord& a, const MemRecord& b) {
    return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
}

} // namespace

DeviceMemory deviceMemoryTimeline(std::vector<MemRecord> records, int64_t startNs) {
    std::vector<MemRecord> mem;
    for (auto& r : records) {
        const bool allocOrFree =
            (r.kind == cupti_abi::kRecMemAlloc || r.kind == cupti_abi::kRecMemFree) &&
            deviceKind(r.subkind);
        const bool pool = r.kind == cupti_abi::kRecPoolCreated ||
                          r.kind == cupti_abi::kRecPoolDestroyed ||
                          r.kind == cupti_abi::kRecPoolTrimmed;
        if (timed(r) && (allocOrFree || pool)) {
            mem.push_back(std::move(r));
        }
    }
    std::sort(mem.begin(), mem.end(), byTime);
    using Key = std::pair<uint32_t, uint64_t>;
    std::map<Key, int64_t> live;
    std::map<Key, std::pair<int64_t, Key>> pooledLive;
    std::map<Key, int64_t> pools;
    int64_t direct = 0;
    int64_t pooled = 0;
    DeviceMemory out;
    auto held = [&] {
        int64_t poolSum = 0;
        for (const auto& [k, size] : pools) {
            poolSum += size;
        }
        return direct + std::max(poolSum, pooled);
    };
    out.samples.emplace_back(startNs, held());
    for (const MemRecord& r : mem) {
        const Key key{r.deviceId, r.address};
        const Key poolKey{r.deviceId, r.poolAddress};
        const bool inPool = r.poolType != 0 || (r.flags & cupti_abi::kFlagAsync) != 0;
        const auto bytes = static_cast<int64_t>(r.bytes);
        if (r.kind == cupti_abi::kRecMemAlloc && inPool) {
            if (auto it = pooledLive.find(key); it != pooledLive.end()) {
                pooled -= it->second.first;
            }
            pooled += bytes;
            pooledLive[key] = {bytes, poolKey};
        } else if (r.kind == cupti_abi::kRecMemAlloc) {
            if (auto it = live.find(key); it != live.end()) {
                direct -= it->second;
            }
            live[key] = bytes;
            direct += bytes;
        } else if (r.kind == cupti_abi::kRecMemFree && inPool) {
            if (auto it = pooledLive.find(key); it != pooledLive.end()) {
                pooled -= it->second.first;
                pooledLive.erase(it);
            } else {
                ++out.unknownFrees;
            }
        } else if (r.kind == cupti_abi::kRecMemFree) {
            if (auto it = live.find(key); it != live.end()) {
                direct -= it->second;
                live.erase(it);
            } else {
                ++out.unknownFrees;
            }
        } else if (r.kind == cupti_abi::kRecPoolDestroyed) {
            pools.erase(poolKey);
            for (auto it = pooledLive.begin(); it != pooledLive.end();) {
                if (it->second.second == poolKey) {
                    pooled -= it->second.first;
                    it = pooledLive.erase(it);
                } else {
                    ++it;
                }
            }
        } else {
            pools[poolKey] = static_cast<int64_t>(r.poolSize);
        }
        if ((r.kind == cupti_abi::kRecMemAlloc || r.kind == cupti_abi::kRecMemFree) &&
            r.poolType == kPoolTypeLocal && r.poolSize != 0) {
            pools[poolKey] = static_cast<int64_t>(r.poolSize);
        }
        const auto t = static_cast<int64_t>(r.startNs);
        if (out.samples.back().first == t) {
            out.samples.back().second = held();
        } else {
            out.samples.emplace_back(t, held());
        }
    }
    for (const auto& s : out.samples) {
        out.peak = std::max(out.peak, s.second);
    }
    return out;
}

std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>
phaseWindows(const std::vector<MemRecord>& records, int64_t openEndNs) {
    std::vector<const MemRecord*> marks;
    for (const auto& r : records) {
        if (r.kind == cupti_abi::kRecPhase && !r.name.empty()) {
            marks.push_back(&r);
        }
    }
    std::sort(marks.begin(), marks.end(),
              [](const MemRecord* a, const MemRecord* b) { return byTime(*a, *b); });
    std::map<std::string, int64_t> opened;
    std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> windows;
    for (const MemRecord* m : marks) {
        const auto t = static_cast<int64_t>(m->startNs);
        if ((m->flags & cupti_abi::kFlagPhaseEnd) != 0) {
            if (auto it = opened.find(m->name); it != opened.end()) {
                windows[m->name].emplace_back(it->second, t);
                opened.erase(it);
            }
        } else {
            opened[m->name] = t;
        }
    }
    for (const auto& [name, begin] : opened) {
        if (openEndNs > begin) {
            windows[name].emplace_back(begin, openEndNs);
        }
    }
    for (auto& [name, spans] : windows) {
        std::sort(spans.begin(), spans.end());
    }
    return windows;
}

std::map<std::string, int64_t>
phasePeaks(const std::vector<std::pair<int64_t, int64_t>>& samples,
           const std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>& windows) {
    std::map<std::string, int64_t> peaks;
    auto after = [&](int64_t t) {
        return static_cast<size_t>(
            std::upper_bound(samples.begin(), samples.end(), t,
                             [](int64_t v, const auto& s) { return v < s.first; }) -
            samples.begin());
    };
    for (const auto& [name, spans] : windows) {
        bool any = false;
        int64_t best = 0;
        for (const auto& [begin, end] : spans) {
            size_t first = after(begin);
            if (first > 0) {
                --first; // what was held as the phase began
            }
            const size_t last = after(end);
            for (size_t k = first; k < last; ++k) {
                best = any ? std::max(best, samples[k].second) : samples[k].second;
                any = true;
            }
        }
        if (any) {
            peaks[name] = best;
        }
    }
    return peaks;
}

struct CuptiBridge::Api {
    int (*abiVersion)();
    size_t (*recordSize)();
    size_t (*statsSize)();
    int (*start)(uint64_t, uint64_t, uint32_t);
    int (*markPhase)(const char*, uint32_t, uint64_t);
    int (*flush)(int);
    int (*read)(cupti_abi::Record*, size_t, size_t*);
    const char* (*name)(uint32_t);
    int (*getStats)(cupti_abi::Stats*, size_t);
    int (*stop)();
    size_t (*lastError)(char*, size_t);
    size_t (*libraryPath)(char*, size_t);
};

namespace {

template <typename F> bool bind(void* handle, const char* symbol, F& out) {
    void* p = dlsym(handle, symbol);
    out = reinterpret_cast<F>(p);
    return p != nullptr;
}

void status(EventSink& sink, bool active, const std::string& message, const std::string& library) {
    JsonLine e = event("cupti_status");
    e.field("active", active).field("message", message);
    if (library.empty()) {
        e.nullField("library");
    } else {
        e.field("library", library);
    }
    sink.emit(e);
}

} // namespace

std::string CuptiBridge::lastError() const {
    char buf[1024] = {};
    if (api_ == nullptr) {
        return {};
    }
    api_->lastError(buf, sizeof buf);
    return buf;
}

bool CuptiBridge::start(const std::string& libraryPath, EventSink& sink) {
    handle_ = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
        const char* why = dlerror();
        status(sink, false,
               "the CUPTI collector " + libraryPath +
                   " cannot be loaded: " + (why != nullptr ? why : "unknown error"),
               {});
        return false;
    }
    static Api api{};
    const bool bound = bind(handle_, "cs_cupti_abi_version", api.abiVersion) &&
                       bind(handle_, "cs_cupti_record_size", api.recordSize) &&
                       bind(handle_, "cs_cupti_stats_size", api.statsSize) &&
                       bind(handle_, "cs_cupti_start", api.start) &&
                       bind(handle_, "cs_cupti_mark_phase", api.markPhase) &&
                       bind(handle_, "cs_cupti_flush", api.flush) &&
                       bind(handle_, "cs_cupti_read", api.read) &&
                       bind(handle_, "cs_cupti_name", api.name) &&
                       bind(handle_, "cs_cupti_get_stats", api.getStats) &&
                       bind(handle_, "cs_cupti_stop", api.stop) &&
                       bind(handle_, "cs_cupti_last_error", api.lastError) &&
                       bind(handle_, "cs_cupti_library_path", api.libraryPath);
    if (!bound || api.abiVersion() != cupti_abi::kAbiVersion ||
        api.recordSize() != sizeof(cupti_abi::Record) ||
        api.statsSize() != sizeof(cupti_abi::Stats)) {
        status(sink, false,
               libraryPath + " is not a compatible CUPTI collector (ABI " +
                   std::to_string(cupti_abi::kAbiVersion) + "): rebuild it from this source tree",
               {});
        return false;
    }
    api_ = &api;
    char path[4096] = {};
    api.libraryPath(path, sizeof path);
    startedNs_ = monotonicNs();
    if (const int rc = api.start(0, 0, 0); rc != cupti_abi::kOk) {
        status(sink, false,
               "CUPTI could not start (code " + std::to_string(rc) + "): " + lastError(), path);
        return false;
    }
    active_ = true;
    JsonLine e = event("cupti_status");
    e.field("active", true)
        .field("message", std::string("CUPTI collector started by compilescope-aoti-runner; only "
                                      "the device memory timeline is sent"))
        .field("library", std::string(path))
        .field("collector", libraryPath);
    sink.emit(e);
    return true;
}

void CuptiBridge::markPhase(const char* name, bool end, int64_t tNs) {
    if (active_) {
        api_->markPhase(name, end ? 1U : 0U, static_cast<uint64_t>(tNs));
    }
}

void CuptiBridge::summarize(EventSink& sink) {
    if (!active_) {
        return;
    }
    active_ = false;
    api_->flush(1);
    std::vector<MemRecord> records;
    constexpr size_t kChunk = 1 << 14;
    auto buf = std::make_unique<cupti_abi::Record[]>(kChunk);
    int64_t lastNs = startedNs_;
    for (;;) {
        size_t count = 0;
        if (api_->read(buf.get(), kChunk, &count) != cupti_abi::kOk || count == 0) {
            break;
        }
        for (size_t i = 0; i < count; ++i) {
            const cupti_abi::Record& c = buf[i];
            MemRecord r;
            r.kind = c.kind;
            r.subkind = c.subkind;
            r.flags = c.flags;
            r.poolType = c.pool_type;
            r.deviceId = c.device_id;
            r.startNs = c.start_ns;
            r.bytes = c.bytes;
            r.address = c.address;
            r.poolAddress = c.pool_address;
            r.poolSize = c.pool_size;
            r.seq = c.seq;
            if (c.kind == cupti_abi::kRecPhase) {
                const char* n = api_->name(c.name_id);
                r.name = n != nullptr ? n : "";
            }
            lastNs = std::max<int64_t>(lastNs, static_cast<int64_t>(c.end_ns));
            if (c.kind == cupti_abi::kRecPhase || c.kind >= cupti_abi::kRecMemAlloc) {
                records.push_back(std::move(r));
            }
        }
        if (count < kChunk) {
            break;
        }
    }
    cupti_abi::Stats stats{};
    const bool haveStats = api_->getStats(&stats, sizeof stats) == cupti_abi::kOk;
    const auto windows = phaseWindows(records, lastNs);
    DeviceMemory memory = deviceMemoryTimeline(records, startedNs_);
    const auto peaks = phasePeaks(memory.samples, windows);
    const uint64_t dropped = haveStats ? stats.dropped_by_cupti + stats.dropped_over_cap : 0;

    JsonLine e = event("memory");
    e.field("kind", "device").field("source", "cupti").key("samples").beginArray();
    for (const auto& [t, bytes] : memory.samples) {
        e.beginArray().value(static_cast<long long>(t)).value(static_cast<long long>(bytes)).end();
    }
    e.end();
    e.field("peak", static_cast<long long>(memory.peak)).key("phase_peaks").beginObject();
    for (const auto& [name, bytes] : peaks) {
        e.field(name, static_cast<long long>(bytes));
    }
    e.end();
    e.field("baseline", 0)
        .field("unknown_frees", static_cast<long long>(memory.unknownFrees))
        .field("dropped", static_cast<unsigned long long>(dropped));
    sink.emit(e);
    if (dropped != 0) {
        JsonLine w = event("log");
        w.field("level", "warning")
            .field("message", "CUPTI dropped " + std::to_string(dropped) +
                                  " activity records: GPU memory figures undercount");
        sink.emit(w);
    }
    api_->stop();
}

} // namespace cs::aoti
