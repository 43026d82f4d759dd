#include "core/runner/remote_host.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <sstream>

#include "core/runner/interpreter_probe.h"
#include "core/runner/shell_quote.h"

namespace cs::core {

namespace {

// Idle time after which the shared connection closes itself: what is left
// behind if the app dies without closing it.
constexpr int kControlPersistSeconds = 300;
// A person may be typing a password or passphrase into the prompt.
constexpr int kPromptGraceMs = 180'000;

QStringList toQt(const std::vector<std::string>& words, size_t from = 0) {
    QStringList list;
    for (size_t i = from; i < words.size(); ++i)
        list << QString::fromStdString(words[i]);
    return list;
}

void applyEnvironment(QProcess& process,
                      const std::vector<std::pair<std::string, std::string>>& vars) {
    if (vars.empty())
        return;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto& [key, value] : vars)
        env.insert(QString::fromStdString(key), QString::fromStdString(value));
    process.setProcessEnvironment(env);
}

// The host's facts and interpreters: one round trip. $1: the query script,
// then extra interpreters to ask about first.
const char* const kDescribeScript = R"SH(
q=$1; extras=$2; shift 2
printf 'home=%s\n' "$HOME"
printf 'hostname=%s\n' "$(uname -n)"
printf 'arch=%s\n' "$(uname -m)"
printf 'glibc=%s\n' "$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')"
if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L 2>/dev/null | sed 's/^/gpu=/'; fi
seen='
'
for p in "$@" "$HOME/.venv/bin/python" "${VIRTUAL_ENV:+$VIRTUAL_ENV/bin/python}" \
  "${CONDA_PREFIX:+$CONDA_PREFIX/bin/python}" \
  "$HOME"/miniconda3/bin/python "$HOME"/miniconda3/envs/*/bin/python \
  "$HOME"/anaconda3/bin/python "$HOME"/anaconda3/envs/*/bin/python \
  "$HOME"/miniforge3/bin/python "$HOME"/miniforge3/envs/*/bin/python \
  "$HOME"/mambaforge/bin/python "$HOME"/mambaforge/envs/*/bin/python \
  "$(command -v python3 2>/dev/null)"; do
  [ -n "$p" ] || continue
  # Searched places (an unmatched glob, a missing env) only when they exist;
  # a path the user gave always, so they learn why it is unusable.
  if [ "$extras" -gt 0 ]; then extras=$((extras - 1)); elif [ ! -x "$p" ]; then continue; fi
  case "$seen" in *"
$p
"*) continue ;; esac
  seen="$seen$p
"
  printf 'python=%s\n' "$p"
  if [ ! -x "$p" ]; then printf 'pyexit=127\n'; continue; fi
  if command -v timeout >/dev/null 2>&1; then
    out=$(timeout 90 "$p" -c "$q" 2>/dev/null | tail -n 1); rc=$?
  else
    out=$("$p" -c "$q" 2>/dev/null | tail -n 1); rc=$?
  fi
  printf 'pyjson=%s\n' "$out"
  printf 'pyexit=%s\n' "$rc"
done
)SH";

} // namespace

std::string RemotePython::summary() const {
    if (!ok)
        return problem;
    std::string text = "python " + python;
    if (torch.empty())
        return text + ", no torch";
    text += ", torch " + torch;
    if (!cuda.empty())
        text += ", CUDA " + cuda;
    return text + ", " + (device == "cpu" ? std::string("CPU only") : device);
}

std::string RemoteDescription::summary() const {
    if (!connected)
        return problem;
    std::string text = "connected to " + (hostname.empty() ? std::string("the host") : hostname);
    if (!arch.empty())
        text += " (" + arch + ")";
    int withTorch = 0;
    const RemotePython* best = nullptr;
    for (const auto& p : pythons) {
        if (p.ok && !p.torch.empty()) {
            ++withTorch;
            if (!best)
                best = &p;
        }
    }
    if (pythons.empty())
        text += "; no Python found";
    else if (!best)
        text += "; " + std::to_string(pythons.size()) + " Python(s), none with torch";
    else
        text += "; " + std::to_string(withTorch) + " Python(s) with torch, e.g. " + best->path +
                ": " + best->summary();
    if (gpus.empty())
        text += "; no NVIDIA GPU (nvidia-smi -L lists none)";
    else
        text += "; " + std::to_string(gpus.size()) + " GPU(s): " + gpus.front() +
                (gpus.size() > 1 ? ", ..." : "");
    return text;
}

RemoteHost::RemoteHost(SshTarget target, RemoteOptions options)
    : target_(std::move(target)), options_(std::move(options)),
      // Short: a unix socket path has ~100 bytes, and %C is 40 of them.
      controlDir_(std::make_unique<QTemporaryDir>(QDir::tempPath() + "/cs-ssh-XXXXXX")) {
    controlPath_ = controlDir_->path().toStdString() + "/%C";
}

RemoteHost::~RemoteHost() {
    disconnect();
}

std::vector<std::string> RemoteHost::baseArguments() const {
    std::vector<std::string> args;
    if (!options_.configFile.empty())
        args.insert(args.end(), {"-F", options_.configFile});
    args.insert(args.end(),
                {"-o", "ControlPath=" + controlPath_, "-o", "ServerAliveInterval=5", "-o",
                 "ServerAliveCountMax=3", "-o",
                 "ConnectTimeout=" + std::to_string(options_.connectTimeoutSeconds), "-x", "-T"});
    if (target_.port > 0)
        args.insert(args.end(), {"-p", std::to_string(target_.port)});
    if (!target_.user.empty())
        args.insert(args.end(), {"-l", target_.user});
    return args;
}

std::vector<std::pair<std::string, std::string>> RemoteHost::environment() const {
    if (options_.askpass.empty())
        return {};
    return {{"SSH_ASKPASS", options_.askpass},
            {"SSH_ASKPASS_REQUIRE", "force"},
            {"COMPILESCOPE_ASKPASS", "1"}};
}

std::vector<std::string> RemoteHost::commandLine(const std::string& command) const {
    std::vector<std::string> argv{options_.sshProgram};
    for (auto& a : baseArguments())
        argv.push_back(std::move(a));
    // Never a connection of its own that outlives the command (its pipes
    // would stay open): without the shared one it connects just for this.
    argv.insert(argv.end(), {"-o", "ControlMaster=no", "--", target_.host, command});
    return argv;
}

std::vector<std::string> RemoteHost::checkCommandLine() const {
    std::vector<std::string> argv{options_.sshProgram};
    for (auto& a : baseArguments())
        argv.push_back(std::move(a));
    argv.insert(argv.end(), {"-O", "check", "--", target_.host});
    return argv;
}

std::string RemoteHost::connectionLog() const {
    return controlDir_->filePath("connect.err").toStdString();
}

bool RemoteHost::isConnected() const {
    std::lock_guard lock(mutex_);
    return connected_;
}

std::optional<std::string> RemoteHost::connect() {
    std::lock_guard lock(mutex_);
    if (!controlDir_->isValid())
        return "cannot make a private folder for the SSH connection in " +
               QDir::tempPath().toStdString();
    auto control = [this](const char* operation) {
        QProcess check;
        auto args = baseArguments();
        args.insert(args.end(), {"-O", operation, "--", target_.host});
        check.setStandardInputFile(QProcess::nullDevice());
        check.start(QString::fromStdString(options_.sshProgram), toQt(args));
        return check.waitForFinished(5000) && check.exitStatus() == QProcess::NormalExit &&
               check.exitCode() == 0;
    };
    if (connected_ && control("check"))
        return std::nullopt;
    connected_ = false;
    // -N -f: the master goes to the background once logged in, starting no
    // shell there, and serves later commands; its output goes to files, as it
    // keeps whatever it inherited.
    const QString errFile = controlDir_->filePath("connect.err");
    QProcess master;
    master.setStandardInputFile(QProcess::nullDevice());
    master.setStandardOutputFile(QProcess::nullDevice());
    master.setStandardErrorFile(errFile);
    applyEnvironment(master, environment());
    auto args = baseArguments();
    args.insert(args.end(), {"-o", "ControlMaster=auto", "-o",
                             "ControlPersist=" + std::to_string(kControlPersistSeconds), "-N", "-f",
                             "--", target_.host});
    master.start(QString::fromStdString(options_.sshProgram), toQt(args));
    if (!master.waitForStarted(5000))
        return "cannot start " + options_.sshProgram + ": is the OpenSSH client installed?";
    const bool done =
        master.waitForFinished(options_.connectTimeoutSeconds * 1000 + kPromptGraceMs);
    if (!done) {
        master.kill();
        master.waitForFinished(2000);
        return target_.label() + " did not finish the login in time";
    }
    QFile file(errFile);
    std::string err;
    if (file.open(QIODevice::ReadOnly))
        err = file.readAll().toStdString();
    if (master.exitStatus() != QProcess::NormalExit || master.exitCode() != 0) {
        std::string why = explainSshFailure(target_, 255, err);
        if (why.empty()) {
            why = "ssh to " + target_.label() + " failed (exit code " +
                  std::to_string(master.exitCode()) + ")";
            if (!err.empty())
                why += ": " + QString::fromStdString(err).trimmed().toStdString();
        }
        return why;
    }
    connected_ = true;
    return std::nullopt;
}

void RemoteHost::disconnect() {
    std::lock_guard lock(mutex_);
    if (!connected_)
        return;
    connected_ = false;
    QProcess exit;
    auto args = baseArguments();
    args.insert(args.end(), {"-O", "exit", "--", target_.host});
    exit.setStandardInputFile(QProcess::nullDevice());
    exit.start(QString::fromStdString(options_.sshProgram), toQt(args));
    exit.waitForFinished(5000);
}

RemoteCommandResult RemoteHost::run(const std::string& command, const QByteArray& input,
                                    int timeoutMs) const {
    RemoteCommandResult result;
    const auto argv = commandLine(command);
    QProcess process;
    applyEnvironment(process, environment());
    process.start(QString::fromStdString(argv.front()), toQt(argv, 1));
    if (!process.waitForStarted(5000)) {
        result.err = "cannot start " + argv.front();
        return result;
    }
    if (!input.isEmpty())
        process.write(input);
    process.closeWriteChannel(); // the command sees the end of its input
    if (!process.waitForFinished(timeoutMs)) {
        result.timedOut = true;
        process.kill();
        process.waitForFinished(2000);
    }
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError().toStdString();
    if (!result.timedOut)
        result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return result;
}

RemoteDescription RemoteHost::describe(const std::vector<std::string>& extraPythons) {
    RemoteDescription d;
    if (auto problem = connect()) {
        d.problem = *problem;
        return d;
    }
    std::vector<std::string> words{"sh",
                                   "-c",
                                   kDescribeScript,
                                   "sh",
                                   interpreterQueryScript(),
                                   std::to_string(extraPythons.size())};
    words.insert(words.end(), extraPythons.begin(), extraPythons.end());
    const auto result = run(shellJoin(words), {}, 10 * 60 * 1000);
    if (!result.ok()) {
        d.problem = explainSshFailure(target_, result.exitCode, result.err);
        if (d.problem.empty())
            d.problem = "the shell on " + target_.label() + " could not list what it has (exit " +
                        std::to_string(result.exitCode) + "): " + lastSshLine(result.err);
        return d;
    }
    d.connected = true;
    std::istringstream in(result.out.toStdString());
    std::string line;
    QByteArray pythonJson;
    while (std::getline(in, line)) {
        const auto eq = line.find('=');
        if (eq == std::string::npos)
            continue;
        const std::string key = line.substr(0, eq);
        const std::string value = line.substr(eq + 1);
        if (key == "home")
            d.home = value;
        else if (key == "hostname")
            d.hostname = value;
        else if (key == "arch")
            d.arch = value;
        else if (key == "glibc")
            d.glibc = value;
        else if (key == "gpu")
            d.gpus.push_back(value);
        else if (key == "python") {
            d.pythons.push_back({});
            d.pythons.back().path = value;
            pythonJson.clear();
        } else if (key == "pyjson")
            pythonJson = QByteArray::fromStdString(value);
        else if (key == "pyexit" && !d.pythons.empty()) {
            auto& p = d.pythons.back();
            const int code = std::atoi(value.c_str());
            if (code == 127 && pythonJson.isEmpty()) {
                p.problem =
                    p.path + " does not exist on " + target_.label() + " (or is not executable)";
                continue;
            }
            const auto parsed =
                parseInterpreterAnswer(QString::fromStdString(p.path), pythonJson, code);
            p.ok = parsed.ok;
            p.python = parsed.python.toStdString();
            p.torch = parsed.torch.toStdString();
            p.cuda = parsed.cuda.toStdString();
            p.device = parsed.device.toStdString();
            p.problem = parsed.problem.toStdString();
            if (!p.problem.empty())
                p.problem += " (on " + target_.label() + ")";
        }
    }
    return d;
}

std::optional<std::string> RemoteHost::readFile(const std::string& path, std::string* error,
                                                int64_t maxBytes) const {
    static const char* const kRead = R"SH(
f=$1; max=$2
[ -e "$f" ] || exit 3
[ -r "$f" ] || exit 4
size=$(wc -c < "$f")
[ "$size" -le "$max" ] || { printf '%s' "$size"; exit 5; }
exec cat -- "$f"
)SH";
    const auto result =
        run(shellJoin({"sh", "-c", kRead, "sh", path, std::to_string(maxBytes)}), {}, 60000);
    const std::string where = path + " on " + target_.label();
    std::string why;
    switch (result.exitCode) {
    case 0:
        return result.out.toStdString();
    case 3:
        why = where + " does not exist (moved or deleted since the run?)";
        break;
    case 4:
        why = "no permission to read " + where;
        break;
    case 5:
        why = where + " is " + result.out.toStdString() + " bytes, too big to show here";
        break;
    default:
        why = explainSshFailure(target_, result.exitCode, result.err);
        if (why.empty())
            why = "cannot read " + where + ": " + lastSshLine(result.err);
        if (result.timedOut)
            why = "reading " + where + " took too long";
    }
    if (error)
        *error = why;
    return std::nullopt;
}

} // namespace cs::core
