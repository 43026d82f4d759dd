// Rule 2: recompiles from changing shapes and the recompile limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "core/advice/shape_guard.h"
#include "core/analysis/comparison.h"
#include "core/trace/trace_import.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;
using cs::core::advice::modulePath;
using cs::core::advice::parseDictKeyGuard;
using cs::core::advice::parseInputShapes;
using cs::core::advice::parseLengthGuard;
using cs::core::advice::parseModelInputs;
using cs::core::advice::parseNoneGuard;
using cs::core::advice::parseShapeGuard;
using cs::core::advice::parseValueGuard;

namespace {

struct GuardCase {
    const char* reason;
    bool parsed;
    const char* tensor;
    const char* what;
    int dim;
    int64_t expected;
    int64_t actual;
};

const GuardCase kGuards[] = {
    {"0/0: tensor 'tokens' size mismatch at index 1. expected 32, actual 16", true, "tokens",
     "size", 1, 32, 16},
    {"0/3: tensor 'x' stride mismatch at index 0. expected 8, actual 16", true, "x", "stride", 0, 8,
     16},
    {"L['x'].size()[2] == 7", true, "L['x']", "size", 2, 7, -1},
    {"0/0: tensor 'x' dtype mismatch. expected Float, actual Half", false, "", "", 0, 0, 0},
    {"0/0: len(L['xs']) == 3", false, "", "", 0, 0, 0},
    {"", false, "", "", 0, 0, 0},
};

class ShapeGuardTable : public ::testing::TestWithParam<GuardCase> {};

TEST_P(ShapeGuardTable, ReadsTheChangedDimension) {
    const auto& c = GetParam();
    const auto g = parseShapeGuard(c.reason);
    ASSERT_EQ(g.has_value(), c.parsed) << c.reason;
    if (!g)
        return;
    EXPECT_EQ(g->tensor, c.tensor);
    EXPECT_EQ(g->what, c.what);
    EXPECT_EQ(g->dim, c.dim);
    EXPECT_EQ(g->expected, c.expected);
    EXPECT_EQ(g->actual, c.actual);
}

INSTANTIATE_TEST_SUITE_P(Advice, ShapeGuardTable, ::testing::ValuesIn(kGuards));

// The advice on a recorded stream of an aot_eager run.
std::vector<Finding> adviseOnAotEagerStream(const std::string& name) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    return advise(reportOf({fixtureRun(name, setting)}), {});
}

cs::core::Run sweptRun(const std::string& dynamic,
                       const std::vector<std::pair<int, int>>& changes) {
    cs::core::Run run = timedRun("default", {}, {});
    run.setting.dynamic = dynamic;
    cs::core::Graph g;
    g.function = "forward";
    g.file = "/m/variable_length.py";
    g.line = 30;
    run.graphs.push_back(g);
    for (auto [from, to] : changes) {
        cs::core::Recompile r;
        r.function = "forward";
        r.reason = "0/0: tensor 'tokens' size mismatch at index 1. expected " +
                   std::to_string(from) + ", actual " + std::to_string(to);
        run.recompiles.push_back(r);
    }
    return run;
}

// A first call with a batch of 1, then larger ones: torch specialises size 1
// even under dynamic=True (0/1 specialization), so neither mark_dynamic nor
// dynamic=True gives one graph, which had been promised; mark_unbacked does.
TEST(AdviceRecompiles, SizeOneKeepsAGraphOfItsOwnUnlessUnbacked) {
    auto dyn = sweptRun("true", {{1, 4}});
    dyn.model.inputs = {"tokens: int64[1, 4]"};
    for (const char* shapes : {"[1, 4]", "[4, 4]", "[8, 4]", "[1, 4]", "[16, 4]"})
        dyn.logs.push_back({0, "info", "sweep …", "sweep_inputs", shapes});
    for (auto& r : dyn.recompiles)
        r.reason = "0/0: tensor 'tokens' size mismatch at index 0. expected 1, actual 4";
    auto automatic = dyn;
    automatic.setting.dynamic = "auto";

    const auto shape = withRule(advise(reportOf({automatic, dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 2u);
    for (const Finding& f : shape) {
        EXPECT_NE(f.remedy.find("torch._dynamo.decorators.mark_unbacked(tokens, 0)"),
                  std::string::npos)
            << f.remedy;
        EXPECT_NE(f.remedy.find("leave size 1 of dimension 0 of tokens a graph of its own"),
                  std::string::npos)
            << f.remedy;
        EXPECT_EQ(f.remedy.find("compile with dynamic=True and"), std::string::npos) << f.remedy;
        EXPECT_EQ(f.remedy.find("one graph for every size"), std::string::npos) << f.remedy;
        EXPECT_EQ(f.remedy.find("skip the first, specialised compile"), std::string::npos)
            << f.remedy;
        EXPECT_EQ(f.remedy.find("(3)"), std::string::npos) << "no choice (3) to refer to";
        EXPECT_EQ(f.gain, "one compile of forward instead of 2 with mark_unbacked");
    }
    const auto byLabel = [&](const std::string& label) {
        return *std::find_if(shape.begin(), shape.end(),
                             [&](const Finding& f) { return f.setting == label; });
    };
    EXPECT_TRUE(hasLine(byLabel("default dyn").evidence,
                        "dimension 0 of tokens took size 1: torch specialises sizes 0 and 1 even "
                        "for a dynamic dimension (0/1 specialization), so size 1 compiles a graph "
                        "apart from the other sizes, as here under dynamic=True"));
    EXPECT_TRUE(hasLine(byLabel("default").evidence, "as default dyn (dynamic=True) did here"));

    // Size 0 is told as such, and with size 1 as both.
    for (const auto& [first, told] : {std::pair{"[0, 4]", "size 0"}, {"[1, 4]", "sizes 0 and 1"}}) {
        auto empty = dyn;
        empty.logs.clear();
        for (const char* shapes : {first, "[4, 4]", "[0, 4]", "[16, 4]"})
            empty.logs.push_back({0, "info", "sweep …", "sweep_inputs", shapes});
        empty.model.inputs = {std::string("tokens: int64") + first};
        for (auto& r : empty.recompiles)
            r.reason = std::string("0/0: tensor 'tokens' size mismatch at index 0. expected ") +
                       first[1] + ", actual 4";
        const auto found = withRule(advise(reportOf({empty}), {}), "recompile.shape");
        ASSERT_EQ(found.size(), 1u);
        EXPECT_TRUE(hasLine(found.front().evidence,
                            std::string("dimension 0 of tokens took ") + told + ": torch"))
            << found.front().evidence.front();
        EXPECT_NE(found.front().remedy.find(std::string("leave ") + told + " of dimension 0"),
                  std::string::npos)
            << found.front().remedy;
    }

    // Without a size of 1 the choices stand.
    auto wide = sweptRun("true", {{2, 4}});
    wide.model.inputs = dyn.model.inputs;
    for (auto& r : wide.recompiles)
        r.reason = "0/0: tensor 'tokens' size mismatch at index 0. expected 2, actual 4";
    const auto plain = withRule(advise(reportOf({wide}), {}), "recompile.shape");
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_EQ(plain.front().remedy.find("mark_unbacked"), std::string::npos)
        << plain.front().remedy;
}

TEST(AdviceRecompiles, StaticSweepNamesTheDimensionCountAndChoices) {
    const auto findings = advise(reportOf({sweptRun("false", {{32, 16}, {16, 48}, {48, 64}})}), {});
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.rule, "recompile.shape");
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_NE(f.title.find("3 times"), std::string::npos) << f.title;
    EXPECT_NE(f.title.find("dimension 1 of tokens"), std::string::npos) << f.title;
    EXPECT_EQ(f.file, "/m/variable_length.py");
    EXPECT_EQ(f.line, 30);
    EXPECT_NE(f.evidence[1].find("4 sizes: 16, 32, 48 and 64"), std::string::npos) << f.evidence[1];
    EXPECT_NE(f.remedy.find("mark_dynamic(tokens, 1, min=16, max=64)"), std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("dynamic=True"), std::string::npos);
    EXPECT_NE(f.remedy.find("16, 32 and 64 would compile 3 graphs instead of 4"), std::string::npos)
        << f.remedy;
}

// transformers' Mamba on CPU (torch 2.15) scans its sequence with
// associative_scan, whose code branches on values computed from the length:
// over 5 lengths it recompiled 4 times under dynamic=auto and dynamic=True
// alike (guards as torch wrote them). Marking the dimension dynamic is no
// remedy; padding is.
TEST(AdviceRecompiles, BranchesOnValuesComputedFromASymbolicSizeArePaddedNotMarked) {
    const std::vector<std::string> derived{
        "0/1: (((-1) + (tokens.size()[1] // 4)) // 2) == 1  # if batch_sizes and any(size != "
        "batch_sizes[0] for size in batch_sizes):  # _functorch/vmap.py:72 in "
        "_validate_and_get_batch_size (_dynamo/variables/tensor.py:3083 in evaluate_expr)",
        "0/2: 24 <= tokens.size()[1] <= 31  # return a_left * a_right, a_right * b_left + "
        "b_right  # mp/sp/site-packages/transformers/models/mamba/modeling_mamba.py:288 in "
        "combine_fn (_prims_common/__init__.py:620 in ge)",
        "0/3: (((-1) + (tokens.size()[1] // 4)) // 2) == 4  # if batch_sizes and any(size != "
        "batch_sizes[0] for size in batch_sizes):  # _functorch/vmap.py:72 in "
        "_validate_and_get_batch_size (_dynamo/variables/tensor.py:3083 in evaluate_expr)"};
    const auto addDerived = [&](cs::core::Run& run) {
        for (const auto& reason : derived) {
            cs::core::Recompile r;
            r.function = "forward";
            r.reason = reason;
            run.recompiles.push_back(r);
        }
    };
    auto automatic = sweptRun("auto", {{32, 16}});
    addDerived(automatic);
    automatic.model.inputs = {"tokens: int64[2, 32]"};
    for (const char* shapes : {"[2, 16]", "[2, 24]", "[2, 40]", "[2, 48]"})
        automatic.logs.push_back({0, "info", "sweep …", "sweep_inputs", shapes});
    auto dyn = sweptRun("true", {});
    dyn.model.inputs = automatic.model.inputs;
    dyn.logs = automatic.logs;
    {
        cs::core::Recompile first;
        first.function = "forward";
        first.reason = "0/0: (16 % (8*(tokens.size()[1] // 8))) != 0  # return a_left * "
                       "a_right  # mp/sp/site-packages/transformers/models/mamba/"
                       "modeling_mamba.py:288 in combine_fn";
        dyn.recompiles.push_back(first);
    }
    addDerived(dyn);

    const auto shape = withRule(advise(reportOf({automatic, dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 2u);
    const Finding& f = shape[0];
    EXPECT_EQ(f.setting, "default");
    EXPECT_TRUE(hasLine(f.evidence, "3 recompiles came on guards computed from its size"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_TRUE(hasLine(f.evidence, "`(((-1) + (tokens.size()[1] // 4)) // 2) == 1` and 2 more "
                                    "guards, from vmap.py:72 in _validate_and_get_batch_size and "
                                    "modeling_mamba.py:288 in combine_fn"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_EQ(f.remedy.find("mark_dynamic"), std::string::npos) << f.remedy;
    EXPECT_NE(f.remedy.find("Marking the dimension dynamic does not keep one graph here"),
              std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("(default dyn, compiled with dynamic=True, recompiled 4 times too)"),
              std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("Pad dimension 1 of tokens to a few fixed sizes (16, 32 and 64 would "
                            "compile 3 graphs instead of 5) and compile with dynamic=False"),
              std::string::npos)
        << f.remedy;
    EXPECT_EQ(f.gain, "3 graphs instead of 5, padded to 16, 32 and 64");

    // The dynamic=True run: no size guard names the dimension, every guard is
    // computed from it.
    const Finding& d = shape[1];
    EXPECT_EQ(d.setting, "default dyn");
    EXPECT_EQ(d.title, "forward (variable_length.py:30) recompiled 4 times on values computed "
                       "from dimension 1 of tokens");
    EXPECT_EQ(d.remedy.find("mark_dynamic"), std::string::npos) << d.remedy;
    EXPECT_NE(d.remedy.find("Pad dimension 1 of tokens"), std::string::npos) << d.remedy;
    EXPECT_EQ(d.gain, "3 graphs instead of 5, padded to 16, 32 and 64");

    // torch's own 0/1 specialization (a size of 1 after the dimension went
    // symbolic, torch 2.15's words) is no branch of the code.
    EXPECT_FALSE(cs::core::advice::parseDerivedSizeGuard(
        "0/0: 2 <= x.size()[1]  # def f(x): return x * 2 + 1  # mp/g1.py:4 in f (user code shown "
        "is first use of this value--the guard itself is not due user code but due to 0/1 "
        "specialization in the framework; to avoid specialization try "
        "torch._dynamo.decorators.mark_unbacked(tensor, dim))"));
    EXPECT_TRUE(cs::core::advice::parseDerivedSizeGuard(derived[1]));
}

// SegFormer under dynamic=False over 64x64, 64x96, 96x64 and 128x128 images:
// width and height changed each on its own, and marking the width alone
// would leave the height's recompiles, so the remedy marks and pads both.
TEST(AdviceRecompiles, AnotherDimensionThatChangedOnItsOwnIsMarkedToo) {
    auto run = sweptRun("false", {});
    run.model.inputs = {"pixel_values: float32[1, 3, 64, 64]"};
    for (const char* reason :
         {"0/0: tensor 'pixel_values' size mismatch at index 3. expected 64, actual 96",
          "0/1: tensor 'pixel_values' size mismatch at index 2. expected 64, actual 96",
          "0/2: tensor 'pixel_values' size mismatch at index 2. expected 64, actual 128"}) {
        cs::core::Recompile r;
        r.function = "forward";
        r.reason = reason;
        run.recompiles.push_back(r);
    }
    for (const char* shapes : {"[1, 3, 64, 96]", "[1, 3, 96, 64]", "[1, 3, 128, 128]"})
        run.logs.push_back({0, "info", "sweep …", "sweep_inputs", shapes});

    const auto shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    const Finding& f = shape.front();
    EXPECT_NE(f.remedy.find("(1) torch._dynamo.mark_dynamic(pixel_values, 3, min=64, max=128) and "
                            "torch._dynamo.mark_dynamic(pixel_values, 2, min=64, max=128) before "
                            "the first call: one graph for every size of them"),
              std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("(3) pad dimensions 3 and 2 of pixel_values to a few fixed sizes "
                            "each"),
              std::string::npos)
        << f.remedy;
    EXPECT_EQ(f.gain, "") << "no one compile where two dimensions change";
}

// Gemma3 under dynamic=True over lengths 40, 12, 24 and 64 (transformers
// 5.25, torch 2.15): its sliding-window mask branches on 16 <= length, one
// recompile. Two graphs for four lengths: padding (16, 32, 64) would compile
// more, so it is no remedy.
TEST(AdviceRecompiles, ABranchOnTheSizeThatCompiledFewerGraphsThanPaddingIsLeftAsIs) {
    auto dyn = sweptRun("true", {});
    dyn.model.inputs = {"tokens: int64[1, 40]"};
    for (const char* shapes : {"[1, 12]", "[1, 24]", "[1, 64]"})
        dyn.logs.push_back({0, "info", "sweep …", "sweep_inputs", shapes});
    cs::core::Recompile r;
    r.function = "forward";
    r.reason = "0/0: 16 <= tokens.size()[1]  # if kv_length <= sliding_window:  # "
               "mp/sp/site-packages/transformers/masking_utils.py:286 in "
               "_ignore_causal_mask_sdpa (_dynamo/variables/tensor.py:3083 in evaluate_expr)";
    dyn.recompiles.push_back(r);
    const auto shape = withRule(advise(reportOf({dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    const Finding& f = shape.front();
    EXPECT_EQ(f.severity, Severity::Info);
    EXPECT_NE(f.remedy.find("forward compiled 2 graphs for 4 sizes, a graph per branch: no "
                            "more than padding to fixed sizes would compile (16, 32 and 64)"),
              std::string::npos)
        << f.remedy;
    EXPECT_EQ(f.remedy.find("Pad "), std::string::npos) << f.remedy;
    EXPECT_EQ(f.gain, "");
}

// A conv net under dynamic=True over 64x80 to 128x128 images (torch 2.15's
// words): torch's fake convolution picks the CPU algorithm by the input's
// size, a guard of torch's own, no branch of the model's code to pad around.
TEST(AdviceRecompiles, TorchsConvolutionSizeThresholdIsNothingToChange) {
    const std::string conv =
        "0/0: 3*input.size()[2]*input.size()[3] <= 20480  # return F.conv2d(  # "
        "nn/modules/conv.py:560 in _conv_forward (_subclasses/fake_impls.py:2258 in conv)";
    auto dyn = sweptRun("true", {});
    dyn.model.inputs = {"input: float32[1, 3, 64, 80]"};
    cs::core::Recompile r;
    r.function = "forward";
    r.reason = conv;
    dyn.recompiles.push_back(r);
    const auto shape = withRule(advise(reportOf({dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    const Finding& f = shape.front();
    EXPECT_EQ(f.severity, Severity::Info);
    EXPECT_EQ(f.title, "forward (variable_length.py:30) recompiled 1 time where torch's "
                       "convolution changes algorithm with the input's size");
    EXPECT_TRUE(hasLine(f.evidence, "`3*input.size()[2]*input.size()[3] <= 20480` (conv.py:560 "
                                    "in _conv_forward), torch's guard"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_EQ(f.remedy.find("Pad "), std::string::npos) << f.remedy;
    EXPECT_EQ(f.gain, "");
    const auto parsed = cs::core::advice::parseDerivedSizeGuard(conv);
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed->convolutionBackend);

    // Beside a branch of the model's code and a duck-sizing guard: each told,
    // none dropped (SegFormer's frames recompiled on all three kinds).
    auto mixed = dyn;
    for (const char* reason :
         {"0/1: (input.size()[2] // 4) == 16  # if h == 16:  # mp/m.py:9 in forward",
          "0/2: input.size()[3] == input.size()[2]  # duck sizing added this equality because "
          "these variables had the same size 64 (...)"}) {
        cs::core::Recompile more;
        more.function = "forward";
        more.reason = reason;
        mixed.recompiles.push_back(more);
    }
    const auto all = withRule(advise(reportOf({mixed}), {}), "recompile.shape");
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].title, "forward (variable_length.py:30) recompiled 2 times on values computed "
                            "from dimension 2 of input");
    EXPECT_TRUE(hasLine(all[0].evidence, "where torch's convolution picks its CPU algorithm"));
    EXPECT_NE(all[1].title.find("because dimensions 2 and 3 of input"), std::string::npos);
}

// SegFormer under dynamic=True, its first image 64x64 and the next 64x96
// (torch 2.15's words): torch gave height and width one symbol (duck
// sizing). The equality is no branch of the code to pad around: turning duck
// sizing off, or marking both dimensions, keeps one graph.
TEST(AdviceRecompiles, TwoDimensionsOfOneSizeInTheFirstCompileAreDuckSizing) {
    const std::string duck =
        "0/0: pixel_values.size()[3] == pixel_values.size()[2]  # duck sizing added this "
        "equality because these variables had the same size 64 (to avoid this specialization, "
        "set torch.fx.experimental._config.use_duck_shape = False)";
    auto dyn = sweptRun("true", {});
    dyn.model.inputs = {"pixel_values: float32[1, 3, 64, 64]"};
    cs::core::Recompile r;
    r.function = "forward";
    r.reason = duck;
    dyn.recompiles.push_back(r);

    const auto shape = withRule(advise(reportOf({dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    const Finding& f = shape.front();
    EXPECT_EQ(f.title, "forward (variable_length.py:30) recompiled 1 time because dimensions 2 "
                       "and 3 of pixel_values, one size in the first compile, differed");
    EXPECT_TRUE(hasLine(f.evidence, "both of size 64, so torch gave them one symbol (duck "
                                    "sizing) and guarded on their equality, "
                                    "`pixel_values.size()[3] == pixel_values.size()[2]`"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_NE(f.remedy.find("torch.fx.experimental._config.use_duck_shape = False"),
              std::string::npos);
    EXPECT_NE(f.remedy.find("torch._dynamo.mark_dynamic(pixel_values, 2) and "
                            "torch._dynamo.mark_dynamic(pixel_values, 3)"),
              std::string::npos)
        << f.remedy;
    EXPECT_EQ(f.remedy.find("Pad"), std::string::npos) << f.remedy;
    EXPECT_NE(f.remedy.find("Where the model's own code compares the two sizes"),
              std::string::npos);
    EXPECT_EQ(f.gain, "") << "DINOv2 recompiled as often without duck sizing";

    // A value carried across a break is no input the caller can mark.
    auto carried = dyn;
    carried.recompiles.front().reason =
        "11/0: ___stack0.size()[3] == ___stack0.size()[2]  # duck sizing added this equality "
        "because these variables had the same size 16 (...)";
    const auto across = withRule(advise(reportOf({carried}), {}), "recompile.shape");
    ASSERT_EQ(across.size(), 1u);
    EXPECT_EQ(across.front().remedy.find("mark_dynamic"), std::string::npos)
        << across.front().remedy;
    EXPECT_NE(across.front().remedy.find("use_duck_shape = False"), std::string::npos);

    EXPECT_FALSE(cs::core::advice::parseDerivedSizeGuard(duck));
    const auto parsed = cs::core::advice::parseDuckSizeGuard(duck);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->tensor, "pixel_values");
    EXPECT_EQ(parsed->dim, 3);
    EXPECT_EQ(parsed->otherDim, 2);
    EXPECT_EQ(parsed->size, 64);
    // Two tensors, as a wrapper's arguments.
    const auto two = cs::core::advice::parseDuckSizeGuard(
        "1/0: L['x'].size()[1] == L['mask'].size()[1]  # duck sizing added this equality "
        "because these variables had the same size 20 (...)");
    ASSERT_TRUE(two);
    EXPECT_EQ(two->tensor, "x");
    EXPECT_EQ(two->otherTensor, "mask");
    EXPECT_FALSE(cs::core::advice::parseDuckSizeGuard(
        "0/1: 3*args[0].size()[2]*args[0].size()[3] <= 20480  # return F.conv2d("));
}

// Under dynamic=auto the sizes after the symbolic recompile compile nothing,
// so the guards miss them; the probe's sweep_inputs lines give every size the
// calls passed, and padding is counted over those (BERT with sizes 17 to 90
// was told "32 would compile 1 graph instead of 2").
TEST(AdviceRecompiles, PaddingCountsEverySizeTheCallsPassedNotOnlyThoseThatCompiled) {
    auto automatic = sweptRun("auto", {{24, 16}});
    automatic.iterations = timedRun("default", {9000000}, constant(20, 600000)).iterations;
    automatic.model.inputs = {"tokens: int64[4, 24]", "mask: int64[4, 24]"};
    for (const char* shapes :
         {"[4, 16], [4, 16]", "[4, 48], [4, 48]", "[4, 60], [4, 60]", "[4, 90], [4, 90]"})
        automatic.logs.push_back({0, "info", "sweep …", "sweep_inputs", shapes});
    auto dyn = sweptRun("true", {});
    dyn.iterations = timedRun("default", {7000000}, constant(20, 1600000)).iterations;
    auto shape = withRule(advise(reportOf({automatic, dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_TRUE(hasLine(shape[0].evidence,
                        "the calls passed 5 sizes of it (the measured inputs and the input "
                        "sweep): 16, 24, 48, 60 and 90; 3 sizes ran a graph compiled before"))
        << ::testing::PrintToString(shape[0].evidence);
    EXPECT_NE(shape[0].remedy.find("(16, 32, 64 and 128 would compile 4 graphs instead of 5)"),
              std::string::npos)
        << shape[0].remedy;

    // dynamic=false past the recompile limit: the bounds of mark_dynamic
    // span every size the calls passed, not the compiled ones only.
    auto limited = sweptRun("false", {{24, 16}, {16, 48}});
    limited.model.inputs = automatic.model.inputs;
    limited.logs = automatic.logs;
    cs::core::Recompile limit;
    limit.function = "forward";
    limit.limitHit = true;
    limit.limit = 2;
    limit.reason = "0/2: tensor 'tokens' size mismatch at index 1. expected 48, actual 60";
    limited.recompiles.push_back(limit);
    bool sawLimit = false;
    for (const auto& f : advise(reportOf({limited}), {})) {
        if (f.title.find("recompile limit") == std::string::npos)
            continue;
        sawLimit = true;
        EXPECT_NE(f.remedy.find("mark_dynamic(tokens, 1, min=16, max=90)"), std::string::npos)
            << f.remedy;
    }
    EXPECT_TRUE(sawLimit);
}

// transformers' Longformer over an input sweep of five lengths (torch 2.15):
// its breaks split the library's code into frames of its own, and each
// recompiled on the sizes it derives from the new length. One finding, the
// model's forward's, tells them all; a frame of the user's own code, or one
// that recompiled outside the sweep, keeps its finding.
TEST(AdviceRecompiles, LibraryFramesRecompilingOnTheSweepsSizesAreTheForwardsFinding) {
    const std::string lf = "/v/lib/python3.11/site-packages/transformers/models/longformer/"
                           "modeling_longformer.py";
    cs::core::Run run = sweptRun("auto", {{64, 40}});
    run.graphs.front().file = lf;
    run.graphs.front().frameModule = "";
    // The probe names the model's forward reached through transformers'
    // wrapper by its class; its graph is the plain forward of the model.
    run.recompiles.front().function = "LongformerModel.forward";
    run.recompiles.front().phase = "sweep";
    run.logs.push_back({0, "info", "sweep …", "sweep_inputs", "[2, 40]"});
    const auto addFrame = [&](const std::string& function, const std::string& file,
                              const std::string& reason, const std::string& phase) {
        cs::core::Graph g;
        g.function = function;
        g.file = file;
        g.line = 700;
        run.graphs.push_back(g);
        cs::core::Recompile rc;
        rc.function = function;
        rc.reason = reason;
        rc.phase = phase;
        run.recompiles.push_back(rc);
    };
    addFrame("_pad_to_window_size", lf,
             "5/0: tensor 'input_ids' size mismatch at index 1. expected 40, actual 64", "sweep");
    addFrame("torch_dynamo_resume_in__sliding_chunks_query_key_matmul_at_776", lf,
             "17/0: seq_len == 48  # diagonal_attention_scores.view(", "sweep");
    addFrame("_chunk", lf,
             "13/0: tensor 'hidden_states' size mismatch at index 0. expected 2, "
             "actual 8",
             "sweep");
    // A dataclass's generated __init__ compiled no graph: no file to place it.
    cs::core::Recompile init;
    init.function = "__init__";
    init.reason = "21/0: tensor 'kwargs['last_hidden_state']' size mismatch at index 1. "
                  "expected 40, actual 64";
    init.phase = "sweep";
    run.recompiles.push_back(init);
    // The user's own helper, and a library frame that recompiled while measuring.
    addFrame("pool", "/m/variable_length.py",
             "30/0: tensor 'h' size mismatch at index 1. expected 40, actual 64", "sweep");
    addFrame("_merge", lf, "31/0: tensor 'x' size mismatch at index 0. expected 2, actual 8",
             "measure");
    // Two modules' forwards, each a frame, and the frame after the first's break,
    // which recompiled with it: counted in the forward's finding too.
    for (const std::string frame : {"9", "10"})
        addFrame("forward", lf,
                 frame + "/0: tensor 'hidden_states' size mismatch at index 1. expected 40, "
                         "actual 64",
                 "sweep");
    addFrame("torch_dynamo_resume_in_forward_at_1070", lf,
             "19/0: tensor '___stack0[0]' size mismatch at index 1. expected 40, actual 64",
             "sweep");
    for (auto it = run.recompiles.end() - 3; it != run.recompiles.end(); ++it) {
        it->inputShapes = "[2, 64]";
        it->callIndex = 1;
    }

    const auto findings = advise(reportOf({run}), {});
    const auto shape = withRule(findings, "recompile.shape");
    const auto forward = std::find_if(shape.begin(), shape.end(), [](const Finding& f) {
        return f.title.rfind("LongformerModel.forward (", 0) == 0;
    });
    ASSERT_NE(forward, shape.end());
    EXPECT_EQ(forward->title, "LongformerModel.forward (modeling_longformer.py:30) recompiled 1 "
                              "time because dimension 1 of tokens changed, and so did 6 frames of "
                              "transformers's code and 1 frame with no file to place it (7 "
                              "recompiles)");
    EXPECT_EQ(forward->severity, Severity::Warning); // not the one automatic recompile alone
    EXPECT_TRUE(hasLine(forward->evidence,
                        "the same calls of the input sweep recompiled 6 frames of "
                        "transformers's code and 1 frame with no file to place it (7 "
                        "recompiles): _pad_to_window_size 1, _sliding_chunks_query_key_matmul "
                        "(after the break at line 776) 1, _chunk 1, __init__ 1, forward 2 (2 "
                        "frames) and 1 more, frames torch compiled on their own after the "
                        "breaks in that code: their guards follow the new sizes (Compare tab)"))
        << ::testing::PrintToString(forward->evidence);
    EXPECT_NE(forward->remedy.find("the library's frames recompile on the sizes they derive"),
              std::string::npos)
        << forward->remedy;
    EXPECT_TRUE(forward->gain.empty()) << forward->gain;
    EXPECT_TRUE(withRule(findings, "recompile.value").empty()) << "seq_len is the library's";
    const auto titled = [&](const std::string& start) {
        return std::count_if(findings.begin(), findings.end(),
                             [&](const Finding& f) { return f.title.rfind(start, 0) == 0; });
    };
    EXPECT_EQ(titled("_pad_to_window_size"), 0);
    EXPECT_EQ(titled("__init__"), 0);
    EXPECT_EQ(titled("pool"), 1);
    EXPECT_EQ(titled("_merge"), 1);
    EXPECT_EQ(titled("forward"), 0);
}

// dynamic=auto: one recompile makes the dimension dynamic; that is only worth an Info.
TEST(AdviceRecompiles, AutomaticDynamicOnceIsInfoTwiceIsWarning) {
    auto once = advise(reportOf({sweptRun("auto", {{32, 16}})}), {});
    ASSERT_EQ(once.size(), 1u);
    EXPECT_EQ(once[0].severity, Severity::Info);
    auto twice = advise(reportOf({sweptRun("auto", {{32, 16}, {16, 48}})}), {});
    ASSERT_EQ(twice.size(), 1u);
    EXPECT_EQ(twice[0].severity, Severity::Warning);
    auto staticOnce = advise(reportOf({sweptRun("false", {{32, 16}})}), {});
    ASSERT_EQ(staticOnce.size(), 1u);
    EXPECT_EQ(staticOnce[0].severity, Severity::Warning);
}

// The same mode run under another dynamic choice in the same report: the
// finding cites what that choice measured, and only a setting that differs in
// dynamic alone.
TEST(AdviceRecompiles, ADynamicChoiceMeasuredAlongsideIsCited) {
    auto stat = sweptRun("false", {{32, 16}, {16, 48}});
    stat.iterations = timedRun("default", {9000000}, constant(20, 2000000)).iterations;
    auto dyn = sweptRun("true", {});
    dyn.iterations = timedRun("default", {7000000}, constant(20, 2500000)).iterations;
    auto other = sweptRun("true", {});
    other.setting.fullgraph = true; // differs in more than dynamic: no sibling
    auto findings = advise(reportOf({stat, dyn, other}), {});
    auto shape = std::find_if(findings.begin(), findings.end(),
                              [](const auto& f) { return f.rule == "recompile.shape"; });
    ASSERT_NE(shape, findings.end());
    const auto first = std::find_if(shape->evidence.begin(), shape->evidence.end(), [](auto& e) {
        return e.find("measured side by side") != std::string::npos;
    });
    ASSERT_NE(first, shape->evidence.end());
    EXPECT_NE(first->find("default static (dynamic=false, this one): 1 graph, 2 recompiles, "
                          "first call 9.00 ms, median 2.00 ms"),
              std::string::npos)
        << *first;
    ASSERT_NE(first + 1, shape->evidence.end());
    EXPECT_EQ(first[1], "default dyn (dynamic=true): 1 graph, 0 recompiles, first call 7.00 ms, "
                        "median 2.50 ms");
    // The fullgraph one differs in more than dynamic: not listed.
    EXPECT_TRUE(first + 2 == shape->evidence.end() ||
                first[2].find("fullgraph") == std::string::npos);
    // What dynamic=True gains is the sibling's measurement, not an estimate,
    // and its slower calls are said: padding keeps the faster kernels.
    EXPECT_EQ(shape->gain, "dynamic=True, measured here as default dyn: 0 recompiles instead of 2, "
                           "but 1.25× slower per call: median 2.50 ms against 2.00 ms");
    EXPECT_NE(shape->remedy.find("This report measured dynamic kernels slower, though (default "
                                 "dyn's median 2.50 ms against 2.00 ms, 1.25× slower; two "
                                 "processes can differ"),
              std::string::npos)
        << shape->remedy;
    EXPECT_NE(shape->remedy.find("where that holds and most calls come in a few sizes, (3) keeps "
                                 "the faster kernels."),
              std::string::npos)
        << shape->remedy;
    // Without the sibling, no such line, and the gain is the count of compiles.
    findings = advise(reportOf({stat}), {});
    ASSERT_FALSE(findings.empty());
    for (const auto& e : findings[0].evidence)
        EXPECT_EQ(e.find("measured side by side"), std::string::npos) << e;
    EXPECT_EQ(findings[0].gain.find("measured here"), std::string::npos) << findings[0].gain;
}

// dynamic=auto recompiled once, and dynamic=true, measured beside it, ran
// slower: marking the dimension up front trades one compile for slower calls
// if that holds, so the remedy says so, with padding as the other way.
TEST(AdviceRecompiles, SlowerDynamicKernelsAreTheTradeOfMarkingUpFront) {
    auto automatic = sweptRun("auto", {{24, 16}});
    automatic.iterations = timedRun("default", {9000000}, constant(20, 600000)).iterations;
    auto dyn = sweptRun("true", {});
    dyn.iterations = timedRun("default", {7000000}, constant(20, 1600000)).iterations;
    auto shape = withRule(advise(reportOf({automatic, dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_EQ(shape[0].severity, Severity::Info);
    EXPECT_NE(shape[0].remedy.find("torch._dynamo.mark_dynamic(tokens, 1)"), std::string::npos)
        << shape[0].remedy;
    EXPECT_NE(shape[0].remedy.find("This report measured dynamic kernels slower, though (default "
                                   "dyn's median 1.60 ms against 600 µs, 2.67× slower;"),
              std::string::npos)
        << shape[0].remedy;
    EXPECT_NE(shape[0].remedy.find("measure the pair again"), std::string::npos) << shape[0].remedy;
    // The guards name only the sizes that compiled (24, then 16); without
    // the sweep's sizes no count of padded graphs is claimed.
    EXPECT_NE(shape[0].remedy.find("pad dimension 1 of tokens to a few fixed sizes that cover the "
                                   "sizes your calls take and compile with dynamic=False instead"),
              std::string::npos)
        << shape[0].remedy;
    EXPECT_TRUE(hasLine(shape[0].evidence, "every size after the first runs such a graph too"))
        << ::testing::PrintToString(shape[0].evidence);
    EXPECT_EQ(shape[0].gain, "dynamic=True, measured here as default dyn: 0 recompiles instead of "
                             "1, but 2.67× slower per call: median 1.60 ms against 600 µs");

    // Repeated probes that agree: the slowdown holds in every round, and the
    // remedy says so instead of asking for another measurement.
    auto repeatOf = [](int round, int64_t ns) {
        RepeatProbe probe;
        probe.round = round;
        probe.status = RunStatus::Ok;
        probe.latencyNs = constant(20, ns);
        return probe;
    };
    automatic.repeats = {repeatOf(1, 700000), repeatOf(2, 650000)};
    dyn.repeats = {repeatOf(1, 1000000), repeatOf(2, 1300000)};
    shape = withRule(advise(reportOf({automatic, dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].remedy.find("2.67× slower, in each of 3 probe rounds (1.43× to 2.67×))"),
              std::string::npos)
        << shape[0].remedy;
    EXPECT_EQ(shape[0].remedy.find("measure the pair again"), std::string::npos) << shape[0].remedy;
    // A round in which dynamic=true was not slower: no slowdown to trade.
    dyn.repeats = {repeatOf(1, 600000), repeatOf(2, 1300000)};
    shape = withRule(advise(reportOf({automatic, dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_EQ(shape[0].remedy.find("slower"), std::string::npos) << shape[0].remedy;
    EXPECT_EQ(shape[0].gain.find("slower"), std::string::npos) << shape[0].gain;
    automatic.repeats.clear();
    dyn.repeats.clear();

    // Faster dynamic kernels: no trade to tell.
    dyn.iterations = timedRun("default", {7000000}, constant(20, 500000)).iterations;
    shape = withRule(advise(reportOf({automatic, dyn}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_EQ(shape[0].remedy.find("slower"), std::string::npos) << shape[0].remedy;
    EXPECT_EQ(shape[0].gain.find("slower"), std::string::npos) << shape[0].gain;
}

// The LSTM tagger on a new length (recorded): forward and the frame after its
// break recompile at the same sweep call. One finding, at forward's input; the
// frame after the break is told in it, by no name of torch's own.
TEST(AdviceRecompiles, TheFrameAfterABreakRecompilingWithItsCallerIsOneFinding) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    const cs::core::Run run = fixtureRun("advice_lstm_lengths_auto_sweep.jsonl", setting);
    ASSERT_EQ(run.recompiles.size(), 2u);
    const auto shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].title.find("forward (lstm_tagger.py:15) recompiled 1 time because "
                                  "dimension 1 of tokens changed"),
              std::string::npos)
        << shape[0].title;
    EXPECT_TRUE(hasLine(shape[0].evidence,
                        "forward (after the break at line 16) recompiled at the same call: "
                        "dimension 1 of a value carried across the break (___stack0[0]) took 2 "
                        "sizes: 6 and 9"))
        << ::testing::PrintToString(shape[0].evidence);
    EXPECT_NE(shape[0].remedy.find("torch._dynamo.mark_dynamic(tokens, 1)"), std::string::npos)
        << shape[0].remedy;
    EXPECT_EQ(shape[0].remedy.find("mark_dynamic(___stack"), std::string::npos) << shape[0].remedy;
    EXPECT_NE(shape[0].remedy.find("the frame after the break at line 16 recompiles on values "
                                   "torch carries across the break"),
              std::string::npos)
        << shape[0].remedy;
}

// The same frame recompiling alone (its caller did not): its own finding,
// with no mark_dynamic of a name the user never wrote.
TEST(AdviceRecompiles, TheFrameAfterABreakAloneIsNotMarkedByTorchsName) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    cs::core::Run run = fixtureRun("advice_lstm_lengths_auto_sweep.jsonl", setting);
    run.recompiles.erase(run.recompiles.begin()); // forward's own
    const auto shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].title.find("forward (after the break at line 16)"), std::string::npos)
        << shape[0].title;
    EXPECT_EQ(shape[0].remedy.find("mark_dynamic("), std::string::npos) << shape[0].remedy;
    EXPECT_NE(shape[0].remedy.find("This frame starts after the graph break at line 16"),
              std::string::npos)
        << shape[0].remedy;
    EXPECT_NE(shape[0].remedy.find("dynamic=True"), std::string::npos) << shape[0].remedy;
}

TEST(AdviceRecompiles, DictKeyGuardsAreRead) {
    // As torch 2.15 wrote it for timm's LeViT (path cut by torch).
    const auto g = parseDictKeyGuard(
        "0/0: not ___dict_contains('cpu', "
        "self._modules['stages']._modules['0']._modules['blocks']._modules['0']._modules['attn']."
        "attention_bias_cache)  # if device_key not in self.attention_bias_cache:  # "
        "mp/hfsite/site-packages/timm/models/levit.py:304 in get_attention_biases (HINT: "
        "Dictionary ... must not contain key 'cpu')\nUser stack trace:\n  File \"x.py\"");
    ASSERT_TRUE(g.has_value());
    EXPECT_TRUE(g->added);
    EXPECT_EQ(g->key, "'cpu'");
    EXPECT_EQ(g->dict, "self.stages[0].blocks[0].attn.attention_bias_cache");
    EXPECT_EQ(g->code, "if device_key not in self.attention_bias_cache:");
    EXPECT_EQ(g->where, "levit.py:304 in get_attention_biases");
    const auto removed = parseDictKeyGuard("1/2: ___dict_contains(3, L['self'].table)");
    ASSERT_TRUE(removed.has_value());
    EXPECT_FALSE(removed->added);
    EXPECT_EQ(removed->key, "3");
    EXPECT_EQ(removed->dict, "self.table");
    EXPECT_TRUE(removed->code.empty());
    EXPECT_FALSE(parseDictKeyGuard("0/0: self.calls == 7"));
    EXPECT_FALSE(
        parseDictKeyGuard("0/0: tensor 'x' size mismatch at index 1. expected 8, actual 4"));
    EXPECT_EQ(modulePath("L['self']._modules['enc']._modules['12'].attn"), "self.enc[12].attn");
    EXPECT_EQ(modulePath("x.cache"), "x.cache");
}

TEST(AdviceRecompiles, LengthGuardsAreRead) {
    // As torch 2.15 wrote them for a hook appending to the model file's list.
    const auto counted = parseLengthGuard(
        "0/2: len(G['__import___main__'].stats) == 2                        # "
        "stats.append(float(out.abs().mean()))  # mp/nc/hooked.py:7 in record\nUser stack "
        "trace:\n  File \"/x/torch/_dynamo/external_utils.py\", line 69, in inner\n  File "
        "\"/tmp/nc/hooked.py\", line 7, in record\n    stats.append(float(out.abs().mean()))");
    ASSERT_TRUE(counted.has_value());
    EXPECT_EQ(counted->container, "stats");
    EXPECT_EQ(counted->length, 2);
    EXPECT_FALSE(counted->emptiness);
    EXPECT_EQ(counted->code, "stats.append(float(out.abs().mean()))");
    EXPECT_EQ(counted->where, "hooked.py:7 in record");
    EXPECT_EQ(counted->file, "/tmp/nc/hooked.py");
    EXPECT_EQ(counted->line, 7);
    const auto empty = parseLengthGuard("0/0: not L['self']._modules['enc'].history  # x");
    ASSERT_TRUE(empty.has_value());
    EXPECT_TRUE(empty->emptiness);
    EXPECT_EQ(empty->container, "self.enc.history");
    EXPECT_EQ(parseLengthGuard("1/0: len(G['cache']) == 12")->container, "cache");
    EXPECT_FALSE(parseLengthGuard("0/0: not ___dict_contains('cpu', self.cache)"));
    EXPECT_FALSE(parseLengthGuard("0/0: self.calls == 7"));
    EXPECT_FALSE(parseLengthGuard("0/0: len(L['xs']) == n"));
}

// A forward hook logging into the model file's list (recorded, torch 2.15):
// every call appends, so every call recompiles until the limit. The growth is
// named with the line behind it, and the limit finding gives the same cause.
TEST(AdviceRecompiles, AListTheCompiledCodeAppendsToNamesTheLineAndCompilerDisable) {
    const auto findings = adviseOnAotEagerStream("advice_growing_list.jsonl");
    const auto found = withRule(findings, "recompile.growing_list");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].title.find("recompiled 7 times because activations grew on every call"),
              std::string::npos)
        << found[0].title;
    EXPECT_EQ(found[0].line, 13);
    EXPECT_NE(found[0].file.find("growing_list.py"), std::string::npos) << found[0].file;
    EXPECT_TRUE(hasLine(found[0].evidence, "compiled for 0, 1, 2, 3, 4, … 7 items"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_TRUE(hasLine(found[0].evidence,
                        "the guard comes from `activations.append(output.detach().abs().mean())` "
                        "(growing_list.py:13 in log_activation)"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_NE(found[0].remedy.find("@torch.compiler.disable"), std::string::npos)
        << found[0].remedy;
    EXPECT_TRUE(hasLine(found[0].evidence,
                        "log_activation (growing_list.py:12) is a forward hook of model[1]"))
        << ::testing::PrintToString(found[0].evidence);
    const auto limit = withRule(findings, "recompile.limit");
    ASSERT_EQ(limit.size(), 1u);
    EXPECT_NE(limit[0].remedy.find("torch compiled the length of activations"), std::string::npos)
        << limit[0].remedy;
    // torch cuts the guard's path ("tests/probe/models/growing_list.py" on a
    // recording, "mp/nc/hooked.py" elsewhere): the evidence shows the file's name.
    EXPECT_TRUE(hasLine(limit[0].evidence, "# growing_list.py:13 in log_activation"))
        << ::testing::PrintToString(limit[0].evidence);
    EXPECT_TRUE(withRule(findings, "recompile.value").empty());
}

// A forward timing its layer with time.perf_counter() (recorded): the code
// after each clock read guards on the reading, so every call recompiles until
// the limit. The recompiles name the clock, not "pass it as a tensor".
TEST(AdviceRecompiles, AClockReadInForwardSaysToTimeFromTheCallerNotToPassATensor) {
    const auto findings = adviseOnAotEagerStream("advice_clock_in_forward.jsonl");
    const auto breaks = withRule(findings, "graph_break.clock");
    ASSERT_EQ(breaks.size(), 2u);
    EXPECT_NE(breaks[0].title.find("time.perf_counter() in forward breaks the graph"),
              std::string::npos)
        << breaks[0].title;
    // Each break's gain counts the recompiles on the reading it returned.
    EXPECT_NE(breaks[1].gain.find("and with it the 7 recompiles of forward (after the break at "
                                  "line 20) on its reading and the fall back to eager at the "
                                  "limit"),
              std::string::npos)
        << breaks[1].gain;
    EXPECT_NE(breaks[0].gain.find("and with it the 1 recompile of forward (after the break at line "
                                  "18) on its reading"),
              std::string::npos)
        << breaks[0].gain;
    const auto values = withRule(findings, "recompile.value");
    ASSERT_FALSE(values.empty());
    for (const auto& f : values) {
        EXPECT_NE(f.title.find("torch compiled time.perf_counter()'s reading in as a constant"),
                  std::string::npos)
            << f.title;
        EXPECT_EQ(f.remedy.find("torch.tensor(value)"), std::string::npos) << f.remedy;
        EXPECT_NE(f.remedy.find("Time the compiled call from its caller"), std::string::npos)
            << f.remedy;
    }
    // The reading carried across the break (___stack1) is told as the clock's.
    const auto last = std::find_if(values.begin(), values.end(), [](const Finding& f) {
        return f.title.find("recompiled 7 times") != std::string::npos;
    });
    ASSERT_NE(last, values.end()) << ::testing::PrintToString(values.front().title);
    EXPECT_TRUE(hasLine(last->evidence, "(what time.perf_counter() returned)"))
        << ::testing::PrintToString(last->evidence);
    EXPECT_TRUE(hasLine(last->evidence, "reads time.perf_counter())"))
        << ::testing::PrintToString(last->evidence);
    EXPECT_NE(last->gain.find("no fall back to eager"), std::string::npos) << last->gain;
    const auto limit = withRule(findings, "recompile.limit");
    ASSERT_EQ(limit.size(), 1u);
    EXPECT_NE(limit[0].remedy.find("@torch.compiler.disable"), std::string::npos)
        << limit[0].remedy;
}

// A module global forward counts up (recorded): torch writes the guard as
// G['STEP'], told as the global with a buffer to count in.
TEST(AdviceRecompiles, AGlobalCounterIsNamedAsTheGlobalWithABufferToCountIn) {
    const auto findings = adviseOnAotEagerStream("advice_global_step.jsonl");
    const auto found = withRule(findings, "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].title.find("forward (global_step.py:16) recompiled 7 times because STEP "
                                  "changed"),
              std::string::npos)
        << found[0].title;
    EXPECT_TRUE(hasLine(found[0].evidence, "STEP took 8 values: 0, 1, 2, 3, 4, … 7"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_TRUE(hasLine(found[0].evidence, "the guard comes from `warm = min(1.0, STEP / 100)`"))
        << ::testing::PrintToString(found[0].evidence);
    // The finding sits on that line, not on forward's def.
    EXPECT_EQ(found[0].line, 19);
    EXPECT_EQ(found[0].code, "warm = min(1.0, STEP / 100)");
    EXPECT_NE(found[0].remedy.find("a global of the model's code"), std::string::npos)
        << found[0].remedy;
    EXPECT_NE(found[0].remedy.find("self.register_buffer(\"step\""), std::string::npos)
        << found[0].remedy;
    const auto limit = withRule(findings, "recompile.limit");
    ASSERT_EQ(limit.size(), 1u);
    EXPECT_NE(limit[0].remedy.find("a global of the model's code"), std::string::npos)
        << limit[0].remedy;
}

// requires_grad_() on forward's input (recorded): the caller's tensor comes
// back with requires_grad=True and the second call recompiles.
TEST(AdviceRecompiles, AnInputsRequiresGradFlippedInForwardNamesTheLineAndTheDetachedCopy) {
    const auto found = withRule(adviseOnAotEagerStream("advice_forces_from_energy.jsonl"),
                                "recompile.tensor_kind");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].title.find("recompiled 1 time because positions came with another "
                                  "requires_grad"),
              std::string::npos)
        << found[0].title;
    EXPECT_TRUE(hasLine(found[0].evidence, "for positions with requires_grad False, then True"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_TRUE(hasLine(found[0].evidence,
                        "forward calls requires_grad_() on it at forces_from_energy.py:16"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_EQ(found[0].line, 16); // the requires_grad_() call, not forward's def
    EXPECT_NE(found[0].remedy.find("positions = positions.detach().requires_grad_(True)"),
              std::string::npos)
        << found[0].remedy;
}

// Calls passing float32, then float16 (torch 2.15's guard text): a graph per dtype.
TEST(AdviceRecompiles, AnInputOfAnotherDtypeSaysToCastBeforeTheCall) {
    cs::core::Run run = timedRun("default", {}, {});
    run.recompiles.push_back({"forward",
                              "1/0: tensor 'a' dtype mismatch. expected Float, actual Half", 2, "",
                              false, 8, "", "measure", 2});
    run.recompiles.push_back({"forward",
                              "1/1: tensor 'a' dtype mismatch. expected Half, actual Float\n"
                              "1/0: tensor 'a' dtype mismatch. expected Float, actual Half",
                              3, "", false, 8, "", "measure", 3});
    const auto found = withRule(advise(reportOf({run}), {}), "recompile.tensor_kind");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].title.find("recompiled 2 times because a came with another dtype"),
              std::string::npos)
        << found[0].title;
    EXPECT_TRUE(hasLine(found[0].evidence, "for a with dtype Float, then Half:"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_NE(found[0].remedy.find("Cast a to one dtype before the call"), std::string::npos)
        << found[0].remedy;
}

// Faster R-CNN (recorded reason): torchvision calls its own clip_boxes_to_image
// with boxes of 2 and of 3 dimensions in the first call: info, nothing to change.
// The same from the user's own calls: one number of dimensions.
TEST(AdviceRecompiles, AnInputOfAnotherRankIsAGraphPerRank) {
    cs::core::Run run = timedRun("default", {}, {});
    cs::core::Graph g;
    g.function = "clip_boxes_to_image";
    g.file = "/venv/lib/python3.11/site-packages/torchvision/ops/boxes.py";
    g.line = 155;
    g.compileId = "5/0";
    run.graphs.push_back(g);
    run.recompiles.push_back({"clip_boxes_to_image",
                              "5/0: tensor 'boxes' rank mismatch. expected 2, actual 3", 2, "",
                              false, 8, "", "compile", 0});
    auto found = withRule(advise(reportOf({run}), {}), "recompile.tensor_kind");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].title.find("because boxes came with another rank"), std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].remedy.find("torchvision's code, which the model's first call reached "
                                   "with boxes of 2 and 3 dimensions"),
              std::string::npos)
        << found[0].remedy;
    EXPECT_TRUE(found[0].gain.empty()) << found[0].gain;

    run.graphs[0].file = "/home/u/model.py";
    run.recompiles[0].phase = "measure";
    found = withRule(advise(reportOf({run}), {}), "recompile.tensor_kind");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warning);
    EXPECT_NE(found[0].remedy.find("Pass boxes with one number of dimensions"), std::string::npos)
        << found[0].remedy;
}

// torch 2.15's guards (recorded on a Linear compiled and called under
// torch.no_grad(), then without, then under torch.autocast).
TEST(AdviceRecompiles, CallsUnderAnotherGradModeOrAutocastAreOneGraphPerState) {
    cs::core::Run run = timedRun("default", {}, {});
    run.recompiles.push_back(
        {"forward", "0/0: GLOBAL_STATE changed: grad_mode ", 2, "", false, 8, "", "measure", 2});
    auto found = withRule(advise(reportOf({run}), {}), "recompile.global_state");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].title.find("recompiled 1 time because calls ran under another grad mode "
                                  "(torch.no_grad() at some calls, not at others)"),
              std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].remedy.find("for inference always under torch.no_grad()"), std::string::npos)
        << found[0].remedy;

    for (const std::string reason : {"0/1: GLOBAL_STATE changed: autocast(cpu)_enabled ",
                                     "0/2: GLOBAL_STATE changed: grad_mode autocast(cpu)_enabled "})
        run.recompiles.push_back({"forward", reason, 3, "", false, 8, "", "measure", 3});
    found = withRule(advise(reportOf({run}), {}), "recompile.global_state");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warning);
    EXPECT_NE(found[0].title.find("grad mode (torch.no_grad() at some calls, not at others) and "
                                  "autocast (torch.autocast(...) at some calls)"),
              std::string::npos)
        << found[0].title;
}

// A real TORCH_TRACE (tests/fixtures/trace/grad_mode_bias: torch 2.15 running
// model.py.txt): one frame recompiled twice on grad mode and once on a bias
// given at one call; each cause is told with its own count.
TEST(AdviceRecompiles, AnImportedFrameRecompilingOnGradModeAndANoneIsTwoFindings) {
    const auto imported = cs::core::trace::importTrace(
        (std::filesystem::path(COMPILESCOPE_FIXTURES) / "trace" / "grad_mode_bias").string());
    ASSERT_TRUE(imported.error.empty()) << imported.error;
    const auto findings = advise(imported.report, {});
    const auto states = withRule(findings, "recompile.global_state");
    ASSERT_EQ(states.size(), 1u);
    EXPECT_NE(states[0].title.find("recompiled 2 times because calls ran under another grad mode"),
              std::string::npos)
        << states[0].title;
    const auto none = withRule(findings, "recompile.none");
    ASSERT_EQ(none.size(), 1u);
    EXPECT_NE(none[0].title.find("recompiled 1 time because bias was None at one call and not "
                                 "at another"),
              std::string::npos)
        << none[0].title;
}

// An input made under torch.inference_mode() at one call (recorded, torch 2.15).
TEST(AdviceRecompiles, AnInferenceTensorAtSomeCallsSaysToMakeInputsOneWay) {
    cs::core::Run run = timedRun("default", {}, {});
    run.recompiles.push_back({"forward",
                              "0/0: tensor 'args[0]' dispatch key set mismatch. expected "
                              "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), "
                              "actual DispatchKeySet(CPU, BackendSelect, ADInplaceOrView)",
                              2, "", false, 8, "", "measure", 2});
    const auto found = withRule(advise(reportOf({run}), {}), "recompile.tensor_kind");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].title.find("because args[0] came with other dispatch keys"),
              std::string::npos)
        << found[0].title;
    EXPECT_TRUE(hasLine(found[0].evidence, "with dispatch keys AutogradCPU, then no AutogradCPU"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_NE(found[0].remedy.find("came as an inference tensor"), std::string::npos)
        << found[0].remedy;
}

// A multi-task model picking its head by a string argument (torch 2.15's
// guard text): a graph per task is expected, told as info with the warmup.
TEST(AdviceRecompiles, AStringArgumentCompilesOncePerValueAsInfo) {
    cs::core::Run run = timedRun("default", {}, {});
    const char* tasks[] = {"'cls'", "'reg'"};
    for (int i = 0; i < 2; ++i)
        run.recompiles.push_back({"forward",
                                  "0/" + std::to_string(i) + ": task == " + tasks[i] +
                                      "   # return self._modules[key]  # "
                                      "nn/modules/container.py:561 in __getitem__",
                                  i + 2, "", false, 8, "", "warmup", i + 1});
    auto found = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].title.find("recompiled 2 times, once per value of task"), std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].remedy.find("call the compiled model once per value"), std::string::npos)
        << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("torch.tensor(value)"), std::string::npos) << found[0].remedy;
    EXPECT_TRUE(found[0].gain.empty()) << found[0].gain; // a graph per task stays
    // Up to the recompile limit: a warning.
    run.recompiles.push_back({"forward", "0/7: task == 'x7'", 9, "", true, 8, "", "measure", 9});
    found = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warning);
}

// transformers installing its output-capturing hooks on the first call, which
// torch compiled (a DPT, torch 2.15: its reason, abridged): the lever is to
// call the model once before compiling, not to keep the string out.
TEST(AdviceRecompiles, TheHookInstallationsRecompileSaysCallTheModelOnceFirst) {
    cs::core::Run run = timedRun("default", {}, {});
    run.recompiles.push_back(
        {"install_output_capuring_hook",
         "8/0: key == 'attentions'   # module.register_forward_hook(output_capturing_hook)  # "
         "site-packages/transformers/utils/output_capturing.py:153 in install_output_capuring_hook",
         2, "", false, 8, "", "compile", 0});
    auto found = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].remedy.find("transformers installing its output-capturing hooks"),
              std::string::npos)
        << found[0].remedy;
    EXPECT_NE(found[0].remedy.find("Call the model once before torch.compile"), std::string::npos)
        << found[0].remedy;
    // Another function guarding on a string in that file is not the installation.
    run.recompiles[0].function = "forward";
    found = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].remedy.find("output-capturing"), std::string::npos) << found[0].remedy;
}

// The same from a real TORCH_TRACE (tests/fixtures/trace/task_heads: torch
// 2.15 running model.py.txt): the guard comes from torch's ModuleDict code,
// and the finding points at the user's line that indexes it.
TEST(AdviceRecompiles, AStringGuardInAnImportedTracePointsAtTheUsersLine) {
    const auto imported = cs::core::trace::importTrace(
        (std::filesystem::path(COMPILESCOPE_FIXTURES) / "trace" / "task_heads").string());
    ASSERT_TRUE(imported.error.empty()) << imported.error;
    const auto found = withRule(advise(imported.report, {}), "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].title.find("once per value of task"), std::string::npos) << found[0].title;
    EXPECT_EQ(found[0].line, 8);
    EXPECT_EQ(found[0].code, "return self.heads[task](x)");
    EXPECT_TRUE(hasLine(found[0].evidence,
                        "the graphs compiled for task 'cls' failed their guard `task == …` on a "
                        "call with another value"))
        << ::testing::PrintToString(found[0].evidence);
}

// A trace compilescope's probe wrote (tests/fixtures/trace/keyword_call:
// --torch-trace on model.py.txt, whose dict inputs the probe passes through
// its KeywordCall wrapper): the import names the model's forward and its
// inputs as the live run does, not `forward (loader.py:147)` and values[0].
TEST(AdviceRecompiles, AnImportedTraceOfTheProbesKeywordWrapperNamesTheModelsInputs) {
    const auto imported = cs::core::trace::importTrace(
        (std::filesystem::path(COMPILESCOPE_FIXTURES) / "trace" / "keyword_call").string());
    ASSERT_TRUE(imported.error.empty()) << imported.error;
    const cs::core::Run& run = imported.report.runs.at(0);
    ASSERT_FALSE(run.graphs.empty());
    EXPECT_EQ(run.graphs[0].function, "Pool.forward");
    EXPECT_EQ(run.graphs[0].file, "/tmp/kw_model.py");
    ASSERT_FALSE(run.recompiles.empty());
    EXPECT_NE(run.recompiles[0].reason.find("tensor 'tokens' size mismatch at index 1"),
              std::string::npos)
        << run.recompiles[0].reason;
    const auto found = withRule(advise(imported.report, {}), "recompile.shape");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].title.find("Pool.forward (kw_model.py:"), std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].title.find("dimension 1 of tokens"), std::string::npos) << found[0].title;
    EXPECT_NE(found[0].remedy.find("mark_dynamic(tokens, 1"), std::string::npos) << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("values["), std::string::npos) << found[0].remedy;
}

// A model switched to eval() and back (torch 2.15's guard text): one graph
// per mode, told as info, not "hold it in a tensor".
TEST(AdviceRecompiles, ATrainEvalSwitchIsOneGraphPerModeAsInfo) {
    cs::core::Run run = timedRun("default", {}, {});
    run.recompiles.push_back(
        {"forward",
         "0/0: self._modules['drop'].training == True   # return F.dropout(input, self.p, "
         "self.training, self.inplace)  # nn/modules/dropout.py:73 in forward",
         2, "", false, 8, "", "warmup", 2});
    const auto found = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].title.find("because the model switched between train() and eval()"),
              std::string::npos)
        << found[0].title;
    EXPECT_TRUE(hasLine(found[0].evidence,
                        "self.drop.training was True when torch compiled it, and a "
                        "call where it was not failed the guard "
                        "`self.drop.training == True`"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_NE(found[0].remedy.find("call model.eval() before torch.compile"), std::string::npos)
        << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("register_buffer"), std::string::npos) << found[0].remedy;
}

// A guard on a plain value whose line reads no clock keeps torch.tensor's remedy.
TEST(AdviceRecompiles, AValueGuardWithoutAClockKeepsTheTensorRemedy) {
    cs::core::Run run = timedRun("default", {}, {});
    for (int i = 1; i <= 3; ++i)
        run.recompiles.push_back({"forward",
                                  "0/" + std::to_string(i - 1) + ": scale == " + std::to_string(i) +
                                      "  # y = x * scale  # m.py:9 in forward",
                                  i + 1, "", false, 8, "", "warmup", i});
    const auto found = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].title.find("because scale changed"), std::string::npos) << found[0].title;
    EXPECT_NE(found[0].remedy.find("torch.tensor(value)"), std::string::npos) << found[0].remedy;
}

// A module caching biases per device on its first call (recorded): the second
// call recompiles on the dict's key. The fix: one call before compiling.
TEST(AdviceRecompiles, ACacheTheFirstCallFillsNamesTheDictAndTheEagerCallFirst) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    const cs::core::Run run = fixtureRun("advice_lazy_cache.jsonl", setting);
    const auto found = withRule(advise(reportOf({run}), {}), "recompile.dict_key");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warning);
    EXPECT_NE(found[0].title.find("forward (lazy_cache.py:22) recompiled 1 time because a call put "
                                  "'cpu' in self.bias_cache"),
              std::string::npos)
        << found[0].title;
    EXPECT_TRUE(hasLine(found[0].evidence,
                        "torch compiled forward with 'cpu' absent from self.bias_cache and guarded "
                        "on it; a later call found it there; the guard comes from `if key not in "
                        "self.bias_cache:` (lazy_cache.py:18 in biases)"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_NE(found[0].remedy.find("Call the model once before torch.compile"), std::string::npos)
        << found[0].remedy;
    EXPECT_EQ(found[0].gain.rfind("one compile of forward instead of 2", 0), 0u) << found[0].gain;
    EXPECT_TRUE(withRule(advise(reportOf({run}), {}), "recompile.value").empty());
}

// One decoding step of GPT-2 with its DynamicCache, swept over past lengths
// (torch 2.15, transformers' cache as Dynamo names it): marking layers[0].keys
// alone would leave the other layers; a StaticCache keeps one shape.
TEST(AdviceRecompiles, AGrowingKvCacheSaysStaticCache) {
    auto run = sweptRun("auto", {});
    cs::core::Recompile r;
    r.function = "forward";
    r.reason = "0/0: tensor 'past_key_values.layers[0].keys' size mismatch at index 2. expected 8, "
               "actual 9";
    run.recompiles.push_back(r);
    auto shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].remedy.find("cache_implementation=\"static\""), std::string::npos)
        << shape[0].remedy;
    EXPECT_NE(shape[0].remedy.find("must reach every layer's keys and values, not "
                                   "past_key_values.layers[0].keys alone"),
              std::string::npos)
        << shape[0].remedy;
    EXPECT_EQ(shape[0].remedy.find("mark_dynamic(past_key_values"), std::string::npos)
        << shape[0].remedy;
    // As a keyword argument of transformers' wrapper around the forward.
    run.recompiles[0].reason =
        "0/0: tensor 'kwargs['cache'].layers[0].keys' size mismatch at index 2. expected 16, "
        "actual 17";
    shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].remedy.find("cache_implementation=\"static\""), std::string::npos)
        << shape[0].remedy;
    // An encoder-decoder's pair of caches (T5's generate, its forward compiled alone).
    run.recompiles[0].reason = "0/1: tensor 'kwargs['cache'].self_attention_cache.layers[0].keys' "
                               "size mismatch at index 2. expected 1, actual 2";
    shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].remedy.find("cache_implementation=\"static\""), std::string::npos)
        << shape[0].remedy;
    // Any other tensor keeps the mark_dynamic fix.
    run.recompiles[0].reason =
        "0/0: tensor 'past_values' size mismatch at index 2. expected 8, actual 9";
    shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].remedy.find("mark_dynamic(past_values, 2)"), std::string::npos)
        << shape[0].remedy;
}

// A function calling transformers' generate(), compiled: the loop's frames
// recompile as the sequence grows by a token per step, on tensors generate
// builds itself. Seen on a 2-layer GPT-2 (transformers 5.25, aot_eager).
// SwitchTransformers' encoder (torch 2.15): an expert's forward gets the
// tokens routed to it, so its first dimension changes on the same inputs.
// The finding sits at that expert's graph, not at the first graph named
// forward, and tells no generate() lever: nothing here decodes.
TEST(AdviceRecompiles, AnExpertGivenRoutedTokensIsNotToldOfGenerate) {
    const std::string st = "/venv/lib/python3.11/site-packages/transformers/models/"
                           "switch_transformers/modeling_switch_transformers.py";
    auto run = timedRun("default", {}, {});
    run.setting.dynamic = "auto";
    const auto graph = [&](int line, const std::string& module, const std::string& id) {
        cs::core::Graph g;
        g.function = "forward";
        g.file = st;
        g.line = line;
        g.frameModule = module;
        g.compileId = id;
        run.graphs.push_back(g);
    };
    graph(543, "encoder.block.0", "10/0");
    graph(147, "encoder.block.0.layer.1.mlp.experts.expert_0", "15/0");
    for (auto [from, to] : {std::pair{22, 12}, std::pair{12, 9}}) {
        cs::core::Recompile r;
        r.function = "forward";
        r.reason = "15/0: tensor 'hidden_states' size mismatch at index 0. expected " +
                   std::to_string(from) + ", actual " + std::to_string(to);
        run.recompiles.push_back(r);
    }
    const auto shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_EQ(shape[0].line, 147);
    EXPECT_NE(shape[0].remedy.find("Under dynamic=auto torch makes the dimension symbolic after "
                                   "it first changes"),
              std::string::npos)
        << shape[0].remedy;
    EXPECT_EQ(shape[0].remedy.find("generate"), std::string::npos) << shape[0].remedy;
    EXPECT_EQ(shape[0].remedy.find("model.forward = torch.compile"), std::string::npos)
        << shape[0].remedy;
}

// SwitchTransformers (recorded reasons): the expert's forward (frame 15) and
// the attention's (frame 10) share the name; each is its own frame, and the
// expert's finding counts its own recompile only.
TEST(AdviceRecompiles, ForwardsOfTwoModulesAreTwoFrames) {
    auto run = timedRun("default", {}, {});
    run.setting.dynamic = "auto";
    run.recompiles.push_back(
        {"forward", "15/0: tensor 'hidden_states' size mismatch at index 0. expected 22, actual 12",
         2, "", false, 8, "", "compile", 0});
    run.recompiles.push_back({"forward",
                              "10/0: self.mode == 1  # if self.mode == 1:  # "
                              "modeling_switch_transformers.py:390 in forward",
                              2, "", false, 8, "", "compile", 0});
    const auto findings = advise(reportOf({run}), {});
    const auto shape = withRule(findings, "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].title.find("recompiled 1 time because dimension 0 of hidden_states"),
              std::string::npos)
        << shape[0].title;
    const auto value = withRule(findings, "recompile.value");
    ASSERT_EQ(value.size(), 1u);
    EXPECT_NE(value[0].title.find("recompiled 1 time within the model's first call, because "
                                  "self.mode changed inside it"),
              std::string::npos)
        << value[0].title;
    EXPECT_EQ(value[0].severity, Severity::Info);
    EXPECT_TRUE(value[0].gain.empty()) << value[0].gain;
    EXPECT_NE(value[0].remedy.find("paid once, on the first call"), std::string::npos)
        << value[0].remedy;
}

// transformers' KV cache sets each layer up on its first update, so a decoder
// layer's frame, run for every layer, recompiled on the cache's own state
// within the first call (recorded with torch 2.15 on a 2-layer Qwen2-MoE whose
// experts break the graph); with use_cache=False the recompile was gone.
TEST(AdviceRecompiles, TheKvCachesOwnStateWithinTheFirstCallIsToldToLeaveTheCacheOut) {
    auto run = timedRun("default", {}, {});
    run.recompiles.push_back(
        {"forward",
         "12/0: cache.layers[0].is_initialized == False                  # if not "
         "self.is_initialized:  # mp/sp/site-packages/transformers/cache_utils.py:133 in update",
         2, "", false, 8, "", "compile", 0});
    auto found = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_TRUE(hasLine(found[0].evidence,
                        "cache.layers[0].is_initialized was False when torch compiled it"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_TRUE(hasLine(found[0].evidence, "every recompile came within the model's first call"))
        << ::testing::PrintToString(found[0].evidence);
    EXPECT_NE(found[0].remedy.find("use_cache=False"), std::string::npos) << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("as a tensor"), std::string::npos) << found[0].remedy;
    EXPECT_EQ(found[0].gain, "one compile of forward instead of 2");

    // At a later call the value changed between calls: the old finding.
    run.recompiles[0].phase = "warmup";
    run.recompiles[0].callIndex = 1;
    found = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warning);
    EXPECT_EQ(found[0].remedy.find("use_cache=False"), std::string::npos) << found[0].remedy;
}

// BigBird (recorded reasons): each layer's attention holds its index as
// self.seed, so each compiled its own graph of the shared forward, in the first
// call, until the limit.
TEST(AdviceRecompiles, AnAttributeEachModuleHoldsItsOwnNamesTheFlagAndTheLimit) {
    auto run = timedRun("default", {}, {});
    for (int layer = 0; layer < 8; ++layer) {
        cs::core::Graph g;
        g.function = "forward";
        g.file = "/venv/lib/python3.11/site-packages/transformers/models/big_bird/"
                 "modeling_big_bird.py";
        g.line = 234;
        g.frameModule = "bert.encoder.layer." + std::to_string(layer) + ".attention.self";
        g.compileId = "13/" + std::to_string(layer);
        run.graphs.push_back(g);
    }
    for (int seed = 0; seed < 8; ++seed)
        run.recompiles.push_back({"forward",
                                  "13/" + std::to_string(seed) +
                                      ": self.seed == " + std::to_string(seed) +
                                      "  # context_layer, attention_probs = "
                                      "self.bigbird_block_sparse_attention(  # "
                                      "modeling_big_bird.py:270 in forward",
                                  seed + 2, "", seed == 7, 8, "", "compile", 0});
    const auto findings = advise(reportOf({run}), {});
    const auto value = withRule(findings, "recompile.value");
    ASSERT_EQ(value.size(), 1u);
    EXPECT_NE(value[0].title.find("recompiled 7 times: each module of its class holds its own "
                                  "self.seed"),
              std::string::npos)
        << value[0].title;
    EXPECT_TRUE(hasLine(value[0].evidence,
                        "its graphs were compiled for bert.encoder.layer.0.attention.self, "
                        "bert.encoder.layer.1.attention.self, bert.encoder.layer.2.attention.self "
                        "and 5 more, one module each"))
        << ::testing::PrintToString(value[0].evidence);
    EXPECT_NE(value[0].remedy.find("allow_unspec_int_on_nn_module = True"), std::string::npos)
        << value[0].remedy;
    EXPECT_EQ(value[0].remedy.find("update it outside the call"), std::string::npos)
        << value[0].remedy;
    EXPECT_EQ(value[0].gain, "2 compiles of forward for all the modules of its class instead of "
                             "8, and no fall back to eager at the limit");
    const auto limit = withRule(findings, "recompile.limit");
    ASSERT_EQ(limit.size(), 1u);
    EXPECT_NE(limit[0].remedy.find("above the number of such modules"), std::string::npos)
        << limit[0].remedy;
    EXPECT_EQ(limit[0].remedy.find("only postpones"), std::string::npos) << limit[0].remedy;

    // A counter one module bumps per call recompiles across calls: the call's value.
    for (auto& rc : run.recompiles)
        rc.callIndex = std::stoi(rc.reason.substr(3, 1));
    const auto counted = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(counted.size(), 1u);
    EXPECT_NE(counted[0].title.find("because self.seed changed"), std::string::npos)
        << counted[0].title;

    // An imported TORCH_TRACE (BigBird's, recorded): no call, no phase and no
    // module per graph, so either reading fits, and both are told.
    for (auto& rc : run.recompiles) {
        rc.callIndex = -1;
        rc.phase.clear();
    }
    for (auto& g : run.graphs)
        g.frameModule.reset();
    run.recompiles.resize(1); // one recompile, as BigBird's 2 layers in the trace: no limit
    const auto imported = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(imported.size(), 1u);
    EXPECT_NE(imported[0].title.find("recompiled 1 time: self.seed differed between its compiles"),
              std::string::npos)
        << imported[0].title;
    EXPECT_EQ(imported[0].severity, Severity::Info);
    EXPECT_NE(imported[0].remedy.find("two readings fit"), std::string::npos) << imported[0].remedy;
    EXPECT_NE(imported[0].remedy.find("allow_unspec_int_on_nn_module"), std::string::npos);
    EXPECT_NE(imported[0].remedy.find("update it outside the call"), std::string::npos);
    EXPECT_TRUE(imported[0].gain.empty()) << imported[0].gain;
}

// transformers' deprecate_kwarg wrapper around BigBird's methods (recorded
// reasons): one function called for the model, the encoder and the layer.
TEST(AdviceRecompiles, OneWrapperCalledForSeveralClassesIsInfoNotACast) {
    auto run = timedRun("default", {}, {});
    const std::string at = "  # func_name = f\"{args[0].__class__.__name__}.{func_name}\"  # "
                           "mp/sp/site-packages/transformers/utils/deprecation.py:131 in "
                           "wrapped_func (HINT: type ";
    run.recompiles.push_back({"wrapped_func",
                              "7/0: tensor 'args[1]' dtype mismatch. expected Long, actual Float",
                              2, "", false, 8, "", "compile", 0});
    for (const std::string type : {"BigBirdEncoder", "BigBirdLayer"})
        run.recompiles.push_back({"wrapped_func",
                                  "7/1: ___check_type_id(args[0], 687941376), type=<class "
                                  "'transformers.models.big_bird.modeling_big_bird." +
                                      type + "'>" + at + type + ")\nUser stack trace:\n",
                                  3, "", false, 8, "", "compile", 0});
    const auto findings = advise(reportOf({run}), {});
    EXPECT_TRUE(withRule(findings, "recompile.tensor_kind").empty());
    const auto type = withRule(findings, "recompile.type");
    ASSERT_EQ(type.size(), 1u);
    EXPECT_EQ(type[0].severity, Severity::Info);
    EXPECT_EQ(type[0].title, "wrapped_func (deprecation.py:131) recompiled 3 times: it is called "
                             "with args[0] of several types (BigBirdEncoder, BigBirdLayer, …)");
    EXPECT_TRUE(hasLine(type[0].evidence, "its other failed guards (args[1]'s dtype)"))
        << ::testing::PrintToString(type[0].evidence);
    EXPECT_NE(type[0].remedy.find("wrapped_func is transformers's code"), std::string::npos)
        << type[0].remedy;
    EXPECT_EQ(type[0].remedy.find("Cast"), std::string::npos) << type[0].remedy;
}

TEST(AdviceRecompiles, NoneGuardsAreRead) {
    const auto set = parseNoneGuard("16/0: self.scales is None      # if self.scales is None or "
                                    "self.map_levels is None:  # torchvision/ops/poolers.py:309 "
                                    "in forward\nUser stack trace:");
    ASSERT_TRUE(set.has_value());
    EXPECT_EQ(set->name, "self.scales");
    EXPECT_TRUE(set->compiledNone);
    EXPECT_EQ(set->where, "poolers.py:309 in forward");
    const auto cleared = parseNoneGuard("0/1: L['self']._modules['attn'].bias is not None");
    ASSERT_TRUE(cleared.has_value());
    EXPECT_EQ(cleared->name, "self.attn.bias");
    EXPECT_FALSE(cleared->compiledNone);
    EXPECT_FALSE(parseNoneGuard("0/0: ___stack0 is None").has_value());
    EXPECT_FALSE(parseNoneGuard("0/0: self.calls == 7").has_value());
}

// torchvision's MultiScaleRoIAlign sets self.scales on its first call (recorded
// on Faster R-CNN): the second call recompiled its forward, a frame with no
// graph of its own, which is not the model's forward either.
TEST(AdviceRecompiles, AnAttributeTheFirstCallSetsSaysToCallOnceBeforeCompiling) {
    auto run = timedRun("default", {}, {});
    cs::core::Graph model;
    model.function = "forward";
    model.file = "/venv/lib/python3.11/site-packages/torchvision/models/detection/"
                 "generalized_rcnn.py";
    model.line = 53;
    model.compileId = "0/0";
    model.frameModule = "";
    run.graphs.push_back(model);
    run.recompiles.push_back({"forward",
                              "16/0: self.scales is None   # if self.scales is None or "
                              "self.map_levels is None:  # torchvision/ops/poolers.py:309 in "
                              "forward",
                              2, "", false, 8, "", "warmup", 1});
    const auto found = withRule(advise(reportOf({run}), {}), "recompile.none");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_EQ(found[0].title, "forward (poolers.py:309) recompiled 1 time: its first call set "
                              "self.scales, which the first graph took as None");
    EXPECT_NE(found[0].file, model.file);
    EXPECT_NE(found[0].remedy.find("Call the model once before torch.compile"), std::string::npos)
        << found[0].remedy;
    EXPECT_EQ(found[0].gain, "one compile of forward instead of 2");
}

// The same frame with no graph of its own (its forward breaks at once), as
// torch 2.15 recorded it on fasterrcnn_mobilenet_v3_large_320_fpn: placed at
// the guard's line from the user stack trace, which names torchvision.
TEST(AdviceRecompiles, ANoneGuardInALibraryFrameWithoutAGraphIsPlacedByItsStackTrace) {
    auto run = timedRun("default", {}, {});
    const std::string file = "/venv/lib/python3.11/site-packages/torchvision/ops/poolers.py";
    run.recompiles.push_back(
        {"forward",
         "16/0: self.scales is None   # if self.scales is None or self.map_levels is None:  # "
         "torchvision/ops/poolers.py:309 in forward\nUser stack trace:\n  File \"" +
             file +
             "\", line 309, in forward\n    if self.scales is None or self.map_levels is None:",
         2, "", false, 8, "", "warmup", 1});
    auto found = withRule(advise(reportOf({run}), {}), "recompile.none");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].file, file);
    EXPECT_EQ(found[0].line, 309);
    EXPECT_EQ(found[0].code, "if self.scales is None or self.map_levels is None:");
    EXPECT_EQ(found[0].remedy.rfind("torchvision's code sets self.scales", 0), 0u)
        << found[0].remedy;

    // Without the stack trace nothing places it, and nothing names a library.
    run.recompiles[0].reason =
        run.recompiles[0].reason.substr(0, run.recompiles[0].reason.find("\nUser stack trace"));
    found = withRule(advise(reportOf({run}), {}), "recompile.none");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(found[0].file.empty()) << found[0].file;
    EXPECT_EQ(found[0].remedy.rfind("Your code sets self.scales", 0), 0u) << found[0].remedy;
}

// SwitchTransformers' attention (recorded reason): the first layer computes
// position_bias, the later ones are handed it, within the first call.
TEST(AdviceRecompiles, AnArgumentNoneInOneLayerAndSetInTheNextIsInfoWithNothingToChange) {
    auto run = timedRun("default", {}, {});
    run.recompiles.push_back({"forward",
                              "10/0: position_bias is None      # if position_bias is None:  # "
                              "mp/sp/site-packages/transformers/models/switch_transformers/"
                              "modeling_switch_transformers.py:425 in forward",
                              2, "", false, 8, "", "compile", 0});
    auto found = withRule(advise(reportOf({run}), {}), "recompile.none");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].title.find("the model's first call passed position_bias both as None and "
                                  "not"),
              std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].remedy.find("Nothing to change"), std::string::npos) << found[0].remedy;
    EXPECT_TRUE(found[0].gain.empty()) << found[0].gain;

    // Calls that pass it now and then, past the first: one graph each way.
    for (int call = 1; call <= 3; ++call)
        run.recompiles.push_back(
            {"forward",
             "10/" + std::to_string(call) + ": position_bias is None  # if position_bias is None:",
             call + 2, "", false, 8, "", "measure", call});
    found = withRule(advise(reportOf({run}), {}), "recompile.none");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warning);
    EXPECT_NE(found[0].title.find("because position_bias was None at some calls and not at "
                                  "others"),
              std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].remedy.find("Pass it the same way on every call"), std::string::npos)
        << found[0].remedy;

    // An imported log says neither phase nor call: both ways told, no gain claimed.
    run.recompiles.resize(1);
    run.recompiles[0].phase.clear();
    run.recompiles[0].callIndex = -1;
    found = withRule(advise(reportOf({run}), {}), "recompile.none");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_NE(found[0].title.find("because position_bias was None at one call and not at "
                                  "another"),
              std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].remedy.find("Where the model itself passes both"), std::string::npos)
        << found[0].remedy;
    EXPECT_TRUE(found[0].gain.empty()) << found[0].gain;
}

TEST(AdviceRecompiles, ALibrarysOwnFrameRecompilingOnFixedInputsIsNotMarkedByItsNames) {
    auto run = timedRun("default", {}, {});
    run.setting.dynamic = "auto";
    cs::core::Graph g;
    g.function = "__call__";
    g.file = "/venv/lib/python3.11/site-packages/transformers/generation/stopping_criteria.py";
    g.line = 618;
    run.graphs.push_back(g);
    for (int size : {17, 18}) {
        cs::core::Recompile r;
        r.function = "__call__";
        r.reason = "0/0: tensor 'input_ids' size mismatch at index 1. expected " +
                   std::to_string(size - 1) + ", actual " + std::to_string(size);
        run.recompiles.push_back(r);
    }
    auto shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    const std::string& remedy = shape[0].remedy;
    EXPECT_EQ(remedy.rfind("__call__ is code in transformers, and every call passed the same "
                           "inputs: transformers made the new sizes of dimension 1 of input_ids "
                           "itself, where mark_dynamic before the first call cannot reach them.",
                           0),
              0u)
        << remedy;
    EXPECT_NE(remedy.find("(1) torch.compile(..., dynamic=True)"), std::string::npos) << remedy;
    EXPECT_NE(remedy.find("model.forward = torch.compile(model.forward)"), std::string::npos)
        << remedy;
    EXPECT_EQ(remedy.find("mark_dynamic(input_ids"), std::string::npos) << remedy;
    EXPECT_TRUE(shape[0].gain.empty()) << shape[0].gain;

    // Once: dynamic=auto already made it symbolic.
    auto once = run;
    once.recompiles.pop_back();
    shape = withRule(advise(reportOf({once}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].remedy.find("dynamic=auto made the dimension symbolic after this one "
                                   "recompile"),
              std::string::npos)
        << shape[0].remedy;

    // An imported trace says nothing of its calls' inputs: no claim that they
    // stayed the same.
    auto imported = run;
    imported.status = cs::core::RunStatus::Imported;
    shape = withRule(advise(reportOf({imported}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_EQ(shape[0].remedy.find("every call passed the same inputs"), std::string::npos)
        << shape[0].remedy;
    EXPECT_NE(shape[0].remedy.find("mark_dynamic(input_ids, 1"), std::string::npos)
        << shape[0].remedy;

    // With an input sweep the sizes may be the model's own inputs': marking
    // them stays the fix.
    run.logs.push_back({0, "info", "sweep 1/2: inputs (1, 17)", "sweep_inputs", "(1, 17)"});
    shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].remedy.find("mark_dynamic(input_ids, 1"), std::string::npos)
        << shape[0].remedy;
    // torch's own frames are never "the library's".
    run.logs.clear();
    run.graphs[0].file = "/venv/lib/python3.11/site-packages/torch/nn/modules/module.py";
    shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_NE(shape[0].remedy.find("mark_dynamic(input_ids, 1"), std::string::npos)
        << shape[0].remedy;
}

// torchvision's detection post-processing (torch 2.15 on
// fasterrcnn_mobilenet_v3_large_320_fpn): nms, batched_nms and
// remove_small_boxes each recompiled once on the boxes the RPN kept.
TEST(AdviceRecompiles, LibraryFramesRecompilingOnceOnSizesTheLibraryMadeShareOneFinding) {
    auto run = timedRun("default", {}, {});
    run.setting.dynamic = "auto";
    const std::string boxes = "/venv/lib/python3.11/site-packages/torchvision/ops/boxes.py";
    const std::vector<std::tuple<std::string, int, std::string>> frames = {
        {"remove_small_boxes", 129, "boxes"}, {"batched_nms", 57, "idxs"}, {"nms", 20, "boxes"}};
    for (const auto& [function, line, tensor] : frames) {
        cs::core::Graph g;
        g.function = function;
        g.file = boxes;
        g.line = line;
        g.compileId = std::to_string(run.graphs.size()) + "/0";
        run.graphs.push_back(g);
        run.recompiles.push_back({function,
                                  g.compileId.substr(0, g.compileId.find('/')) + "/0: tensor '" +
                                      tensor +
                                      "' size mismatch at index 0. expected 450, actual 600",
                                  2, "", false, 8, "", "compile", 0});
    }
    auto shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 1u);
    EXPECT_EQ(shape[0].severity, Severity::Info);
    EXPECT_EQ(shape[0].title,
              "torchvision's code made new sizes itself: 3 of its functions recompiled once each");
    EXPECT_EQ(shape[0].file, boxes);
    const auto& evidence = shape[0].evidence;
    EXPECT_EQ(evidence.front(), "3 recompiles in default (Compare tab)");
    EXPECT_NE(std::find(evidence.begin(), evidence.end(),
                        "batched_nms (boxes.py:57): dimension 0 of idxs took 2 sizes: 450 and 600"),
              evidence.end())
        << evidence.size();
    EXPECT_NE(shape[0].remedy.find("dynamic=True) would skip these 3 recompiles"),
              std::string::npos)
        << shape[0].remedy;

    // A frame that recompiled twice keeps its own finding; the rest stay together.
    run.recompiles.push_back(
        {"nms", "2/1: tensor 'boxes' size mismatch at index 0. expected 600, actual 700", 3, "",
         false, 8, "", "warmup", 1});
    shape = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(shape.size(), 2u);
    const bool nmsAlone = std::any_of(shape.begin(), shape.end(), [](const auto& f) {
        return f.title.rfind("nms (boxes.py:20) recompiled 2 times", 0) == 0;
    });
    EXPECT_TRUE(nmsAlone);
    const bool pair = std::any_of(shape.begin(), shape.end(), [](const auto& f) {
        return f.title.find("2 of its functions recompiled once each") != std::string::npos;
    });
    EXPECT_TRUE(pair);
}

// A report is user input: a number too long for an int (std::stoi threw on
// it) makes no guard and no line, never an exception.
TEST(AdviceRecompiles, NumbersTooLongToHoldAreNotRead) {
    const std::string huge = "99999999999999999999999";
    EXPECT_FALSE(
        parseShapeGuard("tensor 'x' size mismatch at index " + huge + ". expected 1, actual 2"));
    EXPECT_FALSE(
        parseShapeGuard("tensor 'x' size mismatch at index 0. expected " + huge + ", actual 2"));
    EXPECT_FALSE(parseLengthGuard("0/1: len(self.log) == " + huge));
    const auto none = parseNoneGuard("0/1: self.s is None  # if self.s is None:  # m.py:" + huge +
                                     " in forward\nUser stack trace:\n  File \"/p/m.py\", line " +
                                     huge + ", in forward\n    if self.s is None:");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->line, 0);
    auto run = timedRun("default", {}, {});
    run.recompiles.push_back(
        {"forward", "0/1: self.calls == 7  # self.calls += 1  # m.py:" + huge + " in forward", 2,
         "", false, 8, "", "warmup", 1});
    EXPECT_NO_THROW(advise(reportOf({run}), {}));
}

TEST(AdviceRecompiles, SilentWithoutRecompilesOrOnGuardsItCannotRead) {
    EXPECT_TRUE(advise(reportOf({sweptRun("false", {})}), {}).empty());
    auto run = sweptRun("false", {});
    cs::core::Recompile r;
    r.function = "forward";
    r.reason = "0/0: ___check_obj_id(L['self'].act, 140213)";
    run.recompiles.push_back(r);
    EXPECT_TRUE(advise(reportOf({run}), {}).empty());
}

TEST(AdviceRecompiles, LimitHitWarnsThatTorchFellBackToEager) {
    auto run = sweptRun("false", {{3, 4}, {4, 5}});
    cs::core::Recompile limit;
    limit.function = "forward";
    limit.limitHit = true;
    limit.limit = 8;
    limit.reason = "0/7: tensor 'tokens' size mismatch at index 1. expected 5, actual 6";
    cs::core::Recompile attempt; // the probe also reports the refused recompile, without a function
    attempt.reason = limit.reason;
    run.recompiles.push_back(attempt);
    run.recompiles.push_back(limit);
    const auto findings = advise(reportOf({run}), {});
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].rule, "recompile.shape");
    EXPECT_NE(findings[0].title.find("2 times"), std::string::npos) << findings[0].title;
    EXPECT_EQ(findings[1].rule, "recompile.limit");
    EXPECT_NE(findings[1].title.find("limit (8)"), std::string::npos);
    EXPECT_NE(findings[1].title.find("eagerly"), std::string::npos);
    EXPECT_GE(findings[1].confidence, 0.9);
}

TEST(AdviceRecompiles, RealStaticSweepStream) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    setting.dynamic = "false";
    setting.sweep = true;
    const auto findings = withRule(
        advise(reportOf({fixtureRun("advice_variable_length_static_sweep.jsonl", setting)}), {}),
        "recompile.shape");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].title.find("5 times"), std::string::npos) << findings[0].title;
    EXPECT_EQ(findings[0].line, 30);
    EXPECT_NE(findings[0].evidence[1].find("6 sizes: 16, 32, 48, 64, 96 and 128"),
              std::string::npos);
}

TEST(AdviceRecompiles, RealRecompileLimitStream) {
    cs::core::Setting setting;
    setting.backend = "eager";
    setting.dynamic = "false";
    const auto findings =
        advise(reportOf({fixtureRun("advice_recompile_limit.jsonl", setting)}), {});
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_NE(findings[0].title.find("7 times"), std::string::npos) << findings[0].title;
    EXPECT_EQ(findings[1].rule, "recompile.limit");
}

TEST(AdviceRecompiles, LibraryWrapperIsNamedAsTheModelsForward) {
    // forward under a decorator from site-packages (as transformers wraps a
    // model's forward): torch compiled the wrapper and guarded its args[0].
    cs::core::Setting setting;
    setting.backend = "eager";
    setting.dynamic = "false";
    const cs::core::Run run = fixtureRun("advice_library_wrapper.jsonl", setting);
    ASSERT_EQ(run.recompiles.size(), 2u);
    EXPECT_EQ(run.recompiles[0].limit, 8);
    const auto findings = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_NE(f.title.find("TinyLM.forward"), std::string::npos) << f.title;
    EXPECT_NE(f.title.find("dimension 1 of input_ids"), std::string::npos) << f.title;
    EXPECT_EQ(f.title.find("wrapper"), std::string::npos) << f.title;
    bool saysLibrary = false;
    for (const auto& e : f.evidence)
        saysLibrary = saysLibrary ||
                      e.find("wrapper at fakelib/generic.py:9 (library code)") != std::string::npos;
    EXPECT_TRUE(saysLibrary);
    EXPECT_NE(f.remedy.find("torch._dynamo.mark_dynamic(input_ids, 1"), std::string::npos)
        << f.remedy;
    EXPECT_EQ(f.remedy.find("args["), std::string::npos) << f.remedy;
}

// Mode as-written on a file whose own call compiles only a submodule's
// library-wrapped forward (model.lm.forward = torch.compile(...)), fed a
// prefix then one token (recorded): "compile only the model's own forward"
// is what the file does already, so the remedy starts from that call.
TEST(AdviceRecompiles, AForwardCompiledAloneIsNotToldToCompileTheForwardAlone) {
    cs::core::Setting setting;
    setting.mode = cs::core::kAsWritten;
    const cs::core::Run run = fixtureRun("advice_wrapped_submodule_compiled.jsonl", setting);
    ASSERT_EQ(run.recompiles.size(), 1u);
    ASSERT_EQ(run.model.ownCompiles.size(), 1u);
    Report report = reportOf({run});
    report.model = run.model;
    const auto findings = withRule(advise(report, {}), "recompile.shape");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_EQ(f.remedy.find("compile only the model's own forward"), std::string::npos) << f.remedy;
    EXPECT_NE(f.remedy.find("Your file's own call, model.lm.forward = "
                            "torch.compile(model.lm.forward"),
              std::string::npos)
        << f.remedy;
    // Not decoding with generate: the one lever, not a choice of one.
    EXPECT_NE(f.remedy.find("Pass dynamic=True in that call"), std::string::npos) << f.remedy;
    EXPECT_EQ(f.remedy.find("Choose one"), std::string::npos) << f.remedy;
    EXPECT_TRUE(hasLine(f.evidence, "compiled with dynamic=False")); // the call's, not auto's
    // Under another setting the file's call was undone: compiling the forward alone is news.
    setting.mode = "default";
    setting.dynamic = "false";
    Report undone = reportOf({fixtureRun("advice_wrapped_submodule_compiled.jsonl", setting)});
    undone.model = run.model;
    const auto others = withRule(advise(undone, {}), "recompile.shape");
    ASSERT_EQ(others.size(), 1u);
    EXPECT_NE(others.front().remedy.find("compile only the model's own forward"), std::string::npos)
        << others.front().remedy;
}

// A library-wrapped forward compiled alone and called first with two keyword
// arguments, then one (recorded, as generate() calls a model for the prompt
// and then per token): torch guards on len(kwargs), which is how many
// arguments the caller passed, not a list that "grew on every call".
TEST(AdviceRecompiles, AnotherNumberOfKeywordArgumentsIsNotAGrowingList) {
    cs::core::Setting setting;
    setting.mode = cs::core::kAsWritten;
    setting.backend = "eager";
    const cs::core::Run run = fixtureRun("advice_keyword_steps.jsonl", setting);
    ASSERT_EQ(run.recompiles.size(), 1u);
    Report report = reportOf({run});
    report.model = run.model;
    const auto findings = withRule(advise(report, {}), "recompile.growing_list");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_NE(f.title.find("because it was called with another number of keyword arguments "
                           "(kwargs)"),
              std::string::npos)
        << f.title;
    EXPECT_EQ(f.title.find("grew"), std::string::npos) << f.title;
    EXPECT_EQ(f.severity, Severity::Info);
    EXPECT_NE(f.remedy.find("wrapper is code in fakelib, and its callers passed it another "
                            "number of keyword arguments"),
              std::string::npos)
        << f.remedy;
    EXPECT_EQ(f.remedy.find("@torch.compiler.disable"), std::string::npos) << f.remedy;
    EXPECT_TRUE(f.gain.empty()) << f.gain;
    EXPECT_TRUE(hasLine(f.evidence, "compiled for 2 items: a call found another length"));
}

// The file object open() made is on the stack at the break of the line that
// writes it (recorded): the frame after the break guards that object, each
// call frees it, and torch compiles again on every call. Before, only the
// limit said anything, with no cause.
TEST(AdviceRecompiles, AnObjectEachCallFreesIsTheCauseWithTheBreakItCrossed) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    const cs::core::Run run = fixtureRun("advice_file_writer.jsonl", setting);
    ASSERT_GE(run.recompiles.size(), 7u);
    const auto findings = withRule(advise(reportOf({run}), {}), "recompile.freed_object");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_EQ(f.title.find("forward (after the break at line 20) (file_writer.py:20) recompiled "),
              0u)
        << f.title;
    EXPECT_NE(f.title.find(" times because each call freed an object its guards held "
                           "(L['___stack0'])"),
              std::string::npos)
        << f.title;
    EXPECT_TRUE(hasLine(f.evidence, "the break it resumes after: file_writer.py:20 "
                                    "`open(os.devnull, \"a\").write("))
        << ::testing::PrintToString(f.evidence);
    EXPECT_NE(f.remedy.find("a value Dynamo carried across the graph break at line 20"),
              std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("torch.compiler.is_compiling()"), std::string::npos) << f.remedy;
}

TEST(InputShapes, ReadsTheRecompilesInputsAndTheModelsNamedInputs) {
    const auto sizes = parseInputShapes("[2, 17], int, [3], [s0, 4], []");
    ASSERT_EQ(sizes.size(), 5u);
    EXPECT_EQ(sizes[0], (std::vector<int64_t>{2, 17}));
    EXPECT_FALSE(sizes[1].has_value());
    EXPECT_EQ(sizes[2], (std::vector<int64_t>{3}));
    EXPECT_FALSE(sizes[3].has_value()); // symbolic: no size to compare
    EXPECT_EQ(sizes[4], (std::vector<int64_t>{}));
    EXPECT_TRUE(parseInputShapes("").empty());

    const auto model = parseModelInputs({"input_ids: int64[2, 32]", "float32[8]", "flag: bool"});
    EXPECT_EQ(model.names, (std::vector<std::string>{"input_ids", "", "flag"}));
    ASSERT_EQ(model.sizes.size(), 3u);
    EXPECT_EQ(model.sizes[0], (std::vector<int64_t>{2, 32}));
    EXPECT_EQ(model.sizes[1], (std::vector<int64_t>{8}));
    EXPECT_FALSE(model.sizes[2].has_value());
}

// A model called with token ids and their attention mask (a Hugging Face
// encoder): both change length in every call, the guard names only the first.
cs::core::Run maskedRun(const std::string& dynamic, const std::vector<int>& lengths) {
    cs::core::Run run = timedRun("default", {}, {});
    run.setting.dynamic = dynamic;
    run.model.inputs = {"input_ids: int64[2, " + std::to_string(lengths.front()) + "]",
                        "attention_mask: int64[2, " + std::to_string(lengths.front()) + "]",
                        "scale: float32[4]"};
    for (size_t i = 1; i < lengths.size(); ++i) {
        cs::core::Recompile r;
        r.function = "BertModel.forward";
        r.reason = "0/" + std::to_string(i - 1) +
                   ": tensor 'input_ids' size mismatch at index 1. " + "expected " +
                   std::to_string(lengths[i - 1]) + ", actual " + std::to_string(lengths[i]);
        const std::string n = std::to_string(lengths[i]);
        r.inputShapes = "[2, " + n + "], [2, " + n + "], [4]";
        run.recompiles.push_back(r);
    }
    return run;
}

TEST(AdviceRecompiles, InputsThatChangeTogetherAreMarkedTogether) {
    // Marking input_ids alone fails on such a model with "Constraints violated"
    // (tried on BertModel under torch 2.15): the fix must name the mask too.
    const auto findings =
        withRule(advise(reportOf({maskedRun("false", {32, 17, 40, 64})}), {}), "recompile.shape");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_NE(f.title.find("dimension 1 of input_ids"), std::string::npos) << f.title;
    EXPECT_NE(f.remedy.find("mark_dynamic(input_ids, 1, min=17, max=64) and "
                            "torch._dynamo.mark_dynamic(attention_mask, 1, min=17, max=64)"),
              std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("Constraints violated"), std::string::npos) << f.remedy;
    EXPECT_NE(f.remedy.find("pad dimension 1 of input_ids and attention_mask"), std::string::npos)
        << f.remedy;
    EXPECT_TRUE(hasLine(f.evidence, "dimension 1 of attention_mask took the same size as "
                                    "dimension 1 of input_ids"));
    // The constant input and the constant batch dimension are not companions.
    EXPECT_EQ(f.remedy.find("scale"), std::string::npos) << f.remedy;
    EXPECT_EQ(f.remedy.find(", 0"), std::string::npos) << f.remedy;
    EXPECT_FALSE(f.gain.empty());

    const auto once =
        withRule(advise(reportOf({maskedRun("auto", {32, 17})}), {}), "recompile.shape");
    ASSERT_EQ(once.size(), 1u);
    EXPECT_NE(once[0].remedy.find("torch._dynamo.mark_dynamic(input_ids, 1) and "
                                  "torch._dynamo.mark_dynamic(attention_mask, 1)"),
              std::string::npos)
        << once[0].remedy;
}

// A causal LM called by keyword with a batch of 1 first, then 4, and a
// longer prompt (a 2-layer Qwen2 over 1x20, 4x20, 1x33 and 4x48): the batch
// dimension of both inputs keeps size 1 apart under dynamic=True, so both
// are marked unbacked, and with the length changing too, under dynamic=True.
TEST(AdviceRecompiles, SizeOneOfInputsThatChangeTogetherIsUnbackedInBoth) {
    const auto lmRun = [](const std::string& dynamic) {
        cs::core::Run run = timedRun("default", {}, {});
        run.setting.dynamic = dynamic;
        run.model.inputs = {"input_ids: int64[1, 20]", "attention_mask: int64[1, 20]"};
        cs::core::Recompile batch;
        batch.function = "Qwen2ForCausalLM.forward";
        batch.reason = "0/0: tensor 'input_ids' size mismatch at index 0. expected 1, actual 4";
        batch.inputShapes = "[4, 20], [4, 20]";
        run.recompiles.push_back(batch);
        if (dynamic == "auto") {
            cs::core::Recompile length = batch;
            length.reason =
                "0/1: tensor 'input_ids' size mismatch at index 1. expected 20, actual 33";
            length.inputShapes = "[1, 33], [1, 33]";
            run.recompiles.push_back(length);
        }
        return run;
    };
    for (const char* dynamic : {"true", "auto"}) {
        const auto findings = withRule(advise(reportOf({lmRun(dynamic)}), {}), "recompile.shape");
        ASSERT_EQ(findings.size(), 1u) << dynamic;
        const Finding& f = findings.front();
        EXPECT_NE(f.remedy.find("unbacked on the first call's inputs: "
                                "torch._dynamo.decorators.mark_unbacked(input_ids, 0) and "
                                "torch._dynamo.decorators.mark_unbacked(attention_mask, 0)"),
                  std::string::npos)
            << f.remedy;
        EXPECT_EQ(f.remedy.find("one graph for every size"), std::string::npos) << f.remedy;
        const bool otherDims = std::string(dynamic) == "auto";
        EXPECT_EQ(f.gain, otherDims ? "one compile of Qwen2ForCausalLM.forward instead of 3 with "
                                      "dynamic=True and mark_unbacked"
                                    : "one compile of Qwen2ForCausalLM.forward instead of 2 with "
                                      "mark_unbacked");
        EXPECT_EQ(f.remedy.find("For one graph, compile with dynamic=True and mark it and the "
                                "dimensions that change with it unbacked") != std::string::npos,
                  otherDims)
            << f.remedy;
    }
}

TEST(AdviceRecompiles, RealStreamOfTwoPositionalInputsChangingTogether) {
    // The probe names positional inputs by the forward's parameters; torch
    // guarded the mask, so the token ids are the companion here.
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    setting.dynamic = "false";
    setting.sweep = true;
    const cs::core::Run run = fixtureRun("advice_masked_tokens_static_sweep.jsonl", setting);
    EXPECT_EQ(run.model.inputs,
              (std::vector<std::string>{"tokens: int64[2, 12]", "mask: float32[2, 12]"}));
    const auto findings = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_NE(f.title.find("3 times"), std::string::npos) << f.title;
    EXPECT_NE(f.remedy.find("mark_dynamic(mask, 1, min=7, max=33) and "
                            "torch._dynamo.mark_dynamic(tokens, 1, min=7, max=33)"),
              std::string::npos)
        << f.remedy;
    EXPECT_TRUE(hasLine(f.evidence, "dimension 1 of tokens took the same size"));
}

TEST(AdviceRecompiles, AnInputThatOnceMatchedIsNoCompanion) {
    auto run = maskedRun("false", {32, 17, 40});
    // The mask kept its length at the last recompile: it did not change with the ids.
    run.recompiles.back().inputShapes = "[2, 40], [2, 17], [4]";
    const auto findings = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].remedy.find("attention_mask"), std::string::npos) << findings[0].remedy;
    EXPECT_FALSE(hasLine(findings[0].evidence, "change together"));
    // Without the model's input names (an older report) nothing is inferred.
    auto unnamed = maskedRun("false", {32, 17, 40});
    unnamed.model.inputs = {"int64[2, 32]", "int64[2, 32]", "float32[4]"};
    const auto plain = withRule(advise(reportOf({unnamed}), {}), "recompile.shape");
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_EQ(plain[0].remedy.find(" and torch._dynamo"), std::string::npos) << plain[0].remedy;
}

TEST(ValueGuards, ReadTheNameTheValueAndTorchsHint) {
    auto g = parseValueGuard(
        "0/7: self.calls == 7                # self.calls += 1  # m.py:10 in forward (HINT: "
        "torch.compile considers integer attributes of the nn.Module to be static.)\nUser stack");
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->name, "self.calls");
    EXPECT_EQ(g->value, "7");
    EXPECT_EQ(g->hint, "torch.compile considers integer attributes of the nn.Module to be static.");
    g = parseValueGuard("0/1: L['scale'] == 0.5");
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->name, "L['scale']");
    EXPECT_EQ(g->value, "0.5");
    EXPECT_TRUE(g->hint.empty());
    g = parseValueGuard("0/0: task == 'cls'      # return self._modules[key]  # "
                        "nn/modules/container.py:561 in __getitem__");
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->name, "task");
    EXPECT_EQ(g->value, "'cls'");
    g = parseValueGuard("0/0: L['self']._modules['blocks']._modules['0'].drop.training == False");
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->name, "self.blocks[0].drop.training");
    EXPECT_EQ(g->value, "False");
    EXPECT_FALSE(parseValueGuard("0/0: tensor 'x' size mismatch at index 1. expected 8, actual 4"));
    EXPECT_FALSE(parseValueGuard("0/0: len(L['xs']) == 3"));
    EXPECT_FALSE(parseValueGuard("0/0: ___check_obj_id(L['self'], 1234)"));
}

// A module counting its calls in an int attribute (recorded): every call
// recompiled until the limit; the limit event names no function of its own.
TEST(AdviceRecompiles, RealStreamOfAnIntAttributeThatChangesEveryCall) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    const cs::core::Run run = fixtureRun("advice_value_recompiles.jsonl", setting);
    const auto findings = advise(reportOf({run}), {});
    const auto value = withRule(findings, "recompile.value");
    ASSERT_EQ(value.size(), 1u);
    EXPECT_NE(value[0].title.find("recompiled 7 times because self.calls changed"),
              std::string::npos)
        << value[0].title;
    EXPECT_TRUE(hasLine(value[0].evidence, "self.calls took 8 values: 0, 1, 2, 3, 4, … 7"))
        << ::testing::PrintToString(value[0].evidence);
    EXPECT_NE(value[0].remedy.find("register_buffer"), std::string::npos) << value[0].remedy;
    EXPECT_NE(value[0].remedy.find("torch's hint: torch.compile considers integer attributes"),
              std::string::npos)
        << value[0].remedy;
    const auto limit = withRule(findings, "recompile.limit");
    ASSERT_EQ(limit.size(), 1u);
    EXPECT_NE(limit[0].title.find("forward"), std::string::npos) << limit[0].title;
    EXPECT_TRUE(hasLine(limit[0].evidence, "after 7 recompiles"))
        << ::testing::PrintToString(limit[0].evidence);
    EXPECT_NE(limit[0].remedy.find("register_buffer"), std::string::npos) << limit[0].remedy;
    // The guard's own line, without the user stack torch appends below it.
    EXPECT_TRUE(hasLine(limit[0].evidence, "last failed guard: 0/7: self.calls == 7 # self.calls"))
        << ::testing::PrintToString(limit[0].evidence);
    EXPECT_FALSE(hasLine(limit[0].evidence, "User stack"));
    // The comparison's note names the function too.
    bool named = false;
    for (const auto& note : cs::core::whatTorchDid(run))
        named = named || note.find("recompile limit (8) in forward") != std::string::npos;
    EXPECT_TRUE(named);
}

// A step passed as an int that the sweep changes (recorded, torch 2.15): one
// recompile, after which the step is a SymInt input later steps reuse, so
// "every new value compiles another graph" would be wrong.
TEST(AdviceRecompiles, RealStreamOfAnIntArgumentThatBecameASymbol) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    const cs::core::Run run = fixtureRun("advice_step_argument_sweep.jsonl", setting);
    const auto value = withRule(advise(reportOf({run}), {}), "recompile.value");
    ASSERT_EQ(value.size(), 1u);
    EXPECT_EQ(value[0].severity, Severity::Info);
    EXPECT_NE(value[0].title.find("recompiled 1 time because step changed"), std::string::npos)
        << value[0].title;
    EXPECT_TRUE(hasLine(value[0].evidence, "the first graph took step as the constant 0; the "
                                           "graph compiled when it changed takes it as a symbol"))
        << ::testing::PrintToString(value[0].evidence);
    EXPECT_FALSE(hasLine(value[0].evidence, "compiled another graph"));
    EXPECT_NE(value[0].remedy.find("compile with dynamic=True"), std::string::npos)
        << value[0].remedy;
    EXPECT_EQ(value[0].remedy.find("every new value compiles another graph"), std::string::npos)
        << value[0].remedy;

    // The same guard with no symbolic graph after it: every value compiles.
    cs::core::Run specialised = run;
    for (auto& graph : specialised.graphs)
        for (auto& node : graph.nodes)
            if (node.target == "L_step_")
                node.dtype = "int";
    const auto constant = withRule(advise(reportOf({specialised}), {}), "recompile.value");
    ASSERT_EQ(constant.size(), 1u);
    EXPECT_EQ(constant[0].severity, Severity::Warning);
    EXPECT_NE(constant[0].remedy.find("every new value compiles another graph"), std::string::npos);
}

} // namespace
