// The C ABI of libcompilescope_cupti.so: CUPTI activity tracing for the probe.
#include "probe/cupti/compilescope_cupti.h"
#include "probe/cupti/mono_clock.h"
#include "probe/cupti/name_table.h"
#include "probe/cupti/record_convert.h"
#include "probe/cupti/record_store.h"

#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

static_assert(sizeof(cs_cupti_record) == 96, "the record layout is part of the ABI");
static_assert(offsetof(cs_cupti_record, start_ns) == 8);
static_assert(offsetof(cs_cupti_record, device_id) == 64);
static_assert(offsetof(cs_cupti_record, seq) == 88);
static_assert(sizeof(cs_cupti_stats) == 104, "the stats layout is part of the ABI");

namespace cs::cupti {
namespace {

constexpr uint64_t kDefaultBufferBytes = uint64_t{8} << 20;
constexpr uint64_t kMinBufferBytes = uint64_t{64} << 10;
constexpr uint64_t kDefaultMaxRecords = uint64_t{1} << 21;
// Room past the size CUPTI is told, so reading a record as the header's
// (possibly newer, longer) struct never leaves the allocation.
constexpr size_t kBufferSlack = 1024;

struct KindSpec {
    CUpti_ActivityKind kind;
    const char* name;
    uint32_t record_bit; // 1 << CS_REC_* of the records it produces
    bool required;
};

constexpr KindSpec kKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL",
     1u << CS_REC_KERNEL, true},
    {CUPTI_ACTIVITY_KIND_MEMORY2, "CUPTI_ACTIVITY_KIND_MEMORY2", 1u << CS_REC_MEM_ALLOC, true},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "CUPTI_ACTIVITY_KIND_MEMCPY", 1u << CS_REC_MEMCPY, false},
    {CUPTI_ACTIVITY_KIND_MEMSET, "CUPTI_ACTIVITY_KIND_MEMSET", 1u << CS_REC_MEMSET, false},
    {CUPTI_ACTIVITY_KIND_MEMORY_POOL, "CUPTI_ACTIVITY_KIND_MEMORY_POOL", 1u << CS_REC_POOL_CREATED,
     false},
};

struct State {
    std::mutex lifecycle; // start, stop, flush
    bool running = false;
    bool ever_started = false;
    bool callbacks_registered = false;
    std::vector<CUpti_ActivityKind> enabled;

    std::atomic<uint64_t> buffer_bytes{kDefaultBufferBytes};
    std::atomic<int64_t> offset_ns{0};
    std::atomic<uint32_t> clock_mode{CS_CLOCK_NONE};
    std::atomic<uint32_t> cupti_version{0};
    std::atomic<uint32_t> kinds_missing{0};

    std::atomic<uint64_t> dropped_by_cupti{0};
    std::atomic<uint64_t> buffers_denied{0};
    std::atomic<uint64_t> buffers_completed{0};
    std::atomic<uint64_t> records_ignored{0};
    std::atomic<uint64_t> records_untimed{0};
    std::atomic<uint64_t> buffers_truncated{0};

    std::mutex error_mutex;
    std::string last_error;

    NameTable names;
    RecordStore store;
};

// Never destroyed: CUPTI may still call back while the process exits.
State& state() {
    static State* s = new State();
    return *s;
}

void set_error(std::string message) {
    State& s = state();
    std::lock_guard lock(s.error_mutex);
    s.last_error = std::move(message);
}

std::string describe(CUptiResult result) {
    const char* text = nullptr;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
        text = "unknown CUPTI result";
    }
    return std::string(text) + " (code " + std::to_string(static_cast<int>(result)) + ")";
}

int cupti_failure(const std::string& call, CUptiResult result) {
    set_error(call + " failed: " + describe(result));
    return CS_CUPTI_ERR_CUPTI;
}

uint64_t CUPTIAPI monotonic_timestamp() {
    return monotonic_now_ns();
}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    State& s = state();
    const uint64_t bytes = s.buffer_bytes.load(std::memory_order_relaxed);
    // aligned_alloc wants a multiple of the alignment; bytes already is one.
    void* p = std::aligned_alloc(8, bytes + kBufferSlack);
    if (p == nullptr) {
        s.buffers_denied.fetch_add(1, std::memory_order_relaxed);
        *buffer = nullptr;
        *size = 0;
    } else {
        *buffer = static_cast<uint8_t*>(p);
        *size = bytes;
    }
    *max_records = 0;
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer,
                                  size_t /*size*/, size_t valid_size) {
    State& s = state();
    const int64_t offset = s.offset_ns.load(std::memory_order_relaxed);
    std::vector<cs_cupti_record> batch;
    try {
        batch.reserve(valid_size / 128 + 1);
        CUpti_Activity* activity = nullptr;
        for (;;) {
            const CUptiResult r = cuptiActivityGetNextRecord(buffer, valid_size, &activity);
            if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) {
                break;
            }
            if (r != CUPTI_SUCCESS) {
                // An incomplete record ends the buffer; the rest is lost, say so.
                s.buffers_truncated.fetch_add(1, std::memory_order_relaxed);
                cupti_failure("cuptiActivityGetNextRecord", r);
                break;
            }
            cs_cupti_record out{};
            switch (convert_activity(*activity, offset, s.names, out)) {
            case Converted::ignored:
                s.records_ignored.fetch_add(1, std::memory_order_relaxed);
                continue;
            case Converted::untimed_record:
                s.records_untimed.fetch_add(1, std::memory_order_relaxed);
                break;
            case Converted::record:
                break;
            }
            batch.push_back(out);
        }
        s.store.push(batch);
    } catch (...) {
        // Out of memory while converting: count what this buffer held as dropped.
        s.store.count_dropped(batch.size());
        set_error("out of memory while converting a CUPTI buffer; its records were dropped");
    }
    if (buffer != nullptr) {
        std::free(buffer);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) {
        s.dropped_by_cupti.fetch_add(dropped, std::memory_order_relaxed);
    }
    s.buffers_completed.fetch_add(1, std::memory_order_relaxed);
}

// CUPTI 13.2 recurses until the stack overflows when libcuda.so.1 is absent
// (seen with the nvidia-cuda-cupti 13.2.86 wheel), so look before calling it.
bool driver_loadable(std::string& why) {
    void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (h == nullptr) {
        h = dlopen("libcuda.so.1", RTLD_LAZY);
    }
    if (h == nullptr) {
        const char* e = dlerror();
        why = e != nullptr ? e : "dlopen failed";
        return false;
    }
    return true; // kept open: CUPTI loads it anyway
}

std::string libcupti_path() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) == 0 ||
        info.dli_fname == nullptr) {
        return {};
    }
    return info.dli_fname;
}

using RegisterTimestampFn = CUptiResult (*)(uint64_t (*)());

// Looked up at run time so a libcupti without the call still works (offset mode).
RegisterTimestampFn find_register_timestamp() {
    const std::string path = libcupti_path();
    void* h = path.empty() ? nullptr : dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    void* sym = dlsym(h != nullptr ? h : RTLD_DEFAULT, "cuptiActivityRegisterTimestampCallback");
    return reinterpret_cast<RegisterTimestampFn>(sym);
}

// CUPTI's default Linux clock is CLOCK_REALTIME: measure its offset from
// CLOCK_MONOTONIC with the tightest of a few bracketed reads.
int measure_offset(int64_t& offset) {
    uint64_t best_width = std::numeric_limits<uint64_t>::max();
    for (int i = 0; i < 9; ++i) {
        uint64_t cupti_now = 0;
        const uint64_t before = monotonic_now_ns();
        const CUptiResult r = cuptiGetTimestamp(&cupti_now);
        const uint64_t after = monotonic_now_ns();
        if (r != CUPTI_SUCCESS) {
            return cupti_failure("cuptiGetTimestamp", r);
        }
        if (after - before < best_width) {
            best_width = after - before;
            offset = static_cast<int64_t>(before + (after - before) / 2) -
                     static_cast<int64_t>(cupti_now);
        }
    }
    return CS_CUPTI_OK;
}

int choose_clock(uint32_t options) {
    State& s = state();
    if ((options & CS_START_FORCE_OFFSET_CLOCK) == 0) {
        if (s.clock_mode.load() == CS_CLOCK_CALLBACK) {
            return CS_CUPTI_OK; // registered by an earlier start
        }
        if (RegisterTimestampFn reg = find_register_timestamp(); reg != nullptr) {
            if (reg(&monotonic_timestamp) == CUPTI_SUCCESS) {
                s.offset_ns.store(0);
                s.clock_mode.store(CS_CLOCK_CALLBACK);
                return CS_CUPTI_OK;
            }
        }
    }
    int64_t offset = 0;
    if (const int rc = measure_offset(offset); rc != CS_CUPTI_OK) {
        return rc;
    }
    s.offset_ns.store(offset);
    s.clock_mode.store(CS_CLOCK_OFFSET);
    return CS_CUPTI_OK;
}

void disable_enabled(State& s) {
    for (CUpti_ActivityKind kind : s.enabled) {
        cuptiActivityDisable(kind);
    }
    s.enabled.clear();
}

int enable_kinds(State& s) {
    uint32_t missing = 0;
    std::string warnings;
    for (const KindSpec& spec : kKinds) {
        const CUptiResult r = cuptiActivityEnable(spec.kind);
        if (r == CUPTI_SUCCESS) {
            s.enabled.push_back(spec.kind);
            continue;
        }
        const std::string what =
            std::string("cuptiActivityEnable(") + spec.name + ") failed: " + describe(r);
        if (spec.required) {
            disable_enabled(s);
            set_error(what);
            return CS_CUPTI_ERR_CUPTI;
        }
        missing |= spec.record_bit;
        warnings += (warnings.empty() ? "" : "; ") + what;
    }
    s.kinds_missing.store(missing);
    if (!warnings.empty()) {
        set_error(warnings);
    }
    return CS_CUPTI_OK;
}

int start(uint64_t buffer_bytes, uint64_t max_records, uint32_t options) {
    State& s = state();
    std::lock_guard lock(s.lifecycle);
    if (s.running) {
        set_error("cs_cupti_start: already started");
        return CS_CUPTI_ERR_STATE;
    }
    if (std::string why; !driver_loadable(why)) {
        set_error("the NVIDIA driver (libcuda.so.1) cannot be loaded: " + why +
                  "; CUPTI was not called");
        return CS_CUPTI_ERR_NO_DRIVER;
    }
    uint32_t version = 0;
    if (const CUptiResult r = cuptiGetVersion(&version); r != CUPTI_SUCCESS) {
        return cupti_failure("cuptiGetVersion", r);
    }
    s.cupti_version.store(version);

    uint64_t bytes =
        buffer_bytes == 0 ? kDefaultBufferBytes : std::max(buffer_bytes, kMinBufferBytes);
    bytes = (bytes + 7) / 8 * 8;
    s.buffer_bytes.store(bytes);
    s.store.set_capacity(max_records == 0 ? kDefaultMaxRecords : max_records);

    if (!s.callbacks_registered) {
        if (const CUptiResult r =
                cuptiActivityRegisterCallbacks(&on_buffer_requested, &on_buffer_completed);
            r != CUPTI_SUCCESS) {
            return cupti_failure("cuptiActivityRegisterCallbacks", r);
        }
        s.callbacks_registered = true;
    }
    // Before any kind is enabled, as CUPTI asks.
    if (const int rc = choose_clock(options); rc != CS_CUPTI_OK) {
        return rc;
    }
    set_error({});
    if (const int rc = enable_kinds(s); rc != CS_CUPTI_OK) {
        return rc;
    }
    s.running = true;
    s.ever_started = true;
    return CS_CUPTI_OK;
}

int stop() {
    State& s = state();
    std::lock_guard lock(s.lifecycle);
    if (!s.running) {
        return CS_CUPTI_OK;
    }
    disable_enabled(s);
    s.running = false;
    if (const CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        r != CUPTI_SUCCESS) {
        return cupti_failure("cuptiActivityFlushAll(FORCED)", r);
    }
    return CS_CUPTI_OK;
}

int flush(int forced) {
    State& s = state();
    std::lock_guard lock(s.lifecycle);
    if (!s.ever_started) {
        set_error("cs_cupti_flush: not started");
        return CS_CUPTI_ERR_STATE;
    }
    const uint32_t flag = forced != 0 ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0;
    if (const CUptiResult r = cuptiActivityFlushAll(flag); r != CUPTI_SUCCESS) {
        return cupti_failure(
            forced != 0 ? "cuptiActivityFlushAll(FORCED)" : "cuptiActivityFlushAll", r);
    }
    return CS_CUPTI_OK;
}

int mark_phase(const char* name, uint32_t edge, uint64_t t_ns) {
    State& s = state();
    if (name == nullptr || edge > 1) {
        set_error("cs_cupti_mark_phase: name must be set and edge 0 (begin) or 1 (end)");
        return CS_CUPTI_ERR_ARG;
    }
    {
        std::lock_guard lock(s.lifecycle);
        if (!s.running) {
            set_error("cs_cupti_mark_phase: not started");
            return CS_CUPTI_ERR_STATE;
        }
    }
    cs_cupti_record r{};
    r.kind = CS_REC_PHASE;
    r.name_id = s.names.intern(name);
    r.start_ns = r.end_ns = t_ns != 0 ? t_ns : monotonic_now_ns();
    r.flags = edge == 1 ? CS_FLAG_PHASE_END : 0;
    s.store.push_uncapped(r);
    return CS_CUPTI_OK;
}

size_t copy_out(const std::string& text, char* buf, size_t cap) {
    if (buf != nullptr && cap > 0) {
        const size_t n = std::min(cap - 1, text.size());
        std::memcpy(buf, text.data(), n);
        buf[n] = '\0';
    }
    return text.size();
}

template <typename Fn> int guarded(Fn&& fn) {
    try {
        return fn();
    } catch (const std::exception& e) {
        set_error(std::string("internal error: ") + e.what());
    } catch (...) {
        set_error("internal error");
    }
    return CS_CUPTI_ERR_INTERNAL;
}

} // namespace
} // namespace cs::cupti

using namespace cs::cupti;

extern "C" {

int cs_cupti_abi_version(void) {
    return CS_CUPTI_ABI_VERSION;
}

size_t cs_cupti_record_size(void) {
    return sizeof(cs_cupti_record);
}

size_t cs_cupti_stats_size(void) {
    return sizeof(cs_cupti_stats);
}

uint64_t cs_cupti_now_ns(void) {
    return monotonic_now_ns();
}

int cs_cupti_start(uint64_t buffer_bytes, uint64_t max_records, uint32_t options) {
    return guarded([&] { return start(buffer_bytes, max_records, options); });
}

int cs_cupti_mark_phase(const char* name, uint32_t edge, uint64_t t_ns) {
    return guarded([&] { return mark_phase(name, edge, t_ns); });
}

int cs_cupti_flush(int forced) {
    return guarded([&] { return flush(forced); });
}

size_t cs_cupti_pending(void) {
    return state().store.pending();
}

int cs_cupti_read(cs_cupti_record* out, size_t capacity, size_t* count) {
    if (count == nullptr || (out == nullptr && capacity > 0)) {
        set_error("cs_cupti_read: out and count must be set");
        return CS_CUPTI_ERR_ARG;
    }
    *count = state().store.read(out, capacity);
    return CS_CUPTI_OK;
}

const char* cs_cupti_name(uint32_t id) {
    return state().names.lookup(id);
}

int cs_cupti_get_stats(cs_cupti_stats* out, size_t size) {
    if (out == nullptr || size != sizeof(cs_cupti_stats)) {
        set_error("cs_cupti_get_stats: size does not match this library's cs_cupti_stats");
        return CS_CUPTI_ERR_ARG;
    }
    State& s = state();
    cs_cupti_stats st{};
    st.records_total = s.store.total();
    st.records_pending = s.store.pending();
    st.dropped_by_cupti = s.dropped_by_cupti.load();
    st.dropped_over_cap = s.store.dropped_over_cap();
    st.buffers_denied = s.buffers_denied.load();
    st.buffers_completed = s.buffers_completed.load();
    st.records_ignored = s.records_ignored.load();
    st.records_untimed = s.records_untimed.load();
    st.buffers_truncated = s.buffers_truncated.load();
    st.clock_offset_ns = s.offset_ns.load();
    st.clock_mode = s.clock_mode.load();
    st.cupti_version = s.cupti_version.load();
    st.header_version = CUPTI_API_VERSION;
    st.kinds_missing = s.kinds_missing.load();
    st.names = s.names.size();
    {
        std::lock_guard lock(s.lifecycle);
        st.running = s.running ? 1 : 0;
    }
    *out = st;
    return CS_CUPTI_OK;
}

int cs_cupti_stop(void) {
    return guarded([] { return stop(); });
}

size_t cs_cupti_last_error(char* buf, size_t cap) {
    State& s = state();
    std::lock_guard lock(s.error_mutex);
    return copy_out(s.last_error, buf, cap);
}

size_t cs_cupti_library_path(char* buf, size_t cap) {
    return copy_out(libcupti_path(), buf, cap);
}

} // extern "C"
