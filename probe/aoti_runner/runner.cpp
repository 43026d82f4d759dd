// compilescope-aoti-runner: runs an AOTInductor package (.pt2 from
// torch._inductor.aoti_compile_and_package) the way the probe runs a compiled
// model, and writes the same JSON Lines events (docs/protocol.md, "The
// AOTInductor runner"). The only file that includes libtorch: the rest of the
// runner builds and is tested without it.
#include "cli_args.h"
#include "cupti_bridge.h"
#include "event_sink.h"
#include "host_rss.h"
#include "machine_cpu.h"
#include "probe/aoti_runner/protocol_generated.h"

#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <c10/core/Device.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/InferenceMode.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/cuda.h>
#include <torch/headeronly/version.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

#ifndef COMPILESCOPE_RUNNER_VERSION
#define COMPILESCOPE_RUNNER_VERSION "unknown"
#endif
#ifndef COMPILESCOPE_TORCH_HAS_CUDA
#define COMPILESCOPE_TORCH_HAS_CUDA 0
#endif

namespace cs::aoti {
namespace {

namespace event_name = protocol::event;

constexpr int64_t kChunkNs = 250'000'000; // the measure phase sends at most this often
constexpr int64_t kBlockMinNs = 10'000'000;
constexpr int kBlocksMax = 20;
constexpr int64_t kBlocksBudgetNs = 500'000'000;

// Signals: outside the measure phase the runner ends at once (a line being
// written is finished first); inside it the loop sees the flag between two
// calls, sends what it timed and ends.
std::atomic<int> gSignal{0};
std::atomic<bool> gMeasuring{false};
EventSink* gSink = nullptr;

void onSignal(int sig) {
    gSignal.store(sig);
    if (!gMeasuring.load() && (gSink == nullptr || !gSink->busy())) {
        _exit(128 + sig);
    }
}

// A failure that ends the run: an `error` event, exit 3.
struct Fatal : std::runtime_error {
    Fatal(std::string kind_, const std::string& message)
        : std::runtime_error(message), kind(std::move(kind_)) {}
    std::string kind;
};

// What libtorch said, on one line and not too long.
std::string said(const std::exception& e) {
    std::string text;
    if (const auto* c10error = dynamic_cast<const c10::Error*>(&e)) {
        text = c10error->what_without_backtrace();
    } else {
        text = e.what();
    }
    // An error raised inside the package's kernels carries its C++ backtrace
    // in the message itself: the first words say what went wrong.
    if (const auto at = text.find("Exception raised from"); at != std::string::npos) {
        text.resize(at);
    }
    std::replace(text.begin(), text.end(), '\n', ' ');
    constexpr size_t kMax = 600;
    if (text.size() > kMax) {
        text = text.substr(0, kMax) + "...";
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '.')) {
        text.pop_back();
    }
    return text;
}

bool isOutOfMemory(const std::exception& e) {
    return dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr;
}

std::string absolute(const std::string& path) {
    if (!path.empty() && path[0] == '/') {
        return path;
    }
    char buf[4096];
    if (getcwd(buf, sizeof buf) == nullptr) {
        return path;
    }
    return std::string(buf) + "/" + path;
}

// Times one call: (latency ns, wall ns). CPU: the monotonic clock around the
// call. CUDA: events around the call on the current stream, synchronized;
// the wall time from the host clock around the same span.
class Timer {
  public:
    explicit Timer(c10::Device device) : device_(device) {
        if (device.is_cuda()) {
            impl_ = c10::impl::getDeviceGuardImpl(device.type());
            start_.emplace(device.type(), c10::EventFlag::BACKEND_DEFAULT);
            end_.emplace(device.type(), c10::EventFlag::BACKEND_DEFAULT);
        }
    }

    template <typename F> std::pair<int64_t, int64_t> operator()(F&& fn) {
        if (impl_ == nullptr) {
            const int64_t t0 = monotonicNs();
            fn();
            const int64_t t1 = monotonicNs();
            return {t1 - t0, t1 - t0};
        }
        impl_->synchronizeDevice(device_.index());
        const c10::Stream stream = impl_->getStream(device_);
        const int64_t t0 = monotonicNs();
        start_->record(stream);
        fn();
        end_->record(stream);
        end_->synchronize();
        const int64_t t1 = monotonicNs();
        const double ms = start_->elapsedTime(*end_);
        return {static_cast<int64_t>(std::llround(ms * 1e6)), t1 - t0};
    }

    // Wall time of `calls` calls back to back (the device synchronized around them).
    template <typename F> int64_t block(F&& fn, int64_t calls) {
        if (impl_ != nullptr) {
            impl_->synchronizeDevice(device_.index());
        }
        const int64_t t0 = monotonicNs();
        for (int64_t i = 0; i < calls; ++i) {
            fn();
        }
        if (impl_ != nullptr) {
            impl_->synchronizeDevice(device_.index());
        }
        return monotonicNs() - t0;
    }

  private:
    c10::Device device_;
    const c10::impl::DeviceGuardImplInterface* impl_ = nullptr;
    std::optional<c10::Event> start_;
    std::optional<c10::Event> end_;
};

int64_t median(std::vector<int64_t> v) {
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

class Runner {
  public:
    Runner(const RunnerArgs& args, EventSink& sink) : a_(args), sink_(sink) {}

    int run();

  private:
    void emit(JsonLine& line) {
        sink_.emit(line);
        // A signal that came while the line was written: end now, whole.
        if (const int sig = gSignal.load(); sig != 0 && !gMeasuring.load()) {
            _exit(128 + sig);
        }
    }
    void log(const char* level, const std::string& message) {
        JsonLine e = event(event_name::log);
        e.field("level", level).field("message", message);
        emit(e);
    }
    void hello(const std::string& deviceName);
    // overheadNs: the measure end's harness_overhead_ns (-1: none); machine:
    // its machine_cpu; faults: its host_faults.
    // held: its host_held.
    void edge(const char* name, bool end, int64_t overheadNs = -1,
              const std::optional<MachineCpuField>& machine = std::nullopt,
              const std::optional<HostFaultsField>& faults = std::nullopt,
              const std::optional<HostHeldField>& held = std::nullopt);
    void flushRss();
    void fatal(const Fatal& f);
    void execute();
    void loadPackage();
    void loadInputs();
    std::pair<int64_t, int64_t> timedCall(Timer& timer);
    void iteration(int64_t latency, int64_t wall, bool first);
    void measure(Timer& timer);
    void sendChunk(int64_t from, int64_t to);
    int64_t harnessOverhead(Timer& timer);
    // The crosscheck end's host_held.
    std::optional<HostHeldField> crosscheck(Timer& timer, int64_t measureNs);

    const RunnerArgs& a_;
    EventSink& sink_;
    RssSampler sampler_;
    CuptiBridge cupti_;
    c10::Device device_{c10::kCPU};
    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader_;
    std::vector<at::Tensor> inputs_;
    int64_t callIndex_ = 0;
    std::vector<int64_t> latency_; // the measured calls, preallocated
    std::vector<int64_t> wall_;
    int64_t timed_ = 0;
    int64_t sent_ = 0;
    int64_t loadNs_ = 0;
    std::string allocator_;
};

void Runner::hello(const std::string& deviceName) {
    JsonLine e = event(event_name::hello);
    e.field("protocol", protocol::version)
        .field("probe_version", COMPILESCOPE_RUNNER_VERSION)
        .field("runner", "aoti")
        .field("pid", static_cast<long long>(getpid()))
        .nullField("python")
        .field("torch", TORCH_VERSION)
        .nullField("cuda")
        .field("device", deviceName)
        .key("settings")
        .beginObject()
        .field("mode", "aoti")
        .field("model", absolute(a_.package))
        .field("warmup", a_.warmup)
        .field("iters", a_.iters)
        .field("device", a_.device);
    if (a_.threads > 0) {
        e.field("threads", a_.threads);
    } else {
        e.nullField("threads");
    }
    e.end();
    emit(e);
}

// A phase edge as the probe writes it: host RSS sampled just inside the
// edges, a CUPTI mark, and the RSS samples sent after each end.
void Runner::edge(const char* name, bool end, int64_t overheadNs,
                  const std::optional<MachineCpuField>& machine,
                  const std::optional<HostFaultsField>& faults,
                  const std::optional<HostHeldField>& held) {
    if (end) {
        sampler_.sampleNow();
    }
    JsonLine e = event(event_name::phase);
    e.field("name", name).field("edge", end ? "end" : "begin");
    if (overheadNs >= 0) {
        e.field("harness_overhead_ns", static_cast<long long>(overheadNs));
    }
    if (machine) {
        e.key("machine_cpu")
            .beginObject()
            .field("cpus", machine->cpus)
            .field("wall_ns", static_cast<long long>(machine->wallNs))
            .field("busy_ns", static_cast<long long>(machine->busyNs))
            .field("steal_ns", static_cast<long long>(machine->stealNs))
            .field("probe_cpu_ns", static_cast<long long>(machine->probeCpuNs))
            .field("tick_ns", static_cast<long long>(machine->tickNs))
            .end();
    }
    if (faults) {
        e.key("host_faults")
            .beginObject()
            .field("calls", static_cast<long long>(faults->calls))
            .field("minor", static_cast<long long>(faults->minor))
            .field("major", static_cast<long long>(faults->major))
            .field("sys_cpu_ns", static_cast<long long>(faults->sysCpuNs))
            .field("wall_ns", static_cast<long long>(faults->wallNs))
            .field("page_bytes", static_cast<long long>(faults->pageBytes))
            .field("allocator", faults->allocator)
            .key("malloc_env")
            .beginObject();
        for (const auto& [key, value] : faults->mallocEnv) {
            e.field(key.c_str(), value);
        }
        e.end().end();
    }
    if (held) {
        e.key("host_held")
            .beginObject()
            .field("counter", "malloc")
            .field("calls", static_cast<long long>(held->calls))
            .field("begin_bytes", static_cast<long long>(held->beginBytes))
            .field("end_bytes", static_cast<long long>(held->endBytes))
            .end();
    }
    const int64_t t = monotonicNs();
    emit(e);
    if (!end) {
        sampler_.sampleNow();
    }
    cupti_.markPhase(name, end, t);
    if (end) {
        flushRss();
    }
}

void Runner::flushRss() {
    const auto samples = sampler_.drain();
    if (samples.empty()) {
        return;
    }
    JsonLine e = event(event_name::memory);
    e.field("kind", "host_rss").key("samples").beginArray();
    for (const auto& [t, bytes] : samples) {
        e.beginArray().value(static_cast<long long>(t)).value(static_cast<long long>(bytes)).end();
    }
    e.end();
    emit(e);
}

void Runner::fatal(const Fatal& f) {
    JsonLine e = event(event_name::error);
    e.field("kind", f.kind)
        .field("message", std::string(f.what()))
        .field("traceback", "")
        .field("fatal", true);
    emit(e);
}

void Runner::loadPackage() {
    const std::string path = absolute(a_.package);
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        throw Fatal("model_not_found", path +
                                           " does not exist or is not a file. Give the .pt2 that "
                                           "torch._inductor.aoti_compile_and_package wrote.");
    }
    const int64_t t0 = monotonicNs();
    try {
        // On CUDA the package loads onto the device asked for.
        const c10::DeviceIndex index =
            device_.is_cuda() ? device_.index() : static_cast<c10::DeviceIndex>(-1);
        loader_ = std::make_unique<torch::inductor::AOTIModelPackageLoader>(path, "model", false, 1,
                                                                            index);
    } catch (const std::exception& e) {
        if (isOutOfMemory(e)) {
            throw Fatal("out_of_memory",
                        "out of memory loading " + path + " on " + a_.device + " (" + said(e) +
                            "). Free memory on the device or use a smaller model.");
        }
        throw Fatal("bad_package",
                    path + " is not an AOTInductor package (" + said(e) +
                        "). Build it with torch._inductor.aoti_compile_and_package, or give a .py "
                        "model.");
    }
    loadNs_ = monotonicNs() - t0;
}

void Runner::loadInputs() {
    const std::string path = absolute(a_.inputs);
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        throw Fatal("bad_inputs", "the inputs file " + path +
                                      " cannot be read. Write it with torch.save([t0, t1, ...], "
                                      "path) from the model's flattened inputs.");
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                                  std::istreambuf_iterator<char>());
    const std::string hint = ". Write it with torch.save([t0, t1, ...], path) from the model's "
                             "flattened tensor inputs.";
    c10::IValue value;
    try {
        value = torch::jit::pickle_load(bytes);
    } catch (const std::exception& e) {
        throw Fatal("bad_inputs",
                    "the inputs file " + path + " cannot be loaded (" + said(e) + ")" + hint);
    }
    std::vector<c10::IValue> items;
    if (value.isTensor()) {
        items.push_back(value);
    } else if (value.isList()) {
        for (const auto& v : value.toListRef()) {
            items.push_back(v);
        }
    } else if (value.isTuple()) {
        for (const auto& v : value.toTupleRef().elements()) {
            items.push_back(v);
        }
    } else {
        throw Fatal("bad_inputs", "the inputs file " + path + " holds a " + value.tagKind() +
                                      ", not a list of tensors" + hint);
    }
    for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].isTensor()) {
            throw Fatal("bad_inputs", "the inputs file " + path + " holds a " + items[i].tagKind() +
                                          " at position " + std::to_string(i) + ", not a tensor" +
                                          hint);
        }
    }
    try {
        for (const auto& v : items) {
            inputs_.push_back(v.toTensor().to(device_));
        }
    } catch (const std::exception& e) {
        if (isOutOfMemory(e)) {
            throw Fatal("out_of_memory", "out of memory moving the inputs of " + path + " to " +
                                             a_.device + " (" + said(e) +
                                             "). Use smaller inputs or free the device.");
        }
        throw;
    }
}

std::pair<int64_t, int64_t> Runner::timedCall(Timer& timer) {
    try {
        // The outputs die inside the span, as in a loop that keeps only the last
        // one and in the cross-check's blocks (harness.py says why).
        return timer([&] { loader_->run(inputs_); });
    } catch (const std::exception& e) {
        const std::string pkg = absolute(a_.package);
        if (isOutOfMemory(e)) {
            throw Fatal("out_of_memory", "out of memory running " + pkg + " on " + a_.device +
                                             " (" + said(e) +
                                             "). Use smaller inputs or free the device.");
        }
        throw Fatal("model_raised",
                    "running " + pkg + " on the inputs of " + absolute(a_.inputs) + " failed (" +
                        said(e) +
                        "). The inputs must match, in number, shape, dtype and device, the ones "
                        "the package was exported with.");
    }
}

void Runner::iteration(int64_t latency, int64_t wall, bool first) {
    JsonLine e = event(event_name::iteration);
    e.field("index", static_cast<long long>(callIndex_))
        .field("latency_ns", static_cast<long long>(latency))
        .field("wall_ns", static_cast<long long>(wall))
        .field("warmup", true)
        .field("first_call", first);
    emit(e);
    ++callIndex_;
}

void Runner::sendChunk(int64_t from, int64_t to) {
    if (to <= from) {
        return;
    }
    JsonLine e = event(event_name::iterations);
    e.field("first_index", static_cast<long long>(callIndex_)).key("latency_ns").beginArray();
    for (int64_t i = from; i < to; ++i) {
        e.value(static_cast<long long>(latency_[static_cast<size_t>(i)]));
    }
    e.end().key("wall_ns").beginArray();
    for (int64_t i = from; i < to; ++i) {
        e.value(static_cast<long long>(wall_[static_cast<size_t>(i)]));
    }
    e.end();
    sink_.emit(e);
    callIndex_ += to - from;
    sent_ = to;
}

// The measured calls with nothing between them: no event per call, the RSS
// sampler paused; the clock read after each call decides when a chunk goes.
void Runner::measure(Timer& timer) {
    latency_.assign(static_cast<size_t>(a_.iters), 0);
    wall_.assign(static_cast<size_t>(a_.iters), 0);
    gMeasuring.store(true);
    int64_t last = monotonicNs();
    try {
        for (int64_t i = 0; i < a_.iters; ++i) {
            if (gSignal.load() != 0) {
                break;
            }
            const auto [lat, wall] = timedCall(timer);
            latency_[static_cast<size_t>(i)] = lat;
            wall_[static_cast<size_t>(i)] = wall;
            timed_ = i + 1;
            const int64_t now = monotonicNs();
            if (now - last >= kChunkNs) {
                sendChunk(sent_, timed_);
                last = monotonicNs();
            }
        }
    } catch (...) {
        sendChunk(sent_, timed_); // what was timed before the call that raised
        gMeasuring.store(false);
        throw;
    }
    sendChunk(sent_, timed_);
    gMeasuring.store(false);
    if (const int sig = gSignal.load(); sig != 0) {
        log("warning", "compilescope-aoti-runner stopped by signal " + std::to_string(sig));
        _exit(128 + sig);
    }
}

// The median time the same timing reports for a call that does nothing.
int64_t Runner::harnessOverhead(Timer& timer) {
    auto empty = [] {};
    for (int i = 0; i < 10; ++i) {
        timer(empty);
    }
    std::vector<int64_t> samples;
    samples.reserve(200);
    for (int i = 0; i < 200; ++i) {
        samples.push_back(timer(empty).first);
    }
    return median(std::move(samples));
}

// The same calls timed in blocks, as torch.utils.benchmark's blocked_autorange.
std::optional<HostHeldField> Runner::crosscheck(Timer& timer, int64_t measureNs) {
    const int64_t perCall = std::max<int64_t>(median(latency_), 1);
    const int64_t calls = std::max<int64_t>(1, (kBlockMinNs + perCall - 1) / perCall);
    const int64_t budget = std::min(kBlocksBudgetNs, std::max<int64_t>(measureNs, 0));
    std::vector<double> means;
    const auto heldBefore = mallocHeldBytes(allocator_);
    const int64_t start = monotonicNs();
    try {
        while (static_cast<int>(means.size()) < kBlocksMax) {
            means.push_back(
                static_cast<double>(timer.block([&] { loader_->run(inputs_); }, calls)) /
                static_cast<double>(calls));
            if (gSignal.load() != 0 || monotonicNs() - start >= budget) {
                break;
            }
        }
    } catch (const std::exception& e) {
        log("warning", "the block-timing cross-check failed: " + said(e));
        return std::nullopt;
    }
    // A second window of the same calls: memory kept per call grows in both.
    const auto held = heldWindow(heldBefore, mallocHeldBytes(allocator_),
                                 calls * static_cast<int64_t>(means.size()));
    JsonLine e = event(event_name::crosscheck);
    e.field("block_calls", static_cast<long long>(calls)).array("block_means_ns", means);
    emit(e);
    return held;
}

void Runner::execute() {
    // Device, before anything touches it.
    device_ = c10::Device(a_.device);
    if (device_.is_cuda()) {
        if (!torch::cuda::is_available()) {
            throw Fatal("no_cuda", std::string("--device ") + a_.device +
                                       ": CUDA is not available to this runner (" +
                                       (COMPILESCOPE_TORCH_HAS_CUDA != 0
                                            ? "no CUDA device or driver"
                                            : "its libtorch was built without CUDA") +
                                       "). Run on --device cpu, or on a machine with a GPU.");
        }
        if (!device_.has_index()) {
            device_ = c10::Device(c10::kCUDA, 0);
        }
        // DeviceIndex is a signed char; a count is never negative.
        const int count = static_cast<unsigned char>(torch::cuda::device_count());
        if (device_.index() >= count) {
            throw Fatal("no_cuda",
                        std::string("--device ") + a_.device +
                            " does not exist: this machine has " + std::to_string(count) +
                            " CUDA device(s), cuda:0 to cuda:" + std::to_string(count - 1) + ".");
        }
    }
    std::optional<c10::DeviceGuard> guard;
    if (device_.is_cuda()) {
        guard.emplace(device_);
        if (!a_.cupti.empty()) {
            cupti_.start(a_.cupti, sink_); // before the first CUDA allocation
        }
    }
    if (a_.threads > 0) {
        at::set_num_threads(a_.threads);
    }
    const c10::InferenceMode inference;
    const at::NoGradGuard noGrad;

    Timer timer(device_);
    edge("compile", false);
    loadPackage();
    loadInputs();
    const auto [firstLatency, firstWall] = timedCall(timer);
    iteration(firstLatency, firstWall, true);
    edge("compile", true);

    JsonLine ct = event(event_name::compile_time);
    ct.field("first_call_ns", static_cast<long long>(loadNs_ + firstWall))
        .key("phases")
        .beginArray();
    for (const auto& [name, seconds] : a_.priorPhases) {
        ct.beginObject().field("name", name).field("seconds", seconds).end();
    }
    ct.beginObject()
        .field("name", "load")
        .field("seconds", static_cast<double>(loadNs_) / 1e9)
        .end();
    ct.beginObject()
        .field("name", "first_call")
        .field("seconds", static_cast<double>(firstWall) / 1e9)
        .end();
    ct.end().field("source", "compilescope-aoti-runner: steady clock around "
                             "AOTIModelPackageLoader construction and the first run()");
    emit(ct);

    edge("warmup", false);
    for (int i = 1; i < a_.warmup; ++i) {
        const auto [lat, wall] = timedCall(timer);
        iteration(lat, wall, false);
    }
    edge("warmup", true);

    // Paused before the phase begins, resumed after it ends: inside it host
    // RSS comes only from the edges' own samples.
    sampler_.pause();
    edge("measure", false);
    const auto machineBefore = machineSnapshot();
    const FaultCounts faultsBefore = faultCounts();
    allocator_ = processAllocator();
    const auto heldBefore = mallocHeldBytes(allocator_);
    const int64_t t0 = monotonicNs();
    measure(timer);
    const int64_t measureNs = monotonicNs() - t0;
    const auto held = heldWindow(heldBefore, mallocHeldBytes(allocator_), timed_);
    const auto faults = hostFaultsBetween(faultsBefore, faultCounts(), timed_);
    const int64_t overheadNs = harnessOverhead(timer);
    edge("measure", true, overheadNs, machineCpuBetween(machineBefore, machineSnapshot()), faults,
         held);
    sampler_.resume();
    if (timed_ > 0) {
        // A phase of its own, as in the Python probe (where torch may recompile in it).
        edge("crosscheck", false);
        const auto crosscheckHeld = crosscheck(timer, measureNs);
        edge("crosscheck", true, -1, std::nullopt, std::nullopt, crosscheckHeld);
    }
}

int Runner::run() {
    std::string deviceName = a_.device == "cuda" ? "cuda:0" : a_.device;
    if (!a_.continueStream) {
        hello(deviceName);
    }
    sampler_.start();
    bool ok = false;
    try {
        execute();
        ok = true;
    } catch (const Fatal& f) {
        fatal(f);
    } catch (const std::exception& e) {
        fatal(Fatal(isOutOfMemory(e) ? "out_of_memory" : "internal",
                    "compilescope-aoti-runner failed: " + said(e) +
                        ". This is a bug in compilescope, or in libtorch's AOTInductor runtime; "
                        "please report it with this message."));
    }
    if (device_.is_cuda() && cupti_.active()) {
        try {
            c10::impl::getDeviceGuardImpl(device_.type())->synchronizeDevice(device_.index());
        } catch (const std::exception&) {
            // The run is decided; the records CUPTI has are still read.
        }
        cupti_.summarize(sink_);
    }
    sampler_.sampleNow();
    sampler_.stop();
    flushRss();
    loader_.reset();
    if (!a_.continueStream) {
        JsonLine done = event(event_name::done);
        done.field("status", ok ? "ok" : "failed");
        emit(done);
    }
    return ok ? 0 : 3;
}

// The descriptor events go to. fd 1 is kept for events only: stdout is
// pointed at stderr, so whatever libtorch or the package prints never lands
// in the stream. Not inherited by anything the runner starts.
int eventDescriptor(int fd) {
    if (fd == 1) {
        const int dup = fcntl(1, F_DUPFD_CLOEXEC, 3);
        if (dup < 0) {
            return -1;
        }
        std::fflush(stdout);
        dup2(2, 1);
        return dup;
    }
    const int flags = fcntl(fd, F_GETFD);
    if (flags < 0) {
        return -1;
    }
    fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    return fd;
}

} // namespace
} // namespace cs::aoti

int main(int argc, char** argv) {
    using namespace cs::aoti;
    std::signal(SIGPIPE, SIG_IGN);
    const std::vector<std::string> argvList(argv + 1, argv + argc);
    const ParseResult parsed = parseArgs(argvList);
    if (!parsed.args) {
        std::cerr << "compilescope-aoti-runner: " << parsed.error << "\n" << usage();
        // The error goes into the stream too, when its descriptor is known.
        int fd = 1;
        for (size_t i = 0; i + 1 < argvList.size(); ++i) {
            if (argvList[i] == "--events-fd") {
                fd = std::atoi(argvList[i + 1].c_str());
            }
        }
        if (fd >= 0 && fcntl(fd, F_GETFD) >= 0) {
            EventSink sink(fd);
            JsonLine e = event(protocol::event::error);
            e.field("kind", "bad_arguments")
                .field("message", "compilescope-aoti-runner: " + parsed.error)
                .field("traceback", "")
                .field("fatal", true);
            sink.emit(e);
        }
        return 2;
    }
    const RunnerArgs& args = *parsed.args;
    if (args.version) {
        JsonLine v;
        v.field("runner", COMPILESCOPE_RUNNER_VERSION)
            .field("torch", TORCH_VERSION)
            .field("protocol", protocol::version)
            .field("cuda", COMPILESCOPE_TORCH_HAS_CUDA != 0);
        std::cout << v.line() << std::flush;
        return 0;
    }
    const int fd = eventDescriptor(args.eventsFd);
    if (fd < 0) {
        std::cerr << "compilescope-aoti-runner: --events-fd " << args.eventsFd
                  << " is not an open descriptor\n"
                  << usage();
        return 2;
    }
    EventSink sink(fd);
    gSink = &sink;
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
        std::signal(sig, onSignal);
    }
    Runner runner(args, sink);
    return runner.run();
}
