// Host resident memory, as the probe samples it (host_memory.py): RSS from
// /proc/self/statm every ~20 ms on a background thread, plus a sample at
// every phase edge; drained as [t_ns, bytes] pairs into `memory` events.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace cs::aoti {

// Resident bytes now, from /proc/self/statm; nullopt where it cannot be read.
std::optional<int64_t> readRssBytes();

class RssSampler {
  public:
    explicit RssSampler(int intervalMs = 20) : intervalMs_(intervalMs) {}
    RssSampler(const RssSampler&) = delete;
    RssSampler& operator=(const RssSampler&) = delete;
    ~RssSampler() { stop(); }

    void start();
    void sampleNow();
    // Once pause() returns no sample is taken by the thread until resume().
    void pause();
    void resume();
    std::vector<std::pair<int64_t, int64_t>> drain();
    void stop();

  private:
    void loop();

    int intervalMs_;
    std::mutex mutex_; // samples_ and the flags
    std::condition_variable wake_;
    std::vector<std::pair<int64_t, int64_t>> samples_;
    bool paused_ = false;
    bool stopping_ = false;
    std::thread thread_;
};

} // namespace cs::aoti
