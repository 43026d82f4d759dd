#include "core/runner/interpreter_probe.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTimer>

#include "core/runner/interpreter_check.h"

namespace cs::core {

namespace {

// Runs in the user's interpreter: standard library first, torch if present.
// Python 2 parses it too, so an old interpreter says its version.
const char* const kQueryScript = R"PY(
import json, sys
out = {"python": sys.version.split()[0]}
try:
    import torch
    out["torch"] = torch.__version__
    out["cuda"] = torch.version.cuda or ""
    out["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
except Exception as e:
    out["torch_error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
)PY";

constexpr int kDescribeTimeoutMs = 60000;

} // namespace

const char* interpreterQueryScript() {
    return kQueryScript;
}

QString InterpreterDescription::summary() const {
    if (!ok)
        return problem;
    QString text = QStringLiteral("python %1").arg(python);
    if (torch.isEmpty())
        return text + QStringLiteral(", no torch");
    text += QStringLiteral(", torch %1").arg(torch);
    if (!cuda.isEmpty())
        text += QStringLiteral(", CUDA %1").arg(cuda);
    text += ", " + (device == "cpu" ? QStringLiteral("CPU only") : device);
    return text;
}

InterpreterDescription parseInterpreterAnswer(const QString& path, const QByteArray& output,
                                              int exitCode) {
    InterpreterDescription d;
    d.path = path;
    const QByteArray lastLine = output.trimmed().split('\n').last();
    const QJsonDocument doc = QJsonDocument::fromJson(lastLine);
    if (exitCode != 0 || !doc.isObject()) {
        d.problem =
            QStringLiteral("%1 did not run as Python (exit code %2)").arg(path).arg(exitCode);
        return d;
    }
    const QJsonObject o = doc.object();
    d.python = o.value("python").toString();
    if (auto old = pythonTooOld(path.toStdString(), "Python " + d.python.toStdString())) {
        d.problem = QString::fromStdString(*old);
        return d;
    }
    d.ok = true;
    d.torch = o.value("torch").toString();
    d.cuda = o.value("cuda").toString();
    d.device = o.value("device").toString();
    if (d.torch.isEmpty()) {
        d.problem =
            QStringLiteral("%1 has no torch (%2). Install it with: \"%1\" -m pip install torch")
                .arg(path, o.value("torch_error").toString());
    }
    return d;
}

InterpreterProbe::InterpreterProbe(QObject* parent) : QObject(parent) {}

InterpreterProbe::~InterpreterProbe() {
    // Queries still running when the window closes are of no use any more.
    for (auto* process : findChildren<QProcess*>()) {
        process->disconnect(this);
        process->kill();
        process->waitForFinished(1000);
    }
}

const InterpreterDescription* InterpreterProbe::cached(const QString& path) const {
    auto it = cache_.find(path);
    return it == cache_.end() ? nullptr : &it.value();
}

void InterpreterProbe::describe(const QString& path) {
    if (auto* known = cached(path)) {
        emit described(*known);
        return;
    }
    if (pending_.value(path))
        return;
    pending_[path] = true;
    auto* process = new QProcess(this);
    auto* timer = new QTimer(process);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, process, [process] {
        process->setProperty("timedOut", true);
        process->kill();
    });
    auto finish = [this, path, process](const InterpreterDescription& d) {
        pending_.remove(path);
        cache_[path] = d;
        process->deleteLater();
        emit described(d);
    };
    connect(process, &QProcess::finished, this, [=](int exitCode, QProcess::ExitStatus) {
        if (process->property("timedOut").toBool()) {
            InterpreterDescription d;
            d.path = path;
            d.problem = QStringLiteral("%1 did not answer within %2 s (importing torch there "
                                       "takes that long: a slow or network file system?). Try "
                                       "\"%1\" -c \"import torch\" in a terminal.")
                            .arg(path)
                            .arg(kDescribeTimeoutMs / 1000);
            finish(d);
            return;
        }
        auto d = parseInterpreterAnswer(path, process->readAllStandardOutput(), exitCode);
        if (!d.ok && d.python.isEmpty()) {
            // It did not run the query: a Python 2 fails to parse it... ask its version.
            QProcess version;
            version.setProcessChannelMode(QProcess::MergedChannels);
            version.start(path, {"--version"});
            if (version.waitForFinished(2000)) {
                if (auto old = pythonTooOld(path.toStdString(), version.readAll().toStdString()))
                    d.problem = QString::fromStdString(*old);
            } else {
                version.kill();
                version.waitForFinished(1000);
            }
        }
        finish(d);
    });
    connect(process, &QProcess::errorOccurred, this, [=](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        InterpreterDescription d;
        d.path = path;
        const std::string why = interpreterStartProblem(path.toStdString());
        d.problem = why.empty() ? QStringLiteral("%1 could not be started").arg(path)
                                : QString::fromStdString(why);
        finish(d);
    });
    timer->start(kDescribeTimeoutMs); // importing torch the first time can take a while
    process->start(path, {"-c", kQueryScript});
}

} // namespace cs::core
