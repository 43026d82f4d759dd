// Runs one probe process for one setting and fills a Run from its events as
// they arrive. The only Qt in core: QProcess is how we start children.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QTimer>

#include "core/analysis/run_outcome.h"
#include "core/events/event_parser.h"
#include "core/report/session.h"
#include "core/runner/probe_command.h"

namespace cs::core {

class ProbeProcess : public QObject {
    Q_OBJECT
  public:
    // `run` must outlive the process; the caller owns it.
    ProbeProcess(Run* run, ProbeLaunch launch, int timeoutSeconds, QObject* parent = nullptr);
    ~ProbeProcess() override;

    void start();
    // Ends the probe and its children (SIGTERM to the process group, then
    // SIGKILL after a grace period). The run is marked cancelled.
    void cancel();
    bool isRunning() const;
    qint64 elapsedMs() const { return clock_.isValid() ? clock_.elapsed() : 0; }

    static constexpr int kKillGraceMs = 800;
    // The run keeps the first and the last kConsoleKeepBytes of the probe's
    // stderr; what lies between (a model printing gigabytes) is left out, said so.
    static constexpr size_t kConsoleKeepBytes = size_t{8} << 20;

  signals:
    void updated(); // new events were applied to the run
    void consoleOutput(const QString& text);
    void finished(); // the run is settled

  private:
    void readEvents();
    void readConsole();
    void noteMeasureEdge(const StreamItem& item);
    // After the probe ended: what a probe killed by SIGKILL could not clean up
    // itself (its compiler workers, its fresh compile cache).
    void cleanUpAfterProbe();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void stopWith(ProcessEnd reason);
    void signalGroup(int signal);
    void settle(ProcessEnd end, int exitCode, const std::string& detail);
    // A local interpreter that exited before hello: is it a Python too old
    // for the probe (python2)? Asks it `--version`, a second at most.
    std::optional<std::string> localPythonTooOld() const;
    // A remote probe: its group is signalled there, over the shared connection.
    void signalRemoteGroup(int signal, bool wait);
    void takeRemotePid(QByteArray& chunk);
    bool sharedConnectionUp() const;
    std::string readConnectionLog() const;

    Run* run_;
    ProbeLaunch launch_;
    int timeoutSeconds_;
    QProcess process_;
    EventParser parser_;
    QTimer timeout_;
    QTimer killTimer_;
    QElapsedTimer clock_;
    qint64 pid_ = 0;
    std::optional<ProcessEnd> stopReason_;
    bool settled_ = false;
    // Replaces the error settleRun would write (a failed start, a Python 2).
    std::optional<ErrorInfo> startProblem_;
    int64_t measureCpuBeginNs_ = -1; // the app's CPU time when the measure phase began
    // A local probe's COMPILESCOPE_CACHE_ROOT: its fresh compile cache and work
    // folders, which it removes at its end; removed here too, with the folder,
    // for a probe that could not (SIGKILL, a crash).
    QString scratchRoot_;
    qint64 remotePid_ = 0;  // the probe's pid (and group) on its host
    QByteArray remoteHead_; // stderr before the pid line was complete
    std::string sshTail_;   // the end of stderr: what ssh said last
};

} // namespace cs::core
