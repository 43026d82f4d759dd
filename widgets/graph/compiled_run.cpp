#include "widgets/graph/compiled_run.h"

#include "widgets/common/report_document.h"

namespace cs::widgets {

bool isCompiledRun(const core::Run& run) {
    return run.setting.mode != "eager";
}

int compiledRunIndex(const ReportDocument& document) {
    const int selected = document.selection().run;
    if (const auto* run = document.run(selected); run && isCompiledRun(*run))
        return selected;
    const auto& runs = document.report().runs;
    for (size_t i = 0; i < runs.size(); ++i) {
        if (isCompiledRun(runs[i]))
            return static_cast<int>(i);
    }
    return -1;
}

} // namespace cs::widgets
