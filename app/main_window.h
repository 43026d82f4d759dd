// The main window composes: settings dock, result tabs, console, status bar.
// It owns the session and the document and hands them to the views.
#pragma once

#include <QMainWindow>

#include <atomic>
#include <functional>
#include <map>
#include <memory>

#include "core/advice/evidence_tab.h"
#include "core/report/session.h"
#include "widgets/common/source_text.h"

class QAction;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QTimer;

namespace cs::core {
class InterpreterProbe;
class SessionRunner;
} // namespace cs::core

namespace cs::widgets {
class AdviceView;
class ConsoleView;
class LatencyTab;
class ReportDiffView;
class ReportDocument;
class SettingsPanel;
} // namespace cs::widgets

namespace cs::app {

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a model (.py/.pt2/torchvision:) in the settings, or a report (.json).
    void openPath(const QString& path);
    void startRun();
    // Runs eager and every compile mode with the panel's other settings.
    void startCompareAll();
    void cancelRun();
    void openReport(const QString& path);
    // A TORCH_TRACE directory or file; asks which run when it holds several.
    void importTrace(const QString& path);
    // Reads two reports off the GUI thread and shows their diff in its own window.
    void openDiff(const QString& pathA, const QString& pathB);
    widgets::ReportDiffView* diffView() const { return diffView_; }
    void saveReport(const QString& path);
    void exportHtml(const QString& path);
    // The runs' phases, calls, memory and GPU records as a Chrome trace (Perfetto).
    void exportTrace(const QString& path);

    widgets::ReportDocument* document() const { return document_; }
    widgets::SettingsPanel* settingsPanel() const { return settings_; }
    core::SessionRunner* runner() const { return runner_; }
    QTabWidget* tabs() const { return tabs_; }
    QProgressBar* progressBar() const { return progress_; }
    QString statusText() const;
    // A report that failed to open, or the last error shown; for tests.
    QString lastError() const { return lastError_; }
    // Results that closing the window or opening another would ask about.
    bool hasUnsavedResults() const;
    // No modal dialogs (tests, scripted screenshots): errors go to the status bar.
    void setQuiet(bool quiet) { quiet_ = quiet; }

  signals:
    void sessionFinished();
    void reportOpened();
    void traceImported();
    void diffOpened();
    void traceExported(const QString& path, const QString& error);

  protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    void buildMenus();
    void startSession(const std::vector<core::Setting>& settings);
    void showError(const QString& title, const QString& message);
    // A report read or log import off the GUI thread: progress in the status
    // bar, Esc cancels; endLoading is false when a later one superseded it.
    std::function<void(double)> beginLoading(const QString& verb, const QString& path);
    bool endLoading(const std::shared_ptr<std::atomic<bool>>& flag);
    void updateTitle();
    void updateStatus();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void showResults(bool results);
    // How the views read the source a report names: on its SSH target when
    // it came from a remote run (reusing a connection open to it), else here.
    widgets::SourceReader sourceReaderFor(const std::string& target);
    bool confirmDiscard();

    widgets::ReportDocument* document_;
    core::SessionRunner* runner_;
    core::InterpreterProbe* interpreters_;
    widgets::SettingsPanel* settings_;
    widgets::ConsoleView* console_;
    QStackedWidget* centre_;
    QTabWidget* tabs_;
    widgets::AdviceView* advice_;
    widgets::LatencyTab* latency_;
    std::map<core::EvidenceTab, QWidget*> evidenceTabs_;
    QLabel* status_;
    QProgressBar* progress_;
    QTimer* clock_;
    QMenu* recentMenu_ = nullptr;
    QAction* cancelAction_ = nullptr;
    QString lastError_;
    std::shared_ptr<std::atomic<bool>> loading_; // set while a report is being read
    widgets::ReportDiffView* diffView_ = nullptr;
    bool quiet_ = false;
};

} // namespace cs::app
