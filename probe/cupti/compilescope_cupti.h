/*
 * compilescope_cupti.h: the C ABI of libcompilescope_cupti.so.
 *
 * The probe loads the library with ctypes; everything here is plain C so any
 * Python (or a C test) can call it. docs/cupti.md describes the hand-off.
 *
 * Life cycle: cs_cupti_start -> cs_cupti_mark_phase ... -> cs_cupti_flush ->
 * cs_cupti_read (drain, any number of times) -> cs_cupti_stop. Records stay
 * readable after stop. Never dlclose the library after a start: CUPTI keeps
 * pointers to its callbacks.
 */
#ifndef COMPILESCOPE_CUPTI_H
#define COMPILESCOPE_CUPTI_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CS_CUPTI_API __attribute__((visibility("default")))
#else
#define CS_CUPTI_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any change to a struct or a signature below. */
#define CS_CUPTI_ABI_VERSION 1

/* Return codes. Details are in cs_cupti_last_error(). */
enum {
    CS_CUPTI_OK = 0,
    CS_CUPTI_ERR_CUPTI = 1,     /* a CUPTI call failed */
    CS_CUPTI_ERR_NO_DRIVER = 2, /* libcuda.so.1 cannot be loaded: CUPTI not called */
    CS_CUPTI_ERR_STATE = 3,     /* not started, or already started */
    CS_CUPTI_ERR_ARG = 4,       /* bad argument */
    CS_CUPTI_ERR_INTERNAL = 5   /* out of memory or another internal failure */
};

/* cs_cupti_record.kind */
enum {
    CS_REC_KERNEL = 1,
    CS_REC_MEMCPY = 2,
    CS_REC_MEMSET = 3,
    CS_REC_MEM_ALLOC = 4,    /* MEMORY2, operation ALLOCATION */
    CS_REC_MEM_FREE = 5,     /* MEMORY2, operation RELEASE */
    CS_REC_POOL_CREATED = 6, /* MEMORY_POOL */
    CS_REC_POOL_DESTROYED = 7,
    CS_REC_POOL_TRIMMED = 8,
    CS_REC_PHASE = 9 /* a cs_cupti_mark_phase call */
};

/* cs_cupti_record.flags */
enum {
    CS_FLAG_ASYNC = 1u << 0,        /* memory op through the stream-ordered allocator */
    CS_FLAG_NO_TIMESTAMP = 1u << 1, /* CUPTI could not time it (start = end = 0) */
    CS_FLAG_PHASE_END = 1u << 2     /* phase record: end edge (else begin) */
};

/* cs_cupti_start options */
enum {
    CS_START_FORCE_OFFSET_CLOCK = 1u << 0 /* skip the timestamp callback (tests) */
};

/* cs_cupti_stats.clock_mode */
enum {
    CS_CLOCK_NONE = 0,     /* not started yet */
    CS_CLOCK_CALLBACK = 1, /* CUPTI calls us for every timestamp: CLOCK_MONOTONIC */
    CS_CLOCK_OFFSET = 2    /* CUPTI's own clock plus clock_offset_ns */
};

/*
 * One record, 96 bytes, native byte order, no padding. Every timestamp is
 * CLOCK_MONOTONIC nanoseconds (Python's time.monotonic_ns()).
 * Fields that do not apply to a kind are 0.
 */
typedef struct cs_cupti_record {
    uint16_t kind;     /* CS_REC_* */
    uint16_t subkind;  /* memcpy: CUpti_ActivityMemcpyKind; memory, memset:
                          CUpti_ActivityMemoryKind */
    uint32_t name_id;  /* kernel or phase name, see cs_cupti_name; 0 = none */
    uint64_t start_ns; /* instantaneous records: start = end */
    uint64_t end_ns;
    uint64_t bytes;         /* memcpy, memset, memory, pool (pool size) */
    uint64_t address;       /* memory: allocation address; pool: pool address */
    uint64_t pool_address;  /* memory through a pool, and pool records */
    uint64_t pool_size;     /* pool size in bytes as CUPTI reported it */
    uint64_t pool_utilized; /* pool bytes in use as CUPTI reported it */
    uint32_t device_id;
    uint32_t stream_id;
    uint32_t correlation_id; /* the launching API call (a graph launch for graph nodes) */
    uint32_t graph_id;       /* 0 unless run as a node of a CUDA graph */
    uint32_t flags;          /* CS_FLAG_* */
    uint32_t pool_type;      /* CUpti_ActivityMemoryPoolType, 0 = not a pool */
    uint64_t seq;            /* arrival order in the collector, from 1 */
} cs_cupti_record;

typedef struct cs_cupti_stats {
    uint64_t records_total;    /* records stored so far (read or not) */
    uint64_t records_pending;  /* stored and not read yet */
    uint64_t dropped_by_cupti; /* sum of cuptiActivityGetNumDroppedRecords */
    uint64_t dropped_over_cap; /* records discarded: the store was full */
    uint64_t buffers_denied;   /* buffer requests we could not satisfy */
    uint64_t buffers_completed;
    uint64_t records_ignored;   /* kinds we do not convert */
    uint64_t records_untimed;   /* converted with CS_FLAG_NO_TIMESTAMP */
    uint64_t buffers_truncated; /* buffers whose walk stopped at a bad record:
                                   the rest of each is lost, uncounted */
    int64_t clock_offset_ns;    /* added to CUPTI timestamps (0 in callback mode) */
    uint32_t clock_mode;        /* CS_CLOCK_* */
    uint32_t cupti_version;     /* cuptiGetVersion of the loaded libcupti */
    uint32_t header_version;    /* CUPTI_API_VERSION this library was built with */
    uint32_t kinds_missing;     /* bit (1 << CS_REC_KERNEL...) per kind CUPTI refused */
    uint32_t names;             /* interned names */
    uint32_t running;           /* 1 between start and stop */
} cs_cupti_stats;

CS_CUPTI_API int cs_cupti_abi_version(void);
CS_CUPTI_API size_t cs_cupti_record_size(void);
CS_CUPTI_API size_t cs_cupti_stats_size(void);

/* CLOCK_MONOTONIC now, in ns: the clock every record is on. */
CS_CUPTI_API uint64_t cs_cupti_now_ns(void);

/*
 * Enable kernel, memcpy, memset, MEMORY2 and MEMORY_POOL activity.
 * buffer_bytes: size of each buffer handed to CUPTI (0: 8 MiB).
 * max_records: records waiting to be read before new ones are counted as
 * dropped (0: 2^21); phase marks are always kept.
 * Kernel and MEMORY2 are required; memcpy, memset and memory-pool records
 * are optional (kinds_missing says which CUPTI refused).
 */
CS_CUPTI_API int cs_cupti_start(uint64_t buffer_bytes, uint64_t max_records, uint32_t options);

/* Record a phase edge (edge 0 = begin, 1 = end) at t_ns (0: now). */
CS_CUPTI_API int cs_cupti_mark_phase(const char* name, uint32_t edge, uint64_t t_ns);

/*
 * cuptiActivityFlushAll. CUPTI does not synchronize the device: synchronize
 * first to get every record. forced != 0 also returns incomplete buffers.
 */
CS_CUPTI_API int cs_cupti_flush(int forced);

CS_CUPTI_API size_t cs_cupti_pending(void);

/* Move up to capacity records, oldest first, into out; *count gets how many. */
CS_CUPTI_API int cs_cupti_read(cs_cupti_record* out, size_t capacity, size_t* count);

/* The name for an id (NULL for an unknown id). Valid until the process ends. */
CS_CUPTI_API const char* cs_cupti_name(uint32_t id);

/* Fill *out; size must be sizeof(cs_cupti_stats). */
CS_CUPTI_API int cs_cupti_get_stats(cs_cupti_stats* out, size_t size);

/* Flush (forced), disable the kinds. Idempotent. */
CS_CUPTI_API int cs_cupti_stop(void);

/* Copy the last error message (NUL-terminated, truncated to cap). Returns its
 * full length; 0 when there was none. */
CS_CUPTI_API size_t cs_cupti_last_error(char* buf, size_t cap);

/* Copy the path of the libcupti this library is bound to. Returns its length. */
CS_CUPTI_API size_t cs_cupti_library_path(char* buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* COMPILESCOPE_CUPTI_H */
