// The advice rules, one unit each (core/advice/*_rule.cpp). Each reads the
// report and the figures derived from it, and appends findings it can back
// with evidence; none of them writes generic advice.
#pragma once

#include <string>
#include <vector>

#include "core/advice/advice.h"
#include "core/advice/advice_input.h"

namespace cs::core::advice {

// Failures of a whole setting: out of memory, symbolic shapes, fullgraph, toolchain.
void failureRule(const AdviceInput& input, std::vector<Finding>& out);
// Every other setting that did not finish (the model's own error, a missing
// get_model(), a timeout, a crash) and has no critical finding yet: run after
// the other rules, so no report of failed settings reads "nothing to fix".
void unexplainedFailureRule(const AdviceInput& input, const std::vector<Finding>& found,
                            std::vector<Finding>& out);
// Graph breaks grouped by cause and source line.
void graphBreakRule(const AdviceInput& input, std::vector<Finding>& out);
// Graph breaks wholly in library code, one finding per package.
void libraryBreakRule(const AdviceInput& input, std::vector<Finding>& out);
// Recompiles because an input dimension changed; the recompile limit.
void recompileRule(const AdviceInput& input, std::vector<Finding>& out);
// A compiled setting that compiled nothing (compile turned off, no graph, no break).
void compiledNothingRule(const AdviceInput& input, std::vector<Finding>& out);
// torch.compile calls of the model file's own, which the probe undid: what they
// were, and the setting that compiles as the user's get_model() call did.
void ownCompileRule(const AdviceInput& input, std::vector<Finding>& out);
// Variables the probes inherited that change torch: listed; blocking launches
// on a GPU and caches off under a warm start are warnings.
void inheritedEnvironmentRule(const AdviceInput& input, std::vector<Finding>& out);
// No significant speedup, or per-call time dominated by overhead.
void noGainRule(const AdviceInput& input, std::vector<Finding>& out);
// Warmup not paid back within the calls the program makes.
void warmupRule(const AdviceInput& input, std::vector<Finding>& out);
// A cold-start table whose portable cache artifacts saved nothing on CPU.
void warmStartRule(const AdviceInput& input, std::vector<Finding>& out);
// A first call that compiles for longer than the set time: its dominant phase and the levers.
void compileTimeRule(const AdviceInput& input, std::vector<Finding>& out);
// A Python loop Dynamo unrolled into one of run's graphs (UnrolledLoop), for
// the rules about warmup and compile time: the evidence line and the remedy's
// sentence; both empty when no graph holds one.
struct UnrolledLoopText {
    std::string evidence;
    std::string remedy;
    std::string file; // the loop body's first line: where the finding points
    int line = 0;
};
UnrolledLoopText unrolledLoopText(const Run& run);
// Peak memory above eager's by more than the set fraction.
void memoryRule(const AdviceInput& input, std::vector<Finding>& out);
// Compiled outputs that are not eager's on the same inputs.
void outputsRule(const AdviceInput& input, std::vector<Finding>& out);
// Memory kept after every call at the same inputs: the model's when eager keeps it too.
void growthRule(const AdviceInput& input, std::vector<Finding>& out);
// Per-call median and the block-timing cross-check disagree: a disturbed measurement.
void disturbedRule(const AdviceInput& input, std::vector<Finding>& out);
// Other processes kept the probe's CPUs busy through the measure phase.
void busyMachineRule(const AdviceInput& input, std::vector<Finding>& out);
void hostDriftRule(const AdviceInput& input, std::vector<Finding>& out);
// Not a rule: after them, a speed verdict (perf.no_gain and perf.warmup
// against eager, perf.autocast against the setting without autocast) on runs
// measured while other work shared their CPUs says so and is held less sure
// (measure.busy_machine's test); so does one whose per-call timing was
// disturbed (measure.disturbed's), with what the timed blocks say.
void loadCaveat(const AdviceInput& input, std::vector<Finding>& findings);
// Page faults every call: malloc gives the buffers back to the OS between calls.
void pageFaultRule(const AdviceInput& input, std::vector<Finding>& out);
// The model changed its own inputs' shapes across the probe's calls.
void inputsChangedRule(const AdviceInput& input, std::vector<Finding>& out);
// get_model() left the model in training mode (the probe's training_mode line).
void trainingModeRule(const AdviceInput& input, std::vector<Finding>& out);
// The first measured calls above the steady-state band: warmup too short.
void unsettledRule(const AdviceInput& input, std::vector<Finding>& out);
// Ranks of an imported TORCH_TRACE log that compiled differently from the others.
void rankDivergenceRule(const AdviceInput& input, std::vector<Finding>& out);
// Batch-size walks: where compile pays, where memory runs out, the knee, overhead-bound sizes.
void scalingRule(const AdviceInput& input, std::vector<Finding>& out);
// aoti: torch.export refused the model; what torch.compile did at the same line.
void exportRule(const AdviceInput& input, std::vector<Finding>& out);
// A compiled setting under autocast measurably slower than without it.
void autocastRule(const AdviceInput& input, std::vector<Finding>& out);
// The profiled kernel window: one kernel above half the kernel time, time in
// ATen fallbacks, a line that runs uncompiled after a graph break.
void kernelRule(const AdviceInput& input, std::vector<Finding>& out);
// The profiled kernel window: modules a graph break left wholly uncompiled
// (kernel.uncompiled_modules); ranked with the breaks, whose cost it shows.
void uncompiledModulesRule(const AdviceInput& input, std::vector<Finding>& out);

} // namespace cs::core::advice
