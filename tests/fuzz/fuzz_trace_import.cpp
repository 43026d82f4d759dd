// The TORCH_TRACE importer on an arbitrary log file. importTrace reads files,
// so each input is written to one temporary file, made once per process and
// rewritten every run; one reader thread, so runs stay deterministic.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/trace/trace_import.h"

namespace {

// A directory of its own (mkdtemp) holding a file named like torch's logs.
const std::string& tracePath() {
    static const std::string path = [] {
        const char* shm = "/dev/shm";
        std::string dir = std::string(access(shm, W_OK) == 0 ? shm : "/tmp") + "/cs_fuzz_XXXXXX";
        if (!mkdtemp(dir.data()))
            std::abort();
        return dir + "/dedicated_log_torch_trace_fuzz.log";
    }();
    static const bool cleanup = std::atexit([] {
                                    std::remove(path.c_str());
                                    rmdir(path.substr(0, path.rfind('/')).c_str());
                                }) == 0;
    (void)cleanup;
    return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string& path = tracePath();
    FILE* file = std::fopen(path.c_str(), "wb");
    if (!file)
        std::abort();
    if (size > 0 && std::fwrite(data, 1, size, file) != size)
        std::abort();
    std::fclose(file);
    cs::core::trace::ImportOptions options;
    options.threads = 1;
    const auto result = cs::core::trace::importTrace(path, options);
    // Either an error or a report, never neither.
    if (result.error.empty() == result.report.runs.empty())
        std::abort();
    return 0;
}
