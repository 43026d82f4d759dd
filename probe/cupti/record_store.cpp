#include "probe/cupti/record_store.h"

#include <algorithm>

namespace cs::cupti {

void RecordStore::set_capacity(uint64_t max_pending) {
    std::lock_guard lock(mutex_);
    capacity_ = max_pending;
}

void RecordStore::push_locked(cs_cupti_record& record, bool capped) {
    if (capped && pending_.size() >= capacity_) {
        ++dropped_;
        return;
    }
    record.seq = next_seq_++;
    pending_.push_back(record);
    ++total_;
}

void RecordStore::push(std::vector<cs_cupti_record>& batch) {
    std::lock_guard lock(mutex_);
    for (auto& record : batch) {
        push_locked(record, true);
    }
}

void RecordStore::push_uncapped(cs_cupti_record record) {
    std::lock_guard lock(mutex_);
    push_locked(record, false);
}

size_t RecordStore::read(cs_cupti_record* out, size_t capacity) {
    std::lock_guard lock(mutex_);
    const size_t n = std::min(capacity, pending_.size());
    std::copy_n(pending_.begin(), n, out);
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
    return n;
}

size_t RecordStore::pending() const {
    std::lock_guard lock(mutex_);
    return pending_.size();
}

uint64_t RecordStore::total() const {
    std::lock_guard lock(mutex_);
    return total_;
}

uint64_t RecordStore::dropped_over_cap() const {
    std::lock_guard lock(mutex_);
    return dropped_;
}

void RecordStore::count_dropped(uint64_t n) {
    std::lock_guard lock(mutex_);
    dropped_ += n;
}

} // namespace cs::cupti
