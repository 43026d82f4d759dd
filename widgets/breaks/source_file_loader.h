// Reads user source files off the GUI thread and keeps what it read. A file
// that cannot be read (moved, deleted, no permission, too big) comes back with
// a message that names it and says why, never as an empty text. A report from
// a remote run names paths on its host: a reader set here fetches them there.
#pragma once

#include <QHash>
#include <QObject>
#include <QString>

#include <memory>

#include "widgets/common/source_text.h"

namespace cs::core {
class RemoteHost;
}

namespace cs::widgets {

class SourceFileLoader : public QObject {
    Q_OBJECT
  public:
    static constexpr qint64 kMaxBytes = qint64{8} * 1024 * 1024;

    explicit SourceFileLoader(QObject* parent = nullptr);

    // Returns the text when already read; otherwise starts reading and returns nullptr.
    const SourceText* get(const QString& path);
    // Drops what was read; reads still under way are not kept when they end.
    void forget();

    // Where files are read from next: empty is this computer. Forgets what was read.
    void setReader(SourceReader reader);

    // Reads synchronously: the worker's part, public for tests.
    static SourceText read(const QString& path);

  signals:
    void loaded(const QString& path);

  private:
    SourceReader reader_;
    QHash<QString, SourceText> cache_;
    QHash<QString, bool> pending_;
    int generation_ = 0; // counts forget(): a read from before is stale
};

// Reads over the host's shared connection (it connects on first use); the
// errors name the host.
SourceReader remoteSourceReader(std::shared_ptr<core::RemoteHost> host);

} // namespace cs::widgets
