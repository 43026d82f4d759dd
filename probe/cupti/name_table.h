// Interns kernel and phase names: records carry a 32-bit id, not a pointer
// into CUPTI's memory (which may go away when a module unloads).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cs::cupti {

class NameTable {
  public:
    // Id (from 1) for raw; mangled C++ names are shown demangled.
    uint32_t intern(std::string_view raw);
    // nullptr for an unknown id. The pointer stays valid for the table's life.
    const char* lookup(uint32_t id) const;
    uint32_t size() const;

  private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };

    mutable std::mutex mutex_;
    std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
    std::deque<std::string> shown_; // deque: c_str() of old entries never moves
};

} // namespace cs::cupti
