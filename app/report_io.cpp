#include "app/report_io.h"

#include <QMetaObject>
#include <QPointer>
#include <QThreadPool>
#include <utility>

#include "core/html/report_html.h"
#include "core/report/chrome_trace.h"

namespace cs::app {

void saveReportAsync(QObject* context, core::Report report, QString path, ReportFormat format,
                     std::function<void(QString)> done) {
    QPointer<QObject> guard(context);
    QThreadPool::globalInstance()->start([report = std::move(report), path = std::move(path),
                                          format, done = std::move(done), guard] {
        const std::string text = format == ReportFormat::Json   ? core::writeReportJson(report)
                                 : format == ReportFormat::Html ? core::writeReportHtml(report)
                                                                : core::writeChromeTrace(report);
        std::string error;
        const bool ok = core::saveTextFile(path.toStdString(), text, &error);
        const QString message = ok ? QString() : QString::fromStdString(error);
        if (guard)
            QMetaObject::invokeMethod(
                guard, [done, message] { done(message); }, Qt::QueuedConnection);
    });
}

CancelFlag readReportAsync(QObject* context, QString path, std::function<void(double)> progress,
                           std::function<void(core::ReportReadResult)> done) {
    QPointer<QObject> guard(context);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    QThreadPool::globalInstance()->start([path = std::move(path), progress = std::move(progress),
                                          done = std::move(done), guard, cancel] {
        core::ReadControl control;
        control.cancel = cancel.get();
        // One post per percent at most: a 100 MB report reads in about a hundred chunks.
        int lastPercent = -1;
        control.progress = [&lastPercent, progress, guard](int64_t read, int64_t total) {
            const int percent = total > 0 ? static_cast<int>(100 * read / total) : 0;
            if (percent == lastPercent || !progress || !guard)
                return;
            lastPercent = percent;
            QMetaObject::invokeMethod(
                guard, [progress, percent] { progress(percent / 100.0); }, Qt::QueuedConnection);
        };
        auto result = std::make_shared<core::ReportReadResult>(
            core::readReportFile(path.toStdString(), control));
        if (guard)
            QMetaObject::invokeMethod(
                guard, [done, result] { done(std::move(*result)); }, Qt::QueuedConnection);
    });
    return cancel;
}

CancelFlag importTraceAsync(QObject* context, QString path, int job,
                            std::function<void(double)> progress,
                            std::function<void(core::trace::ImportResult)> done) {
    QPointer<QObject> guard(context);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    QThreadPool::globalInstance()->start([path = std::move(path), job,
                                          progress = std::move(progress), done = std::move(done),
                                          guard, cancel] {
        core::trace::ImportOptions options;
        options.job = job;
        options.cancel = cancel.get();
        // Reader threads report bytes; one post per percent at most.
        auto lastPercent = std::make_shared<std::atomic<int>>(-1);
        options.progress = [lastPercent, progress, guard](int64_t read, int64_t total) {
            const int percent = total > 0 ? static_cast<int>(100 * read / total) : 0;
            if (lastPercent->exchange(percent) == percent || !progress || !guard)
                return;
            QMetaObject::invokeMethod(
                guard, [progress, percent] { progress(percent / 100.0); }, Qt::QueuedConnection);
        };
        auto result = std::make_shared<core::trace::ImportResult>(
            core::trace::importTrace(path.toStdString(), options));
        if (guard)
            QMetaObject::invokeMethod(
                guard, [done, result] { done(std::move(*result)); }, Qt::QueuedConnection);
    });
    return cancel;
}

void diffReportsAsync(QObject* context, QString pathA, QString pathB, double thresholdPercent,
                      std::function<void(DiffLoad)> done) {
    QPointer<QObject> guard(context);
    QThreadPool::globalInstance()->start([pathA = std::move(pathA), pathB = std::move(pathB),
                                          thresholdPercent, done = std::move(done), guard] {
        auto load = std::make_shared<DiffLoad>();
        auto a = core::readReportFile(pathA.toStdString());
        auto b = a.ok ? core::readReportFile(pathB.toStdString()) : core::ReportReadResult{};
        if (!a.ok || !b.ok) {
            load->error = QString::fromStdString(a.ok ? b.error : a.error);
        } else {
            for (const auto* r : {&a, &b})
                for (const auto& w : r->warnings)
                    load->warnings << QString::fromStdString(w);
            load->diff = core::diffReports(a.report, b.report, {thresholdPercent});
            load->ok = true;
        }
        if (guard)
            QMetaObject::invokeMethod(
                guard, [done, load] { done(std::move(*load)); }, Qt::QueuedConnection);
    });
}

} // namespace cs::app
