#include "core/runner/session_runner.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QThreadPool>

#include <algorithm>

#include "core/analysis/run_outcome.h"
#include "core/analysis/units.h"
#include "core/events/protocol_generated.h"
#include "core/report/text_lines.h"
#include "core/runner/app_paths.h"

namespace cs::core {

SessionRunner::SessionRunner(QObject* parent) : QObject(parent) {}

SessionRunner::~SessionRunner() = default;

void SessionRunner::start(const SessionRequest& request) {
    if (isRunning())
        return;
    request_ = request;
    report_ = Report{};
    report_.generator = std::string("compilescope ") + COMPILESCOPE_VERSION;
    report_.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    report_.model.spec = request.modelSpec;
    for (const auto& setting : request.settings) {
        Run run;
        run.setting = setting;
        report_.runs.push_back(std::move(run));
    }
    report_.environment.probeEnvironment = request.probe.environment;
    current_ = -1;
    round_ = 0;
    cancelling_ = false;
    if (request.target) {
        report_.environment.target = request.target->spec();
        startRemote();
        return;
    }
    remote_.reset();
    startNext();
}

void SessionRunner::startRemote() {
    const auto& target = *request_.target;
    const auto& o = request_.remote;
    // The same host with the same ssh options keeps its connection: one login.
    if (request_.host && request_.host->target() == target &&
        request_.host->options().configFile == o.configFile)
        remote_ = request_.host;
    if (!remote_ || !(remote_->target() == target) ||
        remote_->options().configFile != o.configFile ||
        remote_->options().sshProgram != o.sshProgram)
        remote_ = std::make_shared<RemoteHost>(target, o);
    RemotePrepareRequest prepare;
    prepare.modelSpec = request_.modelSpec;
    prepare.placement = request_.placement;
    prepare.python = request_.probe.python;
    prepare.localProbeRoot = probeRoot();
    prepare.localCuptiLibrary = cuptiLibraryPath();
    prepare.cuptiSourceDir = cuptiSourceDir();
    prepare.cupti = request_.probe.cupti;
    prepare.forceCupti = qEnvironmentVariable("COMPILESCOPE_REMOTE_CUPTI") == "force";
    preparing_ = true;
    prepareCancel_ = std::make_shared<std::atomic<bool>>(false);
    QPointer<SessionRunner> self(this);
    auto host = remote_;
    auto cancel = prepareCancel_;
    QThreadPool::globalInstance()->start([self, host, cancel, prepare] {
        RemotePlan plan;
        auto problem = prepareRemoteRun(*host, prepare, plan, cancel.get());
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, problem, plan] {
                if (self)
                    self->remoteReady(problem, plan);
            },
            Qt::QueuedConnection);
    });
}

void SessionRunner::remoteReady(const std::optional<std::string>& problem, const RemotePlan& plan) {
    preparing_ = false;
    if (cancelling_) {
        startNext(); // marks every run cancelled and ends the session
        return;
    }
    if (problem) {
        for (auto& run : report_.runs) {
            run.status = RunStatus::Failed;
            run.error = ErrorInfo{"remote", *problem, ""};
        }
        report_.deriveFromRuns();
        for (int i = 0; i < static_cast<int>(report_.runs.size()); ++i)
            emit runFinished(i);
        emit sessionFinished();
        return;
    }
    plan_ = plan;
    for (auto& run : report_.runs) {
        for (const auto& note : plan_.notes)
            run.logs.push_back({0, note.level, note.text});
    }
    startNext();
}

// Moves to the next round of --repeat when one is due and a setting can take
// it; false when the session is done.
bool SessionRunner::startNextRound() {
    if (cancelling_ || round_ + 1 >= request_.repeat ||
        std::none_of(report_.runs.begin(), report_.runs.end(), repeatable))
        return false;
    ++round_;
    current_ = -1;
    startNext();
    return true;
}

void SessionRunner::startNext() {
    ++current_;
    const int count = static_cast<int>(report_.runs.size());
    if (round_ > 0) {
        while (current_ < count && !repeatable(report_.runs[static_cast<size_t>(current_)]))
            ++current_;
    }
    if (!cancelling_ && current_ >= count && startNextRound())
        return;
    if (cancelling_ || current_ >= count) {
        for (auto& run : report_.runs) {
            if (run.status == RunStatus::Pending) {
                run.status = RunStatus::Cancelled;
                run.error = ErrorInfo{"cancelled", "Not started: the session was cancelled.", ""};
            }
        }
        current_ = -1;
        report_.deriveFromRuns();
        emit sessionFinished();
        return;
    }
    const int index = current_;
    if (round_ > 0) {
        startProbe(index, ProbeKind::Repeat);
        return;
    }
    emit runStarted(index);
    startProbe(index, needsPriming(report_.runs[static_cast<size_t>(index)].setting)
                          ? ProbeKind::Priming
                          : ProbeKind::Measured);
}

void SessionRunner::startProbe(int index, ProbeKind kind) {
    const bool priming = kind == ProbeKind::Priming;
    priming_ = priming;
    Run& measured = report_.runs[static_cast<size_t>(index)];
    Run* run = &measured;
    Setting setting = measured.setting;
    if (priming) {
        primeRun_ = Run{};
        primeRun_.setting = setting = primingSetting(setting);
        run = &primeRun_;
    } else if (kind == ProbeKind::Repeat) {
        repeatRun_ = Run{};
        repeatRun_.setting = setting = repeatSetting(setting);
        run = &repeatRun_;
    }
    const ProbeOptions options = kind == ProbeKind::Repeat
                                     ? repeatOptions(request_.probe)
                                     : probeOptions(measured.setting, priming);
    if (!options.keepCode && kind == ProbeKind::Measured)
        measured.codeOmitted = "left out with --no-code";
    ProbeLaunch launch;
    if (request_.target && remote_) {
        remote_->connect(); // again only if it dropped; a failure shows in the probe's run
        launch = buildRemoteProbeLaunch(*remote_, plan_, setting, options);
    } else {
        launch = buildProbeLaunch(request_.modelSpec, setting, options);
    }
    process_ = std::make_unique<ProbeProcess>(run, std::move(launch), request_.timeoutSeconds);
    connect(process_.get(), &ProbeProcess::updated, this,
            [this, index] { emit runUpdated(index); });
    connect(process_.get(), &ProbeProcess::consoleOutput, this,
            [this, index](const QString& text) { emit consoleOutput(index, text); });
    connect(
        process_.get(), &ProbeProcess::finished, this,
        [this, index, kind] {
            // Delete the process object once its signal handlers have returned.
            process_.release()->deleteLater();
            if (kind == ProbeKind::Priming)
                primed(index);
            else if (kind == ProbeKind::Repeat)
                repeated(index);
            else
                finishRun(index);
        },
        Qt::QueuedConnection);
    process_->start();
}

// The probe options of one launch. A cache-artifacts setting's priming run
// saves torch's portable cache artifacts into a directory the runner owns and
// its measured run loads them; both start from a fresh compile cache.
ProbeOptions SessionRunner::probeOptions(const Setting& setting, bool priming) {
    ProbeOptions options = priming ? primingOptions(request_.probe) : request_.probe;
    if (!setting.cacheArtifacts() || !needsPriming(setting))
        return options;
    options.cacheDir.clear();
    if (priming) {
        artifactsDir_ =
            std::make_unique<QTemporaryDir>(QDir::tempPath() + "/compilescope-artifacts-XXXXXX");
        if (artifactsDir_->isValid())
            options.cacheArtifacts =
                "save:" + cacheArtifactsFile(artifactsDir_->path().toStdString());
    } else if (artifactsDir_ && artifactsDir_->isValid()) {
        options.cacheArtifacts = "load:" + cacheArtifactsFile(artifactsDir_->path().toStdString());
    }
    return options;
}

void SessionRunner::finishRun(int index) {
    artifactsDir_.reset(); // the measured run has loaded them
    noteRemoteHost(report_.runs[static_cast<size_t>(index)]);
    report_.deriveFromRuns();
    emit runFinished(index);
    startNext();
}

void SessionRunner::primed(int index) {
    priming_ = false;
    emit primingFinished(index, primeRun_);
    Run& run = report_.runs[static_cast<size_t>(index)];
    if (cancelling_) {
        run.status = RunStatus::Cancelled;
        run.error = ErrorInfo{
            "cancelled", "Cancelled while priming the compile cache: nothing was measured.", ""};
        finishRun(index);
        return;
    }
    const std::string took =
        primeRun_.firstCallNs >= 0
            ? ": its first call took " + formatDuration(static_cast<double>(primeRun_.firstCallNs))
            : std::string();
    if (run.setting.cacheArtifacts()) {
        if (auto problem = artifactsProblem()) {
            // Nothing to load: measuring would be a fresh compile under another name.
            run.status = RunStatus::Failed;
            run.error = ErrorInfo{"cache_artifacts", *problem, ""};
            finishRun(index);
            return;
        }
        const auto& saved = *primeRun_.cacheArtifacts;
        run.logs.push_back({0, "info",
                            "portable cache artifacts (" +
                                formatBytes(static_cast<double>(saved.bytes)) +
                                ") saved by an unmeasured run (" +
                                std::string(toString(primeRun_.status)) + ")" + took});
        startProbe(index, ProbeKind::Measured);
        return;
    }
    // The measured run says how its cache was warmed; a priming run that failed
    // leaves the cache as it was, and the measured run meets the same failure itself.
    run.logs.push_back({0, "info",
                        "compile cache primed by an unmeasured run (" +
                            std::string(toString(primeRun_.status)) + ")" + took});
    startProbe(index, ProbeKind::Measured);
}

void SessionRunner::repeated(int index) {
    noteRemoteHost(repeatRun_);
    RepeatProbe probe;
    probe.round = round_;
    probe.status = repeatRun_.status;
    probe.hostReference = repeatRun_.hostReference;
    if (repeatRun_.status == RunStatus::Ok)
        probe.latencyNs = repeatRun_.measuredLatencies();
    else if (repeatRun_.error)
        probe.error = repeatRun_.error->kind + ": " + firstLine(repeatRun_.error->message);
    report_.runs[static_cast<size_t>(index)].repeats.push_back(std::move(probe));
    emit repeatFinished(index);
    startNext();
}

// Why a cache-artifacts setting's priming run left nothing to load; nullopt when it saved some.
std::optional<std::string> SessionRunner::artifactsProblem() const {
    if (request_.target)
        return std::string("Portable cache artifacts are measured on this computer only: the "
                           "file the priming run saves would stay on ") +
               request_.target->label() + ".";
    const bool saved = primeRun_.cacheArtifacts && primeRun_.cacheArtifacts->bytes > 0 &&
                       artifactsDir_ && artifactsDir_->isValid() &&
                       QFileInfo::exists(QString::fromStdString(
                           cacheArtifactsFile(artifactsDir_->path().toStdString())));
    if (saved)
        return std::nullopt;
    std::string why = "The priming run saved no portable cache artifacts, so there was nothing "
                      "to load";
    if (primeRun_.error)
        why += ": it " + std::string(toString(primeRun_.status)) + " (" + primeRun_.error->kind +
               ": " + primeRun_.error->message + ")";
    else if (primeRun_.cacheArtifacts && !primeRun_.cacheArtifacts->message.empty())
        why += ": " + primeRun_.cacheArtifacts->message;
    else if (!artifactsDir_ || !artifactsDir_->isValid())
        why += ": no temporary directory could be made for them";
    else
        why += " (its status: " + std::string(toString(primeRun_.status)) + ")";
    return why + ".";
}

// A failure on a remote host says which host.
void SessionRunner::noteRemoteHost(Run& run) const {
    if (!request_.target || !run.error)
        return;
    const std::string host = request_.target->label();
    if (run.error->message.find(host) == std::string::npos)
        run.error->message += " (on " + host + ")";
}

void SessionRunner::cancel() {
    if (preparing_) {
        cancelling_ = true;
        prepareCancel_->store(true);
        return;
    }
    if (current_ < 0)
        return;
    cancelling_ = true;
    if (process_)
        process_->cancel();
}

bool needsPriming(const Setting& setting) {
    // Eager compiles nothing and aoti loads a package: neither has a compile cache to fill.
    return (setting.warmCache() || setting.cacheArtifacts()) && setting.mode != "eager" &&
           setting.mode != "aoti";
}

bool repeatable(const Run& run) {
    return run.status == RunStatus::Ok && !run.scaling && !run.measuredLatencies().empty();
}

Setting repeatSetting(Setting setting) {
    setting.sweep = false;
    return setting;
}

ProbeOptions repeatOptions(ProbeOptions options) {
    options.torchTraceDir.clear();
    options.profileCalls = 0;
    options.keepCode = false;
    options.cacheArtifacts.clear();
    options.batchSizes.clear();
    return options;
}

Setting primingSetting(Setting setting) {
    setting.warmup = 1;
    setting.iters = 1;
    setting.sweep = false;
    return setting;
}

ProbeOptions primingOptions(ProbeOptions options) {
    options.torchTraceDir.clear();
    // profileCalls stays: the kernel profile turns Inductor's
    // cpp.enable_kernel_profile on, which is part of the FX-graph cache key.
    // A priming run without it filled entries the measured run never hit
    // (DeBERTa: the warm start compiled its C++ again, 15.0 s → 11.8 s).
    return options;
}

std::string cacheArtifactsFile(const std::string& dir) {
    return dir + "/cache_artifacts.bin";
}

namespace {

// What the probe does after a phase ends and before the next begins; a bare
// "running" there printed a line of noise between every two phases.
std::string betweenPhases(const std::string& lastEnded) {
    if (lastEnded == "load")
        return "preparing the first call";
    if (lastEnded == "compile")
        return "after the first call";
    if (lastEnded == "warmup")
        return "after warmup";
    if (lastEnded == "measure")
        return "after measuring";
    if (lastEnded == "crosscheck")
        return "after the cross-check";
    if (lastEnded == "outputs")
        return "after comparing the outputs";
    if (lastEnded == "export")
        return "after torch.export";
    if (lastEnded == "package")
        return "after packaging, starting the C++ runner";
    return "finishing the run (after " + lastEnded + ")";
}

// Milliseconds since the open scale phase began: the probe's clock is not
// ours, so the phase's start is placed by its offset from the probe's first
// event (hello, sent as it starts).
int64_t walkElapsedMs(const Run& run, const PhaseSpan& scale, int64_t elapsedMs) {
    if (run.firstEventNs < 0 || scale.beginNs < run.firstEventNs)
        return 0;
    return std::max<int64_t>(0, elapsedMs - (scale.beginNs - run.firstEventNs) / 1'000'000);
}

// ", compiling (tracing)" while torch compiles after the first call (a new
// size, or a frame first reached now): the probe sends the stage, and "" when
// the frame's compile ends. aoti's stages are its package's and runner's
// build, done before its calls.
std::string compilingNow(const Run& run) {
    if (run.compileStage.empty() || run.setting.mode == "aoti" || run.setting.mode == "eager")
        return {};
    return ", compiling (" + run.compileStage + ")";
}

// "input sweep 3/5: inputs [2, 3, 112, 112], 2 recompiles so far": each new
// size can recompile, and a bare "input sweep" for twelve minutes (swin_t's
// second size compiling with symbolic shapes) looked hung.
std::string sweepProgress(const Run& run) {
    std::string text = "input sweep";
    if (const std::string item = lastSweepItem(run); !item.empty())
        text += " " + item;
    const auto recompiles = std::count_if(run.recompiles.begin(), run.recompiles.end(),
                                          [](const Recompile& r) { return r.phase == "sweep"; });
    if (recompiles > 0)
        text += ", " + std::to_string(recompiles) +
                (recompiles == 1 ? " recompile" : " recompiles") + " so far";
    return text + compilingNow(run);
}

// "batch-size walk: batch 8 (size 3 of 4), 2 measured, compiling (tracing)":
// each size compiles anew for its shape (dynamic=False), and a count of the
// sizes done read as hung for as long as one size compiled.
std::string walkProgress(const Run& run) {
    std::string text = "batch-size walk: ";
    if (!run.scaling)
        return text + "planning";
    const Scaling& walk = *run.scaling;
    const size_t done = walk.points.size();
    const std::string measured = std::to_string(done) + " measured";
    if (walk.stop)
        return text + measured + ", ending (" + walk.stop->reason + ")";
    if (!walk.requested.empty()) {
        if (done >= walk.requested.size())
            return text + measured;
        text += "batch " + std::to_string(walk.requested[done]) + " (size " +
                std::to_string(done + 1) + " of " + std::to_string(walk.requested.size()) + ")";
    } else {
        // auto doubles from 1 (docs/measuring.md "Batch-size scaling").
        text += "batch " + std::to_string(done ? walk.points.back().batchSize * 2 : 1);
    }
    if (done)
        text += ", " + measured;
    // The budget, not the time spent: that is the progress bar's (a count
    // in the text would print a line a second to a log: app/cli_progress.cpp).
    if (walk.requested.empty() && walk.budgetSeconds > 0)
        text += " (budget " + formatDuration(walk.budgetSeconds * 1e9) + ")";
    return text + compilingNow(run);
}

} // namespace

std::optional<double> walkFraction(const Run& run, int64_t elapsedMs) {
    const PhaseSpan* open = run.openPhase();
    if (!run.scaling || !open || open->name != "scale")
        return std::nullopt;
    const Scaling& walk = *run.scaling;
    if (!walk.requested.empty())
        return static_cast<double>(walk.points.size()) / static_cast<double>(walk.requested.size());
    if (walk.budgetSeconds <= 0)
        return std::nullopt;
    // auto: the walk ends before the budget is spent (docs/measuring.md), or sooner
    // when memory runs out, so the budget is the most it can take.
    const double spent = static_cast<double>(walkElapsedMs(run, *open, elapsedMs)) / 1000.0;
    return std::min(0.99, spent / walk.budgetSeconds);
}

std::string describeProgress(const Run& run, int64_t elapsedMs) {
    if (run.finished())
        return toString(run.status);
    if (!run.sawHello)
        return "starting the interpreter";
    const PhaseSpan* open = run.openPhase();
    if (!open && run.phases.empty()) {
        // Between hello and the model's load the probe imports torch: on a
        // cold file system, or a network one, that alone can take a minute.
        if (elapsedMs < kSlowTorchImportMs)
            return "importing torch";
        return "still importing torch (a first import, or a slow or network file system, can "
               "take a minute; the time limit still applies)";
    }
    if (!open)
        return betweenPhases(run.phases.back().name);
    const auto warmupDone = static_cast<int>(run.warmupLatencies().size());
    const auto measured = static_cast<int>(run.measuredLatencies().size());
    if (open->name == "load")
        return "loading the model";
    if (open->name == "compile") {
        if (run.setting.mode == "eager")
            return "first call";
        // The runner's compile phase: the package was built before it started.
        if (run.setting.mode == "aoti")
            return "loading the package, first call";
        std::string text = run.compileStage.empty()
                               ? "compiling (first call)"
                               : "compiling (first call: " + run.compileStage + ")";
        if (elapsedMs > kLongCompileMs)
            // Not dynamic=True: symbolic shapes make a first compile longer
            // (torchvision's swin_t on CPU: 55 s static, unfinished after 25
            // minutes under dynamic=True).
            text += " — a long compile: try smaller inputs, --backend aot_eager (finds breaks "
                    "without codegen), or a longer --timeout";
        return text;
    }
    if (open->name == "warmup")
        return "warmup " + std::to_string(warmupDone) + "/" + std::to_string(run.setting.warmup) +
               compilingNow(run);
    if (open->name == "measure")
        return "measuring " + std::to_string(measured) + "/" + std::to_string(run.setting.iters) +
               compilingNow(run);
    if (open->name == "crosscheck")
        return "cross-checking the median with timed blocks of calls";
    if (open->name == "profile")
        return "profiling the kernels (the calls after the measured ones)";
    if (open->name == "outputs")
        return "comparing the outputs with eager's";
    if (open->name == "sweep")
        return sweepProgress(run);
    if (open->name == "scale")
        return walkProgress(run);
    return open->name;
}

QString SessionRunner::progressText() const {
    if (preparing_)
        return QStringLiteral("connecting to %1, copying the probe if it lacks this version")
            .arg(QString::fromStdString(request_.target->label()));
    if (current_ < 0)
        return {};
    const Run& run = report_.runs[static_cast<size_t>(current_)];
    const int64_t elapsed = currentElapsedMs();
    std::string where = priming_
                            ? "priming the compile cache, " + describeProgress(primeRun_, elapsed)
                        : round_ > 0 ? describeProgress(repeatRun_, elapsed)
                                     : describeProgress(run, elapsed);
    if (request_.repeat > 1)
        where = "probe " + std::to_string(round_ + 1) + " of " + std::to_string(request_.repeat) +
                ", " + where;
    return QStringLiteral("%1 (%2/%3) — %4")
        .arg(QString::fromStdString(run.setting.label()))
        .arg(current_ + 1)
        .arg(report_.runs.size())
        .arg(QString::fromStdString(where));
}

double SessionRunner::progressFraction() const {
    double total = 0;
    double done = 0;
    const int repeats = std::max(1, request_.repeat) - 1;
    for (size_t i = 0; i < report_.runs.size(); ++i) {
        const Run& run = report_.runs[i];
        const double calls = run.setting.warmup + run.setting.iters;
        // A run that failed is not probed again: its later rounds drop out.
        const bool again = !run.finished() || repeatable(run);
        total += calls * (1 + (again ? repeats : 0));
        const auto walked =
            static_cast<int>(i) == current_ ? walkFraction(run, currentElapsedMs()) : std::nullopt;
        done += run.finished() ? calls
                : walked       ? calls * *walked
                         : std::min<double>(calls, static_cast<double>(run.iterations.size()));
        done += calls * static_cast<double>(run.repeats.size());
        if (round_ > 0 && static_cast<int>(i) == current_)
            done += std::min<double>(calls, static_cast<double>(repeatRun_.iterations.size()));
    }
    return total > 0 ? done / total : 0;
}

} // namespace cs::core
