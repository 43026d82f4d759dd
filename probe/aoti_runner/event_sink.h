// The runner's event stream: JSON Lines on one descriptor, every line written
// whole and at once (a partial write is continued; EINTR retried), from any
// thread. The reader going away (EPIPE, or any other write error) stops the
// writing quietly: nobody is listening any more.
#pragma once

#include "json_line.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

namespace cs::aoti {

// CLOCK_MONOTONIC in ns: Python's time.monotonic_ns(), the probe's t_ns.
int64_t monotonicNs();

// A JsonLine that starts {"type": type, "t_ns": now.
JsonLine event(std::string_view type);

class EventSink {
  public:
    explicit EventSink(int fd) : fd_(fd) {}
    // Writes the line (with its newline). False once the stream is closed.
    bool write(const std::string& line);
    bool emit(JsonLine& line) { return write(line.line()); }
    bool closed() const { return closed_.load(); }
    // True while a line is being written: a signal handler must not cut it.
    bool busy() const { return busy_.load(); }
    int fd() const { return fd_; }

  private:
    int fd_;
    std::mutex mutex_;
    std::atomic<bool> closed_{false};
    std::atomic<bool> busy_{false};
};

// Writes all of data to fd, continuing partial writes; false on an error.
bool writeAll(int fd, std::string_view data);

} // namespace cs::aoti
