#include "core/report/module_hooks_json.h"

#include <algorithm>

#include "core/report/json_lenient.h"

namespace cs::core {

std::vector<ModuleHook> moduleHooksFromJson(const nlohmann::json& list) {
    std::vector<ModuleHook> hooks;
    if (!list.is_array())
        return hooks;
    for (const auto& entry : list) {
        if (!entry.is_object())
            continue;
        ModuleHook h;
        h.function = lenientValue<std::string>(entry, "function", "");
        if (h.function.empty())
            continue;
        h.module = lenientValue<std::string>(entry, "module", "");
        h.kind = lenientValue<std::string>(entry, "kind", "forward");
        h.file = lenientValue<std::string>(entry, "file", "");
        h.line = std::max(0, lenientValue<int>(entry, "line", 0));
        hooks.push_back(std::move(h));
    }
    return hooks;
}

nlohmann::json moduleHooksToJson(const std::vector<ModuleHook>& hooks) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& h : hooks)
        list.push_back({{"module", h.module},
                        {"kind", h.kind},
                        {"function", h.function},
                        {"file", h.file},
                        {"line", h.line}});
    return list;
}

} // namespace cs::core
