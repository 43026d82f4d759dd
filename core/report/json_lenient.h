// Reading fields of a report that may be hand-edited or from another version:
// a missing, null or wrongly typed field gives the fallback, never an exception.
#pragma once

#include <nlohmann/json.hpp>

namespace cs::core {

template <typename T> T lenientValue(const nlohmann::json& j, const char* key, T fallback) {
    if (!j.is_object())
        return fallback;
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    try {
        return it->get<T>();
    } catch (const nlohmann::json::exception&) {
        return fallback;
    }
}

} // namespace cs::core
