// Reports for widget tests built from recorded probe streams
// (tests/fixtures/streams), with the user's source files copied into a
// directory the test owns, so a test can also take them away.
#pragma once

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>

#include <fstream>
#include <sstream>
#include <string>

#include "core/events/event_parser.h"
#include "core/report/session.h"

namespace cs::test {

inline core::Run replayFixture(const QString& name, const core::Setting& setting = {}) {
    std::ifstream in((QStringLiteral(COMPILESCOPE_FIXTURES "/streams/") + name).toStdString());
    std::stringstream text;
    text << in.rdbuf();
    return core::replayStream(text.str(), setting);
}

// Points every source path whose file name is `fileName` at a copy of
// sourceDir/<fileName> (the gallery by default) inside dir.
inline QString relocateSource(core::Run& run, const QString& fileName, const QDir& dir,
                              const QString& sourceDir = QStringLiteral(COMPILESCOPE_MODELS)) {
    QString copy = dir.filePath(fileName);
    QFile::remove(copy);
    QFile::copy(sourceDir + "/" + fileName, copy);
    const std::string target = copy.toStdString();
    auto fix = [&](std::string& path) {
        if (!path.empty() && QFileInfo(QString::fromStdString(path)).fileName() == fileName)
            path = target;
    };
    fix(run.model.file);
    for (auto& g : run.graphs) {
        fix(g.file);
        for (auto& n : g.nodes)
            fix(n.file);
    }
    for (auto& b : run.graphBreaks) {
        for (auto& f : b.frames)
            fix(f.file);
    }
    return copy;
}

inline core::Report reportOf(std::vector<core::Run> runs) {
    core::Report report;
    report.runs = std::move(runs);
    report.deriveFromRuns();
    return report;
}

} // namespace cs::test
