// get_model() returned the model in training mode: the probe measures it in
// eval mode, as inference runs, and says so in a warning log line
// (probe/compilescope_probe/main.py, warn_training_mode). A program that
// forgot model.eval() runs dropout and batch norm's batch statistics on every
// call, which is a bug in inference, not a compile question: one finding,
// whatever number of settings saw it.
#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/analysis/rank_divergence.h"

namespace cs::core::advice {

void trainingModeRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        for (const auto& line : runs[r].logs) {
            if (line.code != "training_mode")
                continue;
            Finding f;
            f.rule = "model.training_mode";
            f.severity = Severity::Warning;
            f.tab = EvidenceTab::Compare;
            f.run = static_cast<int>(r);
            f.setting = runLabel(runs[r], static_cast<int>(r));
            f.title = "get_model() returned the model in training mode";
            f.evidence.push_back("its modules that act otherwise in training mode: " +
                                 (line.detail.empty() ? std::string("not named") : line.detail));
            f.evidence.push_back("compilescope measured it in eval mode in every setting, as "
                                 "inference runs: dropout off, batch norm on its running "
                                 "statistics");
            f.remedy = "If your program runs the model for inference, call model.eval() before "
                       "it does (and before torch.compile): in training mode dropout changes its "
                       "outputs on every call and batch norm computes and updates its statistics "
                       "from each batch. If it trains, these figures are not its: compilescope "
                       "measures inference under torch.no_grad().";
            f.confidence = 0.9;
            out.push_back(std::move(f));
            return; // the model's, not a setting's: once
        }
    }
}

} // namespace cs::core::advice
