#include "widgets/breaks/break_place.h"
#include "core/analysis/function_name.h"

#include <QFileInfo>
#include <QObject>

namespace cs::widgets {

BreakPlace breakPlace(const core::GraphBreak& graphBreak) {
    BreakPlace place;
    if (const core::SourceFrame* where = graphBreak.location()) {
        place.file = QString::fromStdString(where->file);
        place.line = where->line > 0 ? where->line : -1;
        place.function = QString::fromStdString(core::functionLabel(where->function));
        place.code = QString::fromStdString(where->code).trimmed();
    }
    place.hasUserFrame = graphBreak.userFrame >= 0;
    if (!graphBreak.frames.empty() && !graphBreak.frames.back().user) {
        const auto& inner = graphBreak.frames.back();
        place.inLibrary = true;
        place.libraryFrame = QStringLiteral("%1:%2 in %3")
                                 .arg(QString::fromStdString(inner.file))
                                 .arg(inner.line)
                                 .arg(QString::fromStdString(inner.function));
    }
    return place;
}

QString shortReason(const core::GraphBreak& graphBreak) {
    const QString cause = QString::fromStdString(graphBreak.cause());
    return cause.isEmpty() ? QObject::tr("(no reason given)") : cause;
}

QString skipNote(const core::GraphBreak& graphBreak) {
    const auto skipped = graphBreak.skippedFrame();
    if (!skipped)
        return {};
    const QString name = QString::fromStdString(core::functionLabel(skipped->function));
    return QObject::tr("The break is inside a for/while loop, where torch cannot resume: it "
                       "skipped the frame %1 (%2:%3) and runs all of it eagerly.")
        .arg(name, QFileInfo(QString::fromStdString(skipped->file)).fileName())
        .arg(skipped->line);
}

QString libraryNote(const BreakPlace& place) {
    if (!place.inLibrary)
        return {};
    if (!place.hasUserFrame)
        return QObject::tr(
                   "The break is in library code (%1); no frame of your code was on the stack, "
                   "so the innermost frame is shown.")
            .arg(place.libraryFrame);
    return QObject::tr(
               "The break is in library code (%1); shown is the innermost line of your code "
               "that called into it.")
        .arg(place.libraryFrame);
}

} // namespace cs::widgets
