#include "report_io.h"

#include <QMetaObject>
#include <QPointer>
#include <QThreadPool>

#include "chrome_trace.h"
#include "report_html.h"

namespace cs::app {

void saveReportAsync(QObject* context, core::Report report, QString path, ReportFormat format,
                     std::function<void(QString)> done) {
    QPointer<QObject> guard(context);
    QThreadPool::globalInstance()->start([report = std::move(report), path, format, done, guard] {
        const std::string text = format == ReportFormat::Json   ? core::writeReportJson(report)
                                 : format == ReportFormat::Html ? core::writeReportHtml(report)
                                                                : core::writeChromeTrace(report);
        std::string error;
        const bool ok = core::saveTextFile(path.toStdString(), text, &error);
        const QString message = ok ? QString() : QString::fromStdString(error);
        if (guard)
            QMetaObject::invokeMethod(guard, [done, message] { done(message); }, Qt::QueuedConnection);
    });
}

void readReportAsync(QObject* context, QString path, std::function<void(core::ReportReadResult)> done) {
    QPointer<QObject> guard(context);
    QThreadPool::globalInstance()->start([path, done, guard] {
        auto result = std::make_shared<core::ReportReadResult>(core::readReportFile(path.toStdString()));
        if (guard)
            QMetaObject::invokeMethod(guard, [done, result] { done(std::move(*result)); }, Qt::QueuedConnection);
    });
}

} // namespace cs::app
