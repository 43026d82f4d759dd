// Parsed JSON values of a report → the session model, piece by piece, so the
// streaming reader can convert the big arrays (iterations, graphs) element by
// element instead of holding them all as JSON. Fields that are missing or of
// the wrong type fall back to the model's defaults; never throws.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

// What the streaming reader already converted for one run.
struct RunParts {
    std::vector<Iteration> iterations;
    std::vector<Graph> graphs;
};

Iteration iterationFromJson(const nlohmann::json& it);
Graph graphFromJson(const nlohmann::json& g);
ModelInfo modelFromJson(const nlohmann::json& j);
Environment environmentFromJson(const nlohmann::json& env);

// `j` is one element of "runs"; `parts` holds its iterations and graphs when they
// were streamed out of `j` (their arrays are then present but empty in `j`).
// Problems go to `warnings`, naming the run by its 1-based `number`.
Run runFromJson(const nlohmann::json& j, RunParts parts, std::vector<std::string>& warnings,
                size_t number);

// The fields a current report has at the top level and in every run; a reader
// of an older or hand-made report names the ones absent.
const std::vector<std::string>& reportFieldNames();
const std::vector<std::string>& runFieldNames();

} // namespace cs::core
