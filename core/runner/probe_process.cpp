#include "core/runner/probe_process.h"

#include <QProcessEnvironment>

#include <csignal>
#include <ctime>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

namespace cs::core {

namespace {

int64_t processCpuNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
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
    process_.setProcessEnvironment(env);
    connect(&process_, &QProcess::readyReadStandardOutput, this, &ProbeProcess::readEvents);
    connect(&process_, &QProcess::readyReadStandardError, this, &ProbeProcess::readConsole);
    connect(&process_, &QProcess::finished, this, &ProbeProcess::onFinished);
    connect(&process_, &QProcess::errorOccurred, this, &ProbeProcess::onError);
    timeout_.setSingleShot(true);
    connect(&timeout_, &QTimer::timeout, this, [this] { stopWith(ProcessEnd::TimedOut); });
    killTimer_.setSingleShot(true);
    connect(&killTimer_, &QTimer::timeout, this, [this] { signalGroup(SIGKILL); });
}

ProbeProcess::~ProbeProcess() {
    if (process_.state() != QProcess::NotRunning) {
        signalGroup(SIGKILL);
        process_.waitForFinished(2000);
    }
}

void ProbeProcess::start() {
    run_->status = RunStatus::Running;
    QStringList args;
    for (const auto& a : launch_.arguments)
        args << QString::fromStdString(a);
    clock_.start();
    if (timeoutSeconds_ > 0)
        timeout_.start(timeoutSeconds_ * 1000);
    process_.start(QString::fromStdString(launch_.program), args, QIODevice::ReadOnly);
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
    if (pid_ <= 0)
        pid_ = process_.processId();
    if (pid_ > 0) {
        ::kill(static_cast<pid_t>(-pid_), signal); // the group
        ::kill(static_cast<pid_t>(pid_), signal);  // in case setpgid had not run yet
    }
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

void ProbeProcess::readConsole() {
    const QByteArray chunk = process_.readAllStandardError();
    if (chunk.isEmpty())
        return;
    const QString text = QString::fromUtf8(chunk);
    run_->console += text.toStdString();
    emit consoleOutput(text);
}

void ProbeProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
    readEvents();
    readConsole();
    for (const auto& item : parser_.finish()) {
        applyStreamItem(*run_, item);
        noteMeasureEdge(item);
    }
    if (stopReason_) {
        settle(*stopReason_, exitCode, std::to_string(timeoutSeconds_));
        return;
    }
    if (status == QProcess::CrashExit)
        settle(ProcessEnd::Signalled, exitCode, "signal or crash");
    else
        settle(ProcessEnd::Exited, exitCode, {});
}

void ProbeProcess::onError(QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
        settle(ProcessEnd::FailedToStart, -1, launch_.program);
}

void ProbeProcess::settle(ProcessEnd end, int exitCode, const std::string& detail) {
    if (settled_)
        return;
    settled_ = true;
    timeout_.stop();
    killTimer_.stop();
    settleRun(*run_, end, exitCode, detail);
    emit updated();
    emit finished();
}

} // namespace cs::core
