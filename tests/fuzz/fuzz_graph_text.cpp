// parseGraphText and parseTypeAnnotation on arbitrary text: no crash, no
// sanitizer report, and every node it returns has a name.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/trace/graph_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto& node : cs::core::trace::parseGraphText(text)) {
        if (node.name.empty())
            std::abort();
    }
    std::string shape;
    std::string dtype;
    // The first line alone, as an annotation (what the parser hands it).
    cs::core::trace::parseTypeAnnotation(text.substr(0, text.find('\n')), shape, dtype);
    return 0;
}
