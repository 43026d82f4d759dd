// Runs a model under several settings, one fresh probe process after another,
// and keeps the report they build. Shared by the GUI and the CLI.
#pragma once

#include <QObject>
#include <QString>
#include <QTemporaryDir>

#include <atomic>
#include <memory>
#include <optional>

#include "core/report/session.h"
#include "core/runner/probe_command.h"
#include "core/runner/probe_process.h"
#include "core/runner/remote_run.h"

namespace cs::core {

// A probe still running after this long is stopped (per probe, --timeout).
inline constexpr int kDefaultProbeTimeoutSeconds = 900;

struct SessionRequest {
    std::string modelSpec;
    std::vector<Setting> settings;
    ProbeOptions probe;
    int timeoutSeconds = kDefaultProbeTimeoutSeconds;
    // Probes per setting (--repeat): after every setting's first, each that
    // measured is probed again, round by round, so that the rounds interleave
    // and a change in the machine falls on every setting alike.
    int repeat = 1;
    // Set: every setting runs on this SSH host (probe.python is a path there).
    std::optional<SshTarget> target;
    RemoteOptions remote;
    ModelPlacement placement = ModelPlacement::Auto;
    // A connection already open to `target` (the GUI's Test connection): used
    // instead of a new one, so one login serves both. Optional.
    std::shared_ptr<RemoteHost> host;
};

class SessionRunner : public QObject {
    Q_OBJECT
  public:
    explicit SessionRunner(QObject* parent = nullptr);
    ~SessionRunner() override;

    // Starts a new session; the previous report is replaced.
    void start(const SessionRequest& request);
    // Stops the running probe; finished runs are kept, unstarted ones marked cancelled.
    void cancel();
    bool isRunning() const { return current_ >= 0 || preparing_; }

    // The host of the last remote session, connection kept for the next one
    // and for reading its source files; null after a local session.
    std::shared_ptr<RemoteHost> remoteHost() const { return remote_; }

    const Report& report() const { return report_; }
    Report& report() { return report_; }
    qint64 currentElapsedMs() const { return process_ ? process_->elapsedMs() : 0; }

    // True while the current setting's unmeasured priming run is going (warm cache).
    bool isPriming() const { return priming_; }

    // The round of probes going on: 0 the first, 1 the first repeat (--repeat).
    int round() const { return round_; }

    // One line saying where the session is: setting k of n, phase, iteration.
    QString progressText() const;
    // 0..1 over the whole session, from iterations done.
    double progressFraction() const;

  signals:
    void runStarted(int index);
    // A warm-cache setting's unmeasured run that fills torch's compile cache
    // before the measured one; `primed` is that run.
    void primingFinished(int index, const cs::core::Run& primed);
    void runUpdated(int index);
    void runFinished(int index);
    // A repeat probe of run `index` ended; Run::repeats holds it (--repeat).
    void repeatFinished(int index);
    void consoleOutput(int index, const QString& text);
    void sessionFinished();

  private:
    void startRemote();
    void remoteReady(const std::optional<std::string>& problem, const RemotePlan& plan);
    void startNext();
    void noteRemoteHost(Run& run) const;
    enum class ProbeKind { Priming, Measured, Repeat };
    void startProbe(int index, ProbeKind kind);
    void primed(int index);
    void repeated(int index);
    bool startNextRound();
    ProbeOptions probeOptions(const Setting& setting, bool priming);
    void finishRun(int index);
    std::optional<std::string> artifactsProblem() const;

    SessionRequest request_;
    Report report_;
    int current_ = -1;
    std::unique_ptr<ProbeProcess> process_;
    bool cancelling_ = false;
    bool priming_ = false;
    Run primeRun_;
    int round_ = 0;
    Run repeatRun_; // the repeat probe going on; its measured calls go to Run::repeats
    // Holds the portable cache artifacts a priming run saves for the measured
    // run to load; removed when that run ends.
    std::unique_ptr<QTemporaryDir> artifactsDir_;
    std::shared_ptr<RemoteHost> remote_;
    RemotePlan plan_;
    bool preparing_ = false; // connecting to the host and copying what it lacks
    std::shared_ptr<std::atomic<bool>> prepareCancel_;
};

// Whether a setting is first run once, unmeasured, to fill the compile cache:
// it asks for a warm cache and compiles (eager has nothing to cache).
bool needsPriming(const Setting& setting);
// Whether a finished run is probed again in the later rounds of --repeat: it
// measured calls, and is no batch-size walk.
bool repeatable(const Run& run);
// A repeat probe's setting and options: the same calls, timed the same way,
// without the sweep, the kernel profile, the trace or the code that only the
// first probe keeps.
Setting repeatSetting(Setting setting);
ProbeOptions repeatOptions(ProbeOptions options);
// The priming run's setting: one compiling call, nothing else.
Setting primingSetting(Setting setting);
// The priming run's probe options: no TORCH_TRACE log, so the trace files
// match the report's runs one for one.
ProbeOptions primingOptions(ProbeOptions options);
// The file a cache-artifacts setting's priming run saves into `dir` and its
// measured run loads.
std::string cacheArtifactsFile(const std::string& dir);

// The run's phase right now, in words ("compiling (first call: Inductor
// codegen)", "measuring 40/100"). Past kLongCompileMs of elapsedMs (the probe's
// age) in the first compile, it adds what the user can do about a long compile.
inline constexpr int64_t kLongCompileMs = 60'000;
// Past this, a probe still importing torch says "still importing torch".
inline constexpr int64_t kSlowTorchImportMs = 10'000;
std::string describeProgress(const Run& run, int64_t elapsedMs = 0);

// How much of a batch-size walk under way is done, for progress bars (a walk
// sends no call events): its sizes measured of those listed, or for auto its
// time against the budget; nullopt outside a walk.
std::optional<double> walkFraction(const Run& run, int64_t elapsedMs);

} // namespace cs::core
