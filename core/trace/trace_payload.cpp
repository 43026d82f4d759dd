#include "core/trace/trace_payload.h"

#include <fstream>
#include <string_view>

namespace cs::core::trace {

std::optional<std::string> readPayload(const std::string& path, int64_t offset, int64_t bytes) {
    constexpr int64_t kMaxBytes = int64_t{1} << 30;
    if (offset < 0 || bytes <= 0 || bytes > kMaxBytes)
        return std::nullopt;
    std::ifstream file(path, std::ios::binary);
    if (!file.seekg(offset))
        return std::nullopt;
    std::string raw(static_cast<size_t>(bytes), '\0');
    if (!file.read(raw.data(), bytes))
        return std::nullopt;
    std::string text;
    text.reserve(raw.size());
    size_t start = 0;
    while (start < raw.size()) {
        size_t end = raw.find('\n', start);
        if (end == std::string::npos)
            end = raw.size();
        const std::string_view line(raw.data() + start, end - start);
        if (line.empty() || line.front() != '\t')
            return std::nullopt; // the offset does not point at payload lines
        if (start > 0)
            text += '\n';
        text.append(line.substr(1));
        start = end + 1;
    }
    return text;
}

} // namespace cs::core::trace
