// A read-only stream buffer over a file that reads it in chunks and reports,
// after each chunk, how far it got; it ends the input early when asked to
// cancel. Lets nlohmann::json's SAX parser read a huge report with progress.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace cs::core {

class ProgressFileBuffer : public std::streambuf {
  public:
    using Progress = std::function<void(int64_t done, int64_t total)>;

    ProgressFileBuffer(const std::string& path, Progress progress, const std::atomic<bool>* cancel,
                       std::size_t chunkBytes = 1u << 20);

    bool isOpen() const { return file_ != nullptr; }
    int64_t size() const { return size_; }
    int64_t bytesRead() const { return read_; }
    bool readFailed() const { return readFailed_; }

  protected:
    int_type underflow() override;

  private:
    struct Closer {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    std::unique_ptr<std::FILE, Closer> file_;
    std::vector<char> buffer_;
    Progress progress_;
    const std::atomic<bool>* cancel_;
    int64_t size_ = 0;
    int64_t read_ = 0;
    bool readFailed_ = false;
};

} // namespace cs::core
