#include "core/report/own_compiles_json.h"

#include "core/report/json_lenient.h"

namespace cs::core {

namespace {

// null (torch decides), true or false, as a setting's dynamic= says it.
std::string dynamicText(const nlohmann::json& entry) {
    auto it = entry.find("dynamic");
    if (it == entry.end() || !it->is_boolean())
        return "auto";
    return it->get<bool>() ? "true" : "false";
}

} // namespace

std::vector<OwnCompile> ownCompilesFromJson(const nlohmann::json& list) {
    std::vector<OwnCompile> calls;
    if (!list.is_array())
        return calls;
    for (const auto& entry : list) {
        if (!entry.is_object() || !entry.contains("where"))
            continue;
        OwnCompile c;
        c.where = lenientValue<std::string>(entry, "where", "");
        c.how = lenientValue<std::string>(entry, "how", "");
        if (c.how.empty())
            continue;
        c.backend = lenientValue<std::string>(entry, "backend", "");
        c.mode = lenientValue<std::string>(entry, "mode", "");
        c.dynamic = dynamicText(entry);
        c.fullgraph = lenientValue<bool>(entry, "fullgraph", false);
        c.call = lenientValue<std::string>(entry, "call", "torch.compile(...)");
        calls.push_back(std::move(c));
    }
    return calls;
}

nlohmann::json ownCompilesToJson(const std::vector<OwnCompile>& calls) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& c : calls) {
        nlohmann::json dynamic = nullptr;
        if (c.dynamic != "auto")
            dynamic = c.dynamic == "true";
        list.push_back({{"where", c.where},
                        {"how", c.how},
                        {"backend", c.backend},
                        {"mode", c.mode.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.mode)},
                        {"dynamic", dynamic},
                        {"fullgraph", c.fullgraph},
                        {"call", c.call}});
    }
    return list;
}

} // namespace cs::core
