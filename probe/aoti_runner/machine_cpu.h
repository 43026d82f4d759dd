// The CPU time of the CPUs the runner may run on over the measure phase, as
// the probe reports it (machine_load.py): /proc/stat summed over the
// affinity's CPUs, and the process's own CPU time. Torch-free.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cs::aoti {

struct ProcStat {
    int64_t busyTicks = 0; // user + nice + system + irq + softirq
    int64_t stealTicks = 0;
    int cpus = 0;
};

// From /proc/stat's text, the per-CPU lines of `allowed` (all when empty);
// nullopt when no such line reads.
std::optional<ProcStat> parseProcStat(const std::string& text, const std::set<int>& allowed);

struct MachineSnapshot {
    ProcStat stat;
    int64_t processCpuNs = 0;
    int64_t wallNs = 0;
};

// Now; nullopt off Linux or when /proc/stat does not read.
std::optional<MachineSnapshot> machineSnapshot();

struct MachineCpuField {
    int cpus = 0;
    int64_t wallNs = 0;
    int64_t busyNs = 0;
    int64_t stealNs = 0;
    int64_t probeCpuNs = 0;
    int64_t tickNs = 0;
};

// The measure end's machine_cpu; nullopt without both or when the CPUs changed.
std::optional<MachineCpuField> machineCpuBetween(const std::optional<MachineSnapshot>& before,
                                                 const std::optional<MachineSnapshot>& after);

// The runner's own page faults and kernel CPU over the measured calls, as the
// probe reports them (host_faults.py): getrusage, read before and after.
struct FaultCounts {
    int64_t minor = 0;
    int64_t major = 0;
    int64_t sysNs = 0;
    int64_t wallNs = 0;
};
FaultCounts faultCounts();

struct HostFaultsField {
    int64_t calls = 0;
    int64_t minor = 0;
    int64_t major = 0;
    int64_t sysCpuNs = 0;
    int64_t wallNs = 0;
    int64_t pageBytes = 4096;
    std::string allocator; // "glibc", "jemalloc", "tcmalloc", "mimalloc"; "" unknown
    std::vector<std::pair<std::string, std::string>> mallocEnv;
};

// "jemalloc", "tcmalloc" or "mimalloc" when /proc/self/maps' text maps one,
// else "glibc".
std::string allocatorFromMaps(const std::string& maps);
// The measure end's host_faults; nullopt without calls.
std::optional<HostFaultsField> hostFaultsBetween(const FaultCounts& before,
                                                 const FaultCounts& after, int64_t calls);

// This process's allocator, from /proc/self/maps (allocatorFromMaps); "" when
// it cannot be read.
std::string processAllocator();

// glibc malloc's bytes handed out and not had back (mallinfo2: uordblks +
// hblkhd), as the probe's MallocHeld: nullopt under another `allocator`, which
// serves malloc itself, or without glibc 2.33+.
std::optional<int64_t> mallocHeldBytes(const std::string& allocator);

// A phase end's host_held: malloc's bytes before and after `calls` calls at
// the same inputs; nullopt when either read is missing or there were none.
struct HostHeldField {
    int64_t calls = 0;
    int64_t beginBytes = 0;
    int64_t endBytes = 0;
};
std::optional<HostHeldField> heldWindow(std::optional<int64_t> begin, std::optional<int64_t> end,
                                        int64_t calls);

} // namespace cs::aoti
