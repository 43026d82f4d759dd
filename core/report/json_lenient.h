// Reading fields of a report that may be hand-edited or from another version:
// a missing, null or wrongly typed field gives the fallback, never an exception.
#pragma once

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace cs::core {

namespace detail {
template <typename T> struct IsVector : std::false_type {};
template <typename U, typename A> struct IsVector<std::vector<U, A>> : std::true_type {};
template <typename T> struct IsStringMap : std::false_type {};
template <typename U> struct IsStringMap<std::map<std::string, U>> : std::true_type {};
} // namespace detail

// One JSON value as T into `out`; false (and `out` untouched) when it is none.
// nlohmann's get<int>() on a float casts it, undefined behaviour when the float
// is out of range (1e300 in a hand-edited report), so integers are checked
// here, in containers too.
template <typename T> bool lenientConvert(const nlohmann::json& value, T& out) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        if (value.is_number_integer()) {
            out = value.get<T>(); // integer to integer wraps: defined
            return true;
        }
        if (!value.is_number_float())
            return false;
        const double d = value.get<double>();
        const double low = static_cast<double>(std::numeric_limits<T>::min()); // 0 or -2^n: exact
        const double high = std::ldexp(1.0, std::numeric_limits<T>::digits);
        if (!(d >= low && d < high))
            return false;
        out = static_cast<T>(d);
        return true;
    } else if constexpr (detail::IsVector<T>::value) {
        if (!value.is_array())
            return false;
        T items;
        items.reserve(value.size());
        for (const auto& element : value) {
            typename T::value_type item{};
            if (!lenientConvert(element, item))
                return false;
            items.push_back(std::move(item));
        }
        out = std::move(items);
        return true;
    } else if constexpr (detail::IsStringMap<T>::value) {
        if (!value.is_object())
            return false;
        T items;
        for (const auto& [key, element] : value.items()) {
            typename T::mapped_type item{};
            if (!lenientConvert(element, item))
                return false;
            items.emplace(key, std::move(item));
        }
        out = std::move(items);
        return true;
    } else {
        try {
            out = value.get<T>();
            return true;
        } catch (const nlohmann::json::exception&) {
            return false;
        }
    }
}

template <typename T> T lenientValue(const nlohmann::json& j, const char* key, T fallback) {
    if (!j.is_object())
        return fallback;
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    T value{};
    return lenientConvert(*it, value) ? value : fallback;
}

} // namespace cs::core
