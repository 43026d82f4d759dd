#include <gtest/gtest.h>

#include <algorithm>

#include "core/runner/probe_command.h"

using namespace cs::core;

TEST(ProbeCommand, ArgumentsAreAListNotAShellString) {
    Setting s;
    s.mode = "max-autotune";
    s.fullgraph = true;
    ProbeOptions options;
    options.python = "/venv/bin/python";
    options.probeRoot = "/opt/cs/probe";
    options.cupti = false;
    auto launch = buildProbeLaunch("/models/my model's \"file\".py", s, options);
    EXPECT_EQ(launch.program, "/venv/bin/python");
    auto& a = launch.arguments;
    auto model = std::find(a.begin(), a.end(), "--model");
    ASSERT_NE(model, a.end());
    EXPECT_EQ(*(model + 1), "/models/my model's \"file\".py");
    EXPECT_NE(std::find(a.begin(), a.end(), "--fullgraph"), a.end());
    EXPECT_NE(std::find(a.begin(), a.end(), "--no-cupti"), a.end());
    EXPECT_EQ(launch.environment[0].first, "PYTHONPATH");
    EXPECT_EQ(launch.environment[0].second, "/opt/cs/probe");
}

TEST(ProbeCommand, TheCollectorAndTheAotiRunnerGoInTheEnvironmentWhenKnown) {
    ProbeOptions options;
    options.python = "python3";
    options.probeRoot = "/opt/cs/probe";
    auto has = [](const ProbeLaunch& launch, const std::string& key) {
        return std::any_of(launch.environment.begin(), launch.environment.end(),
                           [&](const auto& kv) { return kv.first == key; });
    };
    auto launch = buildProbeLaunch("m.py", Setting{}, options);
    EXPECT_FALSE(has(launch, "COMPILESCOPE_AOTI_RUNNER"));
    EXPECT_FALSE(has(launch, "COMPILESCOPE_CUPTI_LIB"));
    options.aotiRunner = "/opt/cs/lib/compilescope/compilescope-aoti-runner";
    options.cuptiLibrary = "/opt/cs/lib/compilescope/libcompilescope_cupti.so";
    launch = buildProbeLaunch("m.py", Setting{}, options);
    const auto runner =
        std::find_if(launch.environment.begin(), launch.environment.end(),
                     [](const auto& kv) { return kv.first == "COMPILESCOPE_AOTI_RUNNER"; });
    ASSERT_NE(runner, launch.environment.end());
    EXPECT_EQ(runner->second, options.aotiRunner);
    EXPECT_TRUE(has(launch, "COMPILESCOPE_CUPTI_LIB"));
}

TEST(ProbeCommand, ParseSettingsList) {
    std::vector<Setting> out;
    Setting base;
    base.iters = 7;
    EXPECT_FALSE(parseSettingsList("eager, default,max-autotune/aot_eager", base, out));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].mode, "eager");
    EXPECT_EQ(out[2].mode, "max-autotune");
    EXPECT_EQ(out[2].backend, "aot_eager");
    EXPECT_EQ(out[2].iters, 7);
    auto problem = parseSettingsList("eager,fastest", base, out);
    ASSERT_TRUE(problem);
    EXPECT_NE(problem->find("fastest"), std::string::npos);
    EXPECT_TRUE(parseSettingsList("", base, out));
    base.warmup = 0;
    EXPECT_TRUE(parseSettingsList("eager", base, out));
}

// One list may hold a mode twice when its options set the two apart.
TEST(ProbeCommand, ASettingCarriesItsOwnOptions) {
    std::vector<Setting> out;
    Setting base;
    base.iters = 7;
    EXPECT_FALSE(parseSettingsList(
        "eager,default,default:dynamic=true,max-autotune/aot_eager:dynamic=false:fullgraph=true:"
        "autocast=bf16",
        base, out));
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[1].label(), "default");
    EXPECT_EQ(out[2].label(), "default dyn");
    EXPECT_EQ(out[2].iters, 7);
    EXPECT_EQ(out[3].label(), "max-autotune/aot_eager static fullgraph bf16");
    // eager under autocast: what bf16 alone buys, beside bf16 compiled
    EXPECT_FALSE(parseSettingsList("eager,eager:autocast=bf16,default:autocast=bf16", base, out));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[1].label(), "eager bf16");
    EXPECT_EQ(out[1].autocast, "bf16");
    EXPECT_EQ(out[0].autocast, "none");
    const std::pair<const char*, const char*> bad[] = {
        {"default:dynamic=maybe", "unknown dynamic \"maybe\""},
        {"default:speed=2", "unknown option \"speed\""},
        {"default:dynamic", "needs a value"},
        {"default:fullgraph=yes", "fullgraph takes true or false"},
        {"eager:dynamic=true", "eager takes only autocast= and env=NAME=VALUE"},
        {"eager:autocast=fp8", "unknown autocast \"fp8\""},
        {"default:env=1X=2", "not a variable name"},
        {"default:env=MALLOC", "not NAME=VALUE"},
        {"default:env=PYTHONPATH=/x", "set by compilescope"},
        {"default:env=TORCHINDUCTOR_CACHE_DIR=/x", "fresh cache"},
        {"default,eager,default", "listed twice"},
        {"default:dynamic=true,default:dynamic=true", "listed twice (as default dyn)"},
    };
    for (const auto& [text, why] : bad) {
        const auto problem = parseSettingsList(text, base, out);
        ASSERT_TRUE(problem) << text;
        EXPECT_NE(problem->find(why), std::string::npos) << text << ": " << *problem;
    }
}

TEST(ProbeCommand, AutocastVariantsRunEachSettingWithoutAndWith) {
    Setting eager;
    eager.mode = "eager";
    Setting compiled;
    compiled.dynamic = "true";
    Setting aoti;
    aoti.mode = "aoti";
    std::vector<std::string> labels;
    for (const auto& s : autocastVariants({eager, compiled, aoti}, "fp16"))
        labels.push_back(s.label());
    EXPECT_EQ(labels, (std::vector<std::string>{"eager", "eager fp16", "default dyn",
                                                "default dyn fp16", "aoti"}));
}

// A setting's own variables: in its label (tables tell the two apart), in its
// probe's environment after the session's, so the setting's win.
TEST(ProbeCommand, ASettingAndTheSessionSetVariablesInTheProbe) {
    std::vector<Setting> out;
    ASSERT_FALSE(parseSettingsList(
        "eager,eager:env=MALLOC_MMAP_THRESHOLD_=33554432:env=MALLOC_TRIM_THRESHOLD_=1073741824,"
        "default:env=TORCHINDUCTOR_FREEZING=1:dynamic=false",
        Setting{}, out));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].label(), "eager");
    EXPECT_EQ(out[1].label(),
              "eager MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824");
    EXPECT_EQ(out[2].label(), "default static TORCHINDUCTOR_FREEZING=1");

    ProbeOptions options;
    options.python = "python3";
    options.probeRoot = "/opt/cs/probe";
    ASSERT_FALSE(addEnvironmentAssignment("TORCHINDUCTOR_FREEZING=0", options.environment));
    ASSERT_FALSE(addEnvironmentAssignment("OMP_PROC_BIND=close", options.environment));
    ASSERT_FALSE(addEnvironmentAssignment("EMPTY=", options.environment)); // an empty value is one
    const auto env = buildProbeLaunch("m.py", out[2], options).environment;
    auto last = [&](const std::string& name) {
        std::string value = "(unset)";
        for (const auto& [k, v] : env)
            if (k == name)
                value = v; // applied in order: the last wins
        return value;
    };
    EXPECT_EQ(last("TORCHINDUCTOR_FREEZING"), "1");
    EXPECT_EQ(last("OMP_PROC_BIND"), "close");
    EXPECT_EQ(last("EMPTY"), "");
    EXPECT_EQ(last("PYTHONPATH"), "/opt/cs/probe");
    EXPECT_EQ(last("MALLOC_TRIM_THRESHOLD_"), "(unset)");
    // --env takes any value as it is.
    ASSERT_FALSE(addEnvironmentAssignment("LD_PRELOAD=/a b/lib.so:/c.so", options.environment));
    EXPECT_EQ(options.environment.at("LD_PRELOAD"), "/a b/lib.so:/c.so");
    for (const char* bad : {"=1", "A-B=1", "COMPILESCOPE_CUPTI_LIB=x", "TORCH_TRACE=/t"})
        EXPECT_TRUE(addEnvironmentAssignment(bad, options.environment)) << bad;
}

// PYTORCH_CUDA_ALLOC_CONF holds colons and commas: a setting's own value in
// double quotes keeps them, and its label quotes it the same way back.
TEST(ProbeCommand, AQuotedValueHoldsTheListsSeparators) {
    std::vector<Setting> out;
    ASSERT_FALSE(
        parseSettingsList("default,default:env=PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True,"
                          "max_split_size_mb:128\":dynamic=true,eager:env=LD_PRELOAD=\"/a b/j.so\"",
                          Setting{}, out));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[1].environment.at("PYTORCH_CUDA_ALLOC_CONF"),
              "expandable_segments:True,max_split_size_mb:128");
    EXPECT_EQ(out[1].dynamic, "true");
    EXPECT_EQ(
        out[1].label(),
        "default dyn PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True,max_split_size_mb:128\"");
    EXPECT_EQ(out[2].environment.at("LD_PRELOAD"), "/a b/j.so");
    EXPECT_EQ(out[2].label(), "eager LD_PRELOAD=\"/a b/j.so\"");

    // The label reads back as the same setting.
    std::vector<Setting> again;
    std::string label = out[1].label();
    label.replace(0, std::string("default dyn ").size(), "default:dynamic=true:env=");
    ASSERT_FALSE(parseSettingsList(label, Setting{}, again)) << label;
    EXPECT_EQ(again.at(0), out[1]);

    const auto problem = parseSettingsList("default:env=A=\"x:y,eager", Setting{}, out);
    ASSERT_TRUE(problem);
    EXPECT_NE(problem->find("is not closed"), std::string::npos) << *problem;
}

TEST(ProbeCommand, DynamicVariantsTripleEachCompiledMode) {
    Setting eager, compiled, aoti;
    eager.mode = "eager";
    compiled.mode = "max-autotune";
    compiled.fullgraph = true;
    aoti.mode = "aoti";
    const auto out = dynamicVariants({eager, compiled, aoti});
    std::vector<std::string> labels;
    for (const auto& s : out)
        labels.push_back(s.label());
    EXPECT_EQ(labels, (std::vector<std::string>{"eager", "max-autotune fullgraph",
                                                "max-autotune dyn fullgraph",
                                                "max-autotune static fullgraph", "aoti"}));
}

TEST(ProbeCommand, LabelsDistinguishSettings) {
    Setting a, b;
    b.backend = "aot_eager";
    b.dynamic = "true";
    EXPECT_EQ(a.label(), "default");
    EXPECT_EQ(b.label(), "default/aot_eager dyn");
    Setting e;
    e.mode = "eager";
    e.backend = "aot_eager";
    EXPECT_EQ(e.label(), "eager");
}

TEST(ProbeCommand, TorchTraceDirectoryOnlyWhenAsked) {
    Setting s;
    ProbeOptions options;
    options.python = "/venv/bin/python";
    options.probeRoot = "/opt/cs/probe";
    auto without = buildProbeLaunch("m.py", s, options).arguments;
    EXPECT_EQ(std::find(without.begin(), without.end(), "--torch-trace"), without.end());

    options.torchTraceDir = "/home/me/traces with space";
    auto a = buildProbeLaunch("m.py", s, options).arguments;
    auto flag = std::find(a.begin(), a.end(), "--torch-trace");
    ASSERT_NE(flag, a.end());
    ASSERT_NE(flag + 1, a.end());
    EXPECT_EQ(*(flag + 1), "/home/me/traces with space");
}

TEST(ProbeCommand, NoCodeAndTheProfileWindowOnlyWhenAsked) {
    ProbeOptions options;
    options.python = "python3";
    const auto plain = buildProbeLaunch("m.py", Setting{}, options).arguments;
    EXPECT_EQ(std::find(plain.begin(), plain.end(), "--no-code"), plain.end());
    EXPECT_EQ(std::find(plain.begin(), plain.end(), "--profile-calls"), plain.end());
    options.keepCode = false;
    options.profileCalls = 0;
    const auto a = buildProbeLaunch("m.py", Setting{}, options).arguments;
    EXPECT_NE(std::find(a.begin(), a.end(), "--no-code"), a.end());
    const auto calls = std::find(a.begin(), a.end(), "--profile-calls");
    ASSERT_NE(calls, a.end());
    EXPECT_EQ(*(calls + 1), "0");
}
