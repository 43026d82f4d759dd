// Rules outputs.differ and outputs.precision: a compiled setting whose outputs
// are not eager's on the same inputs (docs/outputs.md). A NaN or a new shape
// is a wrong result whatever the tolerance. Values past the tolerance are a
// warning unless the same call in float64 shows the compiled side nearer the
// exact result: then it is eager's rounding in low precision, said as such.
// Where eager with PyTorch's fast path off gives the compiled outputs, the
// fast path is the difference (outputs.fast_path), not the compiler.
#include <algorithm>
#include <set>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

constexpr size_t kLeavesShown = 3;

std::string shapeText(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

std::string leafEvidence(const OutputLeaf& leaf, double tolerance) {
    std::string head = leaf.path;
    if (!leaf.dtype.empty())
        head += " " + shapeText(leaf.shape) + " " + leaf.dtype;
    if (!leaf.detail.empty())
        return head + ": " + leaf.detail;
    const std::string pastTolerance = formatCount(static_cast<double>(leaf.mismatched)) + " of " +
                                      formatCount(static_cast<double>(leaf.elements)) + " values";
    if (leaf.kind == "nonfinite")
        return head + ": " + formatCount(static_cast<double>(leaf.nonfinite)) + " of " +
               formatCount(static_cast<double>(leaf.elements)) +
               " values NaN or infinite on one side only";
    if (leaf.dtype.rfind("float", 0) != 0 && leaf.dtype.rfind("bfloat", 0) != 0 &&
        leaf.dtype.rfind("complex", 0) != 0 && leaf.dtype != "int")
        return head + ": " + pastTolerance + " differ (integers are held exactly)";
    std::string text = head + ": largest difference " + formatPercent(leaf.relative) +
                       " of its largest value (" + formatPercent(tolerance) + " allowed); " +
                       pastTolerance + " past it";
    if (const auto& z = leaf.zeroRows)
        text += ", all in " + formatCount(static_cast<double>(z->differingRows)) + " of the " +
                formatCount(static_cast<double>(z->rows)) + " rows (of " +
                formatCount(static_cast<double>(z->of)) + ", along the last dimension) that " +
                z->side + " left all zeros; in the other rows the largest difference is " +
                formatPercent(z->relativeElsewhere);
    return text;
}

// The function a graph node calls, without its module path:
// "torch.nn.functional.dropout" and "<built-in method rand of type object>"
// give "dropout" and "rand".
std::string calledName(const std::string& target) {
    if (const size_t method = target.find("method "); method != std::string::npos) {
        const size_t begin = method + 7;
        return target.substr(begin, target.find(' ', begin) - begin);
    }
    const size_t dot = target.rfind('.');
    return dot == std::string::npos ? target : target.substr(dot + 1);
}

// A node of the captured graphs that draws random numbers: Inductor draws
// its own, so the same seed gives other numbers than eager's.
const GraphNode* randomNode(const Run& run) {
    static const std::set<std::string> kDraws = {
        "rand",         "randn",    "rand_like",  "randn_like", "randint",
        "randint_like", "randperm", "bernoulli",  "bernoulli_", "normal",
        "normal_",      "uniform_", "random_",    "poisson",    "multinomial",
        "exponential_", "cauchy_",  "geometric_", "log_normal_"};
    for (const auto& graph : run.graphs)
        for (const auto& node : graph.nodes) {
            if (node.op != "call_function" && node.op != "call_method" && node.op != "call_module")
                continue;
            const std::string name = calledName(node.target);
            if (kDraws.count(name) || containsText(name, "dropout"))
                return &node;
        }
    return nullptr;
}

std::string fastPathEvidence(const FastPathCheck& fast, const std::string& label) {
    return "eager again with PyTorch's fast path off "
           "(torch.backends.mha.set_fastpath_enabled(False)): " +
           label + "'s outputs are " + formatPercent(fast.compiledRelative) +
           " from it, eager's (fast path on) " + formatPercent(fast.eagerRelative);
}

bool holdsEncoder(const std::vector<std::string>& modules) {
    return std::any_of(modules.begin(), modules.end(), [](const std::string& module) {
        return containsText(module, "(TransformerEncoder)");
    });
}

std::string fastPathRemedy(const FastPathCheck& fast) {
    const std::string plain = "Nothing is wrong in the compiled program: eager with the fast "
                              "path off gives its outputs. ";
    if (!holdsEncoder(fast.modules))
        return plain + "The fast path (taken in eval under no_grad) computes otherwise than the "
                       "standard path on these inputs; a test that holds the compiled model to "
                       "eager should call torch.backends.mha.set_fastpath_enabled(False) before "
                       "the eager call.";
    // Checked with torch 2.15 on pooled_encoder.py: enable_nested_tensor=False
    // made eager's outputs and the compiled ones the same to the bit.
    return plain +
           "In eval under no_grad, nn.TransformerEncoder with a src_key_padding_mask runs the "
           "batch as nested tensors and returns the padded positions as zeros; under "
           "torch.compile it skips that step, as training does, and computes values there. The "
           "model reads those positions after the encoder (a mean or sum over every position, a "
           "flatten), so eager in eval departs from what the model computed while it trained. "
           "Build the encoder with nn.TransformerEncoder(..., enable_nested_tensor=False): eager "
           "then computes them too (on a sentence classifier pooled with .mean(1), eager's "
           "outputs and the compiled ones became the same to the bit). Where you train the "
           "model again, leave the padded positions out where they are read: "
           "h = h.masked_fill(mask.unsqueeze(-1), 0.0), then h.sum(1) / (~mask).sum(1, "
           "keepdim=True) for a mean; every path then agrees.";
}

} // namespace

void outputsRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        const OutputsCheck& check = run.outputsCheck;
        if (check.status != "differ" || check.worst.empty())
            continue;
        const std::string label = run.setting.label();
        const OutputLeaf& worst = check.worst.front();
        const bool wrong = check.wrongResult();
        const bool nearer = check.roundingOnly();
        const bool masked = !nearer && check.maskedRowsOnly();
        const bool fastPath = !nearer && !masked && check.fastPathOnly();

        Finding f;
        // A size float64 gives as the compiled call does is eager's rounding too.
        const bool sized = nearer && check.sizeFollowsFloat64();
        f.rule = nearer     ? "outputs.precision"
                 : masked   ? "outputs.masked_rows"
                 : fastPath ? "outputs.fast_path"
                            : "outputs.differ";
        f.severity = nearer || masked     ? Severity::Info
                     : wrong && !fastPath ? Severity::Critical
                                          : Severity::Warning;
        f.tab = EvidenceTab::Compare;
        f.run = static_cast<int>(r);
        f.setting = label;
        for (size_t i = 0; i < std::min(kLeavesShown, check.worst.size()); ++i)
            f.evidence.push_back(leafEvidence(check.worst[i], check.tolerance));
        if (check.differing > static_cast<int>(kLeavesShown))
            f.evidence.push_back(plural(check.differing, "output value", "output values") +
                                 " differ in all");
        f.evidence.push_back("the same inputs, eager called twice under two random seeds with "
                             "the same outputs, then " +
                             label + " once (after its timed calls)");
        // float64's eager call takes the same fast path and zeroes the same
        // rows: its verdict on padded rows says nothing about the rest.
        const bool float64Tells = !masked && !fastPath;
        if (check.fastPath && check.fastPath->note.empty())
            f.evidence.push_back(fastPathEvidence(*check.fastPath, label));
        if (float64Tells && check.float64EagerError && check.float64CompiledError)
            f.evidence.push_back("the same call in float64: eager's outputs are " +
                                 formatPercent(*check.float64EagerError) + " from it, " + label +
                                 "'s " + formatPercent(*check.float64CompiledError));
        else if (float64Tells && !check.float64Note.empty())
            f.evidence.push_back(check.float64Note);

        if (worst.kind == "nonfinite") {
            f.title = label + "'s outputs hold NaN or infinity where eager's are finite (" +
                      worst.path + ")";
        } else if (fastPath) {
            f.title = label + "'s outputs differ from eager's (" + worst.path +
                      ") only because eager takes PyTorch's fast path in " +
                      joinWords(check.fastPath->modules);
        } else if (sized) {
            f.title = label + "'s outputs are shaped otherwise than eager's (" + worst.path +
                      "), as float64's are";
        } else if (wrong) {
            f.title = label + "'s outputs are not shaped as eager's (" + worst.path + ")";
        } else if (masked) {
            const ZeroRows& z = *worst.zeroRows;
            f.title = label + "'s outputs differ from eager's only in the " +
                      formatCount(static_cast<double>(z.differingRows)) + " rows " + z.side +
                      " left all zeros (" + worst.path + "): padded positions";
        } else if (nearer) {
            f.title = label + "'s outputs differ from eager's by up to " +
                      formatPercent(worst.relative) + " in " + check.precision +
                      ", and are the nearer the exact result";
        } else {
            f.title = label + "'s outputs differ from eager's by up to " +
                      formatPercent(worst.relative) + " (" + worst.path + ")";
        }

        if (fastPath) {
            f.remedy = fastPathRemedy(*check.fastPath);
            f.confidence = 0.85;
        } else if (sized) {
            f.remedy = "Nothing to fix in the compiled program: a size set by values (a boolean "
                       "mask, nonzero, scores kept above a threshold) follows rounding, and a "
                       "value within rounding of the cut fell the other way in eager's. Code "
                       "that acts on the count should not hang on values that near its "
                       "threshold, and a test that holds the model to eager's count needs a "
                       "margin at the threshold or a float64 reference.";
            f.confidence = 0.8;
        } else if (masked) {
            const std::string& side = worst.zeroRows->side;
            f.remedy =
                "Nothing to fix where your code ignores those positions: " + side +
                " wrote zeros there and the other side computed values, as positions a padding "
                "mask masks out get (nn.TransformerEncoder's fast path, in eval under no_grad "
                "with src_key_padding_mask, returns them as zeros through nested tensors; the "
                "compiled graph computes them). Their values mean nothing, and in the other rows "
                "the outputs agree within the tolerance. Where later code reads them (a mean "
                "over all positions), zero them yourself on both paths: "
                "out.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0).";
            f.confidence = 0.75;
        } else if (nearer) {
            f.remedy = "Nothing to fix in the compiled program: Inductor keeps the intermediate "
                       "values of fused ops in float32 where eager rounds to " +
                       check.precision +
                       " after every op, so its outputs are the more exact. A test that holds "
                       "the model to eager's " +
                       check.precision +
                       " numbers needs a tolerance for that precision, or a float32 reference.";
            f.confidence = 0.85;
        } else if (const GraphNode* draw =
                       run.setting.backend == "inductor" && !wrong ? randomNode(run) : nullptr) {
            f.evidence.push_back("the captured graph draws random numbers: " + draw->target +
                                 (draw->file.empty()
                                      ? std::string()
                                      : " at " + shortLocation(draw->file, draw->line)));
            f.remedy = "Inductor draws random numbers its own way, so the same seed gives other "
                       "numbers than eager's (a dropout left on, noise added in forward). "
                       "torch._inductor.config.fallback_random = True makes it draw them as "
                       "eager does, at some cost in speed; measure again with it set: if the "
                       "outputs then agree, the random draws were the whole difference.";
            f.confidence = 0.7;
        } else {
            const bool inductor = run.setting.backend == "inductor";
            f.remedy =
                std::string(inductor
                                ? "Run the same setting with backend aot_eager: if its outputs "
                                  "agree, Inductor's kernels are the cause. "
                                : "Backend " + run.setting.backend +
                                      " generates no kernels, so the difference comes "
                                      "from Dynamo's capture or AOT autograd. ") +
                "TORCHDYNAMO_REPRO_AFTER=" + (inductor ? "aot" : "dynamo") +
                " TORCHDYNAMO_REPRO_LEVEL=4 makes torch cut the graph down to the ops that "
                "disagree (a minifier_launcher.py) for a PyTorch issue. Until then, use a setting "
                "whose outputs agree (Compare tab).";
            f.confidence = wrong ? 0.9 : 0.75;
        }
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
