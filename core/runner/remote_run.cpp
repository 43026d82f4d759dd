#include "core/runner/remote_run.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>

#include <algorithm>
#include <filesystem>
#include <gnu/libc-version.h>
#include <map>
#include <sstream>
#include <sys/utsname.h>

#include "core/runner/shell_quote.h"

namespace cs::core {

namespace {

// The probe's files, relative to the tar's root: compilescope_probe/...,
// aoti_runner/... (the AOTInductor runner's sources, its sibling: a host
// builds the runner against its own torch) and, when the sources are at
// hand, probe/cupti/*.{cpp,h} to build the collector.
struct Bundle {
    std::vector<std::pair<QString, QString>> files; // (root, relative path)
    std::string hash;
    QString cuptiRoot; // the root the cupti sources are relative to; empty: none
};

Bundle probeBundle(const std::string& probeRoot, const std::string& cuptiSourceDir) {
    Bundle bundle;
    const QString root = QString::fromStdString(probeRoot);
    QDirIterator it(root + "/compilescope_probe", QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.contains("/__pycache__/") || path.endsWith(".pyc"))
            continue;
        bundle.files.emplace_back(root, QDir(root).relativeFilePath(path));
    }
    // Sources only: never a build folder someone made inside it.
    const QDir runner(root + "/aoti_runner");
    for (const auto& info : runner.entryInfoList({"*.cpp", "*.h", "*.cmake", "CMakeLists.txt"},
                                                 QDir::Files, QDir::Name))
        bundle.files.emplace_back(root, QDir(root).relativeFilePath(info.filePath()));
    if (!cuptiSourceDir.empty()) {
        QDir cupti(QString::fromStdString(cuptiSourceDir));
        // probe/cupti's includes are by path from two folders up.
        const QString cuptiRoot = QDir::cleanPath(cupti.absolutePath() + "/../..");
        const auto sources = cupti.entryInfoList({"*.cpp", "*.h"}, QDir::Files, QDir::Name);
        for (const auto& info : sources)
            bundle.files.emplace_back(cuptiRoot, QDir(cuptiRoot).relativeFilePath(info.filePath()));
        if (!sources.isEmpty())
            bundle.cuptiRoot = cuptiRoot;
    }
    std::sort(bundle.files.begin(), bundle.files.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const auto& [base, relative] : bundle.files) {
        QFile file(base + "/" + relative);
        hash.addData(relative.toUtf8());
        hash.addData(QByteArray(1, '\0'));
        if (file.open(QIODevice::ReadOnly))
            hash.addData(file.readAll());
        hash.addData(QByteArray(1, '\0'));
    }
    bundle.hash = hash.result().toHex().left(16).toStdString();
    return bundle;
}

// The bundle as a tar stream, made by the local tar from the listed files.
std::optional<QByteArray> tarBundle(const Bundle& bundle, std::string& error) {
    QStringList args{"-cf", "-"};
    QString currentRoot;
    for (const auto& [base, relative] : bundle.files) {
        if (base != currentRoot) {
            args << "-C" << base;
            currentRoot = base;
        }
        args << relative;
    }
    QProcess tar;
    tar.start("tar", args);
    if (!tar.waitForFinished(60000) || tar.exitStatus() != QProcess::NormalExit ||
        tar.exitCode() != 0) {
        error = "cannot pack the probe with tar: " +
                QString::fromUtf8(tar.readAllStandardError()).trimmed().toStdString();
        return std::nullopt;
    }
    return tar.readAllStandardOutput();
}

std::map<std::string, std::string> keyValues(const QByteArray& text) {
    std::map<std::string, std::string> out;
    std::istringstream in(text.toStdString());
    std::string line;
    while (std::getline(in, line)) {
        const auto eq = line.find('=');
        if (eq != std::string::npos && !out.count(line.substr(0, eq)))
            out[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return out;
}

bool cancelled(const std::atomic<bool>* cancel) {
    return cancel && cancel->load();
}

// What the host has, in one round trip. $1 probe hash, $2 interpreter,
// $3 model path to check ("" for none), $4 content hash/name of a copied
// model ("" for none), $5 1 to look for what the CUPTI collector needs.
const char* const kFactsScript = R"SH(
hash=$1; py=$2; model=$3; copied=$4; cupti=$5
root="${XDG_CACHE_HOME:-$HOME/.cache}/compilescope"
mkdir -p "$root" 2>/dev/null
printf 'home=%s\nroot=%s\n' "$HOME" "$root"
printf 'arch=%s\n' "$(uname -m)"
printf 'glibc=%s\n' "$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')"
[ -f "$root/probe-$hash/.complete" ] && echo probe=yes
case "$py" in
  */*) [ -f "$py" ] && [ -x "$py" ] && echo python=yes ;;
  *) command -v "$py" >/dev/null 2>&1 && echo python=yes ;;
esac
if [ -n "$model" ]; then
  if [ -f "$model" ]; then echo model=yes; elif [ -e "$model" ]; then echo model=notfile; fi
fi
[ -n "$copied" ] && [ -f "$root/models/$copied" ] && echo copied=yes
if [ "$cupti" = 1 ]; then
  { [ -e /dev/nvidia0 ] || command -v nvidia-smi >/dev/null 2>&1; } && echo gpu=yes
  [ -f "$root/probe-$hash/cupti/libcompilescope_cupti.so" ] && echo cuptilib=yes
  for c in c++ g++ clang++; do
    if command -v "$c" >/dev/null 2>&1; then printf 'compiler=%s\n' "$(command -v "$c")"; break; fi
  done
  for d in "$CUDA_HOME" "$CUDA_PATH" /usr/local/cuda /opt/cuda /usr; do
    [ -n "$d" ] || continue
    for i in "$d/include" "$d/extras/CUPTI/include"; do
      if [ -f "$i/cupti.h" ]; then
        printf 'cuptiinc=%s\n' "$i"
        for l in "$d/lib64" "$d/lib" "$d/extras/CUPTI/lib64" /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu; do
          set -- "$l"/libcupti.so*
          [ -f "$1" ] && printf 'cuptiso=%s\n' "$1"
        done
      fi
    done
  done
  # torch's nvidia-*-cupti wheel: headers and the library beside it.
  if [ -n "$py" ] && { [ -e /dev/nvidia0 ] || command -v nvidia-smi >/dev/null 2>&1; }; then
    for d in $("$py" -c 'import nvidia; print("\n".join(nvidia.__path__))' 2>/dev/null); do
      for i in "$d"/*/include "$d"/*/*/include; do
        if [ -f "$i/cupti.h" ]; then
          printf 'cuptiinc=%s\n' "$i"
          set -- "${i%/include}"/lib/libcupti.so*
          [ -f "$1" ] && printf 'cuptiso=%s\n' "$1"
        fi
      done
    done
  fi
fi
df -Pk "$root" 2>/dev/null | awk 'NR==2 { print "freekb=" $4 }'
)SH";

// Unpacks the probe from stdin into $1 (probe-HASH) through a private
// folder, so a half-copied probe is never used and two copies can race.
const char* const kUnpackScript = R"SH(
set -e
d=$1; t="$d.part.$$"
trap 'rm -rf "$t"' EXIT
rm -rf "$t"; mkdir -p "$t"
tar -xf - -C "$t"
: > "$t/.complete"
if [ -d "$d" ]; then rm -rf "$t"; else mv "$t" "$d"; fi
)SH";

// Writes stdin to the file $2 in folder $1 (a copied model or collector).
const char* const kPutScript = R"SH(
set -e
mkdir -p "$1"
trap 'rm -f "$1/.part.$$"' EXIT
cat > "$1/.part.$$"
chmod "$3" "$1/.part.$$"
mv "$1/.part.$$" "$1/$2"
)SH";

// Builds the collector in $1 (probe-HASH) against CUPTI headers $2 and
// library $3; the compiler is $4.
const char* const kBuildCuptiScript = R"SH(
set -e
d=$1; inc=$2; so=$3; cxx=$4
mkdir -p "$d/cupti"
"$cxx" -std=c++20 -O2 -shared -fPIC -fvisibility=hidden -I"$d" -I"$inc" \
  "$d"/probe/cupti/*.cpp -o "$d/cupti/libcompilescope_cupti.so.part" \
  "$so" -Wl,-rpath,"$(dirname "$so")" -lpthread -ldl -Wl,--no-undefined 2>&1 | tail -n 5
[ -f "$d/cupti/libcompilescope_cupti.so.part" ]
mv "$d/cupti/libcompilescope_cupti.so.part" "$d/cupti/libcompilescope_cupti.so"
)SH";

const char* const kRunScript = R"SH(
PYTHONPATH="$1${PYTHONPATH:+:$PYTHONPATH}"; export PYTHONPATH
n=$2; shift 2
while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n - 1)); done
cd "$HOME" 2>/dev/null || true
if setsid -w true 2>/dev/null; then
  # The probe makes its fresh cache in a folder this shell owns and removes
  # however the probe ended: a SIGKILLed probe cannot clean up after itself.
  # The probe's group is killed, never this shell (outside it, by setsid).
  root=$(mktemp -d "${TMPDIR:-/tmp}/compilescope-run.XXXXXX") && export COMPILESCOPE_CACHE_ROOT="$root"
  trap '[ -n "$root" ] && rm -rf "$root"' EXIT
  trap '' HUP
  setsid -w sh -c 'printf "compilescope-remote-pid %s\n" "$$" >&2; exec "$@"' sh "$@"
  exit $?
fi
printf 'compilescope-remote-pid %s\n' "$$" >&2
exec "$@"
)SH";

std::string fullDiskOr(const SshTarget& target, const std::string& where,
                       const RemoteCommandResult& result, const std::string& otherwise) {
    if (result.err.find("No space left") != std::string::npos ||
        result.err.find("Disk quota exceeded") != std::string::npos)
        return "the disk of " + target.label() + " is full where compilescope keeps its files (" +
               where + "): free some space there, or point XDG_CACHE_HOME on the host elsewhere";
    std::string why = explainSshFailure(target, result.exitCode, result.err);
    return why.empty() ? otherwise : why;
}

std::string lastLines(const std::string& text) {
    std::string trimmed = QString::fromStdString(text).trimmed().toStdString();
    const auto cut = trimmed.rfind('\n');
    return cut == std::string::npos ? trimmed : trimmed.substr(cut + 1);
}

std::string localArch() {
    utsname u{};
    return ::uname(&u) == 0 ? u.machine : "";
}

// "2.36" >= "2.31"
bool versionAtLeast(const std::string& have, const std::string& need) {
    int a1 = 0, a2 = 0, b1 = 0, b2 = 0;
    if (std::sscanf(have.c_str(), "%d.%d", &a1, &a2) < 1 ||
        std::sscanf(need.c_str(), "%d.%d", &b1, &b2) < 1)
        return false;
    return a1 != b1 ? a1 > b1 : a2 >= b2;
}

} // namespace

ModelSource classifyModelSpec(const std::string& spec, ModelPlacement placement) {
    if (spec.rfind("torchvision:", 0) == 0)
        return ModelSource::Torchvision;
    switch (placement) {
    case ModelPlacement::Local:
        return ModelSource::LocalFile;
    case ModelPlacement::Remote:
        return ModelSource::RemotePath;
    case ModelPlacement::Auto:
        break;
    }
    std::error_code ec;
    return std::filesystem::is_regular_file(spec, ec) ? ModelSource::LocalFile
                                                      : ModelSource::RemotePath;
}

std::string describeModelSource(ModelSource source, const SshTarget& target) {
    switch (source) {
    case ModelSource::Torchvision:
        return "a torchvision model, built on " + target.label();
    case ModelSource::LocalFile:
        return "a file on this computer, copied to " + target.label() + " for the run";
    case ModelSource::RemotePath:
        return "a path on " + target.label() + ", used where it is";
    }
    return {};
}

CuptiPlan chooseRemoteCupti(const CuptiFacts& f) {
    if (!f.wanted)
        return {CuptiPlan::None, "CUPTI off (--no-cupti)"};
    if (!f.gpu)
        return {CuptiPlan::None, "no NVIDIA GPU on the host: the CUPTI collector is not needed"};
    if (f.alreadyThere)
        return {CuptiPlan::Present, "the CUPTI collector built there before"};
    if (f.haveSources && !f.compiler.empty() && !f.cuptiInclude.empty() && !f.cuptiLibrary.empty())
        return {CuptiPlan::Build, "building the CUPTI collector there with " + f.compiler};
    if (!f.localLibrary.empty() && f.remoteArch == f.localArch && !f.remoteArch.empty() &&
        versionAtLeast(f.remoteGlibc, f.localGlibc))
        return {CuptiPlan::Copy, "copying this computer's CUPTI collector (same " + f.localArch +
                                     ", glibc " + f.remoteGlibc + " >= " + f.localGlibc + ")"};
    std::string why = "no CUPTI collector on the host (";
    if (f.compiler.empty() || f.cuptiInclude.empty())
        why += f.compiler.empty() ? "no C++ compiler" : "no CUPTI headers";
    else
        why += "no CUPTI library";
    if (f.localLibrary.empty())
        why += ", none built here to copy";
    else if (f.remoteArch != f.localArch)
        why += ", and it is " + f.remoteArch + " where this computer is " + f.localArch;
    else
        why += ", and its glibc " + f.remoteGlibc + " is older than " + f.localGlibc;
    why += "): GPU memory comes from torch's allocator counters only";
    return {CuptiPlan::None, why};
}

std::optional<std::string> prepareRemoteRun(RemoteHost& host, const RemotePrepareRequest& request,
                                            RemotePlan& plan, const std::atomic<bool>* cancel) {
    const SshTarget& target = host.target();
    const std::string where = target.label();
    if (auto problem = host.connect())
        return problem;
    if (cancelled(cancel))
        return "cancelled";
    plan = RemotePlan{};
    plan.modelSource = classifyModelSpec(request.modelSpec, request.placement);
    const Bundle bundle = probeBundle(request.localProbeRoot, request.cuptiSourceDir);
    if (bundle.files.empty())
        return "the probe is missing here (" + request.localProbeRoot + "/compilescope_probe)";

    QByteArray modelBytes;
    std::string copiedName; // models/<content hash>/<file name>
    if (plan.modelSource == ModelSource::LocalFile) {
        QFile file(QString::fromStdString(request.modelSpec));
        if (!file.open(QIODevice::ReadOnly))
            return "model file not found on this computer: " + request.modelSpec +
                   " (to use a path on " + where + ", choose the model is on the remote)";
        modelBytes = file.readAll();
        const std::string name = std::filesystem::path(request.modelSpec).filename().string();
        copiedName = QCryptographicHash::hash(modelBytes, QCryptographicHash::Sha256)
                         .toHex()
                         .left(16)
                         .toStdString() +
                     "/" + name;
    }
    const std::string remoteModel =
        plan.modelSource == ModelSource::RemotePath ? request.modelSpec : std::string();
    const auto factsResult =
        host.run(shellJoin({"sh", "-c", kFactsScript, "sh", bundle.hash, request.python,
                            remoteModel, copiedName, request.cupti ? "1" : "0"}),
                 {}, 120000);
    if (!factsResult.ok()) {
        std::string why = explainSshFailure(target, factsResult.exitCode, factsResult.err);
        return why.empty()
                   ? "the shell on " + where + " failed (exit code " +
                         std::to_string(factsResult.exitCode) + "): " + lastLines(factsResult.err)
                   : why;
    }
    auto facts = keyValues(factsResult.out);
    plan.home = facts["home"];
    const std::string root = facts["root"];
    if (!facts.count("python"))
        return "no Python interpreter \"" + request.python + "\" on " + where +
               ": give the path of a Python that has torch there (--python; Test connection "
               "lists the ones it finds)";
    if (plan.modelSource == ModelSource::RemotePath && facts["model"] != "yes")
        return "the model " + request.modelSpec +
               (facts["model"] == "notfile" ? " is not a file on " : " does not exist on ") +
               where +
               (request.modelSpec.empty() || request.modelSpec[0] != '/'
                    ? " (relative paths start in the home folder, " + plan.home + ")"
                    : std::string()) +
               ": give a path that exists there, or a file on this computer to copy over";
    const int64_t freeKb = std::atoll(facts["freekb"].c_str());
    const std::string probeDir = root + "/probe-" + bundle.hash;
    plan.probeRoot = probeDir;

    if (facts["probe"] != "yes") {
        if (cancelled(cancel))
            return "cancelled";
        std::string error;
        auto tar = tarBundle(bundle, error);
        if (!tar)
            return error;
        if (facts.count("freekb") && freeKb * 1024 < tar->size() + (1 << 20))
            return "the disk of " + where + " is full where compilescope keeps its files (" + root +
                   ", " + std::to_string(freeKb) +
                   " KiB free): free some space there, or point XDG_CACHE_HOME on the host "
                   "elsewhere";
        const auto unpack =
            host.run(shellJoin({"sh", "-c", kUnpackScript, "sh", probeDir}), *tar, 300000);
        if (!unpack.ok())
            return fullDiskOr(target, root, unpack,
                              "cannot copy the probe to " + where + ": " + lastLines(unpack.err));
        plan.probeCopied = true;
    }

    switch (plan.modelSource) {
    case ModelSource::Torchvision: // built there
    case ModelSource::RemotePath:  // used where it is
        plan.modelSpec = request.modelSpec;
        break;
    case ModelSource::LocalFile: {
        const auto slash = copiedName.find('/');
        const std::string dir = root + "/models/" + copiedName.substr(0, slash);
        plan.modelSpec = root + "/models/" + copiedName;
        if (facts["copied"] != "yes") {
            const auto put = host.run(
                shellJoin({"sh", "-c", kPutScript, "sh", dir, copiedName.substr(slash + 1), "644"}),
                modelBytes, 300000);
            if (!put.ok())
                return fullDiskOr(target, root, put,
                                  "cannot copy the model to " + where + ": " + lastLines(put.err));
        }
        break;
    }
    }

    CuptiFacts cf;
    cf.wanted = request.cupti;
    cf.gpu = facts["gpu"] == "yes" || request.forceCupti;
    cf.alreadyThere = facts["cuptilib"] == "yes";
    cf.haveSources = !bundle.cuptiRoot.isEmpty();
    cf.compiler = facts["compiler"];
    cf.cuptiInclude = facts["cuptiinc"];
    cf.cuptiLibrary = facts["cuptiso"];
    cf.remoteArch = facts["arch"];
    cf.remoteGlibc = facts["glibc"];
    cf.localArch = localArch();
    cf.localGlibc = ::gnu_get_libc_version();
    cf.localLibrary = request.localCuptiLibrary;
    const CuptiPlan cupti = chooseRemoteCupti(cf);
    const std::string library = probeDir + "/cupti/libcompilescope_cupti.so";
    switch (cupti.how) {
    case CuptiPlan::Present:
        plan.cuptiLibrary = library;
        break;
    case CuptiPlan::Build: {
        const auto built = host.run(shellJoin({"sh", "-c", kBuildCuptiScript, "sh", probeDir,
                                               cf.cuptiInclude, cf.cuptiLibrary, cf.compiler}),
                                    {}, 600000);
        if (built.ok()) {
            plan.cuptiLibrary = library;
            plan.notes.push_back({"info", "CUPTI collector built on " + where});
        } else {
            plan.notes.push_back({"warning", "the CUPTI collector did not build on " + where +
                                                 " (" +
                                                 lastLines(built.out.toStdString() + built.err) +
                                                 "): GPU memory comes from torch's allocator "
                                                 "counters only"});
        }
        break;
    }
    case CuptiPlan::Copy: {
        QFile file(QString::fromStdString(request.localCuptiLibrary));
        QByteArray bytes;
        if (file.open(QIODevice::ReadOnly))
            bytes = file.readAll();
        const auto put =
            bytes.isEmpty() ? RemoteCommandResult{}
                            : host.run(shellJoin({"sh", "-c", kPutScript, "sh", probeDir + "/cupti",
                                                  "libcompilescope_cupti.so", "755"}),
                                       bytes, 300000);
        if (put.ok()) {
            plan.cuptiLibrary = library;
            plan.notes.push_back({"info", cupti.why});
        } else {
            plan.notes.push_back({"warning", "the CUPTI collector could not be copied to " + where +
                                                 ": GPU memory comes from torch's allocator "
                                                 "counters only"});
        }
        break;
    }
    case CuptiPlan::None:
        if (request.cupti && cf.gpu)
            plan.notes.push_back({"warning", cupti.why});
        break;
    }
    return std::nullopt;
}

ProbeLaunch buildRemoteProbeLaunch(const RemoteHost& host, const RemotePlan& plan,
                                   const Setting& setting, const ProbeOptions& options) {
    ProbeOptions remote = options;
    remote.probeRoot = plan.probeRoot;
    remote.cuptiLibrary = plan.cuptiLibrary;
    remote.aotiRunner.clear(); // this machine's binary: the host builds its own from the bundle
    const ProbeLaunch local = buildProbeLaunch(plan.modelSpec, setting, remote);
    std::vector<std::string> words{"sh", "-c", kRunScript, "sh", plan.probeRoot};
    std::vector<std::string> exports;
    for (const auto& [key, value] : local.environment) {
        if (key != "PYTHONPATH")
            exports.push_back(key + "=" + value);
    }
    words.push_back(std::to_string(exports.size()));
    words.insert(words.end(), exports.begin(), exports.end());
    words.push_back(local.program);
    words.insert(words.end(), local.arguments.begin(), local.arguments.end());
    words.push_back("--lifeline-stdin");

    ProbeLaunch launch;
    auto argv = host.commandLine(shellJoin(words));
    // Never a prompt from the probe's ssh: it rides the connection opened
    // before, and fails at once if that is gone.
    argv.insert(argv.begin() + 1, {"-o", "BatchMode=yes"});
    launch.program = argv.front();
    launch.arguments.assign(argv.begin() + 1, argv.end());
    launch.environment = host.environment();
    ProbeLaunch::Remote control;
    control.target = host.target();
    control.controlCommand = host.commandLine("");
    control.controlCommand.pop_back();
    control.checkCommand = host.checkCommandLine();
    control.connectionLog = host.connectionLog();
    launch.remote = std::move(control);
    return launch;
}

} // namespace cs::core
