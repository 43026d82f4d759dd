#include "core/advice/advice_json.h"

#include "core/advice/advice.h"

namespace cs::core {

nlohmann::json adviceToJson(const Report& report) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : advise(report))
        findings.push_back(findingToJson(f));
    const auto& o = report.adviceOptions;
    return {{"options",
             {{"expected_calls", o.expectedCalls},
              {"memory_fraction", o.memoryFraction},
              {"long_compile_s", o.longCompileSeconds}}},
            {"findings", findings}};
}

AdviceOptions adviceOptionsFromJson(const nlohmann::json& advice) {
    AdviceOptions options;
    if (!advice.is_object())
        return options;
    const auto o = advice.find("options");
    if (o == advice.end() || !o->is_object())
        return options;
    if (auto it = o->find("expected_calls");
        it != o->end() && it->is_number_integer() && it->get<int>() > 0)
        options.expectedCalls = it->get<int>();
    if (auto it = o->find("memory_fraction");
        it != o->end() && it->is_number() && it->get<double>() >= 0)
        options.memoryFraction = it->get<double>();
    if (auto it = o->find("long_compile_s");
        it != o->end() && it->is_number() && it->get<double>() >= 0)
        options.longCompileSeconds = it->get<double>();
    return options;
}

} // namespace cs::core
