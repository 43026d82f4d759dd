#include "widgets/common/run_picker.h"

#include <QSignalBlocker>

#include "core/analysis/run_summary.h"
#include "widgets/common/report_document.h"
#include "widgets/graph/compiled_run.h"
#include "widgets/graph/graph_terms.h"

namespace cs::widgets {

RunPicker::RunPicker(ReportDocument* document, QWidget* parent)
    : QComboBox(parent), document_(document) {
    setObjectName("runPicker");
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    setToolTip(tr("The compile setting whose graphs, breaks and recompiles are shown"));
    connect(document_, &ReportDocument::reportReset, this, &RunPicker::refresh);
    connect(document_, &ReportDocument::runChanged, this, &RunPicker::refresh);
    connect(document_, &ReportDocument::selectionChanged, this, &RunPicker::refresh);
    connect(this, &QComboBox::activated, this, [this](int index) {
        const int run = itemData(index).toInt();
        if (run != compiledRunIndex(*document_))
            document_->selectRun(run);
    });
    refresh();
}

void RunPicker::refresh() {
    // Live runs report often; rebuild the items only when their text changes.
    QList<std::pair<QString, int>> items;
    const auto& runs = document_->report().runs;
    for (size_t i = 0; i < runs.size(); ++i) {
        const auto& run = runs[i];
        if (!isCompiledRun(run))
            continue;
        items.append(
            {tr("%1 — %2, %3, %4")
                 .arg(QString::fromStdString(run.setting.label()),
                      counted(static_cast<qsizetype>(run.graphs.size()), tr("graph"), tr("graphs")),
                      counted(static_cast<qsizetype>(run.graphBreaks.size()), tr("break"),
                              tr("breaks")),
                      counted(core::recompileCount(run), tr("recompile"), tr("recompiles"))),
             static_cast<int>(i)});
    }
    if (items.isEmpty())
        items.append({tr("no compiled run"), -1});
    const QSignalBlocker block(this);
    bool same = count() == items.size();
    for (int i = 0; same && i < count(); ++i)
        same = itemText(i) == items[i].first && itemData(i).toInt() == items[i].second;
    if (!same) {
        clear();
        for (const auto& [text, run] : items)
            addItem(text, run);
    }
    setCurrentIndex(std::max(0, findData(compiledRunIndex(*document_))));
    setEnabled(count() > 1);
}

} // namespace cs::widgets
