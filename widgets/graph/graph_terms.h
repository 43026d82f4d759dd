// One-sentence explanations of the terms the graph, break and recompile views
// use, for tooltips (the same words everywhere).
#pragma once

#include <QString>

namespace cs::widgets {

QString graphBreakTerm();
QString recompileTerm();
QString recompileLimitTerm();
QString compiledGraphTerm();
// "1 graph", "3 graphs", with the number in the locale's digits.
QString counted(qsizetype n, const QString& singular, const QString& plural);

} // namespace cs::widgets
