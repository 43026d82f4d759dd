#include "core/report/report_json.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/advice/advice_json.h"
#include "core/analysis/stats.h"
#include "core/report/comparison_json.h"
#include "core/report/machine_cpu_json.h"
#include "core/report/module_hooks_json.h"
#include "core/report/outputs_check_json.h"
#include "core/report/own_compiles_json.h"
#include "core/report/report_code_fields.h"
#include "core/report/report_gpu_fields.h"

namespace cs::core {

using nlohmann::json;

namespace {

// Durations are integer ns in the file (format version 2): derived statistics
// such as the mean are rounded to the nearest ns.
int64_t ns(double value) {
    return static_cast<int64_t>(std::llround(value));
}

json statsToJson(const std::vector<int64_t>& samples) {
    auto stats = computeStats(samples);
    if (!stats)
        return nullptr;
    return {{"count", stats->count},
            {"min_ns", ns(stats->min)},
            {"max_ns", ns(stats->max)},
            {"mean_ns", ns(stats->mean)},
            {"median_ns", ns(stats->median)},
            {"p90_ns", ns(stats->p90)},
            {"p99_ns", ns(stats->p99)},
            {"std_ns", ns(stats->std)},
            {"median_ci95_ns", {ns(stats->medianCiLow), ns(stats->medianCiHigh)}},
            {"q1_ns", ns(stats->q1)},
            {"q3_ns", ns(stats->q3)},
            {"outliers", stats->outliers}};
}

json frameToJson(const SourceFrame& f) {
    return {{"file", f.file},
            {"line", f.line},
            {"function", f.function},
            {"code", f.code},
            {"user", f.user}};
}

json breakToJson(const GraphBreak& b) {
    json frames = json::array();
    for (const auto& f : b.frames)
        frames.push_back(frameToJson(f));
    json j = {{"index", b.index},           {"reason", b.reason},
              {"gb_type", b.gbType},        {"frames", frames},
              {"user_frame", b.userFrame},  {"graph_before", b.graphBefore},
              {"graph_after", b.graphAfter}};
    if (!b.gbId.empty()) // optional: older torch has no ids
        j["gb_id"] = b.gbId;
    return j;
}

json graphToJson(const Graph& g) {
    json nodes = json::array();
    for (const auto& n : g.nodes) {
        nodes.push_back({{"name", n.name},
                         {"op", n.op},
                         {"target", n.target},
                         {"shape", n.shape},
                         {"dtype", n.dtype},
                         {"file", n.file},
                         {"line", n.line},
                         {"module", n.module},
                         {"inputs", n.inputs}});
    }
    json out = {{"index", g.index},       {"compile_id", g.compileId},
                {"function", g.function}, {"file", g.file},
                {"line", g.line},         {"nodes", nodes}};
    if (g.frameModule)
        out["frame_module"] = *g.frameModule;
    return out;
}

json modelToJson(const ModelInfo& m) {
    json j = {{"spec", m.spec},
              {"file", m.file},
              {"name", m.name},
              {"parameters", m.parameters},
              {"inputs", m.inputs}};
    if (!m.ownCompiles.empty()) // absent as before the probe looked for them
        j["own_compiles"] = ownCompilesToJson(m.ownCompiles);
    if (!m.hooks.empty())
        j["hooks"] = moduleHooksToJson(m.hooks);
    return j;
}

json kernelsToJson(const KernelSummary& k) {
    if (!k.present)
        return nullptr;
    json top = json::array();
    for (const auto& t : k.top)
        top.push_back(
            {{"name", t.name}, {"count", t.count}, {"total_ns", t.totalNs}, {"mean_ns", t.meanNs}});
    return {
        {"iterations", k.iterations},
        {"launches_per_iter", k.launchesPerIter},
        {"gpu_ns_per_iter", ns(k.gpuNsPerIter)},
        {"busy_fraction", k.busyFraction},
        {"top", top},
        {"memcpy", {{"count", k.memcpyCount}, {"bytes", k.memcpyBytes}, {"total_ns", k.memcpyNs}}},
        {"dropped", k.dropped}};
}

// Imported TORCH_TRACE runs only: absent from a probe's runs.
void addTraceFields(json& j, const Run& run) {
    if (run.trace) {
        const TraceSource& t = *run.trace;
        j["trace"] = {{"path", t.path},
                      {"rank", t.rank},
                      {"pid", t.pid},
                      {"started", t.started},
                      {"bytes", t.bytes},
                      {"records", t.records},
                      {"kinds", t.kinds},
                      {"unknown_kinds", t.unknownKinds},
                      {"artifacts", t.artifacts},
                      {"bad_payloads", t.badPayloads},
                      {"truncated", t.truncated}};
    }
    if (!run.compiles.empty()) {
        json compiles = json::array();
        for (const auto& c : run.compiles) {
            json phases = json::array();
            for (const auto& p : c.phases)
                phases.push_back({{"name", p.name}, {"ns", ns(p.seconds * 1e9)}});
            compiles.push_back({{"compile_id", c.compileId},
                                {"function", c.function},
                                {"file", c.file},
                                {"line", c.line},
                                {"start_unix_s", c.startTime},
                                {"compile_ns", ns(c.seconds * 1e9)},
                                {"phases", phases},
                                {"fail_type", c.failType},
                                {"fail_reason", c.failReason},
                                {"restart_reasons", c.restartReasons},
                                {"recompile_reason", c.recompileReason},
                                {"cudagraph_skip_reason", c.cudagraphSkipReason},
                                {"cache_size", c.cacheSize},
                                {"graphs", c.graphs},
                                {"graph_breaks", c.graphBreaks},
                                {"output_code_offset", c.outputCodeOffset},
                                {"output_code_bytes", c.outputCodeBytes}});
        }
        j["compiles"] = compiles;
    }
    if (!run.cacheLookups.empty()) {
        json lookups = json::array();
        for (const auto& l : run.cacheLookups) {
            lookups.push_back({{"compile_id", l.compileId},
                               {"cache", l.cache},
                               {"outcome", l.outcome},
                               {"reason", l.reason}});
        }
        j["cache_lookups"] = lookups;
    }
}

// Scale runs only: the batch-size walk, absent otherwise.
void addScalingFields(json& j, const Run& run) {
    if (!run.scaling)
        return;
    const Scaling& s = *run.scaling;
    json points = json::array();
    for (const auto& p : s.points)
        points.push_back({{"batch_size", p.batchSize},
                          {"first_call_ns", p.firstCallNs},
                          {"latency_ns", p.latencyNs},
                          {"peak_memory_bytes", p.peakMemoryBytes},
                          {"memory_kind", p.memoryKind},
                          {"recompiles", p.recompiles}});
    json stop = nullptr;
    if (s.stop)
        stop = {{"reason", s.stop->reason},
                {"batch_size", s.stop->batchSize},
                {"message", s.stop->message}};
    j["scaling"] = {{"batch_source", s.batchSource},
                    {"dynamic", s.dynamic},
                    {"requested", s.requested},
                    {"budget_s", s.budgetSeconds},
                    {"memory_cap_bytes", s.memoryCapBytes},
                    {"points", points},
                    {"stop", stop}};
}

// aoti runs only: why torch.export refused the model, absent otherwise.
void addExportFailureFields(json& j, const Run& run) {
    if (!run.exportFailure)
        return;
    const ExportFailure& f = *run.exportFailure;
    j["export_failure"] = {{"category", f.category}, {"exception", f.exception},
                           {"reason", f.reason},     {"file", f.file},
                           {"line", f.line},         {"code", f.code},
                           {"remedy", f.remedy},     {"strict", f.strict}};
}

// A run that saved or loaded torch's portable cache artifacts; absent otherwise.
void addCacheArtifactsFields(json& j, const Run& run) {
    if (!run.cacheArtifacts)
        return;
    const CacheArtifacts& a = *run.cacheArtifacts;
    json entries = json::array();
    for (const auto& [kind, count] : a.entries)
        entries.push_back({{"kind", kind}, {"count", count}});
    j["cache_artifacts"] = {{"action", a.action}, {"path", a.path},     {"bytes", a.bytes},
                            {"ns", a.ns},         {"entries", entries}, {"message", a.message}};
}

} // namespace

json settingToJson(const Setting& s) {
    return {{"mode", s.mode},
            {"backend", s.backend},
            {"dynamic", s.dynamic},
            {"fullgraph", s.fullgraph},
            {"device", s.device},
            {"autocast", s.autocast},
            {"warmup", s.warmup},
            {"iters", s.iters},
            {"sweep", s.sweep},
            {"warm_cache", s.warmCache()},
            {"start", s.start},
            {"threads", s.threads},
            {"strict_export", s.strictExport},
            {"environment", s.environment}};
}

// The stage fields only where the probe narrowed the failure down.
json errorToJson(const ErrorInfo& e) {
    json j{{"kind", e.kind}, {"message", e.message}, {"traceback", e.traceback}};
    if (!e.stage.empty())
        j["stage"] = e.stage;
    if (!e.stageChecks.empty()) {
        json checks = json::array();
        for (const auto& c : e.stageChecks)
            checks.push_back({{"backend", c.backend}, {"ok", c.ok}, {"error", c.error}});
        j["stage_checks"] = checks;
    }
    return j;
}

json runToJson(const Run& run) {
    json j;
    j["label"] = run.setting.label();
    j["setting"] = settingToJson(run.setting);
    j["status"] = toString(run.status);
    j["error"] = run.error ? errorToJson(*run.error) : json(nullptr);
    j["exit_code"] = run.exitCode ? json(*run.exitCode) : json(nullptr);
    j["probe"] = {{"protocol", run.probe.protocol},
                  {"probe_version", run.probe.probeVersion},
                  {"python", run.probe.python},
                  {"python_executable", run.probe.pythonExecutable},
                  {"torch", run.probe.torch},
                  {"cuda", run.probe.cuda},
                  {"device", run.probe.device},
                  {"device_name", run.probe.deviceName},
                  {"cpu", run.probe.cpu},
                  {"host", run.probe.host},
                  {"platform", run.probe.platform},
                  {"threads", run.probe.threads},
                  {"cpu_affinity", run.probe.cpuAffinity}};
    // Absent, not empty, where the probe did not say: an empty one claims none.
    if (run.probe.torchEnvironmentKnown)
        j["probe"]["torch_env"] = run.probe.torchEnvironment;
    j["model"] = modelToJson(run.model);
    j["stream"] = {{"hello", run.sawHello},
                   {"done", run.sawDone},
                   {"done_status", run.doneStatus},
                   {"first_t_ns", run.firstEventNs},
                   {"last_t_ns", run.lastEventNs}};

    json phases = json::array();
    for (const auto& p : run.phases)
        phases.push_back({{"name", p.name}, {"begin_ns", p.beginNs}, {"end_ns", p.endNs}});
    j["phases"] = phases;

    json iterations = json::array();
    for (const auto& it : run.iterations) {
        iterations.push_back({{"index", it.index},
                              {"latency_ns", it.latencyNs},
                              {"wall_ns", it.wallNs},
                              {"t_ns", it.tNs},
                              {"warmup", it.warmup},
                              {"first_call", it.firstCall}});
    }
    const auto measured = run.measuredLatencies();
    j["latency"] = {{"samples_ns", measured},
                    {"warmup_ns", run.warmupLatencies()},
                    {"iterations", iterations},
                    {"harness_overhead_ns", run.harnessOverheadNs},
                    {"app_cpu_measure_ns", run.appCpuMeasureNs},
                    {"dropped_unsettled", run.droppedUnsettled},
                    {"stats", statsToJson(measured)}};
    if (run.measureMachineCpu.present())
        j["latency"]["machine_cpu"] = machineCpuToJson(run.measureMachineCpu);
    if (run.measureHostFaults.present())
        j["latency"]["host_faults"] = hostFaultsToJson(run.measureHostFaults);
    if (run.measureHostHeld.present() || run.crosscheckHostHeld.present()) {
        json held = json::object();
        if (run.measureHostHeld.present())
            held["measure"] = heldWindowToJson(run.measureHostHeld);
        if (run.crosscheckHostHeld.present())
            held["crosscheck"] = heldWindowToJson(run.crosscheckHostHeld);
        j["latency"]["host_held"] = std::move(held);
    }
    if (run.hostReference.present())
        j["latency"]["host_reference"] = {{"before_ns", run.hostReference.beforeNs},
                                          {"after_ns", run.hostReference.afterNs}};
    if (!run.repeats.empty()) {
        json repeats = json::array();
        for (const auto& r : run.repeats) {
            json rj = {
                {"round", r.round}, {"status", toString(r.status)}, {"samples_ns", r.latencyNs}};
            if (!r.error.empty())
                rj["error"] = r.error;
            if (r.hostReference.present())
                rj["host_reference"] = {{"before_ns", r.hostReference.beforeNs},
                                        {"after_ns", r.hostReference.afterNs}};
            repeats.push_back(std::move(rj));
        }
        j["latency"]["repeats"] = std::move(repeats);
    }
    if (const auto estimate = run.blockEstimateNs()) {
        // Durations in the report are whole nanoseconds; a block mean's fraction is noise.
        std::vector<std::int64_t> blockMeansNs;
        blockMeansNs.reserve(run.crosscheckBlockMeansNs.size());
        for (const double mean : run.crosscheckBlockMeansNs)
            blockMeansNs.push_back(std::llround(mean));
        j["latency"]["crosscheck"] = {{"block_calls", run.crosscheckBlockCalls},
                                      {"block_means_ns", blockMeansNs},
                                      {"block_estimate_ns", std::llround(*estimate)}};
    }

    json graphs = json::array();
    for (const auto& g : run.graphs)
        graphs.push_back(graphToJson(g));
    j["graphs"] = graphs;
    json breaks = json::array();
    for (const auto& b : run.graphBreaks)
        breaks.push_back(breakToJson(b));
    j["graph_breaks"] = breaks;
    json recompiles = json::array();
    for (const auto& r : run.recompiles) {
        json rj = {{"function", r.function},
                   {"reason", r.reason},
                   {"cache_size", r.cacheSize},
                   {"input_shapes", r.inputShapes},
                   {"limit_hit", r.limitHit}};
        if (r.limit > 0) // 0: torch's limit was not read; a made-up 0 would mislead
            rj["limit"] = r.limit;
        if (!r.libraryFrame.empty())
            rj["library_frame"] = r.libraryFrame;
        if (!r.phase.empty())
            rj["phase"] = r.phase;
        if (r.callIndex >= 0)
            rj["call_index"] = r.callIndex;
        recompiles.push_back(std::move(rj));
    }
    j["recompiles"] = recompiles;

    json compilePhases = json::array();
    for (const auto& p : run.compilePhases)
        compilePhases.push_back({{"name", p.name}, {"ns", ns(p.seconds * 1e9)}});
    j["compile_phases"] = {{"phases", compilePhases},
                           {"first_call_ns", run.firstCallNs},
                           {"source", run.compilePhasesSource}};
    if (!run.dynamoOff.empty())
        j["compile_phases"]["dynamo_off"] = run.dynamoOff;
    if (run.warmupCompileNs >= 0) {
        json later = json::array();
        for (const auto& p : run.warmupCompilePhases)
            later.push_back({{"name", p.name}, {"ns", ns(p.seconds * 1e9)}});
        j["compile_phases"]["later_warmup"] = {{"phases", later}, {"wall_ns", run.warmupCompileNs}};
    }
    // Derived (docs/measuring.md); recomputed from the iterations on read.
    j["warmup"] = warmupToJson(analyzeWarmup(run));

    json series = json::array();
    for (const auto& m : run.memory) {
        json samples = json::array();
        for (const auto& [t, bytes] : m.samples)
            samples.push_back({t, bytes});
        series.push_back({{"kind", m.kind}, {"samples", samples}, {"phase_peaks", m.phasePeaks}});
    }
    json memStats = json::array();
    for (const auto& s : run.memoryStats) {
        memStats.push_back({{"phase", s.phase},
                            {"edge", s.edge},
                            {"allocated", s.allocated},
                            {"reserved", s.reserved},
                            {"peak_allocated", s.peakAllocated},
                            {"peak_reserved", s.peakReserved}});
    }
    j["memory"] = {{"series", series},
                   {"stats", memStats},
                   {"cupti", {{"active", run.cuptiActive}, {"message", run.cuptiMessage}}}};
    j["kernels"] = kernelsToJson(run.kernels);
    addGpuFields(j, run); // report_gpu_fields.cpp

    json logs = json::array();
    for (const auto& l : run.logs) {
        json line = {{"t_ns", l.tNs}, {"level", l.level}, {"message", l.message}};
        if (!l.code.empty()) { // optional: most lines have none
            line["code"] = l.code;
            line["detail"] = l.detail;
        }
        logs.push_back(std::move(line));
    }
    j["logs"] = logs;
    if (!run.captureWarnings.empty()) { // optional: most runs have none
        json warnings = json::array();
        for (const auto& w : run.captureWarnings)
            warnings.push_back({{"what", w.what}, {"error", w.error}, {"torch", w.torch}});
        j["capture_warnings"] = warnings;
    }
    addTraceFields(j, run);
    addScalingFields(j, run);
    addExportFailureFields(j, run);
    addCacheArtifactsFields(j, run);
    addCodeFields(j, run); // report_code_fields.cpp
    if (run.outputsCheck.present())
        j["outputs_check"] = outputsCheckToJson(run.outputsCheck);
    j["console"] = run.console;
    json problems = json::array();
    for (const auto& p : run.parseProblems)
        problems.push_back({{"line", p.line}, {"message", p.message}});
    j["parse_problems"] = problems;
    j["unknown_events"] = run.unknownEvents;
    return j;
}

namespace {
// The document around `runs`: everything else comes from the whole report.
json documentAround(const Report& report, json runs) {
    const auto& e = report.environment;
    json doc = {{"format", kReportFormat},
                {"version", kReportVersion},
                {"generator", report.generator},
                {"created", report.created},
                {"model", modelToJson(report.model)},
                {"environment",
                 {{"python", e.python},
                  {"torch", e.torch},
                  {"cuda", e.cuda},
                  {"device", e.device},
                  {"cpu", e.cpu},
                  {"host", e.host},
                  {"platform", e.platform},
                  {"target", e.target},
                  {"probe_environment", e.probeEnvironment}}},
                {"runs", std::move(runs)},
                // Derived from the runs (docs/measuring.md); ignored and recomputed on read.
                {"comparison", comparisonToJson(compareRuns(report))}};
    // Derived from the runs and the user's advice options; recomputed on read.
    doc["advice"] = adviceToJson(report);
    return doc;
}
} // namespace

json reportToJson(const Report& report) {
    json runs = json::array();
    for (const auto& run : report.runs)
        runs.push_back(runToJson(run));
    return documentAround(report, std::move(runs));
}

std::string writeReportJson(const Report& report, int indent) {
    // The same text as reportToJson(report).dump(), but the runs are turned
    // into JSON one at a time: the document tree of a big report (thousands of
    // imported graphs) never exists whole, only its text does.
    const json doc = documentAround(report, json::array());
    // Replace invalid UTF-8 (a model may print any bytes) instead of throwing.
    const auto dump = [indent](const json& j) {
        return j.dump(indent, ' ', false, json::error_handler_t::replace);
    };
    std::string text = dump(doc);
    if (report.runs.empty())
        return text;
    // Keys are quoted and user text has its quotes escaped, so this is the key.
    const std::string empty = indent < 0 ? "\"runs\":[]" : "\"runs\": []";
    const size_t at = text.find(empty);
    if (at == std::string::npos) // cannot happen with nlohmann's dump; stay correct anyway
        return dump(reportToJson(report));
    const std::string pad(indent < 0 ? 0 : static_cast<size_t>(indent), ' ');
    std::string runs = indent < 0 ? "[" : "[\n";
    for (size_t i = 0; i < report.runs.size(); ++i) {
        std::string one = dump(runToJson(report.runs[i]));
        if (indent >= 0) {
            // Two levels deeper than a document of its own: inside "runs" in the root.
            std::string indented = pad + pad;
            for (char c : one) {
                indented += c;
                if (c == '\n')
                    indented += pad + pad;
            }
            one = std::move(indented);
        }
        runs += one;
        if (i + 1 < report.runs.size())
            runs += indent < 0 ? "," : ",\n";
    }
    runs += indent < 0 ? "]" : "\n" + pad + "]";
    text.replace(at + empty.size() - 2, 2, runs);
    return text;
}

namespace {

// What an errno means for a save, in words a user can act on.
std::string saveFailure(int error) {
    switch (error) {
    case ENOSPC:
        return "the disk is full (ENOSPC)";
    case EDQUOT:
        return "the disk quota is used up (EDQUOT)";
    case EFBIG:
        return "the file is larger than this file system or the file-size limit allows (EFBIG)";
    case EROFS:
        return "the file system is read-only (EROFS)";
    case EACCES:
    case EPERM:
        return "permission denied: the folder is not writable";
    case ENOENT:
        return "the folder does not exist";
    case ENOTDIR:
        return "a part of the path is not a folder";
    case EIO:
        return "an input/output error (EIO)";
    default:
        return std::strerror(error);
    }
}

// The mode a new file gets: the one it replaces, else 0666 less the umask
// (read from /proc: umask() would change it for every thread).
mode_t newFileMode(const std::string& path) {
    struct stat existing {};
    if (::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode))
        return existing.st_mode & 07777;
    mode_t mask = 022;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("Umask:", 0) == 0) {
            mask = static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
            break;
        }
    }
    return 0666 & ~mask;
}

// At most `limit` bytes of `name`, not cutting a UTF-8 character in two.
std::string clipName(const std::string& name, size_t limit) {
    if (name.size() <= limit)
        return name;
    size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xC0) == 0x80)
        --end;
    return name.substr(0, end);
}

bool writeAll(int fd, const std::string& text, int* error) {
    const char* data = text.data();
    size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *error = errno;
            return false;
        }
        if (n == 0) { // no progress and no error: treat as a full disk
            *error = ENOSPC;
            return false;
        }
        data += n;
        left -= static_cast<size_t>(n);
    }
    return true;
}

} // namespace

std::string saveTempPrefix(const std::string& path) {
    const std::filesystem::path target(path);
    return "." + clipName(target.filename().string(), 200) + kSaveTempMarker;
}

bool saveTextFile(const std::string& path, const std::string& text, std::string* error) {
    const std::filesystem::path target(path);
    const std::filesystem::path dir =
        target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    const bool hadFile = ::access(path.c_str(), F_OK) == 0;
    const std::string unchanged =
        hadFile ? "; the previous file is unchanged." : "; nothing was written.";
    auto fail = [&](const std::string& what) {
        if (error)
            *error = "Could not save " + path + ": " + what + unchanged;
        return false;
    };
    // A temporary of its own in the same folder (so the rename cannot cross
    // file systems): hidden, and never ending in a report's extension.
    std::string temp = (dir / (saveTempPrefix(path) + "XXXXXX")).string();
    const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) {
        const int e = errno;
        return fail("cannot create a file in the folder " + dir.string() + " (" + saveFailure(e) +
                    ")");
    }
    int e = 0;
    const char* step = nullptr;
    if (::fchmod(fd, newFileMode(path)) != 0) {
        e = errno;
        step = "setting its permissions";
    } else if (!writeAll(fd, text, &e)) {
        step = "writing it";
    } else if (::fsync(fd) != 0) {
        e = errno;
        step = "flushing it to the disk";
    }
    if (::close(fd) != 0 && !step) {
        e = errno;
        step = "closing it";
    }
    if (!step && ::rename(temp.c_str(), path.c_str()) != 0) {
        e = errno;
        step = "renaming it over the old file";
    }
    if (step) {
        ::unlink(temp.c_str());
        return fail(saveFailure(e) + " while " + step);
    }
    // The rename is durable once the folder's entry is on the disk.
    const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return true;
}

} // namespace cs::core
