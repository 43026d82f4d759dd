#include "core/analysis/gpu_status.h"

namespace cs::core {

namespace {

bool startsWith(const std::string& text, const char* prefix) {
    return text.rfind(prefix, 0) == 0;
}

bool hasData(const Run& run, GpuData what) {
    if (what == GpuData::Kernels)
        return run.kernels.present;
    const MemorySeries* device = run.memorySeries("device");
    return device && !device->samples.empty();
}

} // namespace

bool ranOnCuda(const Run& run) {
    return startsWith(run.probe.device, "cuda");
}

std::string gpuDataMissingReason(const Run& run, GpuData what) {
    if (hasData(run, what))
        return {};
    const bool running = !run.finished();
    if (!run.sawHello)
        return running ? "waiting for the probe to start"
                       : "the probe ended before it said where it ran";
    if (!ranOnCuda(run)) {
        const std::string& m = run.cuptiMessage;
        if (m.empty() || startsWith(m, kNoCudaMessage))
            return m.empty() ? kNoCudaMessage : m;
        return std::string(kNoCudaMessage) + " (" + m + ")";
    }
    if (!run.cuptiActive) {
        if (!run.cuptiMessage.empty())
            return run.cuptiMessage;
        return running ? "waiting for the CUPTI collector to report"
                       : "the probe sent no CUPTI status: GPU memory and kernels unavailable";
    }
    if (running)
        return "CUPTI is collecting: the kernel and device-memory figures arrive when the run ends";
    return what == GpuData::Kernels ? "CUPTI was active but no kernel summary arrived (the run "
                                      "ended early?); see its log"
                                    : "CUPTI was active but no device-memory timeline arrived (the "
                                      "run ended early?); see its log";
}

std::string gpuDataHint(const Run& run) {
    if (!run.sawHello)
        return {};
    if (!ranOnCuda(run))
        return "Run on a machine with an NVIDIA GPU, a CUDA build of torch and device auto or cuda "
               "to see device memory and kernels.";
    if (!run.cuptiActive)
        return "Build libcompilescope_cupti.so (docs/cupti.md) and run without --no-cupti to "
               "collect kernels and device memory.";
    return {};
}

} // namespace cs::core
