// outputs.differ and outputs.precision: compiled outputs that are not eager's
// on the same inputs (docs/outputs.md).
#include <gtest/gtest.h>

#include "core/analysis/comparison.h"
#include "core/report/outputs_check_json.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kMs = 1'000'000;

OutputLeaf valuesLeaf(double relative, int64_t mismatched) {
    OutputLeaf leaf;
    leaf.path = "output['logits']";
    leaf.kind = "values";
    leaf.dtype = "float32";
    leaf.shape = {32, 10};
    leaf.elements = 320;
    leaf.scale = 2.0;
    leaf.maxAbsDiff = relative * 2.0;
    leaf.relative = relative;
    leaf.mismatched = mismatched;
    leaf.differs = mismatched > 0;
    return leaf;
}

// A leaf whose shape differs: the figures a values leaf carries are not read.
OutputLeaf shapeLeaf(const std::string& path, const std::string& detail) {
    OutputLeaf leaf = valuesLeaf(0, 1);
    leaf.path = path;
    leaf.kind = "shape";
    leaf.detail = detail;
    return leaf;
}

Run checkedRun(const std::string& backend, OutputsCheck check) {
    Run run = timedRun("default", {1000 * kMs}, constant(20, kMs), backend);
    run.outputsCheck = std::move(check);
    return run;
}

OutputsCheck differing(std::vector<OutputLeaf> worst) {
    OutputsCheck check;
    check.status = "differ";
    check.precision = "float32";
    check.tolerance = 1e-3;
    check.leaves = 3;
    check.differing = static_cast<int>(worst.size());
    check.worst = std::move(worst);
    return check;
}

// A recorded default/aot_eager run whose outputs check is the point
// (tests/probe/record_streams.py outputs_checked).
cs::core::Run outputsChecked(const std::string& stream) {
    Setting setting;
    setting.mode = "default";
    setting.backend = "aot_eager";
    return fixtureRun(stream, setting);
}

} // namespace

TEST(AdviceOutputs, ValuesPastTheToleranceAreAWarningWithTheMinifier) {
    OutputsCheck check = differing({valuesLeaf(0.032, 45)});
    check.float64EagerError = 1e-7;
    check.float64CompiledError = 0.031;
    const auto found =
        withRule(advise(reportOf({checkedRun("inductor", check)}), {}), "outputs.differ");
    ASSERT_EQ(found.size(), 1u);
    const Finding& f = found[0];
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_EQ(f.title, "default's outputs differ from eager's by up to 3.2% (output['logits'])");
    EXPECT_EQ(f.evidence[0], "output['logits'] [32, 10] float32: largest difference 3.2% of its "
                             "largest value (0.10% allowed); 45 of 320 values past it");
    EXPECT_NE(f.evidence.back().find("eager's outputs are 0.000010% from it, default's 3.1%"),
              std::string::npos)
        << f.evidence.back();
    EXPECT_NE(f.remedy.find("backend aot_eager"), std::string::npos);
    EXPECT_NE(f.remedy.find("TORCHDYNAMO_REPRO_AFTER=aot TORCHDYNAMO_REPRO_LEVEL=4"),
              std::string::npos);
    EXPECT_EQ(f.tab, EvidenceTab::Compare);
    // Without Inductor the cause is upstream of the kernels.
    const auto upstream =
        withRule(advise(reportOf({checkedRun("aot_eager", check)}), {}), "outputs.differ");
    ASSERT_EQ(upstream.size(), 1u);
    EXPECT_NE(upstream[0].remedy.find("TORCHDYNAMO_REPRO_AFTER=dynamo"), std::string::npos);
}

TEST(AdviceOutputs, NanWhereEagerIsFiniteOrANewShapeIsCritical) {
    OutputLeaf nan = valuesLeaf(0, 3);
    nan.kind = "nonfinite";
    nan.nonfinite = 3;
    // float64 nearer cannot excuse a NaN
    OutputsCheck check = differing({nan});
    check.float64EagerError = 0.5;
    check.float64CompiledError = 0.1;
    const auto found =
        withRule(advise(reportOf({checkedRun("inductor", check)}), {}), "outputs.differ");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Critical);
    EXPECT_EQ(found[0].title, "default's outputs hold NaN or infinity where eager's are finite "
                              "(output['logits'])");
    EXPECT_NE(found[0].evidence[0].find("3 of 320 values NaN or infinite on one side only"),
              std::string::npos);

    OutputLeaf shaped;
    shaped.path = "output[0]";
    shaped.kind = "shape";
    shaped.differs = true;
    shaped.detail = "shape [5] in eager, [4] compiled";
    const auto reshaped = withRule(
        advise(reportOf({checkedRun("inductor", differing({shaped}))}), {}), "outputs.differ");
    ASSERT_EQ(reshaped.size(), 1u);
    EXPECT_EQ(reshaped[0].severity, Severity::Critical);
    EXPECT_EQ(reshaped[0].evidence[0], "output[0]: shape [5] in eager, [4] compiled");
}

// The real stream of tests/probe/models/bf16_steps.py compiled on CPU: eager
// rounds each bfloat16 step, Inductor's fused kernel does not.
TEST(AdviceOutputs, LowPrecisionNearerFloat64IsInformationNotAWarning) {
    Setting setting;
    setting.mode = "default";
    const cs::core::Run run = fixtureRun("bf16_steps_default_cpu.jsonl", setting);
    ASSERT_EQ(run.outputsCheck.status, "differ");
    ASSERT_TRUE(run.outputsCheck.compiledNearer());
    EXPECT_EQ(run.outputsCheck.precision, "bfloat16");
    const auto all = advise(reportOf({run}), {});
    EXPECT_TRUE(withRule(all, "outputs.differ").empty());
    const auto found = withRule(all, "outputs.precision");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].title.find("in bfloat16, and are the nearer the exact result"),
              std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].remedy.find("Nothing to fix"), std::string::npos);
    // The report keeps the check as the stream carried it.
    EXPECT_EQ(outputsCheckFromJson(outputsCheckToJson(run.outputsCheck)), run.outputsCheck);
}

TEST(AdviceOutputs, AgreementOrNothingToCompareSaysNothing) {
    OutputsCheck match;
    match.status = "match";
    match.worst = {valuesLeaf(1e-7, 0)};
    OutputsCheck varies;
    varies.status = "varies";
    varies.message = "eager's outputs changed between two calls";
    const auto all =
        advise(reportOf({checkedRun("inductor", match), checkedRun("inductor", varies)}), {});
    EXPECT_TRUE(withRule(all, "outputs.differ").empty());
    EXPECT_TRUE(withRule(all, "outputs.precision").empty());
}

TEST(OutputsCheckJson, OddFieldsReadAsNothingNotAsNumbers) {
    const auto check = outputsCheckFromJson(nlohmann::json::parse(
        R"({"status": "differ", "tolerance": -1, "leaves": "x",
            "worst": [{"path": "output", "relative": -3, "mismatched": -4}, 7],
            "float64": {"eager_error": "a", "compiled_error": 0.1}})"));
    EXPECT_EQ(check.status, "differ");
    EXPECT_EQ(check.tolerance, 0);
    EXPECT_EQ(check.leaves, 0);
    ASSERT_EQ(check.worst.size(), 1u);
    EXPECT_EQ(check.worst[0].mismatched, 0);
    EXPECT_EQ(check.worst[0].relative, 0);
    EXPECT_FALSE(check.float64EagerError.has_value());
    EXPECT_FALSE(check.compiledNearer());
    EXPECT_FALSE(outputsCheckFromJson(nlohmann::json::parse(R"({"leaves": 3})")).present());
}

TEST(AdviceOutputs, RandomDrawsInTheGraphPointToFallbackRandom) {
    cs::core::Run run = checkedRun("inductor", differing({valuesLeaf(0.78, 40)}));
    GraphNode dropout;
    dropout.op = "call_function";
    dropout.target = "torch.nn.functional.dropout";
    dropout.file = "/models/seeded.py";
    dropout.line = 7;
    GraphNode normalize = dropout;
    normalize.target = "torch.nn.functional.normalize"; // not a draw
    run.graphs.push_back(
        {0, "0/0", "forward", "/models/seeded.py", 5, {normalize, dropout}, std::nullopt});
    const auto found = withRule(advise(reportOf({run}), {}), "outputs.differ");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].remedy.find("fallback_random = True"), std::string::npos);
    EXPECT_EQ(found[0].evidence.back(),
              "the captured graph draws random numbers: torch.nn.functional.dropout at "
              "seeded.py:7");
    // A graph with no draw keeps the minifier's remedy.
    run.graphs[0].nodes = {normalize};
    const auto plain = withRule(advise(reportOf({run}), {}), "outputs.differ");
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_EQ(plain[0].remedy.find("fallback_random"), std::string::npos);
}

// float64 excuses rounding, never a wrong leaf, wherever that leaf is listed:
// the cell, the finding and the report diff read the same verdict.
TEST(AdviceOutputs, AWrongLeafIsNeverExcusedByFloat64) {
    OutputsCheck check =
        differing({valuesLeaf(0.032, 45), shapeLeaf("output[1]", "[3, 4] vs [2, 4]")});
    check.float64EagerError = 0.05;
    check.float64CompiledError = 0.001;
    EXPECT_TRUE(check.wrongResult());
    EXPECT_FALSE(check.roundingOnly());
    EXPECT_TRUE(outputsCell(check).differs);
    auto found = withRule(advise(reportOf({checkedRun("inductor", check)}), {}), "outputs.differ");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Critical);
    // Without the wrong leaf, the same figures are eager's rounding.
    check.worst.pop_back();
    EXPECT_TRUE(check.roundingOnly());
    EXPECT_FALSE(outputsCell(check).differs);
    EXPECT_EQ(
        withRule(advise(reportOf({checkedRun("inductor", check)}), {}), "outputs.precision").size(),
        1u);
}

// A count kept at a threshold (eager 38, compiled 37): float64's count names
// whose rounding moved it, and only the compiled side's is no fault of eager.
TEST(AdviceOutputs, ACountFloat64KeepsAsCompiledIsEagersRounding) {
    OutputsCheck check = differing({shapeLeaf("output", "shape [38] in eager, [37] compiled")});
    check.float64Shape = "compiled";
    check.float64Note = "the same call in float64 gives output the shape [37], as the compiled "
                        "call does";
    EXPECT_TRUE(check.sizeFollowsFloat64());
    EXPECT_TRUE(check.roundingOnly());
    const OutputsCell cell = outputsCell(check);
    EXPECT_FALSE(cell.differs);
    EXPECT_EQ(cell.text, "shape, as float64");
    auto found =
        withRule(advise(reportOf({checkedRun("inductor", check)}), {}), "outputs.precision");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_EQ(found[0].title, "default's outputs are shaped otherwise than eager's (output), as "
                              "float64's are");
    EXPECT_NE(found[0].remedy.find("margin at the threshold"), std::string::npos);
    EXPECT_EQ(found[0].evidence[2], check.float64Note);
    // float64 keeps eager's count: the compiled one is the odd one, critical.
    check.float64Shape = "eager";
    EXPECT_FALSE(check.roundingOnly());
    EXPECT_TRUE(outputsCell(check).differs);
    found = withRule(advise(reportOf({checkedRun("inductor", check)}), {}), "outputs.differ");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Critical);
    // A values leaf differing beside the shape is not excused by the count.
    check.float64Shape = "compiled";
    check.worst.push_back(valuesLeaf(0.05, 3));
    check.differing = 2;
    EXPECT_FALSE(check.roundingOnly());
}

// The same from a real probe run (tests/probe/models/threshold_count.py).
TEST(AdviceOutputs, ARecordedCountFlipAtAThresholdIsInformation) {
    Setting setting;
    setting.mode = "default";
    const cs::core::Run run = fixtureRun("threshold_count_default_cpu.jsonl", setting);
    ASSERT_EQ(run.outputsCheck.status, "differ");
    EXPECT_EQ(run.outputsCheck.float64Shape, "compiled");
    EXPECT_FALSE(run.outputsCheck.float64EagerError.has_value()); // no 0% for eager
    const auto all = advise(reportOf({run}), {});
    EXPECT_TRUE(withRule(all, "outputs.differ").empty());
    ASSERT_EQ(withRule(all, "outputs.precision").size(), 1u);
    EXPECT_EQ(outputsCheckFromJson(outputsCheckToJson(run.outputsCheck)), run.outputsCheck);
}

// Recorded (torch 2.15, aot_eager): nn.TransformerEncoder with a padding mask.
// Eager's fast path returns the 3 padded rows as zeros; the compiled graph
// computes them. The rest agrees: information, and the Compare cell agrees.
TEST(AdviceOutputs, DifferencesOnlyInRowsEagerLeftZeroArePaddedPositions) {
    const cs::core::Run run = outputsChecked("padded_encoder_aot_eager_cpu.jsonl");
    ASSERT_EQ(run.outputsCheck.status, "differ");
    ASSERT_TRUE(run.outputsCheck.worst.front().zeroRows.has_value());
    EXPECT_TRUE(run.outputsCheck.maskedRowsOnly());
    EXPECT_EQ(outputsCheckFromJson(outputsCheckToJson(run.outputsCheck)), run.outputsCheck);
    const auto all = advise(reportOf({run}), {});
    EXPECT_TRUE(withRule(all, "outputs.differ").empty());
    const auto found = withRule(all, "outputs.masked_rows");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].title.find("differ from eager's only in the 3 rows eager left all zeros "
                                  "(output): padded positions"),
              std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].evidence[0].find("all in 3 of the 3 rows (of 16, along the last "
                                        "dimension) that eager left all zeros"),
              std::string::npos)
        << found[0].evidence[0];
    for (const auto& line : found[0].evidence) // float64 zeroes the padded rows too
        EXPECT_EQ(line.find("float64"), std::string::npos) << line;
    EXPECT_NE(found[0].remedy.find("masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)"),
              std::string::npos)
        << found[0].remedy;
    const cs::core::OutputsCell cell = cs::core::outputsCell(run.outputsCheck);
    EXPECT_FALSE(cell.differs);
    EXPECT_EQ(cell.text, "agree outside 3 zero rows");

    // A difference in a row that is not all zeros makes it a difference again.
    OutputsCheck elsewhere = run.outputsCheck;
    elsewhere.worst.front().zeroRows->within = false;
    EXPECT_FALSE(elsewhere.maskedRowsOnly());
    EXPECT_TRUE(cs::core::outputsCell(elsewhere).differs);
    // Eager with its fast path off agrees with the compiled rows: the fast path.
    ASSERT_TRUE(elsewhere.fastPath.has_value());
    EXPECT_TRUE(elsewhere.fastPathOnly());
    EXPECT_EQ(
        withRule(advise(reportOf({checkedRun("aot_eager", elsewhere)}), {}), "outputs.fast_path")
            .size(),
        1u);
    elsewhere.fastPath->compiledAgrees = false;
    EXPECT_EQ(withRule(advise(reportOf({checkedRun("aot_eager", elsewhere)}), {}), "outputs.differ")
                  .size(),
              1u);
}

// Recorded (torch 2.15, aot_eager, tests/probe/models/pooled_encoder.py): the
// encoder's output is averaged over every position, padded ones included, so
// eager's fast path (zeros there) moves every output the padding reaches.
// Eager again with the fast path off gives the compiled outputs: the finding
// names the fast path, not the compiler, and says how to read the positions.
TEST(AdviceOutputs, ADifferenceEagerWithoutItsFastPathDoesNotHaveIsTheFastPath) {
    const cs::core::Run run = outputsChecked("pooled_encoder_aot_eager_cpu.jsonl");
    const OutputsCheck& check = run.outputsCheck;
    ASSERT_EQ(check.status, "differ");
    EXPECT_FALSE(check.maskedRowsOnly()); // the mean spreads the zeros over whole rows
    ASSERT_TRUE(check.fastPath.has_value());
    EXPECT_EQ(check.fastPath->modules, std::vector<std::string>{"encoder (TransformerEncoder)"});
    EXPECT_TRUE(check.fastPathOnly());
    EXPECT_LT(check.fastPath->compiledRelative, check.tolerance);
    EXPECT_GT(check.fastPath->eagerRelative, check.tolerance);
    EXPECT_FALSE(check.float64EagerError.has_value()); // float64 takes the fast path too
    EXPECT_EQ(outputsCheckFromJson(outputsCheckToJson(check)), check);

    const auto all = advise(reportOf({run}), {});
    EXPECT_TRUE(withRule(all, "outputs.differ").empty());
    const auto found = withRule(all, "outputs.fast_path");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warning);
    EXPECT_NE(found[0].title.find("only because eager takes PyTorch's fast path in encoder "
                                  "(TransformerEncoder)"),
              std::string::npos)
        << found[0].title;
    EXPECT_TRUE(
        hasLine(found[0].evidence, "set_fastpath_enabled(False)): default/aot_eager's outputs are"))
        << found[0].evidence.back();
    EXPECT_NE(found[0].remedy.find("nn.TransformerEncoder(..., enable_nested_tensor=False)"),
              std::string::npos)
        << found[0].remedy;
    EXPECT_NE(found[0].remedy.find("h.sum(1) / (~mask).sum(1, keepdim=True)"), std::string::npos)
        << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("TORCHDYNAMO_REPRO"), std::string::npos);

    const cs::core::OutputsCell cell = cs::core::outputsCell(check);
    EXPECT_TRUE(cell.differs); // the deployed numbers still differ from eager's
    EXPECT_NE(cell.text.find(", fast path"), std::string::npos) << cell.text;

    // Without the fast path's verdict it is a difference to minify.
    OutputsCheck unexplained = check;
    unexplained.fastPath->compiledAgrees = false;
    const auto differ =
        withRule(advise(reportOf({checkedRun("aot_eager", unexplained)}), {}), "outputs.differ");
    ASSERT_EQ(differ.size(), 1u);
    EXPECT_TRUE(hasLine(differ[0].evidence, "fast path on")); // the measured figures still shown
    unexplained.fastPath.reset();
    EXPECT_EQ(cs::core::outputsCell(unexplained).text.find("fast path"), std::string::npos);
}

// A fast-path call that raised has a note and no verdict.
TEST(AdviceOutputs, AFastPathCallWithoutAVerdictChangesNothing) {
    OutputsCheck check = differing({valuesLeaf(0.032, 45)});
    check.fastPath = cs::core::FastPathCheck{
        {"attn (MultiheadAttention)"}, false, 0, 0, "raised: RuntimeError: boom"};
    EXPECT_FALSE(check.fastPathOnly());
    const auto found =
        withRule(advise(reportOf({checkedRun("inductor", check)}), {}), "outputs.differ");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_FALSE(hasLine(found[0].evidence, "fast path"));
    EXPECT_EQ(outputsCheckFromJson(outputsCheckToJson(check)), check);
}
