#include "core/analysis/environment_facts.h"

#include <algorithm>
#include <set>

#include "core/analysis/python_names.h"
#include "core/analysis/units.h"

namespace cs::core {

namespace {

// "cpu (AMD EPYC 7B13)", "cuda:0 (NVIDIA H200)": what was used, and its name.
std::string deviceText(const ProbeInfo& p) {
    std::string text = p.device;
    if (!p.deviceName.empty() && p.deviceName != p.device)
        text += (text.empty() ? "" : " ") + ("(" + p.deviceName + ")");
    return text;
}

// The report's device as the first probe that said hello used it; the
// environment's name alone (a GPU's, or the CPU's) where no run says more.
std::string reportDeviceText(const Report& report) {
    for (const Run& run : report.runs) {
        if (run.sawHello && run.status != RunStatus::Imported && !run.probe.device.empty())
            return deviceText(run.probe);
    }
    return report.environment.device;
}

// The model's own torch.compile calls, the first few, and who ran them.
std::string ownCompilesText(const std::vector<OwnCompile>& calls) {
    constexpr size_t kListed = 3;
    if (calls.empty())
        return "";
    std::string text;
    for (size_t i = 0; i < calls.size() && i < kListed; ++i)
        text += (text.empty() ? "" : "; ") + ownCompileText(calls[i]);
    if (calls.size() > kListed)
        text += "; and " + std::to_string(calls.size() - kListed) + " more";
    return text + " (every setting but as-written undoes them)";
}

} // namespace

std::vector<EnvironmentFact> environmentFacts(const Report& report) {
    const auto& e = report.environment;
    const auto& m = report.model;
    return {{"model", m.spec},
            {"model class", m.name},
            {"parameters", m.parameters > 0 ? formatCount(static_cast<double>(m.parameters)) : ""},
            {"inputs", joinList(m.inputs)},
            {"own torch.compile calls", ownCompilesText(m.ownCompiles)},
            {"python", e.python},
            {"torch", e.torch},
            {"CUDA", e.cuda},
            {"device", reportDeviceText(report)},
            {"CPU", e.cpu},
            {"host", e.host},
            {"remote target", e.target.empty() ? "none: this computer" : e.target},
            {"probe environment (--env)", environmentText(e.probeEnvironment)},
            {"platform", e.platform},
            {"report created", report.created},
            {"written by", report.generator}};
}

std::string cpuListText(std::vector<int> cpus) {
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    std::vector<std::string> ranges;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        ranges.push_back(j == i ? std::to_string(cpus[i])
                                : std::to_string(cpus[i]) + "-" + std::to_string(cpus[j]));
        i = j + 1;
    }
    return joinList(ranges);
}

std::vector<ProbeFacts> probeFacts(const Report& report) {
    std::vector<ProbeFacts> rows;
    for (size_t i = 0; i < report.runs.size(); ++i) {
        const Run& run = report.runs[i];
        if (run.status == RunStatus::Imported || !run.sawHello)
            continue;
        const ProbeInfo& p = run.probe;
        ProbeFacts row;
        row.run = static_cast<int>(i);
        row.setting = run.setting.label();
        row.interpreter = p.pythonExecutable;
        row.python = p.python;
        row.torch = p.torch;
        row.device = deviceText(p);
        row.host = p.host;
        if (p.threads > 0) {
            row.threads = std::to_string(p.threads) +
                          (p.threads == 1 ? " intra-op thread" : " intra-op threads");
            if (!p.cpuAffinity.empty())
                row.threads += std::string(p.cpuAffinity.size() == 1 ? " on CPU " : " on CPUs ") +
                               cpuListText(p.cpuAffinity);
        }
        rows.push_back(std::move(row));
    }
    const auto first = rows.empty() ? std::vector<std::string>() : rows.front().compared();
    for (auto& row : rows) {
        const auto mine = row.compared();
        for (size_t k = 0; k < mine.size(); ++k)
            row.unlikeFirst.push_back(mine[k] != first[k]);
    }
    return rows;
}

std::vector<std::string> differingTorchVersions(const Report& report) {
    std::set<std::string> torches;
    for (const auto& run : report.runs) {
        if (!run.probe.torch.empty())
            torches.insert(run.probe.torch);
    }
    if (torches.size() < 2)
        return {};
    return {torches.begin(), torches.end()};
}

} // namespace cs::core
