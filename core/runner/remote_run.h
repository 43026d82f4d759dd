// Gets a host ready to run the probe and builds the probe's remote command.
// The probe is copied once per version into ~/.cache/compilescope/probe-HASH
// (a tar over the channel); a local model file is copied beside it; the CUPTI
// collector is built there, or the local one copied, or left out with a warning.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "core/report/session.h"
#include "core/runner/probe_command.h"
#include "core/runner/remote_host.h"

namespace cs::core {

// Where the model named by a spec lives when the probe runs remotely.
enum class ModelPlacement {
    Auto,   // a file that exists here is copied; otherwise a path on the host
    Local,  // a file here, copied over (.py or .pt2)
    Remote, // a path on the host, used where it is
};
enum class ModelSource { Torchvision, LocalFile, RemotePath };
ModelSource classifyModelSpec(const std::string& spec, ModelPlacement placement);
// For the UI, one line: "a path on gpu-box", "copied from this computer to gpu-box", ...
std::string describeModelSource(ModelSource source, const SshTarget& target);

struct RemotePlan {
    std::string home;         // $HOME on the host
    std::string probeRoot;    // holds compilescope_probe/ on the host
    std::string cuptiLibrary; // on the host; empty: none
    std::string modelSpec;    // what the probe there is given
    ModelSource modelSource = ModelSource::RemotePath;
    bool probeCopied = false; // this call copied the probe (first use of this version)
    struct Note {
        std::string level; // "info" or "warning", as the run's log has them
        std::string text;
    };
    std::vector<Note> notes; // for each run's log: how the CUPTI collector was had, or why not
};

struct RemotePrepareRequest {
    std::string modelSpec;
    ModelPlacement placement = ModelPlacement::Auto;
    std::string python;            // interpreter on the host; checked to exist
    std::string localProbeRoot;    // probeRoot()
    std::string localCuptiLibrary; // cuptiLibraryPath(), may be empty
    std::string cuptiSourceDir;    // probe/cupti sources, to build there; may be empty
    bool cupti = true;
    // Treat the host as having a GPU (tests of the collector's remote build
    // on a host without one).
    bool forceCupti = false;
};

// What decides how the host gets its CUPTI collector; pure, for tests.
struct CuptiFacts {
    bool wanted = true;        // not --no-cupti
    bool gpu = false;          // the host has an NVIDIA GPU
    bool alreadyThere = false; // built or copied for this probe version before
    bool haveSources = false;  // the collector's sources are here to send
    std::string compiler, cuptiInclude, cuptiLibrary; // found on the host
    std::string remoteArch, remoteGlibc, localArch, localGlibc;
    std::string localLibrary; // the collector built here, empty if none
};
struct CuptiPlan {
    enum How { None, Present, Build, Copy } how = None;
    std::string why; // in words, for the run's log
};
CuptiPlan chooseRemoteCupti(const CuptiFacts& facts);

// Connects, copies what is missing, checks interpreter and model. Returns the
// problem (naming the host and what to do) or nullopt. `cancel` is polled.
std::optional<std::string> prepareRemoteRun(RemoteHost& host, const RemotePrepareRequest& request,
                                            RemotePlan& plan,
                                            const std::atomic<bool>* cancel = nullptr);

// The probe launch for the host: ssh over the shared connection, running the
// probe under setsid with its pid announced on stderr, stdin kept as the
// lifeline (the probe ends its group when the channel closes).
ProbeLaunch buildRemoteProbeLaunch(const RemoteHost& host, const RemotePlan& plan,
                                   const Setting& setting, const ProbeOptions& options);

// The stderr line the remote wrapper writes first: "compilescope-remote-pid N".
inline constexpr std::string_view kRemotePidPrefix = "compilescope-remote-pid ";

} // namespace cs::core
