// The report on screen and the selection every view shares. Views observe
// it; the main window only hands it around (no routing through MainWindow).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include "core/advice/evidence_tab.h"
#include "core/report/session.h"
#include "widgets/common/source_text.h"

namespace cs::widgets {

struct Selection {
    int run = -1;
    int graph = -1;      // index into run.graphs
    int graphBreak = -1; // index into run.graphBreaks
    QString node;        // node name within the selected graph
    QString file;        // a source location
    int line = -1;
    // A kernel of Inductor's code for the selected graph's compile id, and the
    // FX nodes it contains (what the Graph tab highlights).
    QString kernel;
    QStringList kernelNodes;
    bool operator==(const Selection&) const = default;
};

class ReportDocument : public QObject {
    Q_OBJECT
  public:
    explicit ReportDocument(QObject* parent = nullptr);

    const core::Report& report() const { return live_ ? *live_ : owned_; }
    bool isLive() const { return live_ != nullptr; }
    bool isEmpty() const { return report().runs.empty(); }

    // Shows a report being built by a running session (not copied).
    void showLive(const core::Report* report);
    // The session ended: take a copy so the runner can start another.
    void freezeLive();
    // Shows a report read from a file (or built in a test).
    void showReport(core::Report report, const QString& path = {});
    void clear();

    QString path() const { return path_; }
    void setPath(const QString& path) { path_ = path; }
    bool isModified() const { return modified_; }
    void setModified(bool modified);

    const core::Run* run(int index) const;
    const Selection& selection() const { return selection_; }

    void selectRun(int run);
    void selectGraph(int run, int graph);
    void selectBreak(int run, int graphBreak);
    void selectNode(int run, int graph, const QString& node);
    void selectSourceLine(int run, const QString& file, int line);
    // A kernel of the graph's generated code, with the graph's nodes it contains.
    void selectKernel(int run, int graph, const QString& kernel, const QStringList& nodes);

    // Called by the live session as events arrive.
    void notifyRunChanged(int run);

    // What the user told the advice rules: saved with the report; while a
    // session runs it is kept here and goes into the report when it ends.
    core::AdviceOptions adviceOptions() const;
    void setAdviceOptions(const core::AdviceOptions& options);
    // Leave every run's unsettled measured calls out of its statistics, or put
    // them back (core/analysis/measurement_check.h). Only on a finished report.
    void setDropUnsettled(bool drop);

    // How the views read the source files the report names: set before the
    // report is shown (views pick it up on reportReset); empty: this computer.
    void setSourceReader(SourceReader reader) { sourceReader_ = std::move(reader); }
    const SourceReader& sourceReader() const { return sourceReader_; }

    // A view asks for the tab that shows what it points at.
    void requestTab(core::EvidenceTab tab) { emit tabRequested(tab); }

  signals:
    void reportReset();       // a different report is shown
    void runChanged(int run); // new data in one run
    void selectionChanged(const Selection& selection);
    void modifiedChanged(bool modified);
    void adviceOptionsChanged();
    void tabRequested(cs::core::EvidenceTab tab);

  private:
    void setSelection(const Selection& selection);

    const core::Report* live_ = nullptr;
    core::Report owned_;
    QString path_;
    bool modified_ = false;
    Selection selection_;
    core::AdviceOptions liveAdviceOptions_;
    SourceReader sourceReader_;
};

} // namespace cs::widgets
