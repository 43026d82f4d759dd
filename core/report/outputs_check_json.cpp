#include "core/report/outputs_check_json.h"

#include <algorithm>
#include <cmath>

#include "core/report/json_lenient.h"

namespace cs::core {

namespace {

using nlohmann::json;

int64_t countAt(const json& object, const char* key) {
    return std::max<int64_t>(0, lenientValue<int64_t>(object, key, 0));
}

// A size or a difference: finite and not negative, else 0.
double amountAt(const json& object, const char* key) {
    const double value = lenientValue<double>(object, key, 0.0);
    return std::isfinite(value) && value > 0 ? value : 0.0;
}

OutputLeaf leafFromJson(const json& object) {
    OutputLeaf leaf;
    leaf.path = lenientValue<std::string>(object, "path", "output");
    leaf.kind = lenientValue<std::string>(object, "kind", "values");
    leaf.dtype = lenientValue<std::string>(object, "dtype", "");
    leaf.shape = lenientValue<std::vector<int64_t>>(object, "shape", {});
    leaf.maxAbsDiff = amountAt(object, "max_abs_diff");
    leaf.scale = amountAt(object, "scale");
    leaf.relative = amountAt(object, "relative");
    leaf.elements = countAt(object, "elements");
    leaf.mismatched = countAt(object, "mismatched");
    leaf.nonfinite = countAt(object, "nonfinite");
    leaf.differs = lenientValue<bool>(object, "differs", false);
    leaf.detail = lenientValue<std::string>(object, "detail", "");
    if (auto it = object.find("zero_rows"); it != object.end() && it->is_object()) {
        const std::string side = lenientValue<std::string>(*it, "side", "");
        if (side == "eager" || side == "compiled")
            leaf.zeroRows = ZeroRows{side,
                                     countAt(*it, "rows"),
                                     countAt(*it, "of"),
                                     countAt(*it, "differing_rows"),
                                     amountAt(*it, "max_abs_diff_elsewhere"),
                                     amountAt(*it, "relative_elsewhere"),
                                     lenientValue<bool>(*it, "within", false)};
    }
    return leaf;
}

json leafToJson(const OutputLeaf& leaf) {
    json j = {{"path", leaf.path},          {"kind", leaf.kind},
              {"differs", leaf.differs},    {"max_abs_diff", leaf.maxAbsDiff},
              {"scale", leaf.scale},        {"relative", leaf.relative},
              {"elements", leaf.elements},  {"mismatched", leaf.mismatched},
              {"nonfinite", leaf.nonfinite}};
    if (!leaf.dtype.empty())
        j["dtype"] = leaf.dtype;
    if (!leaf.shape.empty())
        j["shape"] = leaf.shape;
    if (!leaf.detail.empty())
        j["detail"] = leaf.detail;
    if (const auto& z = leaf.zeroRows)
        j["zero_rows"] = {{"side", z->side},
                          {"rows", z->rows},
                          {"of", z->of},
                          {"differing_rows", z->differingRows},
                          {"max_abs_diff_elsewhere", z->maxAbsDiffElsewhere},
                          {"relative_elsewhere", z->relativeElsewhere},
                          {"within", z->within}};
    return j;
}

std::optional<double> errorAt(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_number())
        return std::nullopt;
    const double value = it->get<double>();
    if (!std::isfinite(value) || value < 0)
        return std::nullopt;
    return value;
}

std::optional<FastPathCheck> fastPathFromJson(const json& object) {
    auto it = object.find("fast_path");
    if (it == object.end() || !it->is_object())
        return std::nullopt;
    FastPathCheck check;
    if (auto modules = it->find("modules"); modules != it->end() && modules->is_array())
        for (const auto& name : *modules)
            if (name.is_string())
                check.modules.push_back(name.get<std::string>());
    check.compiledAgrees = lenientValue<bool>(*it, "compiled_agrees", false);
    check.compiledRelative = amountAt(*it, "compiled_relative");
    check.eagerRelative = amountAt(*it, "eager_relative");
    check.note = lenientValue<std::string>(*it, "note", "");
    return check;
}

json fastPathToJson(const FastPathCheck& check) {
    json j = {{"modules", check.modules}};
    if (!check.note.empty()) {
        j["note"] = check.note;
        return j;
    }
    j["compiled_agrees"] = check.compiledAgrees;
    j["compiled_relative"] = check.compiledRelative;
    j["eager_relative"] = check.eagerRelative;
    return j;
}

} // namespace

OutputsCheck outputsCheckFromJson(const json& object) {
    OutputsCheck check;
    if (!object.is_object())
        return check;
    check.status = lenientValue<std::string>(object, "status", "");
    if (check.status.empty())
        return {};
    check.message = lenientValue<std::string>(object, "message", "");
    check.precision = lenientValue<std::string>(object, "precision", "");
    check.tolerance = amountAt(object, "tolerance");
    check.leaves = std::max(0, lenientValue<int>(object, "leaves", 0));
    check.differing = std::max(0, lenientValue<int>(object, "differing", 0));
    check.skipped = std::max(0, lenientValue<int>(object, "skipped", 0));
    if (auto it = object.find("worst"); it != object.end() && it->is_array()) {
        for (const auto& leaf : *it) {
            if (leaf.is_object())
                check.worst.push_back(leafFromJson(leaf));
        }
    }
    if (auto it = object.find("float64"); it != object.end() && it->is_object()) {
        check.float64EagerError = errorAt(*it, "eager_error");
        check.float64CompiledError = errorAt(*it, "compiled_error");
    }
    check.float64Note = lenientValue<std::string>(object, "float64_note", "");
    check.float64Shape = lenientValue<std::string>(object, "float64_shape", "");
    check.fastPath = fastPathFromJson(object);
    check.ns = countAt(object, "ns");
    return check;
}

json outputsCheckToJson(const OutputsCheck& check) {
    json j = {
        {"status", check.status}, {"precision", check.precision}, {"tolerance", check.tolerance},
        {"leaves", check.leaves}, {"differing", check.differing}, {"skipped", check.skipped},
        {"ns", check.ns},         {"worst", json::array()}};
    if (!check.message.empty())
        j["message"] = check.message;
    for (const auto& leaf : check.worst)
        j["worst"].push_back(leafToJson(leaf));
    if (check.float64EagerError && check.float64CompiledError)
        j["float64"] = {{"eager_error", *check.float64EagerError},
                        {"compiled_error", *check.float64CompiledError}};
    if (!check.float64Note.empty())
        j["float64_note"] = check.float64Note;
    if (!check.float64Shape.empty())
        j["float64_shape"] = check.float64Shape;
    if (check.fastPath)
        j["fast_path"] = fastPathToJson(*check.fastPath);
    return j;
}

} // namespace cs::core
