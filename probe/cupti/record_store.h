// Converted records waiting for Python to read them. CUPTI's worker thread
// pushes, the probe's thread reads; a full store counts what it turns away.
#pragma once

#include "probe/cupti/compilescope_cupti.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace cs::cupti {

class RecordStore {
  public:
    void set_capacity(uint64_t max_pending);
    // Stamps seq on each record; records beyond the capacity are dropped and counted.
    void push(std::vector<cs_cupti_record>& batch);
    // Phase marks: few, and every window depends on them, so never capped.
    void push_uncapped(cs_cupti_record record);
    size_t read(cs_cupti_record* out, size_t capacity);

    size_t pending() const;
    uint64_t total() const;
    uint64_t dropped_over_cap() const;
    // For records lost before they reached the store.
    void count_dropped(uint64_t n);

  private:
    void push_locked(cs_cupti_record& record, bool capped);

    mutable std::mutex mutex_;
    std::deque<cs_cupti_record> pending_;
    uint64_t capacity_ = uint64_t{1} << 21;
    uint64_t next_seq_ = 1;
    uint64_t total_ = 0;
    uint64_t dropped_ = 0;
};

} // namespace cs::cupti
