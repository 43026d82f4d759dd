// The part of the CUPTI collector's C ABI (probe/cupti/compilescope_cupti.h)
// that the runner reads, restated here so the runner's sources build alone,
// shipped without probe/cupti. tests/probe/aoti_runner checks it against the
// real header (sizes, offsets, constants); the runner checks the ABI version
// and the record size of the library it loads before using it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cs::aoti::cupti_abi {

inline constexpr int kAbiVersion = 1;
inline constexpr int kOk = 0;

inline constexpr uint16_t kRecMemAlloc = 4;
inline constexpr uint16_t kRecMemFree = 5;
inline constexpr uint16_t kRecPoolCreated = 6;
inline constexpr uint16_t kRecPoolDestroyed = 7;
inline constexpr uint16_t kRecPoolTrimmed = 8;
inline constexpr uint16_t kRecPhase = 9;

inline constexpr uint32_t kFlagAsync = 1U << 0;
inline constexpr uint32_t kFlagNoTimestamp = 1U << 1;
inline constexpr uint32_t kFlagPhaseEnd = 1U << 2;

struct Record { // cs_cupti_record
    uint16_t kind;
    uint16_t subkind;
    uint32_t name_id;
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t bytes;
    uint64_t address;
    uint64_t pool_address;
    uint64_t pool_size;
    uint64_t pool_utilized;
    uint32_t device_id;
    uint32_t stream_id;
    uint32_t correlation_id;
    uint32_t graph_id;
    uint32_t flags;
    uint32_t pool_type;
    uint64_t seq;
};
static_assert(sizeof(Record) == 96, "cs_cupti_record is 96 bytes");

struct Stats { // cs_cupti_stats
    uint64_t records_total;
    uint64_t records_pending;
    uint64_t dropped_by_cupti;
    uint64_t dropped_over_cap;
    uint64_t buffers_denied;
    uint64_t buffers_completed;
    uint64_t records_ignored;
    uint64_t records_untimed;
    uint64_t buffers_truncated;
    int64_t clock_offset_ns;
    uint32_t clock_mode;
    uint32_t cupti_version;
    uint32_t header_version;
    uint32_t kinds_missing;
    uint32_t names;
    uint32_t running;
};

} // namespace cs::aoti::cupti_abi
