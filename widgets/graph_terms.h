// One-sentence explanations of the terms the graph, break and recompile views
// use, for tooltips (the same words everywhere).
#pragma once

#include <QString>

namespace cs::widgets {

QString graphBreakTerm();
QString recompileTerm();
QString recompileLimitTerm();
QString compiledGraphTerm();

} // namespace cs::widgets
