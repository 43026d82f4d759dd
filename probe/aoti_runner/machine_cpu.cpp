#include "machine_cpu.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

#include <malloc.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

namespace cs::aoti {

namespace {

int64_t clockNs(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::set<int> affinity() {
    std::set<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return cpus;
    for (int i = 0; i < CPU_SETSIZE; ++i) {
        if (CPU_ISSET(i, &set))
            cpus.insert(i);
    }
    return cpus;
}

int64_t tickNs() {
    const long hz = sysconf(_SC_CLK_TCK);
    return 1'000'000'000 / (hz > 0 ? hz : 100);
}

} // namespace

std::optional<ProcStat> parseProcStat(const std::string& text, const std::set<int>& allowed) {
    ProcStat out;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream fields(line);
        std::string name;
        fields >> name;
        if (name.size() <= 3 || name.compare(0, 3, "cpu") != 0 ||
            !std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        const int cpu = std::atoi(name.c_str() + 3);
        if (!allowed.empty() && allowed.count(cpu) == 0)
            continue;
        std::vector<int64_t> ticks;
        int64_t value = 0;
        while (fields >> value)
            ticks.push_back(value);
        if (ticks.size() < 7)
            return std::nullopt;
        out.busyTicks += ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6];
        out.stealTicks += ticks.size() > 7 ? ticks[7] : 0;
        ++out.cpus;
    }
    if (out.cpus == 0)
        return std::nullopt;
    return out;
}

std::optional<MachineSnapshot> machineSnapshot() {
    std::ifstream file("/proc/stat");
    if (!file)
        return std::nullopt;
    std::stringstream text;
    text << file.rdbuf();
    const auto stat = parseProcStat(text.str(), affinity());
    if (!stat)
        return std::nullopt;
    return MachineSnapshot{*stat, clockNs(CLOCK_PROCESS_CPUTIME_ID), clockNs(CLOCK_MONOTONIC)};
}

std::optional<MachineCpuField> machineCpuBetween(const std::optional<MachineSnapshot>& before,
                                                 const std::optional<MachineSnapshot>& after) {
    if (!before || !after || before->stat.cpus != after->stat.cpus)
        return std::nullopt;
    const int64_t tick = tickNs();
    MachineCpuField f;
    f.cpus = after->stat.cpus;
    f.wallNs = after->wallNs - before->wallNs;
    f.busyNs = std::max<int64_t>(0, after->stat.busyTicks - before->stat.busyTicks) * tick;
    f.stealNs = std::max<int64_t>(0, after->stat.stealTicks - before->stat.stealTicks) * tick;
    f.probeCpuNs = after->processCpuNs - before->processCpuNs;
    f.tickNs = tick;
    return f;
}

FaultCounts faultCounts() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return {usage.ru_minflt, usage.ru_majflt,
            static_cast<int64_t>(usage.ru_stime.tv_sec) * 1'000'000'000 +
                static_cast<int64_t>(usage.ru_stime.tv_usec) * 1000,
            clockNs(CLOCK_MONOTONIC)};
}

std::string allocatorFromMaps(const std::string& maps) {
    std::istringstream lines(maps);
    std::string line;
    while (std::getline(lines, line)) {
        const auto slash = line.rfind('/');
        const std::string file = slash == std::string::npos ? "" : line.substr(slash + 1);
        for (const char* name : {"jemalloc", "tcmalloc", "mimalloc"}) {
            if (file.rfind(std::string("lib") + name, 0) == 0)
                return name;
        }
    }
    return "glibc";
}

std::optional<HostFaultsField> hostFaultsBetween(const FaultCounts& before,
                                                 const FaultCounts& after, int64_t calls) {
    if (calls <= 0)
        return std::nullopt;
    HostFaultsField f;
    f.calls = calls;
    f.minor = std::max<int64_t>(0, after.minor - before.minor);
    f.major = std::max<int64_t>(0, after.major - before.major);
    f.sysCpuNs = std::max<int64_t>(0, after.sysNs - before.sysNs);
    f.wallNs = std::max<int64_t>(0, after.wallNs - before.wallNs);
    const long page = sysconf(_SC_PAGESIZE);
    f.pageBytes = page > 0 ? page : 4096;
    f.allocator = processAllocator();
    // The same tunables the probe reports (host_faults.py MALLOC_ENV).
    for (const char* name :
         {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_ARENA_MAX",
          "GLIBC_TUNABLES", "MALLOC_CONF", "TCMALLOC_RELEASE_RATE"}) {
        if (const char* value = std::getenv(name))
            f.mallocEnv.emplace_back(name, value);
    }
    return f;
}

std::string processAllocator() {
    std::ifstream maps("/proc/self/maps");
    if (!maps)
        return "";
    std::stringstream text;
    text << maps.rdbuf();
    return allocatorFromMaps(text.str());
}

std::optional<int64_t> mallocHeldBytes(const std::string& allocator) {
    if (allocator != "glibc")
        return std::nullopt;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 info = mallinfo2();
    return static_cast<int64_t>(info.uordblks + info.hblkhd);
#else
    return std::nullopt;
#endif
}

std::optional<HostHeldField> heldWindow(std::optional<int64_t> begin, std::optional<int64_t> end,
                                        int64_t calls) {
    if (!begin || !end || calls <= 0)
        return std::nullopt;
    return HostHeldField{calls, *begin, *end};
}

} // namespace cs::aoti
