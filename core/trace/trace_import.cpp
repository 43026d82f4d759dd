#include "core/trace/trace_import.h"

#include <algorithm>
#include <mutex>
#include <thread>

#include "core/trace/rank_builder.h"
#include "core/trace/trace_reader.h"

namespace cs::core::trace {
namespace {

struct FileResult {
    Run run;
    std::vector<std::string> warnings;
    std::string error;
    std::string torch;
    bool cancelled = false;
};

FileResult importFile(const TraceFile& file, const ImportOptions& options,
                      const std::function<void(int64_t)>& progress) {
    FileResult result;
    RankBuilder builder(file.path, file.rank);
    TraceReader::Callbacks callbacks;
    callbacks.wantPayload = [&](const TraceRecord& r) { return builder.wantPayload(r); };
    callbacks.record = [&](TraceRecord& r) { builder.add(r); };
    callbacks.problem = [&](const TraceLineProblem& p) { builder.problem(p.line, p.message); };
    callbacks.progress = progress;
    const TraceReader::Summary summary = TraceReader::read(file.path, callbacks, options.cancel);
    if (summary.cancelled) {
        result.cancelled = true;
        return result;
    }
    if (!summary.error.empty()) {
        result.error = file.path + ": " + summary.error;
        return result;
    }
    result.run = builder.finish(summary);
    result.warnings = builder.warnings();
    result.torch = builder.torchVersion();
    return result;
}

std::string jobList(const TraceListing& listing) {
    std::string text;
    for (size_t i = 0; i < listing.jobs.size(); ++i)
        text += "\n  " + std::to_string(i + 1) + ": " + listing.jobs[i].label();
    return text;
}

} // namespace

ImportResult importTrace(const std::string& path, const ImportOptions& options) {
    ImportResult result;
    const TraceListing listing = listTrace(path);
    if (!listing.error.empty()) {
        result.error = listing.error;
        return result;
    }
    if (options.job == 0 && listing.jobs.size() > 1) {
        result.error = path + " holds " + std::to_string(listing.jobs.size()) +
                       " runs; pick one with --job N:" + jobList(listing);
        return result;
    }
    if (options.job < 0 || options.job > static_cast<int>(listing.jobs.size())) {
        result.error =
            path + " has no run " + std::to_string(options.job) + "; it holds:" + jobList(listing);
        return result;
    }
    const TraceJob& job = listing.jobs[static_cast<size_t>(std::max(options.job, 1) - 1)];
    for (const auto& skipped : listing.skipped)
        result.warnings.push_back("skipped " + skipped);

    const int64_t total = job.bytes();
    std::atomic<int64_t> done{0};
    std::mutex progressMutex;
    const auto progress = [&](int64_t bytes) {
        const int64_t now = done += bytes;
        if (options.progress) {
            const std::lock_guard lock(progressMutex);
            options.progress(now, total);
        }
    };

    std::vector<FileResult> results(job.files.size());
    unsigned threads =
        options.threads != 0 ? options.threads : std::max(1U, std::thread::hardware_concurrency());
    threads = std::min<unsigned>(threads, static_cast<unsigned>(job.files.size()));
    std::atomic<size_t> next{0};
    const auto worker = [&] {
        for (size_t i = next++; i < job.files.size(); i = next++)
            results[i] = importFile(job.files[i], options, progress);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto& t : pool)
        t.join();

    for (auto& file : results) {
        if (file.cancelled) {
            result.cancelled = true;
            result.report = {};
            return result;
        }
        if (!file.error.empty()) {
            result.warnings.push_back(file.error);
            continue;
        }
        for (auto& w : file.warnings)
            result.warnings.push_back(std::move(w));
        if (result.report.environment.torch.empty())
            result.report.environment.torch = file.torch;
        result.report.runs.push_back(std::move(file.run));
    }
    if (result.report.runs.empty()) {
        result.error =
            path + ": no file of the log could be read" +
            (result.warnings.empty() ? std::string() : " (" + result.warnings.front() + ")");
        return result;
    }
    Report& report = result.report;
    report.model.spec = path;
    report.model.name = "TORCH_TRACE log";
    return result;
}

} // namespace cs::core::trace
