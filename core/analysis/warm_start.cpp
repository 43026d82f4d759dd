#include "core/analysis/warm_start.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/analysis/stats.h"
#include "core/analysis/units.h"

namespace cs::core {

namespace {

constexpr const char* kAoti = "aoti";

bool isAoti(const Setting& s) {
    return s.mode == kAoti;
}
bool isEager(const Setting& s) {
    return s.mode == "eager";
}

// The setting less how it started: the three starts of one setting share it.
Setting rowKey(Setting s) {
    s.start = kStartFresh;
    return s;
}

ColdStart fromRun(const Run& run, size_t index) {
    ColdStart cell;
    cell.run = index;
    if (run.firstCallNs >= 0) {
        cell.firstCallNs = run.firstCallNs;
        return cell;
    }
    if (run.error)
        cell.why = std::string(toString(run.status)) + ": " + run.error->message;
    else if (!run.finished())
        cell.why = "not measured yet (" + std::string(toString(run.status)) + ")";
    else
        cell.why = "no first call measured (" + std::string(toString(run.status)) + ")";
    return cell;
}

// A run fills its cell unless the cell already holds a measured first call.
void fill(ColdStart& cell, const Run& run, size_t index) {
    if (cell.firstCallNs >= 0)
        return;
    cell = fromRun(run, index);
}

void blankWhy(ColdStart& cell, const std::string& why) {
    if (!cell.run && cell.why.empty())
        cell.why = why;
}

std::optional<double> ratio(const ColdStart& fresh, const ColdStart& other) {
    if (fresh.firstCallNs <= 0 || other.firstCallNs <= 0)
        return std::nullopt;
    return static_cast<double>(fresh.firstCallNs) / static_cast<double>(other.firstCallNs);
}

int64_t phaseNs(const Run& run, const std::string& name) {
    for (const auto& p : run.compilePhases) {
        if (p.name == name)
            return std::llround(p.seconds * 1e9);
    }
    return -1;
}

} // namespace

std::vector<Setting> warmStartSettings(const std::vector<Setting>& settings) {
    std::vector<Setting> out;
    for (Setting s : settings) {
        s.start = kStartFresh;
        out.push_back(s);
        if (isEager(s) || isAoti(s))
            continue;
        for (const char* start : {kStartWarmCache, kStartCacheArtifacts}) {
            s.start = start;
            out.push_back(s);
        }
    }
    return out;
}

bool hasWarmStarts(const Report& report) {
    return std::any_of(report.runs.begin(), report.runs.end(), [](const Run& r) {
        return r.setting.warmCache() || r.setting.cacheArtifacts();
    });
}

std::vector<WarmStartRow> warmStartTable(const Report& report) {
    std::vector<WarmStartRow> rows;
    std::vector<Setting> keys;
    for (size_t i = 0; i < report.runs.size(); ++i) {
        const Run& run = report.runs[i];
        if (run.status == RunStatus::Imported || run.scaling)
            continue; // no probe measured a first call of its own there
        const Setting key = rowKey(run.setting);
        auto at = std::find(keys.begin(), keys.end(), key);
        if (at == keys.end()) {
            keys.push_back(key);
            WarmStartRow row;
            row.label = key.label();
            row.mode = key.mode;
            rows.push_back(std::move(row));
            at = keys.end() - 1;
        }
        WarmStartRow& row = rows[static_cast<size_t>(at - keys.begin())];
        if (run.setting.warmCache() && !isAoti(run.setting)) {
            fill(row.warmCache, run, i);
        } else if (run.setting.cacheArtifacts() && !isAoti(run.setting)) {
            fill(row.artifacts, run, i);
            if (row.artifacts.run == i && run.cacheArtifacts &&
                run.cacheArtifacts->action == "load") {
                row.artifactsLoadNs = run.cacheArtifacts->ns;
                row.artifactsBytes = run.cacheArtifacts->bytes;
            }
        } else {
            fill(row.fresh, run, i);
            if (row.fresh.run == i) {
                if (isAoti(run.setting))
                    row.packageLoadNs = phaseNs(run, "load");
                if (auto stats = computeStats(run.measuredLatencies()))
                    row.medianNs = stats->median;
            }
        }
    }
    for (auto& row : rows) {
        if (row.mode == kAoti) {
            const std::string why = "an AOTInductor package is compiled ahead of time: its cold "
                                    "start is the package load";
            blankWhy(row.warmCache, why);
            blankWhy(row.artifacts, why);
        } else if (row.mode == "eager") {
            blankWhy(row.warmCache, "eager compiles nothing: no cache to warm");
            blankWhy(row.artifacts, "eager compiles nothing: no artifacts to load");
        }
        blankWhy(row.fresh, "not measured: no fresh run of this setting");
        blankWhy(row.warmCache, "not measured: no warm-cache run of this setting");
        blankWhy(row.artifacts, "not measured: no cache-artifacts run of this setting");
        row.warmCache.speedupOverFresh = ratio(row.fresh, row.warmCache);
        row.artifacts.speedupOverFresh = ratio(row.fresh, row.artifacts);
    }
    return rows;
}

std::string coldStartText(const ColdStart& cell) {
    if (cell.firstCallNs >= 0)
        return formatDuration(static_cast<double>(cell.firstCallNs));
    return "— (" + cell.why + ")";
}

std::string warmStartText(const Report& report) {
    const auto rows = warmStartTable(report);
    std::string out;
    char line[320];
    std::snprintf(line, sizeof line, "%-24s %12s %20s %20s %12s %10s\n", "setting", "fresh",
                  "warm cache", "artifacts", "(load)", "(size)");
    out += line;
    auto cell = [](const ColdStart& c) {
        if (c.firstCallNs < 0)
            return std::string("—");
        std::string text = formatDuration(static_cast<double>(c.firstCallNs));
        if (c.speedupOverFresh) {
            char r[32];
            std::snprintf(r, sizeof r, " (%.2fx)", *c.speedupOverFresh);
            text += r;
        }
        return text;
    };
    std::vector<std::string> notes;
    for (const auto& row : rows) {
        const std::string fresh = row.fresh.firstCallNs >= 0
                                      ? formatDuration(static_cast<double>(row.fresh.firstCallNs))
                                      : std::string("—");
        std::snprintf(line, sizeof line, "%-24s %12s %20s %20s %12s %10s\n", row.label.c_str(),
                      fresh.c_str(), cell(row.warmCache).c_str(), cell(row.artifacts).c_str(),
                      row.artifactsLoadNs >= 0
                          ? formatDuration(static_cast<double>(row.artifactsLoadNs)).c_str()
                          : "—",
                      row.artifactsBytes >= 0
                          ? formatBytes(static_cast<double>(row.artifactsBytes)).c_str()
                          : "—");
        out += line;
        if (row.packageLoadNs >= 0)
            notes.push_back(row.label + ": package load " +
                            formatDuration(static_cast<double>(row.packageLoadNs)) +
                            " of its first call");
        const std::pair<const char*, const ColdStart*> cells[] = {
            {"fresh", &row.fresh}, {"warm cache", &row.warmCache}, {"artifacts", &row.artifacts}};
        for (const auto& [name, c] : cells) {
            if (c->firstCallNs < 0 && c->run)
                notes.push_back(row.label + ", " + name + ": " + c->why);
        }
    }
    out += "first call: the cold start a program pays (artifacts: their load included); "
           "(Nx): how many times faster than the fresh compile\n";
    for (const auto& note : notes)
        out += "    " + note + "\n";
    return out;
}

} // namespace cs::core
