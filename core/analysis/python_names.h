// How a sentence names what the model's Python code names: a module path as
// Python reaches it, and a torch.compile call of the model's own.
#pragma once

#include <string>

#include "core/report/session.h"

namespace cs::core {

// "features.0.block" → "model.features[0].block": a module path as Python
// reaches it (an nn.Sequential's or nn.ModuleList's children by index);
// "" → "model".
std::string pythonAccess(const std::string& path);
// A module path to name in a sentence: as is ("blocks.0"), but a child of a
// model that is an nn.Sequential as Python reaches it ("model[7]", not "7").
std::string moduleName(const std::string& path);
// One torch.compile call of the model's own, as the model file wrote it:
// "get_model() returns torch.compile(model, mode=\"max-autotune\")",
// "model[1].compile(mode=\"reduce-overhead\")",
// "model.forward = torch.compile(model.forward)",
// "@torch.compile(dynamic=False) on scaled_gelu".
std::string ownCompileText(const OwnCompile& call);

} // namespace cs::core
