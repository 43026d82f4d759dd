#include "host_rss.h"

#include "event_sink.h"

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace cs::aoti {

std::optional<int64_t> readRssBytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "rb");
    if (f == nullptr) {
        return std::nullopt;
    }
    long long size = 0;
    long long resident = 0;
    const int got = std::fscanf(f, "%lld %lld", &size, &resident);
    std::fclose(f);
    const long page = sysconf(_SC_PAGESIZE);
    if (got != 2 || page <= 0) {
        return std::nullopt;
    }
    return static_cast<int64_t>(resident) * page;
}

void RssSampler::start() {
    if (thread_.joinable() || !readRssBytes()) {
        return;
    }
    thread_ = std::thread([this] { loop(); });
}

void RssSampler::sampleNow() {
    if (auto rss = readRssBytes()) {
        const std::lock_guard<std::mutex> lock(mutex_);
        samples_.emplace_back(monotonicNs(), *rss);
    }
}

void RssSampler::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        wake_.wait_for(lock, std::chrono::milliseconds(intervalMs_));
        // Paused: wait without waking every interval, so nothing runs
        // beside the measured calls.
        wake_.wait(lock, [this] { return stopping_ || !paused_; });
        if (stopping_) {
            return;
        }
        if (auto rss = readRssBytes()) {
            samples_.emplace_back(monotonicNs(), *rss);
        }
    }
}

void RssSampler::pause() {
    // The thread samples holding the mutex: once we hold it, none is in flight.
    const std::lock_guard<std::mutex> lock(mutex_);
    paused_ = true;
}

void RssSampler::resume() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        paused_ = false;
    }
    wake_.notify_all();
}

std::vector<std::pair<int64_t, int64_t>> RssSampler::drain() {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<int64_t, int64_t>> out;
    out.swap(samples_);
    return out;
}

void RssSampler::stop() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

} // namespace cs::aoti
