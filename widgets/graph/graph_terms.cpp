#include "widgets/graph/graph_terms.h"

#include <QLocale>
#include <QObject>

namespace cs::widgets {

QString graphBreakTerm() {
    return QObject::tr(
        "A graph break is a place where torch.compile stops capturing your model into one "
        "graph, runs that code in plain Python, and starts a new graph after it.");
}

QString recompileTerm() {
    return QObject::tr(
        "A recompile happens when a call no longer matches the guards (shapes, dtypes, "
        "Python values) of the code compiled so far, so torch.compile compiles the "
        "function again for the new inputs.");
}

QString recompileLimitTerm() {
    return QObject::tr(
        "After a function has been recompiled as often as torch._dynamo.config.recompile_limit "
        "allows, torch.compile stops compiling it and runs it eagerly (uncompiled) from then on.");
}

QString compiledGraphTerm() {
    return QObject::tr(
        "A graph is one region of your model that torch.compile captured (through Dynamo) "
        "and handed to the backend to compile as a whole.");
}

QString counted(qsizetype n, const QString& singular, const QString& plural) {
    return QLocale().toString(static_cast<qlonglong>(n)) + QLatin1Char(' ') +
           (n == 1 ? singular : plural);
}

} // namespace cs::widgets
