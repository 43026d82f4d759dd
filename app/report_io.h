// Report reading and writing off the GUI thread; results posted back.
#pragma once

#include <QObject>
#include <QString>

#include <functional>

#include "report_json.h"

namespace cs::app {

enum class ReportFormat { Json, Html, ChromeTrace };

// Writes a copy of `report`; `done(error)` runs on `context`'s thread (empty error: saved).
void saveReportAsync(QObject* context, core::Report report, QString path, ReportFormat format,
                     std::function<void(QString error)> done);
void readReportAsync(QObject* context, QString path, std::function<void(core::ReportReadResult)> done);

} // namespace cs::app
