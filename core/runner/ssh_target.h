// Where a probe runs when it does not run here: an SSH destination, as the
// user writes it (ssh://[user@]host[:port], or a Host alias of ~/.ssh/config),
// and what the system's OpenSSH client said when it failed. Qt-free.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cs::core {

struct SshTarget {
    std::string user; // empty: ssh's own choice (config, then the local user)
    std::string host; // a name, an address or a Host alias
    int port = 0;     // 0: ssh's own choice
    // "ssh://user@host:port", the form the CLI and the report use.
    std::string spec() const;
    // "user@host:port" without the scheme, for messages.
    std::string label() const;
    bool operator==(const SshTarget&) const = default;
};

// Parses "ssh://[user@]host[:port]" (also a bare "[user@]host"); IPv6 in
// brackets. On bad input returns nullopt and says why in `error`.
std::optional<SshTarget> parseSshTarget(std::string_view text, std::string* error = nullptr);

// The concrete Host entries of an OpenSSH client config (patterns with * ? !
// are skipped), following Include; the picker lists them. Missing file: none.
std::vector<std::string> sshConfigHosts(const std::string& configPath);
// $HOME/.ssh/config
std::string defaultSshConfigPath();

// One line that names the host, says what ssh reported and what to do, from
// ssh's exit code and stderr (unknown host, refused, authentication, changed
// host key, timeout, a connection lost mid-run). Empty when exitCode is not
// ssh's own failure (255) and stderr holds nothing ssh-specific.
std::string explainSshFailure(const SshTarget& target, int exitCode, std::string_view sshStderr);

// Whether ssh's stderr says an established connection was lost (closed by
// the host, reset, broken pipe, the server stopped answering keepalives).
bool sshLostConnection(std::string_view sshStderr);

// The last line ssh wrote that is its own (starts with "ssh:", "kex_",
// "Connection ", "client_loop", ...), for messages; empty if none.
std::string lastSshLine(std::string_view sshStderr);

} // namespace cs::core
