// The CUPTI collector (probe/cupti, C ABI in compilescope_cupti.h) driven from
// the runner as probe/compilescope_probe/cupti_loader.py drives it from
// Python: dlopen, start before the first CUDA use, a mark at every phase edge,
// and at the end the device memory timeline as a `memory` event (kind
// "device", source "cupti"). No torch here; the caller synchronizes the device
// before summarize(). Kernel summaries and the GPU trace are not sent.
#pragma once

#include "event_sink.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cs::aoti {

// One CUPTI record as the C ABI gives it, reduced to what the memory
// timeline reads.
struct MemRecord {
    uint16_t kind = 0;
    uint16_t subkind = 0;
    uint32_t flags = 0;
    uint32_t poolType = 0;
    uint32_t deviceId = 0;
    uint64_t startNs = 0;
    uint64_t bytes = 0;
    uint64_t address = 0;
    uint64_t poolAddress = 0;
    uint64_t poolSize = 0;
    uint64_t seq = 0;
    std::string name; // phase records
};

struct DeviceMemory {
    std::vector<std::pair<int64_t, int64_t>> samples; // t_ns, bytes held
    int64_t peak = 0;
    int64_t unknownFrees = 0;
};

// What cupti_records.device_memory_timeline computes, for the same records.
DeviceMemory deviceMemoryTimeline(std::vector<MemRecord> records, int64_t startNs);
// {phase: [(begin, end)...]} from the phase marks, and each phase's peak.
std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>
phaseWindows(const std::vector<MemRecord>& records, int64_t openEndNs);
std::map<std::string, int64_t>
phasePeaks(const std::vector<std::pair<int64_t, int64_t>>& samples,
           const std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>& windows);

class CuptiBridge {
  public:
    // dlopens the collector and starts it; says in a cupti_status event
    // whether it is active (and why not). Never throws.
    bool start(const std::string& libraryPath, EventSink& sink);
    void markPhase(const char* name, bool end, int64_t tNs);
    // Flush, read every record, emit `memory` (device) and any warnings; stop.
    void summarize(EventSink& sink);
    bool active() const { return active_; }

  private:
    std::string lastError() const;

    void* handle_ = nullptr;
    bool active_ = false;
    int64_t startedNs_ = 0;
    struct Api;
    const Api* api_ = nullptr;
};

} // namespace cs::aoti
