// Which run the graph and break views show: the selected run, unless it is
// the eager baseline (it compiles nothing), then the first compiled run.
#pragma once

#include "core/report/session.h"

namespace cs::widgets {

class ReportDocument;

bool isCompiledRun(const core::Run& run);
int compiledRunIndex(const ReportDocument& document);

} // namespace cs::widgets
