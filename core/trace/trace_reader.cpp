#include "core/trace/trace_reader.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <openssl/evp.h>

namespace cs::core::trace {
namespace {

constexpr size_t kBlockBytes = size_t{1} << 20; // per reader thread
// No record or payload line of a real trace comes near this; a longer one is
// skipped (and named) instead of being held in memory.
constexpr size_t kMaxLineBytes = size_t{64} << 20;

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// The 32 hex digits after "has_payload": in the envelope; empty when absent.
std::string_view payloadDigest(std::string_view json) {
    const size_t key = json.rfind("\"has_payload\"");
    if (key == std::string_view::npos)
        return {};
    size_t at = key + std::strlen("\"has_payload\"");
    while (at < json.size() && (json[at] == ' ' || json[at] == ':'))
        ++at;
    if (at >= json.size() || json[at] != '"')
        return {};
    const size_t end = json.find('"', at + 1);
    if (end == std::string_view::npos)
        return {};
    return json.substr(at + 1, end - at - 1);
}

std::string hex(const unsigned char* bytes, unsigned length) {
    static constexpr std::array<char, 16> digits{'0', '1', '2', '3', '4', '5', '6', '7',
                                                 '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
    std::string out;
    out.reserve(size_t{length} * 2);
    for (unsigned i = 0; i < length; ++i) {
        out += digits[bytes[i] >> 4U];
        out += digits[bytes[i] & 0xFU];
    }
    return out;
}

struct DigestDeleter {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

// Reads lines and keeps the record whose payload is still arriving.
class RecordAssembler {
  public:
    RecordAssembler(const TraceReader::Callbacks& callbacks, TraceReader::Summary& summary)
        : callbacks_(callbacks), summary_(summary), md5_(EVP_MD_CTX_new()) {}

    void line(std::string_view text, int64_t offset) {
        ++summary_.lines;
        if (!text.empty() && text.back() == '\r')
            text.remove_suffix(1);
        if (!text.empty() && text.front() == '\t') {
            payloadLine(text, offset);
            return;
        }
        finish(false);
        if (text.empty())
            return;
        RecordPrefix prefix;
        if (!parseRecordPrefix(text, prefix)) {
            problem("not a TORCH_TRACE record: " + excerpt(text));
            return;
        }
        startRecord(prefix);
    }

    // A line over the bound: counted, named, its bytes never kept. It ends
    // the record it belonged to, whose payload then fails its md5.
    void longLine(size_t bound) {
        ++summary_.lines;
        finish(false);
        problem("line longer than " + std::to_string(bound >> 20U) +
                " MiB: skipped (a trace line is never that long; the file is damaged)");
    }

    // End of file: a record still waiting for payload lines was cut off.
    void end(bool cutMidLine) { finish(cutMidLine); }

  private:
    void startRecord(const RecordPrefix& prefix) {
        open_ = true;
        current_ = TraceRecord{};
        current_.line = summary_.lines;
        current_.kind = std::string(firstKey(prefix.json));
        current_.json = std::string(prefix.json);
        current_.stamp = std::string(prefix.stamp);
        current_.pid = prefix.pid;
        if (current_.kind.empty())
            problem("record without a JSON object: " + excerpt(prefix.json));
        expected_ = std::string(payloadDigest(prefix.json));
        current_.hasPayload = !expected_.empty();
        payloadLines_ = 0;
        keep_ = false;
        if (current_.hasPayload) {
            EVP_DigestInit_ex(md5_.get(), EVP_md5(), nullptr);
            keep_ = callbacks_.wantPayload && callbacks_.wantPayload(current_);
        } else {
            finish(false);
        }
    }

    void payloadLine(std::string_view text, int64_t offset) {
        if (!open_ || !current_.hasPayload) {
            if (strayLines_++ == 0)
                problem("payload line without a record that announced one");
            return;
        }
        if (payloadLines_ == 0)
            current_.payloadOffset = offset;
        current_.payloadBytes =
            offset + static_cast<int64_t>(text.size()) + 1 - current_.payloadOffset;
        const std::string_view body = text.substr(1);
        if (payloadLines_ > 0) {
            EVP_DigestUpdate(md5_.get(), "\n", 1);
            if (keep_)
                current_.payload += '\n';
        }
        EVP_DigestUpdate(md5_.get(), body.data(), body.size());
        if (keep_)
            current_.payload.append(body);
        ++payloadLines_;
    }

    void finish(bool cut) {
        if (!open_)
            return;
        open_ = false;
        if (current_.hasPayload) {
            std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
            unsigned length = 0;
            EVP_DigestFinal_ex(md5_.get(), digest.data(), &length);
            current_.payloadOk = hex(digest.data(), length) == expected_;
            current_.payloadCut = cut;
        }
        ++summary_.records;
        if (callbacks_.record && !current_.kind.empty())
            callbacks_.record(current_);
    }

    void problem(std::string message) {
        if (callbacks_.problem)
            callbacks_.problem({summary_.lines, std::move(message)});
    }

    static std::string excerpt(std::string_view text) {
        constexpr size_t kShown = 60;
        std::string out(text.substr(0, kShown));
        for (char& c : out) {
            if (static_cast<unsigned char>(c) < 0x20)
                c = ' ';
        }
        return text.size() > kShown ? out + "..." : out;
    }

    const TraceReader::Callbacks& callbacks_;
    TraceReader::Summary& summary_;
    std::unique_ptr<EVP_MD_CTX, DigestDeleter> md5_;
    TraceRecord current_;
    std::string expected_;
    bool open_ = false;
    bool keep_ = false;
    int64_t payloadLines_ = 0;
    int64_t strayLines_ = 0;
};

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

} // namespace

bool parseRecordPrefix(std::string_view line, RecordPrefix& out) {
    // [VIWEC]MMDD HH:MM:SS.uuuuuu PID file:line] {json}
    if (line.size() < 22 || std::strchr("VIWEC", line[0]) == nullptr || line[0] == '\0')
        return false;
    for (size_t i = 1; i <= 4; ++i) {
        if (!isDigit(line[i]))
            return false;
    }
    if (line[5] != ' ' || !isDigit(line[6]) || line[8] != ':')
        return false;
    size_t at = 6;
    while (at < line.size() && line[at] != ' ')
        ++at;
    out.stamp = line.substr(1, at - 1);
    while (at < line.size() && line[at] == ' ')
        ++at;
    // At most 18 digits: any pid fits, and the value cannot overflow.
    constexpr size_t kMaxPidDigits = 18;
    int64_t pid = 0;
    const size_t pidStart = at;
    while (at < line.size() && isDigit(line[at]) && at - pidStart < kMaxPidDigits)
        pid = pid * 10 + (line[at++] - '0');
    if (at == pidStart || at >= line.size() || line[at] != ' ')
        return false;
    out.pid = pid;
    const size_t close = line.find("] ", at);
    if (close == std::string_view::npos)
        return false;
    out.json = line.substr(close + 2);
    return !out.json.empty() && out.json.front() == '{';
}

std::string_view firstKey(std::string_view json) {
    size_t at = 0;
    if (json.empty() || json[at] != '{')
        return {};
    ++at;
    while (at < json.size() && json[at] == ' ')
        ++at;
    if (at >= json.size() || json[at] != '"')
        return {};
    const size_t end = json.find('"', at + 1);
    if (end == std::string_view::npos)
        return {};
    return json.substr(at + 1, end - at - 1);
}

TraceReader::Summary TraceReader::read(const std::string& path, const Callbacks& callbacks,
                                       const std::atomic<bool>* cancel) {
    Summary summary;
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        summary.error = std::string("cannot open: ") + std::strerror(errno);
        return summary;
    }
    RecordAssembler assembler(callbacks, summary);
    std::vector<char> block(kBlockBytes);
    std::string carry;     // the start of a line that continues in the next block
    bool skipping = false; // inside a line longer than kMaxLineBytes
    int64_t offset = 0;    // file offset of block[0]
    int64_t carryAt = 0;   // file offset of carry's first byte
    for (;;) {
        if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
            summary.cancelled = true;
            return summary;
        }
        const size_t got = std::fread(block.data(), 1, block.size(), file.get());
        if (got == 0)
            break;
        summary.bytes += static_cast<int64_t>(got);
        const std::string_view data(block.data(), got);
        size_t start = 0;
        while (start < data.size()) {
            const auto* nl = static_cast<const char*>(
                std::memchr(data.data() + start, '\n', data.size() - start));
            if (nl == nullptr)
                break;
            const size_t end = static_cast<size_t>(nl - data.data());
            if (skipping || carry.size() + (end - start) > kMaxLineBytes) {
                skipping = false;
                carry.clear();
                assembler.longLine(kMaxLineBytes);
            } else if (!carry.empty()) {
                carry.append(data.substr(start, end - start));
                assembler.line(carry, carryAt);
                carry.clear();
            } else {
                assembler.line(data.substr(start, end - start),
                               offset + static_cast<int64_t>(start));
            }
            start = end + 1;
        }
        if (start < data.size()) {
            if (carry.empty())
                carryAt = offset + static_cast<int64_t>(start);
            if (!skipping && carry.size() + (data.size() - start) > kMaxLineBytes) {
                skipping = true;
                carry.clear();
            }
            if (!skipping)
                carry.append(data.substr(start));
        }
        offset += static_cast<int64_t>(got);
        if (callbacks.progress)
            callbacks.progress(static_cast<int64_t>(got));
    }
    if (std::ferror(file.get()) != 0) {
        summary.error = std::string("read error: ") + std::strerror(errno);
        return summary;
    }
    summary.endsMidLine = !carry.empty() || skipping;
    if (skipping)
        assembler.longLine(kMaxLineBytes);
    else if (!carry.empty())
        assembler.line(carry, carryAt);
    assembler.end(summary.endsMidLine);
    return summary;
}

} // namespace cs::core::trace
