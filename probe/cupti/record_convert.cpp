#include "probe/cupti/record_convert.h"

#include <cstring>

namespace cs::cupti {

namespace {

uint64_t shifted(uint64_t t, int64_t offset_ns) {
    return t == 0 ? 0 : static_cast<uint64_t>(static_cast<int64_t>(t) + offset_ns);
}

// A GPU-timed record: 0/0 means CUPTI had no timestamp for it.
bool set_interval(cs_cupti_record& out, uint64_t start, uint64_t end, int64_t offset_ns) {
    if (start == 0 && end == 0) {
        out.flags |= CS_FLAG_NO_TIMESTAMP;
        return false;
    }
    out.start_ns = shifted(start, offset_ns);
    out.end_ns = shifted(end, offset_ns);
    return true;
}

Converted timed(bool has_time) {
    return has_time ? Converted::record : Converted::untimed_record;
}

Converted from_kernel(const KernelRecord& k, int64_t offset_ns, NameTable& names,
                      cs_cupti_record& out) {
    out.kind = CS_REC_KERNEL;
    out.name_id = names.intern(k.name != nullptr ? k.name : "<unnamed kernel>");
    out.device_id = k.deviceId;
    out.stream_id = k.streamId;
    out.correlation_id = k.correlationId;
    out.graph_id = k.graphId;
    return timed(set_interval(out, k.start, k.end, offset_ns));
}

Converted from_memcpy(const MemcpyRecord& m, int64_t offset_ns, cs_cupti_record& out) {
    out.kind = CS_REC_MEMCPY;
    out.subkind = m.copyKind;
    out.bytes = m.bytes;
    out.device_id = m.deviceId;
    out.stream_id = m.streamId;
    out.correlation_id = m.correlationId;
    out.graph_id = m.graphId;
    return timed(set_interval(out, m.start, m.end, offset_ns));
}

Converted from_memset(const MemsetRecord& m, int64_t offset_ns, cs_cupti_record& out) {
    out.kind = CS_REC_MEMSET;
    out.subkind = m.memoryKind;
    out.bytes = m.bytes;
    out.device_id = m.deviceId;
    out.stream_id = m.streamId;
    out.correlation_id = m.correlationId;
    out.graph_id = m.graphId;
    return timed(set_interval(out, m.start, m.end, offset_ns));
}

Converted from_memory(const MemoryRecord& m, int64_t offset_ns, cs_cupti_record& out) {
    switch (m.memoryOperationType) {
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION:
        out.kind = CS_REC_MEM_ALLOC;
        break;
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE:
        out.kind = CS_REC_MEM_FREE;
        break;
    default:
        return Converted::ignored;
    }
    out.subkind = static_cast<uint16_t>(m.memoryKind);
    out.bytes = m.bytes;
    out.address = m.address;
    out.device_id = m.deviceId;
    out.stream_id = m.streamId;
    out.correlation_id = m.correlationId;
    if (m.isAsync != 0) {
        out.flags |= CS_FLAG_ASYNC;
    }
    out.pool_type = static_cast<uint32_t>(m.memoryPoolConfig.memoryPoolType);
    if (out.pool_type != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID) {
        out.pool_address = m.memoryPoolConfig.address;
        if (out.pool_type == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL) {
            out.pool_size = m.memoryPoolConfig.pool.size;
            out.pool_utilized = m.memoryPoolConfig.utilizedSize;
        }
    }
    out.start_ns = out.end_ns = shifted(m.timestamp, offset_ns);
    return timed(m.timestamp != 0);
}

Converted from_pool(const MemoryPoolRecord& p, int64_t offset_ns, cs_cupti_record& out) {
    switch (p.memoryPoolOperationType) {
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED:
        out.kind = CS_REC_POOL_CREATED;
        break;
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED:
        out.kind = CS_REC_POOL_DESTROYED;
        break;
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED:
        out.kind = CS_REC_POOL_TRIMMED;
        break;
    default:
        return Converted::ignored;
    }
    out.pool_type = static_cast<uint32_t>(p.memoryPoolType);
    out.address = out.pool_address = p.address;
    out.bytes = out.pool_size = p.size;
    out.pool_utilized = p.utilizedSize;
    out.device_id = p.deviceId;
    out.correlation_id = p.correlationId;
    out.start_ns = out.end_ns = shifted(p.timestamp, offset_ns);
    return timed(p.timestamp != 0);
}

// CUPTI records are 8-byte aligned in its buffers; copying into a local keeps
// the reads well defined whatever the packing attributes say.
template <typename Record> Record copy_of(const CUpti_Activity& activity) {
    Record record;
    std::memcpy(static_cast<void*>(&record), &activity, sizeof(Record));
    return record;
}

} // namespace

Converted convert_activity(const CUpti_Activity& activity, int64_t offset_ns, NameTable& names,
                           cs_cupti_record& out) {
    out = cs_cupti_record{};
    switch (activity.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return from_kernel(copy_of<KernelRecord>(activity), offset_ns, names, out);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return from_memcpy(copy_of<MemcpyRecord>(activity), offset_ns, out);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return from_memset(copy_of<MemsetRecord>(activity), offset_ns, out);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
        return from_memory(copy_of<MemoryRecord>(activity), offset_ns, out);
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
        return from_pool(copy_of<MemoryPoolRecord>(activity), offset_ns, out);
    default:
        return Converted::ignored;
    }
}

} // namespace cs::cupti
