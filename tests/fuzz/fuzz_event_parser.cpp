// The JSON Lines event parser fed in chunks whose split points come from the
// input: whatever the chunks, the items must be those of the whole stream fed
// at once, and applying them to a run must not crash. A second parser with a
// tiny line bound checks that an overlong line is refused the same way too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/events/event_parser.h"

namespace {

using cs::core::EventParser;
using cs::core::StreamItem;

std::vector<StreamItem> parseAll(EventParser& parser, std::string_view stream,
                                 const std::vector<size_t>& cuts) {
    std::vector<StreamItem> items;
    size_t at = 0;
    auto take = [&items](std::vector<StreamItem> more) {
        for (auto& item : more)
            items.push_back(std::move(item));
    };
    for (size_t cut : cuts) {
        take(parser.feed(stream.substr(at, cut - at)));
        at = cut;
    }
    take(parser.feed(stream.substr(at)));
    take(parser.finish());
    return items;
}

bool sameItems(const std::vector<StreamItem>& a, const std::vector<StreamItem>& b) {
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].line != b[i].line || a[i].ok != b[i].ok || a[i].problem != b[i].problem ||
            a[i].event != b[i].event)
            return false;
    }
    return true;
}

} // namespace

// Input: one byte n (0-15 cut points), n two-byte offsets, then the stream.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1)
        return 0;
    const size_t count = data[0] % 16;
    if (size < 1 + 2 * count)
        return 0;
    const std::string_view stream(reinterpret_cast<const char*>(data) + 1 + 2 * count,
                                  size - 1 - 2 * count);
    std::vector<size_t> cuts;
    for (size_t i = 0; i < count; ++i) {
        const size_t raw = static_cast<size_t>(data[1 + 2 * i]) << 8 | data[2 + 2 * i];
        cuts.push_back(stream.empty() ? 0 : raw % (stream.size() + 1));
    }
    std::sort(cuts.begin(), cuts.end());

    for (size_t bound : {cs::core::kMaxEventLineBytes, size_t{48}}) {
        EventParser whole(bound);
        EventParser chunked(bound);
        const auto expected = parseAll(whole, stream, {});
        const auto got = parseAll(chunked, stream, cuts);
        if (!sameItems(expected, got))
            std::abort();
        if (bound != cs::core::kMaxEventLineBytes)
            continue;
        cs::core::Run run;
        for (const auto& item : got)
            cs::core::applyStreamItem(run, item);
    }
    return 0;
}
