#include "widgets/breaks/source_file_loader.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QThreadPool>

#include "core/runner/remote_host.h"

namespace cs::widgets {

namespace {

void setText(SourceText& text, const QString& contents) {
    text.lines = contents.split('\n');
    if (!text.lines.isEmpty() && text.lines.back().isEmpty())
        text.lines.removeLast();
    text.ok = true;
}

} // namespace

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
    setText(text, QString::fromUtf8(file.readAll()));
    return text;
}

void SourceFileLoader::setReader(SourceReader reader) {
    reader_ = std::move(reader);
    forget();
}

void SourceFileLoader::forget() {
    cache_.clear();
    pending_.clear();
    ++generation_;
}

const SourceText* SourceFileLoader::get(const QString& path) {
    if (auto it = cache_.constFind(path); it != cache_.constEnd())
        return &it.value();
    if (pending_.contains(path))
        return nullptr;
    pending_.insert(path, true);
    QPointer<SourceFileLoader> guard(this);
    QThreadPool::globalInstance()->start([guard, path, reader = reader_, generation = generation_] {
        SourceText text = reader ? reader(path) : read(path);
        text.path = path;
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [guard, generation, text = std::move(text)] {
                if (!guard || guard->generation_ != generation)
                    return;
                guard->pending_.remove(text.path);
                guard->cache_.insert(text.path, text);
                emit guard->loaded(text.path);
            },
            Qt::QueuedConnection);
    });
    return nullptr;
}

SourceReader remoteSourceReader(std::shared_ptr<core::RemoteHost> host) {
    return [host = std::move(host)](const QString& path) {
        SourceText text;
        text.path = path;
        if (path.isEmpty()) {
            text.error = SourceFileLoader::tr("No source file was recorded for this location.");
            return text;
        }
        std::string error;
        const auto contents =
            host->readFile(path.toStdString(), &error, SourceFileLoader::kMaxBytes);
        if (!contents) {
            // readFile names host and path; a bare fallback still names both.
            text.error = error.empty()
                             ? SourceFileLoader::tr("Cannot read %1 on %2.")
                                   .arg(path, QString::fromStdString(host->target().label()))
                             : QString::fromStdString(error);
            return text;
        }
        setText(text, QString::fromStdString(*contents).replace(QStringLiteral("\r\n"),
                                                                QStringLiteral("\n")));
        return text;
    };
}

} // namespace cs::widgets
