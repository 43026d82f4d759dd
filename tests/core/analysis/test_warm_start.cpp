#include <gtest/gtest.h>

#include "core/advice/advice.h"
#include "core/analysis/warm_start.h"
#include "core/html/report_html.h"

using namespace cs::core;

namespace {

Run measured(const std::string& mode, const char* start, int64_t firstCallNs) {
    Run run;
    run.setting.mode = mode;
    run.setting.start = start;
    run.status = RunStatus::Ok;
    run.sawHello = run.sawDone = true;
    run.firstCallNs = firstCallNs;
    run.compilePhases = {{"dynamo_tracing", 1e-3}, {"other", 1e-3}};
    for (int i = 0; i < 10; ++i)
        run.iterations.push_back({i, 1000 + i, 1000 + i, 0, i < 2, i == 0});
    return run;
}

// Eager, default three ways, and an aoti run built as the aoti mode reports it:
// phases export, package, load, first_call; its first call is load + first call.
Report threeStarts() {
    Report report;
    report.runs.push_back(measured("eager", kStartFresh, 2'000'000));
    report.runs.push_back(measured("default", kStartFresh, 9'000'000'000));
    report.runs.push_back(measured("default", kStartWarmCache, 1'500'000'000));
    Run artifacts = measured("default", kStartCacheArtifacts, 3'000'000'000);
    artifacts.compilePhases.insert(artifacts.compilePhases.begin(), {"load_cache_artifacts", 0.25});
    artifacts.cacheArtifacts =
        CacheArtifacts{"load", "/tmp/a.bin", 180'000, 250'000'000, {{"inductor", 1}}, ""};
    report.runs.push_back(artifacts);
    Run aoti = measured("aoti", kStartFresh, 40'000'000);
    aoti.compilePhases = {
        {"export", 2.0}, {"package", 30.0}, {"load", 0.035}, {"first_call", 0.005}};
    report.runs.push_back(aoti);
    return report;
}

} // namespace

TEST(WarmStart, OneRowPerSettingWithEachStartInItsColumn) {
    const Report report = threeStarts();
    EXPECT_TRUE(hasWarmStarts(report));
    const auto rows = warmStartTable(report);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].label, "eager");
    EXPECT_EQ(rows[1].label, "default");
    EXPECT_EQ(rows[2].label, "aoti");

    const WarmStartRow& d = rows[1];
    EXPECT_EQ(d.fresh.firstCallNs, 9'000'000'000);
    EXPECT_EQ(d.fresh.run, 1u);
    EXPECT_EQ(d.warmCache.firstCallNs, 1'500'000'000);
    EXPECT_EQ(d.warmCache.run, 2u);
    EXPECT_EQ(d.artifacts.firstCallNs, 3'000'000'000);
    EXPECT_EQ(d.artifactsLoadNs, 250'000'000);
    EXPECT_EQ(d.artifactsBytes, 180'000);
    ASSERT_TRUE(d.warmCache.speedupOverFresh);
    EXPECT_DOUBLE_EQ(*d.warmCache.speedupOverFresh, 6.0);
    ASSERT_TRUE(d.artifacts.speedupOverFresh);
    EXPECT_DOUBLE_EQ(*d.artifacts.speedupOverFresh, 3.0);
    EXPECT_FALSE(d.fresh.speedupOverFresh);
    ASSERT_TRUE(d.medianNs);
    EXPECT_EQ(d.packageLoadNs, -1);

    // aoti: package load + first call, its load alone beside it; no cache to warm.
    const WarmStartRow& a = rows[2];
    EXPECT_EQ(a.fresh.firstCallNs, 40'000'000);
    EXPECT_EQ(a.packageLoadNs, 35'000'000);
    EXPECT_EQ(a.warmCache.firstCallNs, -1);
    EXPECT_NE(a.warmCache.why.find("ahead of time"), std::string::npos);
    EXPECT_EQ(a.artifacts.firstCallNs, -1);

    // Eager: blank with why, never zero.
    EXPECT_EQ(rows[0].warmCache.firstCallNs, -1);
    EXPECT_NE(rows[0].warmCache.why.find("eager compiles nothing"), std::string::npos);
    EXPECT_EQ(coldStartText(rows[0].artifacts).rfind("— (", 0), 0u);
}

TEST(WarmStart, MissingAndFailedStartsAreBlankWithWhy) {
    Report report = threeStarts();
    report.runs[3].status = RunStatus::Failed;
    report.runs[3].firstCallNs = -1;
    report.runs[3].error = ErrorInfo{"cache_artifacts",
                                     "Cannot read the cache artifacts file "
                                     "/tmp/a.bin: No such file",
                                     ""};
    report.runs.erase(report.runs.begin() + 2); // no warm-cache run
    const auto rows = warmStartTable(report);
    const WarmStartRow& d = rows[1];
    EXPECT_EQ(d.warmCache.firstCallNs, -1);
    EXPECT_FALSE(d.warmCache.run);
    EXPECT_NE(d.warmCache.why.find("not measured"), std::string::npos);
    EXPECT_EQ(d.artifacts.firstCallNs, -1);
    EXPECT_NE(d.artifacts.why.find("failed: Cannot read the cache artifacts file"),
              std::string::npos)
        << d.artifacts.why;
    EXPECT_FALSE(d.artifacts.speedupOverFresh);
    const std::string text = warmStartText(report);
    EXPECT_NE(text.find("default, artifacts: failed"), std::string::npos) << text;
}

TEST(WarmStart, AFreshOnlyReportHasNoTable) {
    Report report;
    report.runs.push_back(measured("eager", kStartFresh, 1000));
    report.runs.push_back(measured("default", kStartFresh, 1000));
    EXPECT_FALSE(hasWarmStarts(report));
    EXPECT_EQ(writeReportHtml(report).find("id=\"warm-starts\""), std::string::npos);
}

TEST(WarmStart, SettingsExpandIntoThreeStartsEagerAndAotiOnce) {
    Setting eager, compiled, aoti;
    eager.mode = "eager";
    compiled.mode = "max-autotune";
    compiled.start = kStartWarmCache; // replaced: warmstart measures every start itself
    aoti.mode = "aoti";
    const auto out = warmStartSettings({eager, compiled, aoti});
    ASSERT_EQ(out.size(), 5u);
    EXPECT_EQ(out[0].start, kStartFresh);
    EXPECT_EQ(out[1].mode, "max-autotune");
    EXPECT_EQ(out[1].start, kStartFresh);
    EXPECT_EQ(out[2].start, kStartWarmCache);
    EXPECT_EQ(out[3].start, kStartCacheArtifacts);
    EXPECT_EQ(out[4].mode, "aoti");
    EXPECT_EQ(out[4].start, kStartFresh);
    EXPECT_EQ(out[3].label(), "max-autotune artifacts");
}

TEST(WarmStart, HtmlSectionShowsTheTableEscaped) {
    Report report = threeStarts();
    report.runs[3].status = RunStatus::Failed;
    report.runs[3].firstCallNs = -1;
    report.runs[3].error = ErrorInfo{"cache_artifacts", "file <b>x</b> & \"y\"", ""};
    const std::string page = writeReportHtml(report);
    const auto at = page.find("id=\"warm-starts\"");
    ASSERT_NE(at, std::string::npos);
    EXPECT_NE(page.find("href=\"#warm-starts\""), std::string::npos);
    const std::string section = page.substr(at, page.find("</section>", at) - at);
    EXPECT_NE(section.find("6.00×"), std::string::npos) << section;
    EXPECT_NE(section.find("file &lt;b&gt;x&lt;/b&gt; &amp; &quot;y&quot;"), std::string::npos)
        << section;
    EXPECT_EQ(section.find("<b>x</b>"), std::string::npos);
    EXPECT_NE(section.find("35.0 ms"), std::string::npos) << section; // the aoti package load
}

namespace {

// As measured with OPT (2 layers, hidden 64) on the 2-core CPU, torch 2.15:
// the loaded artifacts hit (no codegen), yet AOT autograd built the kernels.
Report artifactsThatBuildAgain() {
    Report report = threeStarts();
    report.runs[1].firstCallNs = 13'700'000'000;
    report.runs[2].firstCallNs = 2'350'000'000;
    Run& art = report.runs[3];
    art.firstCallNs = 15'100'000'000;
    art.compilePhases = {{"load_cache_artifacts", 1.43},
                         {"dynamo_tracing", 1.14},
                         {"aot_autograd", 12.45},
                         {"inductor_codegen", 0},
                         {"cpp_triton_compile", 0}};
    for (Run& run : report.runs)
        run.probe.device = "cpu";
    return report;
}

std::vector<Finding> artifactFindings(const Report& report) {
    std::vector<Finding> out;
    for (auto& f : advise(report))
        if (f.rule == "warm_start.artifacts")
            out.push_back(f);
    return out;
}

} // namespace

TEST(WarmStart, ArtifactsThatSavedNothingOnCpuAreToldWhy) {
    const auto found = artifactFindings(artifactsThatBuildAgain());
    ASSERT_EQ(found.size(), 1u);
    const auto& f = found[0];
    EXPECT_EQ(f.title, "default: torch's portable cache artifacts did not shorten the first call "
                       "on CPU (15.1 s against 13.7 s fresh)");
    EXPECT_EQ(f.run, 3);
    ASSERT_EQ(f.evidence.size(), 3u);
    EXPECT_NE(f.evidence[0].find("their load (250 ms, 176 KiB) included (0.91×)"),
              std::string::npos)
        << f.evidence[0];
    EXPECT_NE(f.evidence[1].find("AOT autograd, where a cache hit loads the kernels, took 12.4 s"),
              std::string::npos)
        << f.evidence[1];
    EXPECT_NE(f.evidence[2].find("the warm cache): 2.35 s (5.83×)"), std::string::npos)
        << f.evidence[2];
    EXPECT_NE(f.remedy.find("TORCHINDUCTOR_CACHE_DIR"), std::string::npos);
    EXPECT_EQ(f.gain, "first call 2.35 s instead of 15.1 s with the warm cache");
}

TEST(WarmStart, ArtifactsThatPaidOrRanOnCudaAreNotJudged) {
    // threeStarts' artifacts start 3x faster than the fresh compile.
    EXPECT_TRUE(artifactFindings(threeStarts()).empty());
    // On CUDA the artifacts carry built Triton kernels: not measured here, no claim.
    Report cuda = artifactsThatBuildAgain();
    for (cs::core::Run& run : cuda.runs)
        run.probe.device = "cuda:0";
    EXPECT_TRUE(artifactFindings(cuda).empty());
}
