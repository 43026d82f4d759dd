#include "probe/cupti/name_table.h"

#include <cstdlib>
#include <cxxabi.h>

namespace cs::cupti {

namespace {

std::string demangled(const std::string& raw) {
    if (raw.rfind("_Z", 0) != 0) {
        return raw;
    }
    int status = 0;
    char* out = abi::__cxa_demangle(raw.c_str(), nullptr, nullptr, &status);
    if (status != 0 || out == nullptr) {
        std::free(out);
        return raw;
    }
    std::string result(out);
    std::free(out);
    return result;
}

} // namespace

uint32_t NameTable::intern(std::string_view raw) {
    std::lock_guard lock(mutex_);
    if (auto it = ids_.find(raw); it != ids_.end()) {
        return it->second;
    }
    std::string key(raw);
    shown_.push_back(demangled(key));
    const auto id = static_cast<uint32_t>(shown_.size());
    ids_.emplace(std::move(key), id);
    return id;
}

const char* NameTable::lookup(uint32_t id) const {
    std::lock_guard lock(mutex_);
    if (id == 0 || id > shown_.size()) {
        return nullptr;
    }
    return shown_[id - 1].c_str();
}

uint32_t NameTable::size() const {
    std::lock_guard lock(mutex_);
    return static_cast<uint32_t>(shown_.size());
}

} // namespace cs::cupti
