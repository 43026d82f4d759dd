// Loads one payload of a TORCH_TRACE file when a view needs it: the importer
// keeps only where payloads are (CompileRecord::outputCodeOffset), not their text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cs::core::trace {

// The payload's text (tabs stripped, lines joined with newlines), or nullopt
// when the file cannot be read there or the bytes are not payload lines.
std::optional<std::string> readPayload(const std::string& path, int64_t offset, int64_t bytes);

} // namespace cs::core::trace
