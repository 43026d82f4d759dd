#include "core/report/progress_file_buffer.h"

#include <algorithm>
#include <filesystem>

namespace cs::core {

ProgressFileBuffer::ProgressFileBuffer(const std::string& path, Progress progress,
                                       const std::atomic<bool>* cancel, std::size_t chunkBytes)
    : file_(std::fopen(path.c_str(), "rb")), buffer_(chunkBytes), progress_(std::move(progress)),
      cancel_(cancel) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    size_ = ec ? 0 : static_cast<int64_t>(size);
    if (file_ && std::filesystem::is_directory(path, ec))
        file_.reset();
}

ProgressFileBuffer::int_type ProgressFileBuffer::underflow() {
    if (gptr() < egptr())
        return traits_type::to_int_type(*gptr());
    if (!file_ || (cancel_ && cancel_->load(std::memory_order_relaxed)))
        return traits_type::eof();
    const std::size_t n = std::fread(buffer_.data(), 1, buffer_.size(), file_.get());
    if (n == 0) {
        readFailed_ = std::ferror(file_.get()) != 0;
        return traits_type::eof();
    }
    read_ += static_cast<int64_t>(n);
    if (progress_)
        progress_(read_, std::max(size_, read_));
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
}

} // namespace cs::core
