#include "widgets/breaks/source_file_loader.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QThreadPool>

namespace cs::widgets {

SourceFileLoader::SourceFileLoader(QObject* parent) : QObject(parent) {}

SourceText SourceFileLoader::read(const QString& path) {
    SourceText text;
    text.path = path;
    const QFileInfo info(path);
    if (path.isEmpty()) {
        text.error = tr("No source file was recorded for this location.");
        return text;
    }
    if (!info.exists()) {
        text.error = tr("%1 does not exist any more (moved or deleted since the run).").arg(path);
        return text;
    }
    if (info.size() > kMaxBytes) {
        text.error = tr("%1 is %2 MiB, too big to show here.")
                         .arg(path)
                         .arg(info.size() / (qint64{1024} * 1024));
        return text;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        text.error = tr("Cannot read %1: %2").arg(path, file.errorString());
        return text;
    }
    text.lines = QString::fromUtf8(file.readAll()).split('\n');
    if (!text.lines.isEmpty() && text.lines.back().isEmpty())
        text.lines.removeLast();
    text.ok = true;
    return text;
}

const SourceText* SourceFileLoader::get(const QString& path) {
    if (auto it = cache_.constFind(path); it != cache_.constEnd())
        return &it.value();
    if (pending_.contains(path))
        return nullptr;
    pending_.insert(path, true);
    QPointer<SourceFileLoader> guard(this);
    QThreadPool::globalInstance()->start([guard, path] {
        SourceText text = read(path);
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [guard, text = std::move(text)] {
                if (!guard)
                    return;
                guard->pending_.remove(text.path);
                guard->cache_.insert(text.path, text);
                emit guard->loaded(text.path);
            },
            Qt::QueuedConnection);
    });
    return nullptr;
}

} // namespace cs::widgets
