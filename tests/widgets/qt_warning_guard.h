// Makes any Qt warning during a test a failure: a warning is a bug we would
// otherwise never see (a broken connection, a model index out of range).
#pragma once

#include <QString>
#include <QTest>
#include <QtGlobal>

namespace cs::test {

inline QtMessageHandler previousHandler = nullptr;
inline QStringList collectedWarnings;

inline void collectWarnings(QtMsgType type, const QMessageLogContext& context,
                            const QString& message) {
    // The offscreen platform has no font database and says so; not ours.
    const bool platformNoise = message.contains("QFont::") ||
                               message.contains("propagateSizeHints") ||
                               message.contains("This plugin does not support");
    if ((type == QtWarningMsg || type == QtCriticalMsg) && !platformNoise)
        collectedWarnings << message;
    if (previousHandler)
        previousHandler(type, context, message);
}

inline void installWarningGuard() {
    collectedWarnings.clear();
    previousHandler = qInstallMessageHandler(collectWarnings);
}

} // namespace cs::test

#define CS_VERIFY_NO_QT_WARNINGS()                                                                 \
    do {                                                                                           \
        const QStringList found = cs::test::collectedWarnings;                                     \
        cs::test::collectedWarnings.clear();                                                       \
        QVERIFY2(found.isEmpty(), qPrintable("Qt warnings: " + found.join(" | ")));                \
    } while (0)
