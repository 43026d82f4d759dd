#include "core/runner/ssh_target.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <glob.h>
#include <set>
#include <sstream>

namespace cs::core {

namespace {

bool fail(std::string* error, std::string message) {
    if (error)
        *error = std::move(message);
    return false;
}

// A word ssh takes as a user or host: no spaces or control characters, and
// never a leading '-', which ssh would read as an option.
bool plainWord(std::string_view word) {
    if (word.empty() || word.front() == '-')
        return false;
    return std::none_of(word.begin(), word.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u <= ' ' || u == 0x7f || c == '/' || c == '\\' || c == '\'' || c == '"';
    });
}

std::string lowered(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::string home() {
    const char* h = std::getenv("HOME");
    return h ? h : "";
}

std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string word;
    while (in >> word)
        out.push_back(word);
    return out;
}

void readConfig(const std::string& path, int depth, std::vector<std::string>& hosts,
                std::set<std::string>& seen) {
    if (depth > 16)
        return;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        const auto hash = line.find('#');
        if (hash != std::string::npos)
            line.resize(hash);
        // "Keyword value" or "Keyword=value", keywords case-insensitive.
        const auto start = line.find_first_not_of(" \t");
        if (start == std::string::npos)
            continue;
        const auto end = line.find_first_of(" \t=", start);
        if (end == std::string::npos)
            continue;
        const std::string keyword = lowered(line.substr(start, end - start));
        std::string rest = line.substr(end);
        rest.erase(0, rest.find_first_not_of(" \t="));
        if (keyword == "host") {
            for (auto& name : words(rest)) {
                if (name.find_first_of("*?!") == std::string::npos && seen.insert(name).second)
                    hosts.push_back(name);
            }
        } else if (keyword == "include") {
            for (auto pattern : words(rest)) {
                if (pattern.rfind("~/", 0) == 0)
                    pattern = home() + pattern.substr(1);
                else if (pattern.front() != '/')
                    pattern = home() + "/.ssh/" + pattern;
                glob_t found{};
                if (::glob(pattern.c_str(), 0, nullptr, &found) == 0) {
                    for (size_t i = 0; i < found.gl_pathc; ++i)
                        readConfig(found.gl_pathv[i], depth + 1, hosts, seen);
                }
                ::globfree(&found);
            }
        }
    }
}

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

} // namespace

std::string SshTarget::label() const {
    const std::string shownHost =
        host.find(':') != std::string::npos ? "[" + host + "]" : host; // IPv6
    std::string text = user.empty() ? shownHost : user + "@" + shownHost;
    if (port > 0)
        text += ":" + std::to_string(port);
    return text;
}

std::string SshTarget::spec() const {
    return "ssh://" + label();
}

std::optional<SshTarget> parseSshTarget(std::string_view text, std::string* error) {
    std::string_view rest = text;
    if (rest.rfind("ssh://", 0) == 0)
        rest.remove_prefix(6);
    else if (contains(rest, "://")) {
        fail(error, "\"" + std::string(text) + "\" is not an ssh:// target");
        return std::nullopt;
    }
    while (!rest.empty() && rest.back() == '/')
        rest.remove_suffix(1);
    SshTarget target;
    if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
        target.user = std::string(rest.substr(0, at));
        rest.remove_prefix(at + 1);
        if (!plainWord(target.user)) {
            fail(error, "the user in \"" + std::string(text) + "\" is empty or not a plain name");
            return std::nullopt;
        }
    }
    std::string_view port;
    bool hasPort = false;
    if (!rest.empty() && rest.front() == '[') {
        const auto close = rest.find(']');
        if (close == std::string_view::npos) {
            fail(error, "\"" + std::string(text) + "\": an IPv6 address needs its closing ]");
            return std::nullopt;
        }
        target.host = std::string(rest.substr(1, close - 1));
        rest.remove_prefix(close + 1);
        if (!rest.empty() && rest.front() != ':') {
            fail(error, "\"" + std::string(text) + "\": only a :port may follow the address");
            return std::nullopt;
        }
        hasPort = !rest.empty();
        if (hasPort)
            port = rest.substr(1);
    } else if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
        target.host = std::string(rest.substr(0, colon));
        port = rest.substr(colon + 1);
        hasPort = true;
    } else {
        target.host = std::string(rest);
    }
    if (!plainWord(target.host)) {
        fail(error, "\"" + std::string(text) +
                        "\" names no host (expected ssh://[user@]host[:port] or a Host from "
                        "~/.ssh/config)");
        return std::nullopt;
    }
    if (hasPort) {
        int value = 0;
        const bool digits =
            !port.empty() && port.size() <= 5 &&
            std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (digits)
            value = std::stoi(std::string(port));
        if (!digits || value < 1 || value > 65535) {
            fail(error, "\"" + std::string(text) + "\": the port must be a number from 1 to 65535");
            return std::nullopt;
        }
        target.port = value;
    }
    return target;
}

std::vector<std::string> sshConfigHosts(const std::string& configPath) {
    std::vector<std::string> hosts;
    std::set<std::string> seen;
    readConfig(configPath, 0, hosts, seen);
    return hosts;
}

std::string defaultSshConfigPath() {
    return home() + "/.ssh/config";
}

bool sshLostConnection(std::string_view err) {
    return contains(err, "Connection closed") || contains(err, "Connection reset") ||
           contains(err, "Broken pipe") || contains(err, "client_loop") ||
           contains(err, "not responding") || contains(err, "closed by remote host") ||
           contains(err, "Received disconnect") || contains(err, "Connection to ") ||
           contains(err, "mux_client_read_packet") || contains(err, "master hung up");
}

std::string lastSshLine(std::string_view sshStderr) {
    static const char* const kPrefixes[] = {"ssh:",
                                            "ssh_",
                                            "kex_",
                                            "Connection ",
                                            "Connection to",
                                            "client_loop",
                                            "Timeout,",
                                            "Permission denied",
                                            "Host key",
                                            "@@@",
                                            "Received disconnect",
                                            "Bad ",
                                            "mux_client",
                                            "Control",
                                            "channel ",
                                            "No ",
                                            "Could not",
                                            "Load key",
                                            "Warning: ",
                                            "Disconnected"};
    std::string found;
    std::istringstream in{std::string(sshStderr)};
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        for (const char* prefix : kPrefixes) {
            if (line.rfind(prefix, 0) == 0 && !contains(line, "Permanently added")) {
                found = line;
                break;
            }
        }
    }
    return found;
}

std::string explainSshFailure(const SshTarget& target, int exitCode, std::string_view err) {
    const std::string host = target.label();
    const std::string said = lastSshLine(err);
    const std::string quoted = said.empty() ? "" : " (ssh: \"" + said + "\")";
    if (contains(err, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
        return "the host key of " + host +
               " has CHANGED since you last connected, and ssh refused it: if the server was "
               "reinstalled, check the new key with its administrator, then remove the old one "
               "with `ssh-keygen -R " +
               (target.port > 0 ? "'[" + target.host + "]:" + std::to_string(target.port) + "'"
                                : target.host) +
               "`; compilescope never accepts a changed key";
    if (contains(err, "Host key verification failed") || contains(err, "No ED25519 host key") ||
        contains(err, "host key is known"))
        return "the host key of " + host +
               " is not known or does not match, and ssh refused it: connect once with `ssh " +
               target.host + "` in a terminal to check and accept it" + quoted;
    if (contains(err, "Could not resolve hostname") || contains(err, "Name or service not known"))
        return "unknown host " + host +
               ": ssh could not resolve the name; check its spelling, or add a Host entry for "
               "it to ~/.ssh/config" +
               quoted;
    if (contains(err, "Connection refused"))
        return host + " refused the connection" +
               (target.port > 0 ? " on port " + std::to_string(target.port) : std::string()) +
               ": is sshd running there, and is the port right?";
    if (contains(err, "Permission denied") || contains(err, "Too many authentication failures"))
        return "authentication failed on " + host +
               ": check the user name, that your key is loaded (`ssh-add -l`) and authorized on "
               "the host, or that `ssh " +
               target.host + "` works in a terminal" + quoted;
    if (contains(err, "Connection timed out") || contains(err, "Operation timed out") ||
        contains(err, "No route to host") || contains(err, "Network is unreachable"))
        return host + " did not answer: check the network, VPN or firewall" + quoted;
    if (sshLostConnection(err))
        return "lost the connection to " + host + quoted;
    if (exitCode == 255)
        return "ssh to " + host + " failed" +
               (said.empty() ? std::string(" (exit code 255)") : quoted);
    return {};
}

} // namespace cs::core
