#include "event_sink.h"

#include <cerrno>
#include <ctime>
#include <unistd.h>

namespace cs::aoti {

int64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

JsonLine event(std::string_view type) {
    JsonLine line;
    line.field("type", type);
    line.field("t_ns", static_cast<long long>(monotonicNs()));
    return line;
}

bool writeAll(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
}

bool EventSink::write(const std::string& line) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (closed_.load()) {
        return false;
    }
    busy_.store(true);
    const bool ok = writeAll(fd_, line);
    busy_.store(false);
    if (!ok) {
        closed_.store(true);
    }
    return ok;
}

} // namespace cs::aoti
