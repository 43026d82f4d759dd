// A user's source file as the views show it, and how to read one that is not
// on this computer (a remote run's host). Kept apart from the loader so the
// document can carry a reader without knowing the views that use it.
#pragma once

#include <QString>
#include <QStringList>

#include <functional>

namespace cs::widgets {

struct SourceText {
    QString path;
    bool ok = false;
    QStringList lines;
    QString error; // why it could not be read
};

// Reads one file, blocking; called on a worker thread. Empty: local files.
using SourceReader = std::function<SourceText(const QString& path)>;

} // namespace cs::widgets
