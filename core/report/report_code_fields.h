// Inductor's generated code and the profiled kernel window, in both places
// they travel: the probe's inductor_code / kernel_profile events and the
// report's "code" / "kernel_profile" fields (docs/report-format.md). The two
// shapes are the same but for the wrapper's text, which the report stores
// deflated and base64-encoded ("wrapper_zlib").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

GeneratedCode generatedCodeFromEvent(const nlohmann::json& event);
KernelProfile kernelProfileFromEvent(const nlohmann::json& event);

// Adds "code", "code_omitted" and "kernel_profile" to a run object; nothing
// for a run that has none of them.
void addCodeFields(nlohmann::json& runJson, const Run& run);
// Reads them back; a wrapper that does not inflate is dropped with a warning.
void readCodeFields(const nlohmann::json& runJson, Run& run, std::vector<std::string>& warnings,
                    const std::string& where);

// zlib deflate + base64, and back; nullopt when the text is not such data.
std::string deflateBase64(std::string_view input);
std::optional<std::string> inflateBase64(std::string_view encoded, size_t maxBytes);

// Leaves names, nodes and lines but drops every wrapper text, and says why
// (the report's --no-code).
void omitCode(Run& run, const std::string& why);

} // namespace cs::core
