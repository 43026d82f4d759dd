#include "widgets/common/report_document.h"

#include "core/analysis/measurement_check.h"

namespace cs::widgets {

ReportDocument::ReportDocument(QObject* parent) : QObject(parent) {}

void ReportDocument::showLive(const core::Report* report) {
    live_ = report;
    owned_ = {};
    path_.clear();
    selection_ = {};
    setModified(true);
    emit reportReset();
}

void ReportDocument::freezeLive() {
    if (!live_)
        return;
    owned_ = *live_;
    owned_.adviceOptions = liveAdviceOptions_;
    live_ = nullptr;
    emit reportReset();
}

void ReportDocument::showReport(core::Report report, const QString& path) {
    live_ = nullptr;
    owned_ = std::move(report);
    path_ = path;
    selection_ = {};
    if (!owned_.runs.empty())
        selection_.run = 0;
    setModified(false);
    emit reportReset();
    emit selectionChanged(selection_);
}

void ReportDocument::clear() {
    showReport({});
}

void ReportDocument::setModified(bool modified) {
    if (modified_ == modified)
        return;
    modified_ = modified;
    emit modifiedChanged(modified);
}

const core::Run* ReportDocument::run(int index) const {
    const auto& runs = report().runs;
    if (index < 0 || index >= static_cast<int>(runs.size()))
        return nullptr;
    return &runs[static_cast<size_t>(index)];
}

void ReportDocument::setSelection(const Selection& selection) {
    if (selection == selection_)
        return;
    selection_ = selection;
    emit selectionChanged(selection_);
}

void ReportDocument::selectRun(int run) {
    Selection s;
    s.run = run;
    setSelection(s);
}

void ReportDocument::selectGraph(int run, int graph) {
    Selection s;
    s.run = run;
    s.graph = graph;
    setSelection(s);
}

void ReportDocument::selectBreak(int run, int graphBreak) {
    Selection s;
    s.run = run;
    s.graphBreak = graphBreak;
    if (const auto* r = this->run(run);
        r && graphBreak >= 0 && graphBreak < static_cast<int>(r->graphBreaks.size())) {
        if (const auto* where = r->graphBreaks[static_cast<size_t>(graphBreak)].location()) {
            s.file = QString::fromStdString(where->file);
            s.line = where->line;
        }
    }
    setSelection(s);
}

void ReportDocument::selectNode(int run, int graph, const QString& node) {
    Selection s;
    s.run = run;
    s.graph = graph;
    s.node = node;
    if (const auto* r = this->run(run);
        r && graph >= 0 && graph < static_cast<int>(r->graphs.size())) {
        for (const auto& n : r->graphs[static_cast<size_t>(graph)].nodes) {
            if (QString::fromStdString(n.name) == node) {
                s.file = QString::fromStdString(n.file);
                s.line = n.line > 0 ? n.line : -1;
                break;
            }
        }
    }
    setSelection(s);
}

void ReportDocument::selectSourceLine(int run, const QString& file, int line) {
    Selection s;
    s.run = run;
    s.file = file;
    s.line = line;
    setSelection(s);
}

void ReportDocument::selectKernel(int run, int graph, const QString& kernel,
                                  const QStringList& nodes) {
    Selection s;
    s.run = run;
    s.graph = graph;
    s.kernel = kernel;
    s.kernelNodes = nodes;
    setSelection(s);
}

void ReportDocument::notifyRunChanged(int run) {
    emit runChanged(run);
}

core::AdviceOptions ReportDocument::adviceOptions() const {
    return live_ ? liveAdviceOptions_ : owned_.adviceOptions;
}

void ReportDocument::setAdviceOptions(const core::AdviceOptions& options) {
    if (options == adviceOptions())
        return;
    // Kept for the next session too: a preference, not a property of one report.
    liveAdviceOptions_ = options;
    if (!live_) {
        owned_.adviceOptions = options;
        if (!owned_.runs.empty())
            setModified(true);
    }
    emit adviceOptionsChanged();
}

void ReportDocument::setDropUnsettled(bool drop) {
    if (live_)
        return; // the calls are still coming; the choice is made on the finished report
    std::vector<int> before;
    for (const auto& run : owned_.runs)
        before.push_back(run.droppedUnsettled);
    core::setDropUnsettled(owned_, drop);
    for (size_t r = 0; r < owned_.runs.size(); ++r) {
        if (owned_.runs[r].droppedUnsettled == before[r])
            continue;
        setModified(true);
        emit runChanged(static_cast<int>(r));
    }
}

} // namespace cs::widgets
