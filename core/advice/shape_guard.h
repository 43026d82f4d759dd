// Reads the guard failure Dynamo gives for a recompile when an input's size
// (or stride) changed: which tensor, which dimension, from what to what.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cs::core::advice {

struct ShapeGuardFailure {
    std::string tensor; // the input's name as Dynamo spells it: "tokens", "L['x']"
    std::string what;   // "size" or "stride"
    int dim = -1;
    int64_t expected = 0;
    int64_t actual = 0;
};

// nullopt when the reason is not a size/stride guard.
std::optional<ShapeGuardFailure> parseShapeGuard(const std::string& reason);

} // namespace cs::core::advice
