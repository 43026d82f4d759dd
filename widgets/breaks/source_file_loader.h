// Reads user source files off the GUI thread and keeps what it read. A file
// that cannot be read (moved, deleted, no permission, too big) comes back with
// a message that names it and says why, never as an empty text.
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>

namespace cs::widgets {

struct SourceText {
    QString path;
    bool ok = false;
    QStringList lines;
    QString error; // why it could not be read
};

class SourceFileLoader : public QObject {
    Q_OBJECT
  public:
    static constexpr qint64 kMaxBytes = qint64{8} * 1024 * 1024;

    explicit SourceFileLoader(QObject* parent = nullptr);

    // Returns the text when already read; otherwise starts reading and returns nullptr.
    const SourceText* get(const QString& path);
    void forget() { cache_.clear(); }

    // Reads synchronously: the worker's part, public for tests.
    static SourceText read(const QString& path);

  signals:
    void loaded(const QString& path);

  private:
    QHash<QString, SourceText> cache_;
    QHash<QString, bool> pending_;
};

} // namespace cs::widgets
