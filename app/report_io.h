// Report reading and writing off the GUI thread; results posted back.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

#include "core/analysis/report_diff.h"
#include "core/report/report_json.h"
#include "core/trace/trace_import.h"

namespace cs::app {

enum class ReportFormat { Json, Html, ChromeTrace };

// Set to true to stop a read in progress; the read then reports `cancelled`.
using CancelFlag = std::shared_ptr<std::atomic<bool>>;

// Writes a copy of `report`; `done(error)` runs on `context`'s thread (empty error: saved).
void saveReportAsync(QObject* context, core::Report report, QString path, ReportFormat format,
                     std::function<void(QString error)> done);
// Reads streamed; `progress(fraction 0..1)` and `done` run on `context`'s thread.
CancelFlag readReportAsync(QObject* context, QString path,
                           std::function<void(double fraction)> progress,
                           std::function<void(core::ReportReadResult)> done);

// Imports job `job` (1-based; 0 for the only one) of a TORCH_TRACE directory
// or file on a worker thread; `progress` and `done` run on `context`'s thread.
CancelFlag importTraceAsync(QObject* context, QString path, int job,
                            std::function<void(double fraction)> progress,
                            std::function<void(core::trace::ImportResult)> done);

struct DiffLoad {
    bool ok = false;
    QString error;        // which report could not be read, and why
    QStringList warnings; // from reading either report
    core::ReportDiff diff;
};
// Reads both reports and diffs them on a worker thread.
void diffReportsAsync(QObject* context, QString pathA, QString pathB, double thresholdPercent,
                      std::function<void(DiffLoad)> done);

} // namespace cs::app
