#include "core/runner/probe_process.h"

#include <QDir>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include "core/runner/interpreter_check.h"
#include "core/runner/remote_run.h"
#include "core/runner/shell_quote.h"

#include <csignal>
#include <ctime>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

namespace cs::core {

namespace {

// Starts `argv` (program first) with its stdin empty: the ssh control commands.
void startArgv(QProcess& process, const std::vector<std::string>& argv) {
    process.setStandardInputFile(QProcess::nullDevice());
    QStringList args;
    for (size_t i = 1; i < argv.size(); ++i)
        args << QString::fromStdString(argv[i]);
    process.start(QString::fromStdString(argv.front()), args);
}

int64_t processCpuNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Head, a marker, tail: trimmed only when the middle has grown by another
// kConsoleKeepBytes, so a flood costs amortised constant work per byte.
void keepConsoleBounded(std::string& console) {
    constexpr size_t keep = ProbeProcess::kConsoleKeepBytes;
    if (console.size() <= 3 * keep)
        return;
    static const std::string marker =
        "\n[compilescope: console output left out here; the first and the last " +
        std::to_string(keep >> 20) + " MiB are kept]\n";
    std::string bounded = console.substr(0, keep) + marker;
    bounded.append(console, console.size() - keep, keep);
    console = std::move(bounded);
}

} // namespace

ProbeProcess::ProbeProcess(Run* run, ProbeLaunch launch, int timeoutSeconds, QObject* parent)
    : QObject(parent), run_(run), launch_(std::move(launch)), timeoutSeconds_(timeoutSeconds) {
    process_.setProcessChannelMode(QProcess::SeparateChannels);
    // Own process group, so cancel reaches the compiler workers torch forks;
    // and a probe whose app dies (killed, or SIGPIPE when its reader went away)
    // stops too instead of compiling on as an orphan.
    process_.setChildProcessModifier([] {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    });
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto& [key, value] : launch_.environment) {
        QString v = QString::fromStdString(value);
        if (key == "PYTHONPATH" && env.contains("PYTHONPATH") && !env.value("PYTHONPATH").isEmpty())
            v += ":" + env.value("PYTHONPATH"); // keep the user's own modules importable
        env.insert(QString::fromStdString(key), v);
    }
    if (!launch_.remote) {
        // The probe keeps its fresh compile cache and its work folders in here
        // (a remote probe's wrapper makes its own); removed after the probe,
        // which a probe killed by SIGKILL cannot do, whenever that happens.
        QTemporaryDir root(QDir::tempPath() + "/compilescope-run-XXXXXX");
        root.setAutoRemove(false);
        if (root.isValid()) {
            scratchRoot_ = root.path();
            env.insert(QStringLiteral("COMPILESCOPE_CACHE_ROOT"), scratchRoot_);
        }
    }
    process_.setProcessEnvironment(env);
    connect(&process_, &QProcess::readyReadStandardOutput, this, &ProbeProcess::readEvents);
    connect(&process_, &QProcess::readyReadStandardError, this, &ProbeProcess::readConsole);
    connect(&process_, &QProcess::finished, this, &ProbeProcess::onFinished);
    connect(&process_, &QProcess::errorOccurred, this, &ProbeProcess::onError);
    timeout_.setSingleShot(true);
    connect(&timeout_, &QTimer::timeout, this, [this] { stopWith(ProcessEnd::TimedOut); });
    killTimer_.setSingleShot(true);
    connect(&killTimer_, &QTimer::timeout, this, [this] {
        signalGroup(SIGKILL);
        if (launch_.remote) // then the local ssh, if the host did not answer
            QTimer::singleShot(kKillGraceMs, this, [this] {
                if (process_.state() != QProcess::NotRunning)
                    ::kill(static_cast<pid_t>(process_.processId()), SIGKILL);
            });
    });
}

ProbeProcess::~ProbeProcess() {
    if (process_.state() != QProcess::NotRunning) {
        if (launch_.remote && remotePid_ > 0)
            signalRemoteGroup(SIGKILL, true);
        if (pid_ <= 0)
            pid_ = process_.processId();
        if (pid_ > 0) {
            ::kill(static_cast<pid_t>(-pid_), SIGKILL);
            ::kill(static_cast<pid_t>(pid_), SIGKILL);
        }
        process_.waitForFinished(2000);
    }
    cleanUpAfterProbe();
}

void ProbeProcess::start() {
    run_->status = RunStatus::Running;
    QStringList args;
    for (const auto& a : launch_.arguments)
        args << QString::fromStdString(a);
    clock_.start();
    if (timeoutSeconds_ > 0)
        timeout_.start(timeoutSeconds_ * 1000);
    // A remote probe's stdin is its lifeline: kept open, never written; when
    // this end goes, the probe's group there ends itself.
    process_.start(QString::fromStdString(launch_.program), args,
                   launch_.remote ? QIODevice::ReadWrite : QIODevice::ReadOnly);
    // Kept past the end: the group is signalled once more when the probe is gone.
    pid_ = process_.processId();
}

bool ProbeProcess::isRunning() const {
    return process_.state() != QProcess::NotRunning;
}

void ProbeProcess::cancel() {
    stopWith(ProcessEnd::Cancelled);
}

void ProbeProcess::stopWith(ProcessEnd reason) {
    if (settled_ || stopReason_)
        return;
    stopReason_ = reason;
    if (process_.state() == QProcess::NotRunning) {
        settle(reason, -1, std::to_string(timeoutSeconds_));
        return;
    }
    signalGroup(SIGTERM);
    killTimer_.start(kKillGraceMs);
}

void ProbeProcess::signalGroup(int signal) {
    if (launch_.remote && remotePid_ > 0) {
        signalRemoteGroup(signal, false);
        return;
    }
    if (pid_ <= 0)
        pid_ = process_.processId();
    if (pid_ > 0) {
        ::kill(static_cast<pid_t>(-pid_), signal); // the group
        ::kill(static_cast<pid_t>(pid_), signal);  // in case setpgid had not run yet
    }
}

void ProbeProcess::signalRemoteGroup(int signal, bool wait) {
    const std::string name = signal == SIGKILL ? "KILL" : "TERM";
    const std::string pid = std::to_string(remotePid_);
    auto argv = launch_.remote->controlCommand;
    argv.push_back("kill -s " + name + " -- -" + pid + " 2>/dev/null; kill -s " + name + " " + pid +
                   " 2>/dev/null; true");
    auto* killer = new QProcess(this);
    connect(killer, &QProcess::finished, killer, &QObject::deleteLater);
    startArgv(*killer, argv);
    if (wait)
        killer->waitForFinished(2000);
}

bool ProbeProcess::sharedConnectionUp() const {
    const auto& argv = launch_.remote->checkCommand;
    if (argv.empty())
        return true;
    QProcess check;
    startArgv(check, argv);
    return !check.waitForFinished(3000) ||
           (check.exitStatus() == QProcess::NormalExit && check.exitCode() == 0);
}

std::string ProbeProcess::readConnectionLog() const {
    QFile file(QString::fromStdString(launch_.remote->connectionLog));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    if (file.size() > 65536)
        file.seek(file.size() - 65536);
    return file.readAll().toStdString();
}

// The remote wrapper's first stderr line is the probe's pid there.
void ProbeProcess::takeRemotePid(QByteArray& chunk) {
    if (!launch_.remote || remotePid_ > 0)
        return;
    remoteHead_ += chunk;
    chunk.clear();
    const QByteArray prefix = QByteArray::fromStdString(std::string(kRemotePidPrefix));
    const auto start = remoteHead_.indexOf(prefix);
    if (start < 0) {
        // Not there (yet): ssh's own messages come first; pass on whole lines.
        const auto newline = remoteHead_.lastIndexOf('\n');
        if (newline >= 0 && !prefix.startsWith(remoteHead_.mid(newline + 1))) {
            chunk = remoteHead_;
            remoteHead_.clear();
        } else if (newline >= 0) {
            chunk = remoteHead_.left(newline + 1);
            remoteHead_.remove(0, newline + 1);
        }
        return;
    }
    const auto end = remoteHead_.indexOf('\n', start);
    if (end < 0)
        return;
    remotePid_ = remoteHead_.mid(start + prefix.size(), end - start - prefix.size()).toLongLong();
    chunk = remoteHead_.left(start) + remoteHead_.mid(end + 1);
    remoteHead_.clear();
    if (stopReason_ && remotePid_ > 0) // cancelled before the pid was known
        signalRemoteGroup(SIGTERM, false);
}

void ProbeProcess::readEvents() {
    const QByteArray chunk = process_.readAllStandardOutput();
    if (chunk.isEmpty())
        return;
    for (const auto& item :
         parser_.feed(std::string_view(chunk.constData(), size_t(chunk.size())))) {
        applyStreamItem(*run_, item);
        noteMeasureEdge(item);
    }
    emit updated();
}

// The app's own CPU time between the measure phase's edges, as they arrive:
// what the app (parsing, drawing) took from the machine while the probe timed.
void ProbeProcess::noteMeasureEdge(const StreamItem& item) {
    if (!item.ok || item.event.value("type", "") != "phase" ||
        item.event.value("name", "") != "measure")
        return;
    if (item.event.value("edge", "") == "begin")
        measureCpuBeginNs_ = processCpuNs();
    else if (measureCpuBeginNs_ >= 0)
        run_->appCpuMeasureNs = processCpuNs() - measureCpuBeginNs_;
}

// A probe that ends normally removes its cache and its compiler workers end
// with it. One killed by SIGKILL (the OOM killer, a user's kill -9) or crashed
// can do neither: its group is ended here. Its scratch folder, which holds
// whatever cache and work folders it made, goes in every case.
void ProbeProcess::cleanUpAfterProbe() {
    if (launch_.remote)
        return; // the remote wrapper ends the group there; its cache is the host's
    const QString scratch = std::exchange(scratchRoot_, QString());
    if (!scratch.isEmpty())
        QDir(scratch).removeRecursively();
    if (pid_ > 0 && process_.state() == QProcess::NotRunning) {
        // Once, right after the end (the number may be reused later). SIGTERM
        // first: a compiler the probe ran (gcc) removes its temporary files on
        // it, not on SIGKILL, which follows for anything that ignores SIGTERM.
        const auto group = static_cast<pid_t>(-pid_);
        pid_ = 0;
        if (::kill(group, SIGTERM) == 0) // ESRCH: nothing was left
            QTimer::singleShot(kKillGraceMs, this, [group, scratch] {
                ::kill(group, SIGKILL);
                if (!scratch.isEmpty())
                    QDir(scratch).removeRecursively(); // what a worker wrote meanwhile
            });
    }
}

void ProbeProcess::readConsole() {
    QByteArray chunk = process_.readAllStandardError();
    takeRemotePid(chunk);
    if (chunk.isEmpty())
        return;
    if (launch_.remote) {
        sshTail_ += chunk.toStdString();
        if (sshTail_.size() > 8192)
            sshTail_.erase(0, sshTail_.size() - 4096);
    }
    const QString text = QString::fromUtf8(chunk);
    run_->console += text.toStdString();
    keepConsoleBounded(run_->console);
    emit consoleOutput(text);
}

void ProbeProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
    readEvents();
    readConsole();
    for (const auto& item : parser_.finish()) {
        applyStreamItem(*run_, item);
        noteMeasureEdge(item);
    }
    if (!remoteHead_.isEmpty()) { // a partial first line, never completed
        QByteArray rest = std::exchange(remoteHead_, {});
        run_->console += rest.toStdString();
        sshTail_ += rest.toStdString();
        emit consoleOutput(QString::fromUtf8(rest));
    }
    if (stopReason_) {
        settle(*stopReason_, exitCode, std::to_string(timeoutSeconds_));
        return;
    }
    // ssh's own failure is 255; a probe killed there ends quietly, a lost
    // connection makes ssh say so.
    if (launch_.remote && status == QProcess::NormalExit && exitCode == 255 && !run_->sawDone) {
        if (sshLostConnection(sshTail_) || !sharedConnectionUp()) {
            std::string said = lastSshLine(sshTail_);
            if (said.empty())
                said = lastSshLine(readConnectionLog());
            if (said.empty())
                said = "the connection closed";
            settle(ProcessEnd::Disconnected, exitCode,
                   "ssh to " + launch_.remote->target.label() + " said \"" + said + "\"");
            return;
        }
        if (!run_->sawHello) {
            std::string why = explainSshFailure(launch_.remote->target, exitCode, sshTail_);
            if (!why.empty()) {
                settle(ProcessEnd::Disconnected, exitCode, why);
                return;
            }
        }
        settle(ProcessEnd::Signalled, exitCode, "on " + launch_.remote->target.label());
        return;
    }
    if (status == QProcess::NormalExit && exitCode != 0 && !run_->sawHello && !launch_.remote) {
        if (auto old = localPythonTooOld())
            startProblem_ = ErrorInfo{"python_version", *old, ""};
    }
    if (status == QProcess::CrashExit)
        settle(ProcessEnd::Signalled, exitCode, "signal or crash");
    else
        settle(ProcessEnd::Exited, exitCode, {});
}

void ProbeProcess::onError(QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart)
        return;
    if (!launch_.remote) {
        const std::string why = interpreterStartProblem(launch_.program);
        if (!why.empty())
            startProblem_ =
                ErrorInfo{"probe_start", "Could not start the Python interpreter: " + why, ""};
    }
    settle(ProcessEnd::FailedToStart, -1, launch_.program);
}

std::optional<std::string> ProbeProcess::localPythonTooOld() const {
    QProcess version;
    version.setProcessChannelMode(QProcess::MergedChannels);
    version.setStandardInputFile(QProcess::nullDevice());
    version.start(QString::fromStdString(launch_.program), {"--version"});
    if (!version.waitForFinished(2000)) {
        version.kill();
        version.waitForFinished(1000);
        return std::nullopt;
    }
    return pythonTooOld(launch_.program, version.readAll().toStdString());
}

void ProbeProcess::settle(ProcessEnd end, int exitCode, const std::string& detail) {
    if (settled_)
        return;
    settled_ = true;
    timeout_.stop();
    killTimer_.stop();
    cleanUpAfterProbe();
    settleRun(*run_, end, exitCode, detail);
    if (startProblem_) {
        run_->status = RunStatus::Failed;
        run_->error = *startProblem_;
    }
    emit updated();
    emit finished();
}

} // namespace cs::core
