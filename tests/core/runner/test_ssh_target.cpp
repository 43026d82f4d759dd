#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/runner/shell_quote.h"
#include "core/runner/ssh_target.h"

using namespace cs::core;
namespace fs = std::filesystem;

namespace {

// Words a user's path or model could hold, each aimed at a shell.
std::vector<std::string> hostileWords(const std::string& marker) {
    return {"plain",
            "with space",
            "it's",
            "\"double\"",
            "$(touch " + marker + ")",
            "`touch " + marker + "`",
            "a; touch " + marker,
            "line\nbreak",
            "tab\there",
            "$HOME",
            "*",
            "-n",
            "ünïcødé 模型.py",
            "",
            "back\\slash",
            "'",
            "''\"'\"",
            "&& || | > <"};
}

// Runs sh with `printf '%s\0' WORDS` and splits what it printed.
std::vector<std::string> echoedBy(const std::string& shell, const std::vector<std::string>& words) {
    const std::string script = "printf '%s\\0' " + shellJoin(words);
    const std::string command = shell + " -c " + shellQuote(script);
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string out;
    char buffer[4096];
    size_t n = 0;
    while (pipe && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        out.append(buffer, n);
    if (pipe)
        ::pclose(pipe);
    std::vector<std::string> back;
    size_t start = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '\0') {
            back.push_back(out.substr(start, i - start));
            start = i + 1;
        }
    }
    return back;
}

// One folder per test process, removed as the process exits.
const fs::path& scratchRoot() {
    static const struct Root {
        fs::path path = fs::temp_directory_path() / ("cs-ssh-test-" + std::to_string(::getpid()));
        Root() = default;
        Root(const Root&) = delete;
        Root& operator=(const Root&) = delete;
        ~Root() {
            std::error_code ignored;
            fs::remove_all(path, ignored);
        }
    } root;
    return root.path;
}

fs::path scratch(const char* name) {
    auto dir = scratchRoot() / name;
    fs::create_directories(dir);
    return dir;
}

} // namespace

TEST(ShellQuote, HostileWordsReachTheCommandUnchanged) {
    const fs::path marker = scratch("quote") / "pwned";
    const auto words = hostileWords(marker.string());
    for (const char* shell : {"/bin/sh", "/bin/bash", "/bin/dash"}) {
        if (!fs::exists(shell))
            continue;
        EXPECT_EQ(echoedBy(shell, words), words) << shell;
    }
    EXPECT_FALSE(fs::exists(marker)) << "a quoted word ran as a command";
}

TEST(ShellQuote, EmptyAndQuoteForms) {
    EXPECT_EQ(shellQuote(""), "''");
    EXPECT_EQ(shellQuote("a'b"), "'a'\\''b'");
    EXPECT_EQ(shellJoin({"a b", "c"}), "'a b' 'c'");
}

TEST(SshTarget, ParsesTheForms) {
    auto t = parseSshTarget("ssh://alice@gpu-box:2222");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->user, "alice");
    EXPECT_EQ(t->host, "gpu-box");
    EXPECT_EQ(t->port, 2222);
    EXPECT_EQ(t->spec(), "ssh://alice@gpu-box:2222");
    t = parseSshTarget("gpu-box");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->user, "");
    EXPECT_EQ(t->port, 0);
    EXPECT_EQ(t->spec(), "ssh://gpu-box");
    t = parseSshTarget("ssh://[::1]:22/");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->host, "::1");
    EXPECT_EQ(t->label(), "[::1]:22");
}

TEST(SshTarget, RejectsWhatSshWouldMisread) {
    std::string why;
    for (const char* bad : {"ssh://", "ssh://-oProxyCommand=touch_x", "ssh://host:0",
                            "ssh://host:99999", "ssh://host:", "ssh://-l@host", "http://host",
                            "ssh://ho st", "ssh://[::1", "ssh://a@", "ssh://host:22x"}) {
        why.clear();
        EXPECT_FALSE(parseSshTarget(bad, &why)) << bad;
        EXPECT_FALSE(why.empty()) << bad;
    }
}

TEST(SshTarget, ConfigHostsFollowIncludeAndSkipPatterns) {
    const fs::path dir = scratch("config");
    std::ofstream(dir / "extra") << "Host extra-box\n  HostName 10.0.0.2\n";
    std::ofstream(dir / "config") << "# comment\nHost gpu-a gpu-b *.internal\n  User me\n"
                                     "host=lower\nHost !nope ?ingle\nMatch all\nInclude "
                                  << (dir / "ext*").string() << "\nHost gpu-a\n";
    EXPECT_EQ(sshConfigHosts((dir / "config").string()),
              (std::vector<std::string>{"gpu-a", "gpu-b", "lower", "extra-box"}));
    EXPECT_TRUE(sshConfigHosts((dir / "missing").string()).empty());
}

TEST(SshTarget, ExplainsWhatSshSaid) {
    SshTarget t{"", "gpu-box", 2222};
    auto has = [](const std::string& text, const char* part) {
        return text.find(part) != std::string::npos;
    };
    auto unknown = explainSshFailure(t, 255,
                                     "ssh: Could not resolve hostname gpu-box: Name or service not "
                                     "known\n");
    EXPECT_TRUE(has(unknown, "unknown host gpu-box:2222")) << unknown;
    auto refused =
        explainSshFailure(t, 255, "ssh: connect to host gpu-box port 2222: Connection refused\n");
    EXPECT_TRUE(has(refused, "refused")) << refused;
    EXPECT_TRUE(has(refused, "2222")) << refused;
    auto denied = explainSshFailure(t, 255, "me@gpu-box: Permission denied (publickey).\n");
    EXPECT_TRUE(has(denied, "authentication failed on gpu-box:2222")) << denied;
    auto changed = explainSshFailure(
        t, 255,
        "@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
        "Host key verification failed.\n");
    EXPECT_TRUE(has(changed, "CHANGED")) << changed;
    EXPECT_TRUE(has(changed, "ssh-keygen -R '[gpu-box]:2222'")) << changed;
    auto lost = explainSshFailure(t, 255, "Connection to gpu-box closed by remote host.\n");
    EXPECT_TRUE(has(lost, "lost the connection to gpu-box:2222")) << lost;
    EXPECT_TRUE(sshLostConnection("client_loop: send disconnect: Broken pipe\n"));
    EXPECT_FALSE(sshLostConnection("Traceback (most recent call last):\n"));
    // A command's own failure is not ssh's.
    EXPECT_EQ(explainSshFailure(t, 1, "python: can't open file\n"), "");
    EXPECT_EQ(lastSshLine("Warning: Permanently added '[h]:1' (ED25519) to the list\nhello\n"), "");
}
