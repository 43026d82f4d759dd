// The model changed its own inputs across the probe's calls (a Hugging Face
// DynamicCache grows every call): each measured call did different work, so
// every timing of those settings describes none of them. The probe finds it
// (probe/compilescope_probe/input_drift.py) and says it in a warning log line.
#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/analysis/rank_divergence.h"

namespace cs::core::advice {

namespace {

// An older probe's line has no code: it is read by its wording, up to the
// changes it lists.
constexpr std::string_view kChanged = "the model changed its own inputs' shapes over the calls "
                                      "the probe made: ";
constexpr std::string_view kChangesEnd = ". Each call then did different work";

// "past_key_values.layers[0].keys went from [1, 2, 8, 32] to [1, 2, 99, 32]; …"
std::string changesOf(const Run& run) {
    for (const auto& line : run.logs) {
        if (line.code == "inputs_changed")
            return line.detail;
        if (line.code.empty() && line.level == "warning" && line.message.rfind(kChanged, 0) == 0) {
            const std::string rest = line.message.substr(kChanged.size());
            return rest.substr(0, rest.find(kChangesEnd));
        }
    }
    return {};
}

} // namespace

void inputsChangedRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    Finding f;
    std::vector<std::string> settings;
    for (size_t r = 0; r < runs.size(); ++r) {
        const std::string changes = changesOf(runs[r]);
        if (changes.empty())
            continue;
        const std::string label = runLabel(runs[r], static_cast<int>(r));
        if (settings.empty()) {
            f.run = static_cast<int>(r);
            f.setting = label;
        }
        settings.push_back(label);
        f.evidence.push_back(label + ": " + changes);
    }
    if (settings.empty())
        return;
    f.rule = "measure.inputs_changed";
    f.severity = Severity::Warning;
    f.tab = EvidenceTab::Latency;
    f.title = "The model changed its own inputs while measured: each call of " +
              joinWords(settings) + " did different work";
    f.remedy = "The probe calls the model again and again on what get_inputs() returned, and "
               "the model grew those inputs, so the median, the speedup and the break-even "
               "describe none of the calls. Give get_inputs() inputs the model leaves as they "
               "are: for a Hugging Face KV cache, use_cache=False, or a StaticCache with its "
               "cache_position (its tensors keep their shape; a write into its slot is the same "
               "work every call).";
    f.confidence = 0.9;
    out.push_back(std::move(f));
}

} // namespace cs::core::advice
