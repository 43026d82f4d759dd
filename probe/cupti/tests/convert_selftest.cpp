// Checks record conversion, name interning and the store against the CUPTI
// structs of the headers we build with; needs no GPU and no driver.
// Prints one line per failed check; exit status 1 when any failed.
#include "probe/cupti/name_table.h"
#include "probe/cupti/record_convert.h"
#include "probe/cupti/record_store.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char* what, int line) {
    if (!ok) {
        std::printf("FAIL line %d: %s\n", line, what);
        ++failures;
    }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

template <typename T> const CUpti_Activity& as_activity(const T& record) {
    return *reinterpret_cast<const CUpti_Activity*>(&record);
}

using namespace cs::cupti;

void kernel_record() {
    NameTable names;
    KernelRecord k;
    std::memset(static_cast<void*>(&k), 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = 1000;
    k.end = 1600;
    k.deviceId = 1;
    k.streamId = 7;
    k.correlationId = 42;
    k.graphId = 9;
    k.name = "_Z6addonePfi";
    cs_cupti_record out{};
    CHECK(convert_activity(as_activity(k), 250, names, out) == Converted::record);
    CHECK(out.kind == CS_REC_KERNEL);
    CHECK(out.start_ns == 1250 && out.end_ns == 1850);
    CHECK(out.device_id == 1 && out.stream_id == 7 && out.correlation_id == 42 &&
          out.graph_id == 9);
    CHECK(std::string(names.lookup(out.name_id)) == "addone(float*, int)");

    // Same raw name, same id; a Triton name is kept as is.
    cs_cupti_record again{};
    convert_activity(as_activity(k), 0, names, again);
    CHECK(again.name_id == out.name_id);
    k.name = "triton_poi_fused_add_0";
    convert_activity(as_activity(k), 0, names, again);
    CHECK(std::string(names.lookup(again.name_id)) == "triton_poi_fused_add_0");

    k.start = k.end = 0;
    CHECK(convert_activity(as_activity(k), 250, names, out) == Converted::untimed_record);
    CHECK((out.flags & CS_FLAG_NO_TIMESTAMP) != 0 && out.start_ns == 0);
}

void memcpy_and_memset() {
    NameTable names;
    MemcpyRecord m;
    std::memset(static_cast<void*>(&m), 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    m.bytes = 4096;
    m.start = 10;
    m.end = 30;
    cs_cupti_record out{};
    CHECK(convert_activity(as_activity(m), -5, names, out) == Converted::record);
    CHECK(out.kind == CS_REC_MEMCPY && out.subkind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
    CHECK(out.bytes == 4096 && out.start_ns == 5 && out.end_ns == 25);

    MemsetRecord s;
    std::memset(static_cast<void*>(&s), 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    s.bytes = 512;
    s.start = 100;
    s.end = 110;
    s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    CHECK(convert_activity(as_activity(s), 0, names, out) == Converted::record);
    CHECK(out.kind == CS_REC_MEMSET && out.bytes == 512 &&
          out.subkind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
}

void memory_records() {
    NameTable names;
    MemoryRecord m;
    std::memset(static_cast<void*>(&m), 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.address = 0x7f0000000000ull;
    m.bytes = 2u << 20;
    m.timestamp = 5000;
    cs_cupti_record out{};
    CHECK(convert_activity(as_activity(m), 1000, names, out) == Converted::record);
    CHECK(out.kind == CS_REC_MEM_ALLOC && out.address == 0x7f0000000000ull &&
          out.bytes == (2u << 20));
    CHECK(out.start_ns == 6000 && out.end_ns == 6000 && out.pool_type == 0 &&
          (out.flags & CS_FLAG_ASYNC) == 0);

    m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
    m.isAsync = 1;
    m.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    m.memoryPoolConfig.address = 0x1000;
    m.memoryPoolConfig.pool.size = 64u << 20;
    m.memoryPoolConfig.utilizedSize = 3u << 20;
    CHECK(convert_activity(as_activity(m), 0, names, out) == Converted::record);
    CHECK(out.kind == CS_REC_MEM_FREE && (out.flags & CS_FLAG_ASYNC) != 0);
    CHECK(out.pool_type == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL && out.pool_address == 0x1000);
    CHECK(out.pool_size == (64u << 20) && out.pool_utilized == (3u << 20));

    m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID;
    CHECK(convert_activity(as_activity(m), 0, names, out) == Converted::ignored);

    MemoryPoolRecord p;
    std::memset(static_cast<void*>(&p), 0, sizeof p);
    p.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
    p.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED;
    p.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    p.address = 0x2000;
    p.size = 8u << 20;
    p.utilizedSize = 1u << 20;
    p.timestamp = 77;
    CHECK(convert_activity(as_activity(p), 0, names, out) == Converted::record);
    CHECK(out.kind == CS_REC_POOL_TRIMMED && out.pool_address == 0x2000 &&
          out.pool_size == (8u << 20));
    CHECK(out.start_ns == 77 && out.pool_utilized == (1u << 20));
}

void other_kinds_ignored() {
    NameTable names;
    CUpti_Activity a{};
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    cs_cupti_record out{};
    CHECK(convert_activity(a, 0, names, out) == Converted::ignored);
}

void store_caps_and_counts() {
    RecordStore store;
    store.set_capacity(2);
    std::vector<cs_cupti_record> batch(3);
    store.push(batch);
    CHECK(store.pending() == 2 && store.total() == 2 && store.dropped_over_cap() == 1);
    cs_cupti_record out[4];
    CHECK(store.read(out, 4) == 2);
    CHECK(out[0].seq == 1 && out[1].seq == 2);
    store.push_uncapped(cs_cupti_record{});
    CHECK(store.read(out, 4) == 1 && out[0].seq == 3);
    store.count_dropped(5);
    CHECK(store.dropped_over_cap() == 6);
    // A full store still takes phase marks.
    std::vector<cs_cupti_record> two(2);
    store.push(two);
    store.push_uncapped(cs_cupti_record{});
    store.push(two);
    CHECK(store.pending() == 3 && store.dropped_over_cap() == 8);
}

void unknown_names() {
    NameTable names;
    CHECK(names.lookup(0) == nullptr && names.lookup(1) == nullptr);
    CHECK(names.intern("measure") == 1 && names.intern("warmup") == 2 &&
          names.intern("measure") == 1);
    CHECK(names.size() == 2);
}

// CUPTI's thread pushes while the probe's thread reads: nothing lost, seq unique.
void store_under_concurrency() {
    RecordStore store;
    NameTable names;
    constexpr int kWriters = 3;
    constexpr int kBatches = 200;
    constexpr int kPerBatch = 50;
    std::atomic<int> writers_left{kWriters};
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
        writers.emplace_back([&, w] {
            for (int b = 0; b < kBatches; ++b) {
                std::vector<cs_cupti_record> batch(kPerBatch);
                for (auto& r : batch) {
                    r.name_id = names.intern("kernel_" + std::to_string((w * 7 + b) % 13));
                }
                store.push(batch);
            }
            writers_left.fetch_sub(1);
        });
    }
    std::vector<uint64_t> seqs;
    cs_cupti_record out[64];
    for (;;) {
        const bool done = writers_left.load() == 0;
        const size_t n = store.read(out, 64);
        for (size_t i = 0; i < n; ++i) {
            seqs.push_back(out[i].seq);
            CHECK(names.lookup(out[i].name_id) != nullptr);
        }
        if (done && n == 0) {
            break;
        }
    }
    for (auto& t : writers) {
        t.join();
    }
    CHECK(seqs.size() == static_cast<size_t>(kWriters * kBatches * kPerBatch));
    bool increasing = true;
    for (size_t i = 1; i < seqs.size(); ++i) {
        increasing = increasing && seqs[i] == seqs[i - 1] + 1;
    }
    CHECK(increasing);
    CHECK(names.size() == 13);
}

} // namespace

int main() {
    kernel_record();
    memcpy_and_memset();
    memory_records();
    other_kinds_ignored();
    store_caps_and_counts();
    unknown_names();
    store_under_concurrency();
    std::printf("%s (%d failed checks, CUPTI_API_VERSION %d)\n", failures ? "FAILED" : "ok",
                failures, static_cast<int>(CUPTI_API_VERSION));
    return failures ? 1 : 0;
}
