// Opens a report built in a test the way a user does (File > Open on its JSON),
// so what a tab shows has been through the report file and back.
#pragma once

#include <QFile>
#include <QSignalSpy>
#include <QString>
#include <QTemporaryDir>

#include "app/main_window.h"
#include "core/report/report_json.h"

namespace cs::test {

// Writes `report` into `dir` as `name` and opens it in `window` (quiet, at the
// smallest size the GUI must fit), shown. With CS_SCREENSHOT_DIR set the file
// is also copied there, for scripts/screenshots.sh. False when the file could
// not be written or the window did not open it within five seconds.
inline bool openReportFile(app::MainWindow& window, const core::Report& report,
                           const QTemporaryDir& dir, const QString& name) {
    const QString path = dir.filePath(name);
    std::string error;
    if (!core::saveTextFile(path.toStdString(), core::writeReportJson(report), &error))
        return false;
    if (const QString keep = qEnvironmentVariable("CS_SCREENSHOT_DIR"); !keep.isEmpty()) {
        QFile::remove(keep + "/" + name);
        QFile::copy(path, keep + "/" + name);
    }
    window.setQuiet(true);
    window.resize(1280, 800);
    QSignalSpy opened(&window, &app::MainWindow::reportOpened);
    window.openPath(path);
    if (!opened.wait(5000))
        return false;
    window.show();
    return true;
}

} // namespace cs::test
