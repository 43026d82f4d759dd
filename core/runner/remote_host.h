// One SSH host the probes run on: the shared connection (OpenSSH's
// ControlMaster, its socket in a private directory) that serves every command
// of a session with one authentication, and blocking helpers that run a
// command there. Blocking on purpose: the CLI calls them in order, the GUI
// from a worker thread. QProcess is the only Qt used.
#pragma once

#include <QByteArray>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/runner/ssh_target.h"

class QTemporaryDir;

namespace cs::core {

struct RemoteOptions {
    std::string sshProgram = "ssh";
    std::string configFile; // ssh -F FILE; empty: the user's own ~/.ssh/config
    // SSH_ASKPASS program for password and passphrase prompts (the GUI's
    // dialog); empty: ssh asks on the terminal, if there is one.
    std::string askpass;
    int connectTimeoutSeconds = 15;
};

struct RemoteCommandResult {
    int exitCode = -1; // 255: ssh itself failed
    QByteArray out;
    std::string err;
    bool timedOut = false;
    bool ok() const { return exitCode == 0 && !timedOut; }
};

// One interpreter on the host, as the local picker describes its own.
struct RemotePython {
    std::string path;
    bool ok = false; // it ran
    std::string python, torch, cuda, device;
    std::string problem;
    std::string summary() const; // "python 3.11, torch 2.5.1, CUDA 12.4, NVIDIA H100"
};

// What "Test connection" reports.
struct RemoteDescription {
    bool connected = false; // reachable and authenticated
    std::string problem;    // why not, one line naming the host
    std::string hostname, arch, glibc, home;
    std::vector<std::string> gpus; // `nvidia-smi -L`, one per GPU
    std::vector<RemotePython> pythons;
    // One line: what works and what does not.
    std::string summary() const;
};

class RemoteHost {
  public:
    RemoteHost(SshTarget target, RemoteOptions options = {});
    ~RemoteHost(); // ends the shared connection
    RemoteHost(const RemoteHost&) = delete;
    RemoteHost& operator=(const RemoteHost&) = delete;

    const SshTarget& target() const { return target_; }
    const RemoteOptions& options() const { return options_; }

    // Opens the shared connection: the one authentication. nullopt when it is
    // up (also when it already was), else the problem (explainSshFailure).
    std::optional<std::string> connect();
    bool isConnected() const;
    // Ends the shared connection now (the destructor does it too).
    void disconnect();

    // Runs `command` (sh syntax: build it with shellJoin) on the host over the
    // shared connection, `input` on its stdin. Blocking, any thread.
    RemoteCommandResult run(const std::string& command, const QByteArray& input = {},
                            int timeoutMs = 60000) const;
    // ssh's argv, program first, that runs `command` over the shared
    // connection: for a QProcess the caller starts itself (the probe).
    std::vector<std::string> commandLine(const std::string& command) const;
    // ssh's argv asking whether the shared connection is still up (exit 0).
    std::vector<std::string> checkCommandLine() const;
    // Where the shared connection's ssh writes what it says (why it closed).
    std::string connectionLog() const;
    // Set in every ssh process started for this host (askpass).
    std::vector<std::pair<std::string, std::string>> environment() const;

    // Connects if needed, then what the host has: name, architecture, glibc,
    // GPUs, and the interpreters found the way the local picker finds them
    // (plus `extraPythons`), each asked for its torch.
    RemoteDescription describe(const std::vector<std::string>& extraPythons = {});

    // A text file on the host (the source view, file:line links). nullopt and
    // `error` (naming host and path) when it cannot be read or is over maxBytes.
    std::optional<std::string> readFile(const std::string& path, std::string* error,
                                        int64_t maxBytes = int64_t{8} * 1024 * 1024) const;

  private:
    std::vector<std::string> baseArguments() const;

    SshTarget target_;
    RemoteOptions options_;
    std::unique_ptr<QTemporaryDir> controlDir_;
    std::string controlPath_;
    mutable std::mutex mutex_;
    bool connected_ = false;
};

} // namespace cs::core
