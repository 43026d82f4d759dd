// Asks a Python interpreter, once, what torch it has and which device torch
// sees, so the interpreter picker can say "torch 2.15, CUDA 13.0, H200".
#pragma once

#include <QHash>
#include <QObject>
#include <QString>

namespace cs::core {

struct InterpreterDescription {
    QString path;
    bool ok = false; // the interpreter ran
    QString python;  // version
    QString torch;   // empty: no torch
    QString cuda;
    QString device;          // "cpu" or the GPU's name
    QString problem;         // why it is unusable, in words
    QString summary() const; // "python 3.11, torch 2.15.0, CPU"
};

class InterpreterProbe : public QObject {
    Q_OBJECT
  public:
    explicit InterpreterProbe(QObject* parent = nullptr);
    ~InterpreterProbe() override;
    // Answers from the cache at once, else starts the interpreter (async).
    void describe(const QString& path);
    const InterpreterDescription* cached(const QString& path) const;

  signals:
    void described(const InterpreterDescription& description);

  private:
    QHash<QString, InterpreterDescription> cache_;
    QHash<QString, bool> pending_;
};

// The Python the interpreter runs with -c: prints one JSON line.
const char* interpreterQueryScript();

// Parses the JSON line the query script prints; public for tests.
InterpreterDescription parseInterpreterAnswer(const QString& path, const QByteArray& output,
                                              int exitCode);

} // namespace cs::core
