// compilescope-cli: the headless front end (GPU servers have no display).
//   compilescope-cli run MODEL [options]      run settings, write JSON/HTML reports
//   compilescope-cli compare MODEL [options]  the same, default settings eager and every
//                                             compile mode; ends with the comparison table
//   compilescope-cli warmstart MODEL [options] each compiled setting's cold start three ways:
//                                             fresh, warm Inductor cache, portable artifacts
//   compilescope-cli diff A.json B.json [--threshold PCT]   compare two reports
//   compilescope-cli html REPORT.json OUT.html              write the HTML report of a JSON report
//   compilescope-cli costs REPORT.json [--setting N]        where the time goes: top kernels and
//                                                           hot lines of the profiled window
//   compilescope-cli import DIR|FILE [--job N] [--list]     read a TORCH_TRACE log into a report
// Exit codes: 0 every setting ran (import: the log read cleanly), 2 some failed or the log
// had problems (report still written), 1 bad arguments
// or unreadable input, 3 (diff) a regression beyond the threshold.
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>

#include "app/cli_progress.h"
#include "core/advice/advice.h"
#include "core/analysis/comparison.h"
#include "core/analysis/comparison_text.h"
#include "core/analysis/kernel_cost.h"
#include "core/analysis/measurement_check.h"
#include "core/analysis/page_faults.h"
#include "core/analysis/probe_rounds.h"
#include "core/analysis/report_diff.h"
#include "core/analysis/run_summary.h"
#include "core/analysis/scaling.h"
#include "core/analysis/stats.h"
#include "core/analysis/torch_environment.h"
#include "core/analysis/units.h"
#include "core/analysis/warm_start.h"
#include "core/html/report_html.h"
#include "core/report/chrome_trace.h"
#include "core/report/report_json.h"
#include "core/runner/app_paths.h"
#include "core/runner/probe_command.h"
#include "core/runner/session_runner.h"
#include "core/trace/trace_import.h"

namespace {

using namespace cs::core;

constexpr int kExitOk = 0;
constexpr int kExitBadArguments = 1;
constexpr int kExitSomeFailed = 2;
constexpr int kExitRegression = 3;
constexpr int kMaxRepeat = 20;

std::atomic<bool> interrupted{false};

constexpr const char* kUsage =
    "usage: compilescope-cli run|compare MODEL [--settings eager,default] [--device "
    "auto|cpu|cuda]\n"
    "         [--warmup N] [--iters N] [--json OUT.json] [--html OUT.html] [--trace OUT.json]\n"
    "         [--python PATH]\n"
    "         [--backend B] [--dynamic auto|true|false] [--fullgraph] [--autocast "
    "none|bf16|fp16]\n"
    "         [--no-sweep] [--warm-cache] [--timeout SECONDS] [--no-cupti]\n"
    "         [--expected-calls N] [--memory-fraction F] [--threads N] [--drop-unsettled]\n"
    "         [--torch-trace DIR] [--export-strict] [--no-code] [--profile-calls N]\n"
    "         [--env NAME=VALUE]... [--repeat N]\n"
    "         [--target ssh://[user@]host[:port] [--ssh-config FILE] [--model-on "
    "auto|local|remote]]\n"
    "       compilescope-cli scale MODEL --batch-sizes 1,2,4,...|auto [--budget-s S] "
    "[--memory-cap-mb M]\n"
    "         [--settings eager,default] and run's options: throughput, speedup and memory\n"
    "         against batch size, one fresh probe per setting walking the sizes\n"
    "       compilescope-cli warmstart MODEL [--settings eager,default] and run's options:\n"
    "         each compiled setting's first call three ways (fresh compile, warm Inductor\n"
    "         cache, torch's portable cache artifacts); eager and aoti once\n"
    "       compilescope-cli diff A.json B.json [--threshold PCT]\n"
    "         exits 3 when B regressed beyond PCT (default 10) against A, 0 when not\n"
    "       compilescope-cli html REPORT.json OUT.html\n"
    "       compilescope-cli costs REPORT.json [--setting N|LABEL]\n"
    "         where the time goes: each setting's top kernels and hot source lines from\n"
    "         the profiled window after the measure phase (docs/kernel-cost.md)\n"
    "       compilescope-cli import DIR|FILE [--job N] [--list] [--json OUT.json] [--html "
    "OUT.html]\n"
    "         reads torch's structured trace (TORCH_TRACE=DIR): one run per rank\n"
    "MODEL is a .py file with get_model()/get_inputs(), torchvision:NAME, or a .pt2 archive\n"
    "(torch.export, or an AOTInductor package for --settings aoti).\n"
    "The setting aoti exports the model (torch.export; --export-strict for strict=True),\n"
    "packages it with AOTInductor and times the package from C++ (compilescope-aoti-runner).\n"
    "compare runs --settings (default eager,default,reduce-overhead,max-autotune) one after\n"
    "another, each in a fresh probe, and prints speedup and break-even against eager;\n"
    "a setting may set its own dynamic=, fullgraph= or autocast= after colons, so one\n"
    "report compares them: --settings eager,default,default:dynamic=true (eager takes\n"
    "autocast= too: eager,eager:autocast=bf16,default:autocast=bf16).\n"
    "--env NAME=VALUE sets a variable in every probe (here or on the --target host);\n"
    "a setting's own env=NAME=VALUE (eager:env=MALLOC_ARENA_MAX=2) sets it in that\n"
    "setting's probe only, measured beside the others in one report; a value holding , or :\n"
    "goes in double quotes: 'default:env=PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True\"'.\n"
    "--repeat N probes every setting N times, in rounds (eager, default, eager, default...),\n"
    "and judges each speedup over every round: processes of one setting can differ by\n"
    "more than their own intervals.\n"
    "--warm-cache first compiles each setting once, unmeasured, so the measured run\n"
    "finds torch's compile cache warm (a second start of your program).\n"
    "--trace writes every setting's phases, calls, memory and GPU records as one Chrome\n"
    "trace (a process per setting) that ui.perfetto.dev opens.\n"
    "--torch-trace DIR has torch write its own structured trace (TORCH_TRACE) into DIR,\n"
    "one dedicated_log_torch_trace_*.log per setting: for tlparse, or for the GUI's\n"
    "File > Import TORCH_TRACE.\n";

int usage(const QString& message) {
    std::fprintf(stderr, "%s\n\n%s", message.toLocal8Bit().constData(), kUsage);
    return kExitBadArguments;
}

// --help, -h or help anywhere before "--": the usage on stdout, exit 0.
bool asksForHelp(const QStringList& arguments) {
    for (int i = 1; i < arguments.size(); ++i) {
        const QString& a = arguments[i];
        if (a == "--")
            return false;
        if (a == "--help" || a == "-h" || (i == 1 && a == "help"))
            return true;
    }
    return false;
}

// A file name that begins with '-' reads as options ("Unknown options: d, a,
// s, h..."), and options written after "--" read as file names: say what to type.
QString withDashHint(const QString& message, const QStringList& arguments) {
    QString hint;
    const int dashDash = static_cast<int>(arguments.indexOf("--"));
    for (int i = 1; i < arguments.size(); ++i) {
        const QString& a = arguments[i];
        if (dashDash >= 0 && i > dashDash) {
            if (a.startsWith("--") && a.size() > 2) {
                hint = QStringLiteral("Everything after -- is a file name, so %1 was taken as one: "
                                      "put every option before --.")
                           .arg(a);
                break;
            }
            continue;
        }
        if (a == "--" || !a.startsWith('-') || a.startsWith("--"))
            continue;
        const QFileInfo file(a);
        if (file.exists() || a.contains('.') || a.contains('/')) {
            hint = QStringLiteral("\"%1\" begins with '-', so it reads as options: name the file "
                                  "as ./%1 (or by its full path), or put it after -- with every "
                                  "option before it.")
                       .arg(a);
            break;
        }
    }
    return hint.isEmpty() ? message : message + "\n" + hint;
}

int usageAfterParse(const QString& message, const QStringList& arguments) {
    return usage(withDashHint(message, arguments));
}

// How far the numbers above can be trusted: the cross-check, the threads, what
// the app itself took, calls dropped as unsettled (docs/measuring.md).
void printMeasurementNotes(const Run& run, const Environment& where) {
    if (const auto check = crosscheck(run))
        std::fprintf(stderr, "    cross-check: %s: %s\n", crosscheckText(*check).c_str(),
                     crosscheckVerdict(*check).c_str());
    if (const auto load = machineLoad(run, where); load && load->judgeable())
        std::fprintf(stderr, "    the rest of the machine: %s: %s\n",
                     machineLoadText(*load).c_str(), machineLoadVerdict(*load).c_str());
    else if (load) // its figures are a few kernel ticks: the phase's length is what to say
        std::fprintf(stderr,
                     "    the rest of the machine: not judged (a measure phase of %s; "
                     "under 0.5 s the kernel's CPU ticks are too coarse)\n",
                     formatDuration(load->wallNs).c_str());
    if (const std::string reference = hostReferenceText(run); !reference.empty())
        std::fprintf(stderr, "    host reference (a fixed CPU workload): %s\n", reference.c_str());
    if (const auto faults = pageFaults(run))
        std::fprintf(stderr, "    %s: %s\n",
                     faults->costly() ? "page faults, costly" : "page faults",
                     pageFaultsText(*faults).c_str());
    std::string notes;
    if (run.probe.threads > 0) {
        notes += std::to_string(run.probe.threads) + " intra-op thread(s)";
        if (!run.probe.cpuAffinity.empty())
            notes += " on " + std::to_string(run.probe.cpuAffinity.size()) + " CPU(s)";
    }
    if (run.appCpuMeasureNs >= 0)
        notes += (notes.empty() ? "" : "; ") +
                 std::string("compilescope's own CPU while measuring ") +
                 formatDuration(static_cast<double>(run.appCpuMeasureNs));
    if (run.droppedUnsettled > 0)
        notes += (notes.empty() ? "" : "; ") + std::to_string(run.droppedUnsettled) +
                 " unsettled call(s) left out of the statistics";
    if (!notes.empty())
        std::fprintf(stderr, "    %s\n", notes.c_str());
}

void printSummary(const Report& report) {
    std::fprintf(stderr, "\n%-34s %-9s %10s %10s %10s %12s\n", "setting", "status", "median", "p90",
                 "p99", "first call");
    for (const auto& run : report.runs) {
        const auto stats = computeStats(run.measuredLatencies());
        const auto warm = run.warmupLatencies();
        auto cell = [](std::optional<double> ns) {
            return ns ? formatDuration(*ns) : std::string("—");
        };
        // A label wider than its column gets a line of its own (see comparisonTable).
        const std::string label = run.setting.label();
        const bool longLabel = glyphCount(label) > 34;
        if (longLabel)
            std::fprintf(stderr, "%s\n", label.c_str());
        std::fprintf(
            stderr, "%-34s %-9s %10s %10s %10s %12s\n", longLabel ? "" : label.c_str(),
            toString(run.status), cell(stats ? std::optional(stats->median) : std::nullopt).c_str(),
            cell(stats ? std::optional(stats->p90) : std::nullopt).c_str(),
            cell(stats ? std::optional(stats->p99) : std::nullopt).c_str(),
            cell(warm.empty() ? std::nullopt : std::optional<double>(warm.front())).c_str());
        if (run.error)
            std::fprintf(stderr, "    %s: %s\n", run.error->kind.c_str(),
                         run.error->message.c_str());
        // The probe's warnings (the model changed its inputs, a mode that does
        // not apply): the HTML's problems section keeps all of them.
        constexpr int kWarningsShown = 5;
        int shown = 0;
        for (const auto& line : run.logs) {
            if (line.level == "warning" && shown++ < kWarningsShown)
                std::fprintf(stderr, "    warning: %s\n", line.message.c_str());
        }
        if (shown > kWarningsShown)
            std::fprintf(stderr, "    (%d more warnings in the report)\n", shown - kWarningsShown);
        if (const std::string spread = probeSpreadText(run); !spread.empty())
            std::fprintf(stderr, "    measured by %s\n", spread.c_str());
        printMeasurementNotes(run, report.environment);
    }
}

// Which settings ran the model's input sweep, and for how long.
void printSweeps(const Report& report) {
    for (const auto& run : report.runs) {
        const PhaseSpan* sweep = run.phase("sweep");
        if (!sweep || sweep->endNs < sweep->beginNs)
            continue;
        std::fprintf(stderr,
                     "input sweep: %s ran the model's get_input_sweep() in %s "
                     "(--no-sweep skips it)\n",
                     run.setting.label().c_str(),
                     formatDuration(static_cast<double>(sweep->endNs - sweep->beginNs)).c_str());
    }
}

// The findings, most severe first; stdout, so they can be kept with `> advice.txt`.
void printAdvice(const Report& report) {
    const auto findings = advise(report);
    std::printf("\nadvice: %zu finding(s)\n", findings.size());
    for (const auto& f : findings)
        std::printf("%s", formatFindingText(f).c_str());
    std::fflush(stdout);
}

bool writeOutputs(const Report& report, const QString& jsonPath, const QString& htmlPath,
                  const QString& tracePath) {
    bool ok = true;
    std::string error;
    if (!jsonPath.isEmpty()) {
        if (saveTextFile(jsonPath.toStdString(), writeReportJson(report), &error))
            std::printf("JSON report: %s\n",
                        QFileInfo(jsonPath).absoluteFilePath().toLocal8Bit().constData());
        else
            ok = false, std::fprintf(stderr, "error: %s\n", error.c_str());
    }
    if (!htmlPath.isEmpty()) {
        if (saveTextFile(htmlPath.toStdString(), writeReportHtml(report), &error))
            std::printf("HTML report: %s\n",
                        QFileInfo(htmlPath).absoluteFilePath().toLocal8Bit().constData());
        else
            ok = false, std::fprintf(stderr, "error: %s\n", error.c_str());
    }
    if (!tracePath.isEmpty()) {
        if (saveTextFile(tracePath.toStdString(), writeChromeTrace(report), &error))
            std::printf("Chrome trace: %s\n",
                        QFileInfo(tracePath).absoluteFilePath().toLocal8Bit().constData());
        else
            ok = false, std::fprintf(stderr, "error: %s\n", error.c_str());
    }
    std::fflush(stdout);
    return ok;
}

constexpr const char* kCompareSettings = "eager,default,reduce-overhead,max-autotune";

enum class RunKind { Run, Compare, Scale, WarmStart };

int runCommand(QCoreApplication& app, const QStringList& arguments, RunKind kind) {
    const bool compare = kind != RunKind::Run; // per-setting lines as each finishes
    const bool scale = kind == RunKind::Scale;
    const bool warmStart = kind == RunKind::WarmStart;
    QCommandLineParser parser;
    parser.addPositionalArgument("command", "run, compare, scale or warmstart");
    parser.addPositionalArgument("model", "model spec");
    const QCommandLineOption settings("settings", "comma-separated modes", "list",
                                      kind == RunKind::Compare ? kCompareSettings
                                                               : "eager,default");
    const QCommandLineOption device("device", "auto, cpu or cuda", "device", "auto");
    // A walk measures every size: fewer calls per size by default.
    const QCommandLineOption warmup("warmup", "warmup calls, including the compiling one", "n",
                                    scale ? "3" : "5");
    const QCommandLineOption iters("iters", "measured calls", "n", scale ? "30" : "100");
    const QCommandLineOption json("json", "write the JSON report here", "path");
    const QCommandLineOption html("html", "write the HTML report here", "path");
    const QCommandLineOption trace("trace", "write a Chrome trace (Perfetto) here", "path");
    const QCommandLineOption python("python", "Python interpreter for the probe", "path");
    const QCommandLineOption backend("backend", "inductor, aot_eager or eager", "name", "inductor");
    const QCommandLineOption dynamic("dynamic", "auto, true or false", "value", "auto");
    const QCommandLineOption fullgraph("fullgraph", "fail on the first graph break");
    const QCommandLineOption autocast("autocast", "none, bf16 or fp16", "dtype", "none");
    // The sweep runs by default when the model defines get_input_sweep(): its
    // author wants it. --sweep is the default, kept for scripts that pass it.
    const QCommandLineOption sweep("sweep", "run get_input_sweep() after measuring (the default)");
    const QCommandLineOption noSweep("no-sweep", "skip the model's get_input_sweep()");
    const QCommandLineOption warmCache("warm-cache",
                                       "keep torch's compile caches (a second start)");
    const QCommandLineOption exportStrict("export-strict",
                                          "aoti: torch.export with strict=True (Dynamo tracing)");
    const QCommandLineOption timeout("timeout", "seconds per setting before it is stopped", "s",
                                     QString::number(kDefaultProbeTimeoutSeconds));
    const QCommandLineOption noCupti("no-cupti", "do not start the CUPTI collector");
    const QCommandLineOption noCode(
        "no-code",
        "keep Inductor's generated code out of the report (kernel names and lines stay)");
    const QCommandLineOption profileCalls(
        "profile-calls", "calls in the profiled kernel window after measuring (0: none)", "n");
    const QCommandLineOption threads("threads", "torch.set_num_threads in the probe", "n");
    const QCommandLineOption torchTrace(
        "torch-trace", "torch writes its structured trace (TORCH_TRACE) into this directory",
        "dir");
    const QCommandLineOption dropUnsettled(
        "drop-unsettled", "leave measured calls still warming up out of the statistics");
    const QCommandLineOption expectedCalls(
        "expected-calls", "calls the program makes per start (advice: warmup pay-back)", "n",
        QString::number(AdviceOptions{}.expectedCalls));
    const QCommandLineOption memoryFraction("memory-fraction",
                                            "advice: flag peak memory this fraction above eager's",
                                            "f", QString::number(AdviceOptions{}.memoryFraction));
    parser.addOptions({settings, device, warmup, iters, json, html, python, backend, dynamic,
                       fullgraph, autocast, sweep, noSweep, warmCache, timeout, noCupti, trace});
    parser.addOptions(
        {expectedCalls, memoryFraction, threads, dropUnsettled, torchTrace, exportStrict});
    const QCommandLineOption env("env", "set NAME=VALUE in every probe's environment (repeatable)",
                                 "NAME=VALUE");
    const QCommandLineOption repeat(
        "repeat", "probes per setting, in interleaved rounds (speedups judged over all)", "n", "1");
    parser.addOptions({noCode, profileCalls, env});
    if (!scale && !warmStart)
        parser.addOption(repeat);
    const QCommandLineOption target("target",
                                    "run on this SSH host: ssh://[user@]host[:port] or a Host "
                                    "of ~/.ssh/config (--python is a path there)",
                                    "ssh://host");
    const QCommandLineOption sshConfig("ssh-config", "ssh client config file (ssh -F)", "file");
    const QCommandLineOption modelOn(
        "model-on",
        "with --target: auto (a file that exists here is copied), local or remote (a path there)",
        "where", "auto");
    parser.addOptions({target, sshConfig, modelOn});
    const QCommandLineOption batchSizes(
        "batch-sizes", "scale: ascending sizes (1,4,16) or auto (doubling)", "list");
    const QCommandLineOption budget("budget-s", "scale auto: time budget per setting", "s", "300");
    const QCommandLineOption memoryCap(
        "memory-cap-mb", "scale on CPU: host-memory cap (default 80% of free RAM)", "MiB", "0");
    if (scale)
        parser.addOptions({batchSizes, budget, memoryCap});
    if (!parser.parse(arguments))
        return usageAfterParse(parser.errorText(), arguments);
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2)
        return usageAfterParse("run needs exactly one MODEL", arguments);

    Setting base;
    bool numbersOk = true, ok = false;
    base.device = parser.value(device).toStdString();
    base.backend = parser.value(backend).toStdString();
    base.dynamic = parser.value(dynamic).toStdString();
    base.autocast = parser.value(autocast).toStdString();
    base.fullgraph = parser.isSet(fullgraph);
    base.sweep = !parser.isSet(noSweep);
    base.strictExport = parser.isSet(exportStrict);
    base.start = parser.isSet(warmCache) ? kStartWarmCache : kStartFresh;
    base.warmup = parser.value(warmup).toInt(&ok);
    numbersOk &= ok;
    base.iters = parser.value(iters).toInt(&ok);
    numbersOk &= ok;
    const int timeoutSeconds = parser.value(timeout).toInt(&ok);
    numbersOk &= ok && timeoutSeconds > 0;
    if (parser.isSet(threads)) {
        base.threads = parser.value(threads).toInt(&ok);
        if (!ok || base.threads <= 0)
            return usage("--threads takes a whole number above 0");
    }
    if (!numbersOk)
        return usage("--warmup, --iters and --timeout take whole numbers");
    AdviceOptions adviceOptions;
    adviceOptions.expectedCalls = parser.value(expectedCalls).toInt(&ok);
    if (!ok || adviceOptions.expectedCalls <= 0)
        return usage("--expected-calls takes a whole number above 0");
    adviceOptions.memoryFraction = parser.value(memoryFraction).toDouble(&ok);
    if (!ok || adviceOptions.memoryFraction < 0)
        return usage("--memory-fraction takes a number of 0 or more (0.25 = 25% above eager)");

    SessionRequest request;
    if (auto problem =
            parseSettingsList(parser.value(settings).toStdString(), base, request.settings))
        return usage(QString::fromStdString(*problem));
    if (warmStart) {
        if (parser.isSet(warmCache))
            return usage("warmstart measures the warm cache itself: leave out --warm-cache");
        request.settings = warmStartSettings(request.settings);
        for (auto& s : request.settings)
            s.sweep = false; // other shapes would add compiles to what the artifacts carry
    }
    const QString& model = positional[1];
    const bool isFile = !model.startsWith("torchvision:");
    if (parser.isSet(target)) {
        std::string why;
        request.target = parseSshTarget(parser.value(target).toStdString(), &why);
        if (!request.target)
            return usage("--target: " + QString::fromStdString(why));
        request.remote.configFile = parser.value(sshConfig).toStdString();
        if (!request.remote.configFile.empty() && !QFileInfo::exists(parser.value(sshConfig)))
            return usage("--ssh-config: no such file: " + parser.value(sshConfig));
        const QString on = parser.value(modelOn);
        if (on == "local")
            request.placement = ModelPlacement::Local;
        else if (on == "remote")
            request.placement = ModelPlacement::Remote;
        else if (on != "auto")
            return usage("--model-on takes auto, local or remote");
    } else if (parser.isSet(sshConfig) || parser.isSet(modelOn)) {
        return usage("--ssh-config and --model-on go with --target");
    }
    const ModelSource source = request.target
                                   ? classifyModelSpec(model.toStdString(), request.placement)
                                   : ModelSource::LocalFile;
    if (isFile && source == ModelSource::LocalFile && !QFileInfo::exists(model))
        return usage("model file not found: " + model);
    request.modelSpec = isFile && source == ModelSource::LocalFile
                            ? QFileInfo(model).absoluteFilePath().toStdString()
                            : model.toStdString();
    request.timeoutSeconds = timeoutSeconds;
    if (!scale && !warmStart && parser.isSet(repeat)) {
        request.repeat = parser.value(repeat).toInt(&ok);
        if (!ok || request.repeat < 1 || request.repeat > kMaxRepeat)
            return usage(
                QStringLiteral("--repeat takes a whole number from 1 to %1").arg(kMaxRepeat));
    }
    // On a host, python3 from its PATH unless told; here, the project's own.
    request.probe.python = parser.isSet(python) ? parser.value(python).toStdString()
                           : request.target     ? std::string("python3")
                                                : defaultPython();
    request.probe.probeRoot = probeRoot();
    request.probe.cuptiLibrary = cuptiLibraryPath();
    // A local run only: a host builds its own runner from the probe's sources.
    if (!request.target)
        request.probe.aotiRunner = aotiRunnerPath();
    request.probe.cupti = !parser.isSet(noCupti);
    request.probe.keepCode = !parser.isSet(noCode);
    if (parser.isSet(profileCalls)) {
        request.probe.profileCalls = parser.value(profileCalls).toInt(&ok);
        if (!ok || request.probe.profileCalls < 0)
            return usage("--profile-calls takes a whole number, 0 or more");
    }
    for (const QString& assignment : parser.values(env)) {
        if (auto problem =
                addEnvironmentAssignment(assignment.toStdString(), request.probe.environment))
            return usage("--env: " + QString::fromStdString(*problem));
    }
    if (parser.isSet(torchTrace)) {
        const QString dir = parser.value(torchTrace);
        if (dir.isEmpty())
            return usage("--torch-trace takes a directory");
        // Absolute, so the probe's messages name the directory in full.
        request.probe.torchTraceDir = QFileInfo(dir).absoluteFilePath().toStdString();
    }
    if (scale) {
        if (!parser.isSet(batchSizes))
            return usage("scale needs --batch-sizes (e.g. 1,4,16 or auto)");
        request.probe.batchSizes = parser.value(batchSizes).toStdString();
        if (auto problem = checkBatchSizes(request.probe.batchSizes))
            return usage("--batch-sizes: " + QString::fromStdString(*problem));
        bool okBudget = false, okCap = false;
        request.probe.budgetSeconds = parser.value(budget).toDouble(&okBudget);
        request.probe.memoryCapMb = parser.value(memoryCap).toLongLong(&okCap);
        if (!okBudget || request.probe.budgetSeconds <= 0)
            return usage("--budget-s takes a number of seconds above 0");
        if (!okCap || request.probe.memoryCapMb < 0)
            return usage("--memory-cap-mb takes a whole number of MiB (0: 80% of free RAM)");
        for (auto& s : request.settings)
            s.sweep = false; // the walk is the sweep
    }
    if (request.probe.probeRoot.empty())
        return usage(
            "cannot find the probe package (compilescope_probe); is the install complete?");

    SessionRunner runner;
    cs::app::CliProgress progress(runner);
    // --warm-cache: the runner first compiles each setting once, unmeasured,
    // so the measured run starts as a second start of the user's program would.
    QObject::connect(&runner, &SessionRunner::primingFinished, [&](int index, const Run& primed) {
        progress.finishLine();
        const bool artifacts = primed.setting.cacheArtifacts();
        std::fprintf(stderr, "[%d/%zu] %s: %s (%s), first call %s\n", index + 1,
                     runner.report().runs.size(), primed.setting.label().c_str(),
                     artifacts ? "priming run to save portable cache artifacts"
                               : "compile cache primed",
                     toString(primed.status),
                     primed.firstCallNs >= 0
                         ? formatDuration(static_cast<double>(primed.firstCallNs)).c_str()
                         : "—");
    });
    QObject::connect(&runner, &SessionRunner::runUpdated, [&](int) { progress.update(); });
    QObject::connect(&runner, &SessionRunner::repeatFinished, [&](int index) {
        progress.finishLine();
        const Run& run = runner.report().runs[static_cast<size_t>(index)];
        const RepeatProbe& probe = run.repeats.back();
        std::string line = run.setting.label() + ", probe " + std::to_string(probe.round + 1) +
                           " of " + std::to_string(request.repeat) + ": " + toString(probe.status);
        if (const auto stats = computeStats(probe.latencyNs))
            line += ", median " + formatDuration(stats->median) + " over " +
                    std::to_string(stats->count) + " calls";
        if (!probe.error.empty())
            line += " — " + probe.error;
        std::fprintf(stderr, "[%d/%zu] %s\n", index + 1, runner.report().runs.size(), line.c_str());
    });
    QObject::connect(&runner, &SessionRunner::runStarted, [&](int index) {
        if (!compare)
            return;
        progress.finishLine();
        std::fprintf(stderr, "[%d/%zu] %s: starting a fresh probe\n", index + 1,
                     runner.report().runs.size(),
                     runner.report().runs[static_cast<size_t>(index)].setting.label().c_str());
    });
    QObject::connect(&runner, &SessionRunner::runFinished, [&](int index) {
        progress.finishLine();
        const Run& run = runner.report().runs[static_cast<size_t>(index)];
        if (run.error && run.error->kind == "remote")
            return; // the host was not readied: said once when the session ends
        if (!compare) {
            std::fprintf(stderr, "%s: %s\n", run.setting.label().c_str(), toString(run.status));
            return;
        }
        // Per-setting status as it finishes: what it measured, or why it stopped.
        const auto stats = computeStats(run.measuredLatencies());
        const auto warmup = analyzeWarmup(run);
        std::string line = run.setting.label() + ": " + toString(run.status);
        if (warmup.firstCallNs >= 0)
            line += ", first call " + formatDuration(static_cast<double>(warmup.firstCallNs));
        if (stats)
            line += ", median " + formatDuration(stats->median) + " over " +
                    std::to_string(stats->count) + " calls";
        if (const auto check = crosscheck(run)) {
            char diff[80];
            std::snprintf(diff, sizeof diff, ", cross-check %+.1f%%%s", 100 * check->difference(),
                          !check->judgeable()  ? " (too few blocks to judge)"
                          : check->disagrees() ? " (disturbed)"
                                               : "");
            line += diff;
        }
        if (run.scaling) {
            line += ", " + std::to_string(run.scaling->points.size()) + " batch size(s) measured";
            if (run.scaling->stop && run.scaling->stop->reason != "done")
                line += ", stopped: " + run.scaling->stop->reason;
        }
        if (run.error && run.status != RunStatus::Ok)
            line += " — " + run.error->message.substr(0, run.error->message.find('\n'));
        std::fprintf(stderr, "[%d/%zu] %s\n", index + 1, runner.report().runs.size(), line.c_str());
    });
    int exitCode = kExitOk;
    QObject::connect(&runner, &SessionRunner::sessionFinished, [&] {
        Report report = runner.report();
        // The host could not be readied: one message, not one per setting.
        if (!report.runs.empty() && report.runs.front().error &&
            report.runs.front().error->kind == "remote") {
            progress.finishLine();
            std::fprintf(stderr, "error: %s\n", report.runs.front().error->message.c_str());
        }
        report.adviceOptions = adviceOptions;
        if (parser.isSet(dropUnsettled)) {
            const int dropped = setDropUnsettled(report, true);
            std::fprintf(stderr, "--drop-unsettled: %d measured call(s) left out as unsettled\n",
                         dropped);
        }
        if (scale)
            std::printf("\n%s", scalingTable(report).c_str());
        else if (warmStart)
            std::printf("\n%s", warmStartText(report).c_str());
        else if (compare) // the table is what compare produces: stdout, so it can be piped
            std::printf("\n%s", comparisonTable(compareRuns(report)).c_str());
        else
            printSummary(report);
        printSweeps(report);
        printAdvice(report);
        const bool allOk = std::all_of(report.runs.begin(), report.runs.end(),
                                       [](const Run& r) { return r.status == RunStatus::Ok; });
        const bool written =
            writeOutputs(report, parser.value(json), parser.value(html), parser.value(trace));
        exitCode = allOk && written ? kExitOk : kExitSomeFailed;
        app.exit(exitCode);
    });
    QTimer interruptPoll;
    QObject::connect(&interruptPoll, &QTimer::timeout, [&] {
        if (interrupted.exchange(false)) {
            std::fprintf(stderr, "\ninterrupted: stopping the probe, keeping what was measured\n");
            runner.cancel();
        }
    });
    interruptPoll.start(100);
    // A reader that goes away (a closed pipe) must not kill the run: it ends and writes reports.
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGINT, [](int) { interrupted = true; });
    std::signal(SIGTERM, [](int) { interrupted = true; });

    if (request.target)
        std::fprintf(
            stderr, "compilescope: %s (%s) with %s on %s, %zu setting(s)\n",
            request.modelSpec.c_str(), describeModelSource(source, *request.target).c_str(),
            request.probe.python.c_str(), request.target->label().c_str(), request.settings.size());
    else
        std::fprintf(stderr, "compilescope: %s with %s, %zu setting(s)\n",
                     request.modelSpec.c_str(), request.probe.python.c_str(),
                     request.settings.size());
    if (request.repeat > 1)
        std::fprintf(stderr,
                     "%d probes per setting, in rounds: each setting once, then each again\n",
                     request.repeat);
    if (!request.probe.environment.empty())
        std::fprintf(stderr, "probe environment: %s\n",
                     environmentText(request.probe.environment).c_str());
    // A remote probe inherits the host's login environment, not this shell's.
    if (!request.target) {
        const auto notable = notableVariables(processEnvironment(), request.probe.environment);
        if (!notable.empty())
            std::fprintf(stderr, "%s: the probes inherit from this shell: %s\n",
                         std::any_of(notable.begin(), notable.end(), voidsMeasurement) ? "warning"
                                                                                       : "note",
                         notableVariablesText(notable).c_str());
    }
    QTimer::singleShot(0, [&] { runner.start(request); });
    return app.exec();
}

// Reads a report for a command; prints why not to stderr.
std::optional<Report> readForCommand(const QString& path) {
    auto result = readReportFile(path.toStdString());
    if (!result.ok) {
        std::fprintf(stderr, "error: %s\n", result.error.c_str());
        return std::nullopt;
    }
    for (const auto& warning : result.warnings)
        std::fprintf(stderr, "note: %s\n", warning.c_str());
    return std::move(result.report);
}

int diffCommand(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.addPositionalArgument("command", "diff");
    parser.addPositionalArgument("a", "the baseline report (.json)");
    parser.addPositionalArgument("b", "the report to check against it (.json)");
    const QCommandLineOption threshold("threshold", "percent worse that counts as a regression",
                                       "pct", "10");
    parser.addOption(threshold);
    if (!parser.parse(arguments))
        return usageAfterParse(parser.errorText(), arguments);
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 3)
        return usageAfterParse("diff needs two reports: A.json B.json", arguments);
    bool ok = false;
    DiffOptions options;
    options.thresholdPercent = parser.value(threshold).toDouble(&ok);
    if (!ok || options.thresholdPercent < 0)
        return usage("--threshold takes a percentage (a number >= 0), e.g. --threshold 5");
    const auto a = readForCommand(positional[1]);
    const auto b = readForCommand(positional[2]);
    if (!a || !b)
        return kExitBadArguments;
    const ReportDiff diff = diffReports(*a, *b, options);
    std::fputs(
        formatDiffText(diff, positional[1].toStdString(), positional[2].toStdString()).c_str(),
        stdout);
    std::fflush(stdout);
    return diff.regressionCount() > 0 ? kExitRegression : kExitOk;
}

int htmlCommand(const QStringList& arguments) {
    if (arguments.size() != 4)
        return usageAfterParse("html needs a report and an output path: REPORT.json OUT.html",
                               arguments);
    const auto report = readForCommand(arguments[2]);
    if (!report)
        return kExitBadArguments;
    std::string error;
    if (!saveTextFile(arguments[3].toStdString(), writeReportHtml(*report), &error)) {
        std::fprintf(stderr, "error: %s\n", error.c_str());
        return kExitBadArguments;
    }
    std::printf("HTML report: %s\n",
                QFileInfo(arguments[3]).absoluteFilePath().toLocal8Bit().constData());
    return kExitOk;
}

int costsCommand(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.addPositionalArgument("command", "costs");
    parser.addPositionalArgument("report", "a JSON report");
    const QCommandLineOption setting(
        "setting", "only this setting: its number (1, 2, ... in the report's order) or its label",
        "n");
    parser.addOption(setting);
    if (!parser.parse(arguments))
        return usageAfterParse(parser.errorText(), arguments);
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2)
        return usageAfterParse("costs needs one report: REPORT.json", arguments);
    const auto report = readForCommand(positional[1]);
    if (!report)
        return kExitBadArguments;
    std::vector<size_t> runs;
    if (parser.isSet(setting)) {
        const QString wanted = parser.value(setting);
        bool ok = false;
        const int number = wanted.toInt(&ok);
        for (size_t i = 0; i < report->runs.size(); ++i) {
            if (ok ? static_cast<int>(i) + 1 == number
                   : report->runs[i].setting.label() == wanted.toStdString())
                runs.push_back(i);
        }
        if (runs.empty()) {
            std::string known;
            for (size_t i = 0; i < report->runs.size(); ++i)
                known += (i == 0 ? "" : ", ") + std::to_string(i + 1) + " " +
                         report->runs[i].setting.label();
            std::fprintf(stderr, "error: --setting %s is not in the report; it holds: %s\n",
                         wanted.toLocal8Bit().constData(),
                         known.empty() ? "no settings" : known.c_str());
            return kExitBadArguments;
        }
    } else {
        for (size_t i = 0; i < report->runs.size(); ++i)
            runs.push_back(i);
    }
    if (!hasCostBreakdown(*report))
        std::printf("This report has no profiled kernel window (docs/kernel-cost.md): it was "
                    "made with --profile-calls 0, by a compilescope before it profiled kernels, "
                    "or the window failed.\n");
    for (const size_t i : runs) {
        std::printf("%s== %zu %s ==\n", i == runs.front() ? "" : "\n", i + 1,
                    report->runs[i].setting.label().c_str());
        std::fputs(costText(report->runs[i]).c_str(), stdout);
    }
    std::fflush(stdout);
    return kExitOk;
}

// One line per imported rank: what the log holds.
void printImportSummary(const Report& report) {
    std::fprintf(stderr, "\n%-10s %8s %8s %10s %9s %12s %s\n", "run", "graphs", "breaks",
                 "recompiles", "compiles", "compile time", "cache hit/miss/bypass");
    for (const auto& run : report.runs) {
        double seconds = 0;
        for (const auto& c : run.compiles)
            seconds += c.seconds;
        int hit = 0;
        int miss = 0;
        int bypass = 0;
        for (const auto& lookup : run.cacheLookups) {
            hit += lookup.outcome == "hit";
            miss += lookup.outcome == "miss";
            bypass += lookup.outcome == "bypass";
        }
        std::fprintf(stderr, "%-10s %8zu %8zu %10zu %9zu %12s %d/%d/%d\n",
                     run.setting.label().c_str(), run.graphs.size(), run.graphBreaks.size(),
                     static_cast<size_t>(recompileCount(run)), run.compiles.size(),
                     formatDuration(seconds * 1e9).c_str(), hit, miss, bypass);
    }
}

int importCommand(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.addPositionalArgument("command", "import");
    parser.addPositionalArgument("path", "a TORCH_TRACE directory or one of its files");
    const QCommandLineOption job("job", "which run of a directory holding several (see --list)",
                                 "n", "0");
    const QCommandLineOption list("list", "list the runs the directory holds and stop");
    const QCommandLineOption json("json", "write the JSON report here", "path");
    const QCommandLineOption html("html", "write the HTML report here", "path");
    parser.addOptions({job, list, json, html});
    if (!parser.parse(arguments))
        return usageAfterParse(parser.errorText(), arguments);
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2)
        return usageAfterParse("import needs one TORCH_TRACE directory or file", arguments);
    bool ok = false;
    trace::ImportOptions options;
    options.job = parser.value(job).toInt(&ok);
    if (!ok || options.job < 0)
        return usage("--job takes a run number from --list (1, 2, ...)");
    const std::string path = positional[1].toStdString();
    if (parser.isSet(list)) {
        const trace::TraceListing listing = trace::listTrace(path);
        if (!listing.error.empty()) {
            std::fprintf(stderr, "error: %s\n", listing.error.c_str());
            return kExitBadArguments;
        }
        for (size_t i = 0; i < listing.jobs.size(); ++i)
            std::printf("%zu: %s, %s\n", i + 1, listing.jobs[i].label().c_str(),
                        formatBytes(static_cast<double>(listing.jobs[i].bytes())).c_str());
        return kExitOk;
    }
    std::signal(SIGINT, [](int) { interrupted = true; });
    options.cancel = &interrupted;
    trace::ImportResult result = trace::importTrace(path, options);
    if (result.cancelled) {
        std::fprintf(stderr, "interrupted: nothing written\n");
        return kExitSomeFailed;
    }
    if (!result.error.empty()) {
        std::fprintf(stderr, "error: %s\n", result.error.c_str());
        return kExitBadArguments;
    }
    for (const auto& warning : result.warnings)
        std::fprintf(stderr, "note: %s\n", warning.c_str());
    Report& report = result.report;
    report.generator = std::string("compilescope ") + COMPILESCOPE_VERSION;
    report.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    printImportSummary(report);
    printAdvice(report);
    const bool written = writeOutputs(report, parser.value(json), parser.value(html), {});
    const bool clean = std::all_of(report.runs.begin(), report.runs.end(),
                                   [](const Run& r) { return r.parseProblems.empty(); });
    return !written ? kExitSomeFailed : (clean ? kExitOk : kExitSomeFailed);
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("compilescope-cli");
    QCoreApplication::setApplicationVersion(COMPILESCOPE_VERSION);
    const QStringList arguments = app.arguments();
    if (arguments.size() < 2)
        return usage("no command given");
    if (asksForHelp(arguments)) {
        std::fputs(kUsage, stdout);
        return kExitOk;
    }
    const QString& command = arguments[1];
    if (command == "--version") {
        std::printf("compilescope-cli %s\n", COMPILESCOPE_VERSION);
        return kExitOk;
    }
    if (command == "run")
        return runCommand(app, arguments, RunKind::Run);
    if (command == "compare")
        return runCommand(app, arguments, RunKind::Compare);
    if (command == "scale")
        return runCommand(app, arguments, RunKind::Scale);
    if (command == "warmstart")
        return runCommand(app, arguments, RunKind::WarmStart);
    if (command == "diff")
        return diffCommand(arguments);
    if (command == "html")
        return htmlCommand(arguments);
    if (command == "import")
        return importCommand(arguments);
    if (command == "costs")
        return costsCommand(arguments);
    return usage("unknown command: " + command);
}
