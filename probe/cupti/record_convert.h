// CUPTI activity record -> cs_cupti_record.
#pragma once

#include "probe/cupti/compilescope_cupti.h"
#include "probe/cupti/name_table.h"

#include <cupti.h>

#include <cstdint>

namespace cs::cupti {

// The newest record versions every CUPTI of a major release produces a
// superset of (new versions only append fields), so reading them is safe
// with a libcupti at least as new as the headers.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
using MemsetRecord = CUpti_ActivityMemset4;
using MemoryRecord = CUpti_ActivityMemory4;
using MemoryPoolRecord = CUpti_ActivityMemoryPool3;
#else
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy5;
using MemsetRecord = CUpti_ActivityMemset4;
using MemoryRecord = CUpti_ActivityMemory3;
using MemoryPoolRecord = CUpti_ActivityMemoryPool2;
#endif

enum class Converted { record, untimed_record, ignored };

// offset_ns is added to CUPTI timestamps (0 when CUPTI calls our clock).
Converted convert_activity(const CUpti_Activity& activity, int64_t offset_ns, NameTable& names,
                           cs_cupti_record& out);

} // namespace cs::cupti
