// listTrace: which files of a directory are TORCH_TRACE logs, and which of
// them belong to one job (the ranks of one torchrun, or one process).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <system_error>

#include "core/trace/trace_import.h"
#include "core/trace/trace_reader.h"

namespace cs::core::trace {
namespace {

namespace fs = std::filesystem;

// Ranks of one job start within this many seconds of each other.
constexpr double kJobWindowSeconds = 300;

int rankFromName(const std::string& name) {
    constexpr std::string_view kMarker = "_rank_";
    const size_t at = name.find(kMarker);
    if (at == std::string::npos)
        return -1;
    int rank = 0;
    size_t i = at + kMarker.size();
    const size_t digits = i;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9') {
        if (rank > (std::numeric_limits<int>::max() - 9) / 10)
            return -1; // no rank an int holds
        rank = rank * 10 + (name[i++] - '0');
    }
    return i == digits ? -1 : rank;
}

// "MMDD HH:MM:SS.uuuuuu" as seconds since the start of a (31-day-month) year:
// enough to order and window records of one log.
double stampSeconds(const std::string& stamp) {
    int month = 0;
    int day = 0;
    int hour = 0;
    int minute = 0;
    double second = 0;
    if (std::sscanf(stamp.c_str(), "%2d%2d %d:%d:%lf", &month, &day, &hour, &minute, &second) != 5)
        return 0;
    return (((month * 31 + day) * 24.0 + hour) * 60 + minute) * 60 + second;
}

// The first record of a file, or why it is not a trace.
std::string probeFile(const fs::path& path, TraceFile& file) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return "cannot be read";
    std::string line;
    if (!std::getline(in, line) || line.empty())
        return "empty";
    RecordPrefix prefix;
    if (!parseRecordPrefix(line, prefix) || firstKey(prefix.json).empty())
        return "not a TORCH_TRACE log (its first line is no trace record)";
    file.pid = prefix.pid;
    file.started = std::string(prefix.stamp);
    return {};
}

std::string describe(const std::vector<std::string>& skipped) {
    std::string text;
    for (size_t i = 0; i < skipped.size() && i < 3; ++i)
        text += (i == 0 ? "" : "; ") + skipped[i];
    if (skipped.size() > 3)
        text += "; and " + std::to_string(skipped.size() - 3) + " more";
    return text;
}

} // namespace

std::string TraceJob::label() const {
    if (files.empty())
        return "no files";
    std::string text;
    if (files.size() == 1 && files.front().rank < 0)
        text = "1 process";
    else
        text = std::to_string(files.size()) + (files.size() == 1 ? " rank" : " ranks");
    text += ", started " + files.front().started.substr(0, 13);
    auto [low, high] = std::minmax_element(
        files.begin(), files.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
    text += low->pid == high->pid
                ? ", pid " + std::to_string(low->pid)
                : ", pids " + std::to_string(low->pid) + "-" + std::to_string(high->pid);
    return text;
}

int64_t TraceJob::bytes() const {
    int64_t total = 0;
    for (const auto& f : files)
        total += f.bytes;
    return total;
}

TraceListing listTrace(const std::string& path) {
    TraceListing listing;
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        listing.error = path + ": no such file or directory";
        return listing;
    }
    std::vector<fs::path> candidates;
    if (fs::is_directory(status)) {
        for (const auto& entry : fs::directory_iterator(path, ec)) {
            if (entry.is_regular_file(ec))
                candidates.push_back(entry.path());
        }
        if (ec) {
            listing.error = path + ": cannot list the directory (" + ec.message() + ")";
            return listing;
        }
    } else {
        candidates.emplace_back(path);
    }
    std::sort(candidates.begin(), candidates.end());

    std::vector<TraceFile> files;
    std::string lastWhy;
    for (const auto& candidate : candidates) {
        TraceFile file;
        file.path = candidate.string();
        file.bytes = static_cast<int64_t>(fs::file_size(candidate, ec));
        file.rank = rankFromName(candidate.filename().string());
        if (std::string why = probeFile(candidate, file); !why.empty()) {
            listing.skipped.push_back(candidate.filename().string() + ": " + why);
            lastWhy = why;
            continue;
        }
        files.push_back(std::move(file));
    }
    if (files.empty()) {
        if (fs::is_directory(status) && candidates.empty())
            listing.error = path +
                            ": the directory is empty. Run the job with TORCH_TRACE=" + path +
                            " to write a trace there.";
        else if (fs::is_directory(status))
            listing.error = path + ": holds no TORCH_TRACE log (" + describe(listing.skipped) +
                            "). Point at the directory given as TORCH_TRACE.";
        else
            listing.error = path + ": " + lastWhy;
        return listing;
    }

    std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
        return stampSeconds(a.started) < stampSeconds(b.started);
    });
    for (auto& file : files) {
        TraceJob* job = nullptr;
        if (file.rank >= 0) {
            for (auto& candidate : listing.jobs) {
                const auto& first = candidate.files.front();
                const bool sameRankTaken =
                    std::any_of(candidate.files.begin(), candidate.files.end(),
                                [&](const auto& f) { return f.rank == file.rank; });
                if (first.rank >= 0 && !sameRankTaken &&
                    stampSeconds(file.started) - stampSeconds(first.started) < kJobWindowSeconds)
                    job = &candidate;
            }
        }
        if (job == nullptr)
            job = &listing.jobs.emplace_back();
        job->files.push_back(std::move(file));
    }
    for (auto& job : listing.jobs) {
        std::sort(job.files.begin(), job.files.end(),
                  [](const auto& a, const auto& b) { return a.rank < b.rank; });
    }
    return listing;
}

} // namespace cs::core::trace
