// The probe's clock: CLOCK_MONOTONIC, as Python's time.monotonic_ns().
#pragma once

#include <cstdint>
#include <ctime>

namespace cs::cupti {

inline uint64_t monotonic_now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

} // namespace cs::cupti
