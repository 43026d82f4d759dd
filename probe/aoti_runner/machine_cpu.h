// The CPU time of the CPUs the runner may run on over the measure phase, as
// the probe reports it (machine_load.py): /proc/stat summed over the
// affinity's CPUs, and the process's own CPU time. Torch-free.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

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

} // namespace cs::aoti
