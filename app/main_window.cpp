#include "app/main_window.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include "app/report_io.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/units.h"
#include "core/runner/app_paths.h"
#include "core/runner/interpreter_probe.h"
#include "core/runner/remote_host.h"
#include "core/runner/session_runner.h"
#include "core/runner/ssh_target.h"
#include "widgets/advice/advice_view.h"
#include "widgets/breaks/breaks_tab.h"
#include "widgets/breaks/source_file_loader.h"
#include "widgets/code/code_tab.h"
#include "widgets/common/report_document.h"
#include "widgets/compare/compare_tab.h"
#include "widgets/compare/report_diff_view.h"
#include "widgets/environment/environment_tab.h"
#include "widgets/graph/graph_tab.h"
#include "widgets/graph/graph_terms.h"
#include "widgets/memory/kernels_tab.h"
#include "widgets/memory/memory_tab.h"
#include "widgets/ranks/ranks_tab.h"
#include "widgets/run/console_view.h"
#include "widgets/run/settings_panel.h"
#include "widgets/run/welcome_page.h"
#include "widgets/scaling/scaling_tab.h"
#include "widgets/timing/latency_tab.h"
#include "widgets/timing/warmup_tab.h"

namespace cs::app {

namespace {
constexpr int kMaxRecent = 10;
// A path or file name as one line of a title or menu: a newline in a file name
// shows as ↵, other control characters as U+FFFD, instead of breaking the line.
QString oneLine(QString text) {
    for (QChar& c : text) {
        if (c.category() == QChar::Other_Control)
            c = c == QChar('\n') ? QChar(0x21B5) : QChar(QChar::ReplacementCharacter);
    }
    return text;
}
bool isReportPath(const QString& path) {
    return path.endsWith(".json", Qt::CaseInsensitive);
}

// A directory (TORCH_TRACE=DIR) or one of the files torch writes there.
bool isTracePath(const QString& path) {
    const QFileInfo info(path);
    return info.isDir() || info.fileName().startsWith("dedicated_log_torch_trace_");
}
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), document_(new widgets::ReportDocument(this)),
      runner_(new core::SessionRunner(this)), interpreters_(new core::InterpreterProbe(this)) {
    setObjectName("mainWindow");
    setAcceptDrops(true);
    resize(1280, 820);

    settings_ = new widgets::SettingsPanel(interpreters_, this);
    // ssh asks for a password or passphrase through this binary's dialog (main.cpp).
    core::RemoteOptions remote = settings_->remoteOptions();
    remote.askpass = QCoreApplication::applicationFilePath().toStdString();
    remote.configFile = qEnvironmentVariable("COMPILESCOPE_SSH_CONFIG").toStdString();
    settings_->setRemoteOptions(remote);
    auto* settingsDock = new QDockWidget(tr("Run"), this);
    settingsDock->setObjectName("settingsDock");
    // Scrolls rather than squeezes: target, model and settings are taller than
    // a 1280x800 screen leaves.
    auto* settingsScroll = new QScrollArea(settingsDock);
    settingsScroll->setObjectName("settingsScroll");
    settingsScroll->setWidget(settings_);
    settingsScroll->setWidgetResizable(true);
    settingsScroll->setFrameShape(QFrame::NoFrame);
    settingsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    settingsScroll->setMinimumWidth(settings_->minimumSizeHint().width() +
                                    settingsScroll->verticalScrollBar()->sizeHint().width());
    settingsDock->setWidget(settingsScroll);
    settingsDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, settingsDock);

    console_ = new widgets::ConsoleView(document_, this);
    auto* consoleDock = new QDockWidget(tr("Console"), this);
    consoleDock->setObjectName("consoleDock");
    consoleDock->setWidget(console_);
    addDockWidget(Qt::BottomDockWidgetArea, consoleDock);

    tabs_ = new QTabWidget(this);
    tabs_->setDocumentMode(true);
    advice_ = new widgets::AdviceView(document_, tabs_);
    tabs_->addTab(advice_, tr("Advice")); // first: what to do, most important first
    // Each tab that shows a finding's evidence is kept under its EvidenceTab.
    auto addEvidenceTab = [this](core::EvidenceTab tab, QWidget* page, const QString& title) {
        evidenceTabs_[tab] = page;
        return tabs_->addTab(page, title);
    };
    addEvidenceTab(core::EvidenceTab::Compare, new widgets::CompareTab(document_, tabs_),
                   tr("Compare"));
    tabs_->setTabToolTip(
        addEvidenceTab(core::EvidenceTab::Ranks, new widgets::RanksTab(document_, tabs_),
                       tr("Ranks")),
        tr("The ranks of a distributed job, from an imported TORCH_TRACE log: where a rank "
           "compiled differently from the others, and each rank's compiles"));
    tabs_->setTabToolTip(
        addEvidenceTab(core::EvidenceTab::Scaling, new widgets::ScalingTab(document_, tabs_),
                       tr("Scaling")),
        tr("A batch-size walk (compilescope-cli scale): throughput, speedup over eager and peak "
           "memory against batch size, and where memory ran out"));
    tabs_->setTabToolTip(addEvidenceTab(core::EvidenceTab::Graph,
                                        new widgets::GraphTab(document_, tabs_), tr("Graph")),
                         widgets::compiledGraphTerm());
    tabs_->setTabToolTip(addEvidenceTab(core::EvidenceTab::Breaks,
                                        new widgets::BreaksTab(document_, tabs_), tr("Breaks")),
                         widgets::graphBreakTerm() + "\n" + widgets::recompileTerm());
    tabs_->setTabToolTip(
        addEvidenceTab(core::EvidenceTab::Code, new widgets::CodeTab(document_, tabs_), tr("Code")),
        tr("What Inductor generated for each graph, the kernels' time per call, and which of your "
           "lines it comes from"));
    addEvidenceTab(core::EvidenceTab::Warmup, new widgets::WarmupTab(document_, tabs_),
                   tr("Warmup"));
    latency_ = new widgets::LatencyTab(document_, tabs_);
    addEvidenceTab(core::EvidenceTab::Latency, latency_, tr("Latency"));
    addEvidenceTab(core::EvidenceTab::Memory, new widgets::MemoryTab(document_, tabs_),
                   tr("Memory"));
    addEvidenceTab(core::EvidenceTab::Kernels, new widgets::KernelsTab(document_, tabs_),
                   tr("Kernels"));
    tabs_->setTabToolTip(
        addEvidenceTab(core::EvidenceTab::Environment,
                       new widgets::EnvironmentTab(document_, tabs_), tr("Environment")),
        tr("What ran where: the model, python, torch, the device and host, and the variables "
           "that change torch which the probes started with"));

    auto* welcome = new widgets::WelcomePage(this);
    centre_ = new QStackedWidget(this);
    centre_->addWidget(welcome);
    centre_->addWidget(tabs_);
    setCentralWidget(centre_);

    status_ = new QLabel(tr("Ready"), this);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(240);
    progress_->setVisible(false);
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(progress_);
    clock_ = new QTimer(this);
    clock_->setInterval(500);
    connect(clock_, &QTimer::timeout, this, &MainWindow::updateStatus);

    buildMenus();

    connect(welcome, &widgets::WelcomePage::openModelRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), {},
                                                          tr("Models (*.py *.pt2);;All files (*)"));
        if (!path.isEmpty())
            openPath(path);
    });
    connect(welcome, &widgets::WelcomePage::runDemoRequested, this, [this] {
        settings_->setModelSpec(QString::fromStdString(core::demoModelPath()));
        startRun();
    });
    connect(welcome, &widgets::WelcomePage::openReportRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open report"), {},
                                                          tr("compilescope reports (*.json)"));
        if (!path.isEmpty())
            openReport(path);
    });
    connect(settings_, &widgets::SettingsPanel::runRequested, this, &MainWindow::startRun);
    connect(settings_, &widgets::SettingsPanel::compareAllRequested, this,
            &MainWindow::startCompareAll);
    connect(settings_, &widgets::SettingsPanel::cancelRequested, this, &MainWindow::cancelRun);
    connect(settings_, &widgets::SettingsPanel::openModelRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), {},
                                                          tr("Models (*.py *.pt2);;All files (*)"));
        if (!path.isEmpty())
            openPath(path);
    });

    connect(runner_, &core::SessionRunner::runUpdated, document_,
            &widgets::ReportDocument::notifyRunChanged);
    connect(runner_, &core::SessionRunner::runStarted, this, [this](int index) {
        document_->notifyRunChanged(index);
        updateStatus();
    });
    connect(runner_, &core::SessionRunner::runFinished, this, [this](int index) {
        document_->notifyRunChanged(index);
        const auto& run = runner_->report().runs[static_cast<size_t>(index)];
        if (run.error)
            console_->appendNotice(QStringLiteral("%1: %2 — %3")
                                       .arg(QString::fromStdString(run.setting.label()),
                                            QString::fromLatin1(core::toString(run.status)),
                                            QString::fromStdString(run.error->message)));
    });
    connect(runner_, &core::SessionRunner::repeatFinished, this, [this](int index) {
        document_->notifyRunChanged(index);
        const auto& run = runner_->report().runs[static_cast<size_t>(index)];
        const auto& probe = run.repeats.back();
        if (!probe.error.empty())
            console_->appendNotice(QStringLiteral("%1, probe %2: %3 — %4")
                                       .arg(QString::fromStdString(run.setting.label()))
                                       .arg(probe.round + 1)
                                       .arg(QString::fromLatin1(core::toString(probe.status)),
                                            QString::fromStdString(probe.error)));
    });
    connect(runner_, &core::SessionRunner::consoleOutput, console_,
            &widgets::ConsoleView::appendOutput);
    connect(runner_, &core::SessionRunner::sessionFinished, this, [this] {
        clock_->stop();
        document_->freezeLive();
        settings_->setRunning(false);
        cancelAction_->setEnabled(false);
        progress_->setVisible(false);
        int failed = 0;
        for (const auto& run : document_->report().runs)
            failed += run.status != core::RunStatus::Ok;
        status_->setText(failed ? tr("Done: %1 of %2 settings did not finish")
                                      .arg(failed)
                                      .arg(document_->report().runs.size())
                                : tr("Done: %1 settings").arg(document_->report().runs.size()));
        tabs_->setCurrentWidget(advice_);
        emit sessionFinished();
    });
    // A view asks for the tab that shows its evidence (e.g. a finding's Breaks).
    connect(document_, &widgets::ReportDocument::tabRequested, this, [this](core::EvidenceTab tab) {
        // The console is a dock, not a tab: nothing to switch to.
        if (auto it = evidenceTabs_.find(tab); it != evidenceTabs_.end())
            tabs_->setCurrentWidget(it->second);
    });
    connect(document_, &widgets::ReportDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(document_, &widgets::ReportDocument::reportReset, this, &MainWindow::updateTitle);

    QSettings state;
    restoreGeometry(state.value("window/geometry").toByteArray());
    restoreState(state.value("window/state").toByteArray());
    settings_->restoreState();
    if (settings_->modelSpec().isEmpty())
        settings_->setModelSpec(QString::fromStdString(core::demoModelPath()));
    showResults(false);
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open model or report"), {},
            tr("Models and reports (*.py *.pt2 *.json);;Reports (*.json);;All files (*)"));
        if (!path.isEmpty())
            openPath(path);
    });
    file->addAction(tr("&Import TORCH_TRACE…"), QKeySequence(Qt::CTRL | Qt::Key_I), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Import TORCH_TRACE: the directory torch wrote (TORCH_TRACE=DIR)"));
        if (!dir.isEmpty())
            importTrace(dir);
    });
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    recentMenu_->setObjectName("recentMenu");
    rebuildRecentMenu();
    file->addAction(tr("&Diff Reports…"), QKeySequence(Qt::CTRL | Qt::Key_D), this, [this] {
        const QString filter = tr("compilescope reports (*.json)");
        const QString a =
            QFileDialog::getOpenFileName(this, tr("Diff: report A (the baseline)"), {}, filter);
        if (a.isEmpty())
            return;
        const QString b =
            QFileDialog::getOpenFileName(this, tr("Diff: report B (compared with A)"), {}, filter);
        if (!b.isEmpty())
            openDiff(a, b);
    });
    file->addSeparator();
    file->addAction(tr("&Save Report…"), QKeySequence::Save, this, [this] {
        QString path = document_->path();
        if (path.isEmpty())
            path = QFileDialog::getSaveFileName(this, tr("Save report"), "report.json",
                                                tr("JSON report (*.json)"));
        if (!path.isEmpty())
            saveReport(path);
    });
    file->addAction(tr("Save Report &As…"), QKeySequence::SaveAs, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save report"), "report.json",
                                                          tr("JSON report (*.json)"));
        if (!path.isEmpty())
            saveReport(path);
    });
    file->addAction(tr("&Export HTML…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export HTML report"),
                                                          "report.html", tr("HTML (*.html)"));
        if (!path.isEmpty())
            exportHtml(path);
    });
    file->addAction(tr("Export &Trace…"), this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Export Chrome trace (Perfetto)"), "trace.json",
                                         tr("Chrome trace JSON (*.json)"));
        if (!path.isEmpty())
            exportTrace(path);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(tr("&Run"), QKeySequence(Qt::Key_F5), this, &MainWindow::startRun);
    run->addAction(tr("Compare &All Modes"), QKeySequence(Qt::SHIFT | Qt::Key_F5), this,
                   &MainWindow::startCompareAll)
        ->setToolTip(
            tr("Run eager and every compile mode, each in a fresh process, and compare them"));
    cancelAction_ =
        run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelRun);
    cancelAction_->setEnabled(false);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (auto* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About compilescope"), this, [this] {
        QString torch = tr("not run yet");
        for (const auto& r : document_->report().runs) {
            if (!r.probe.torch.empty()) {
                torch = QString::fromStdString(r.probe.torch);
                break;
            }
        }
        QMessageBox::about(
            this, tr("About compilescope"),
            tr("<h3>compilescope %1</h3><p>A profiler and doctor for torch.compile.</p>"
               "<p>Qt %2<br>torch (of the last run): %3</p>")
                .arg(COMPILESCOPE_VERSION, qVersion(), torch));
    });
}

void MainWindow::openPath(const QString& path) {
    if (isReportPath(path)) {
        openReport(path);
        return;
    }
    if (isTracePath(path)) {
        importTrace(path);
        return;
    }
    settings_->setModelSpec(path);
    addRecent(path);
    status_->setText(tr("Model: %1 — press F5 to run").arg(path));
}

void MainWindow::startRun() {
    startSession(settings_->settings());
}

void MainWindow::startCompareAll() {
    startSession(settings_->allModeSettings());
    if (!runner_->isRunning())
        return;
    // The comparison fills in as each setting finishes.
    if (auto* compare = tabs_->findChild<widgets::CompareTab*>())
        tabs_->setCurrentWidget(compare);
}

void MainWindow::startSession(const std::vector<core::Setting>& settings) {
    if (runner_->isRunning())
        return;
    const QString model = settings_->modelSpec();
    if (model.isEmpty() || settings.empty()) {
        showError(tr("Nothing to run"), tr("Choose a model and at least one mode."));
        return;
    }
    const auto target = settings_->target();
    const core::ModelPlacement placement = settings_->modelPlacement();
    // A path on a remote target is checked there, when the session prepares it.
    const bool isFile = target ? core::classifyModelSpec(model.toStdString(), placement) ==
                                     core::ModelSource::LocalFile
                               : !model.startsWith("torchvision:");
    if (isFile && !QFileInfo::exists(model)) {
        showError(tr("Model not found"),
                  tr("The model file %1 does not exist. Choose another with Open…").arg(model));
        return;
    }
    if (target && settings_->python().isEmpty()) {
        showError(tr("No interpreter"),
                  tr("Pick or type the path of a Python on %1 (Test connection lists them).")
                      .arg(QString::fromStdString(target->label())));
        return;
    }
    if (!confirmDiscard())
        return;
    core::SessionRequest request;
    request.modelSpec =
        isFile ? QFileInfo(model).absoluteFilePath().toStdString() : model.toStdString();
    request.target = target;
    request.remote = settings_->remoteOptions();
    request.host = settings_->remoteHost(); // the connection Test connection opened, if any
    request.placement = placement;
    request.settings = settings;
    request.repeat = settings_->repeat();
    request.timeoutSeconds = settings_->timeoutSeconds();
    request.probe.python = settings_->python().toStdString();
    request.probe.probeRoot = core::probeRoot();
    request.probe.cuptiLibrary = core::cuptiLibraryPath();
    request.probe.aotiRunner = core::aotiRunnerPath();
    request.probe.torchTraceDir = settings_->torchTraceDir().toStdString();
    request.probe.keepCode = settings_->keepCode();
    request.probe.environment = settings_->probeEnvironment();
    settings_->saveState();
    addRecent(model);
    console_->clear();
    runner_->start(request);
    document_->setSourceReader(sourceReaderFor(target ? target->spec() : std::string()));
    document_->showLive(&runner_->report()); // after start: the runs exist now
    settings_->setRunning(true);
    cancelAction_->setEnabled(true);
    progress_->setValue(0);
    progress_->setVisible(true);
    showResults(true);
    clock_->start();
    updateStatus();
}

void MainWindow::cancelRun() {
    if (loading_) {
        loading_->store(true); // the reader stops at its next chunk and reports "cancelled"
        status_->setText(tr("Cancelling the open…"));
        return;
    }
    if (!runner_->isRunning())
        return;
    status_->setText(tr("Cancelling…"));
    runner_->cancel();
}

QString MainWindow::statusText() const {
    return status_->text();
}

void MainWindow::updateStatus() {
    if (!runner_->isRunning())
        return;
    const qint64 seconds = runner_->currentElapsedMs() / 1000;
    status_->setText(QStringLiteral("%1  %2:%3")
                         .arg(runner_->progressText())
                         .arg(seconds / 60, 2, 10, QChar('0'))
                         .arg(seconds % 60, 2, 10, QChar('0')));
    progress_->setValue(static_cast<int>(runner_->progressFraction() * 1000));
}

std::function<void(double)> MainWindow::beginLoading(const QString& verb, const QString& path) {
    if (loading_)
        loading_->store(true); // a newer open replaces one still reading
    status_->setText(tr("%1 %2… (Esc cancels)").arg(verb, path));
    progress_->setValue(0);
    progress_->setVisible(true);
    cancelAction_->setEnabled(true);
    return [this, verb, path](double fraction) {
        progress_->setValue(static_cast<int>(fraction * 1000));
        status_->setText(
            tr("%1 %2… %3% (Esc cancels)").arg(verb, path).arg(static_cast<int>(fraction * 100)));
    };
}

bool MainWindow::endLoading(const std::shared_ptr<std::atomic<bool>>& flag) {
    if (loading_ != flag)
        return false;
    loading_.reset();
    progress_->setVisible(false);
    cancelAction_->setEnabled(runner_->isRunning());
    return true;
}

void MainWindow::openReport(const QString& path) {
    if (runner_->isRunning()) {
        showError(tr("A run is in progress"),
                  tr("Cancel it (Esc) or wait for it to finish before opening a report."));
        return;
    }
    if (!confirmDiscard())
        return;
    const auto progress = beginLoading(tr("Opening"), path);
    auto flag = std::make_shared<CancelFlag>();
    *flag =
        readReportAsync(this, path, progress, [this, path, flag](core::ReportReadResult result) {
            if (!endLoading(*flag))
                return; // superseded by a later open
            if (result.cancelled) {
                status_->setText(tr("Opening %1 cancelled").arg(path));
                return;
            }
            if (!result.ok) {
                showError(tr("Cannot open report"), QString::fromStdString(result.error));
                status_->setText(tr("Could not open %1").arg(path));
                return;
            }
            // Run again means the report's model, where it is still there; an
            // imported TORCH_TRACE log names no model and no settings to repeat.
            const bool imported = core::allRunsImported(result.report);
            const auto& model = result.report.model;
            const QString spec =
                QString::fromStdString(model.file.empty() ? model.spec : model.file);
            // A remote run's paths are on its host: pick that host (without
            // connecting) rather than look for the file here.
            const QString target = QString::fromStdString(result.report.environment.target);
            if (!imported && !spec.isEmpty() && !target.isEmpty()) {
                settings_->setTarget(target);
                settings_->setModelPlacement(core::ModelPlacement::Remote);
                settings_->setModelSpec(spec);
            } else if (!imported && !spec.isEmpty() &&
                       (!spec.endsWith(".py") || QFileInfo::exists(spec))) {
                settings_->setModelSpec(spec);
            }
            // ... and its settings: the panel shows what the report ran, so Run
            // repeats it rather than whatever was ticked before.
            if (!imported && !result.report.runs.empty()) {
                for (const auto& mode : core::knownModes()) {
                    const bool ran =
                        std::any_of(result.report.runs.begin(), result.report.runs.end(),
                                    [&](const core::Run& r) { return r.setting.mode == mode; });
                    settings_->setModeChecked(QString::fromStdString(mode), ran);
                }
                const core::Setting& first = result.report.runs.front().setting;
                settings_->setBackend(QString::fromStdString(first.backend));
                settings_->setIterations(first.warmup, first.iters);
            }
            document_->setSourceReader(sourceReaderFor(result.report.environment.target));
            document_->showReport(std::move(result.report), path);
            addRecent(path);
            showResults(true);
            QStringList warnings;
            for (const auto& w : result.warnings)
                warnings << QString::fromStdString(w);
            status_->setText(warnings.isEmpty() ? tr("Opened %1").arg(path) : warnings.join("; "));
            if (!warnings.isEmpty())
                console_->appendNotice(warnings.join('\n'));
            emit reportOpened();
        });
    loading_ = *flag;
}

void MainWindow::importTrace(const QString& path) {
    if (runner_->isRunning()) {
        showError(tr("A run is in progress"),
                  tr("Cancel it (Esc) or wait for it to finish before importing a log."));
        return;
    }
    if (!confirmDiscard())
        return;
    // Only first lines are read here: quick even for a big directory.
    const core::trace::TraceListing listing = core::trace::listTrace(path.toStdString());
    if (!listing.error.empty()) {
        showError(tr("Cannot import the TORCH_TRACE log"), QString::fromStdString(listing.error));
        return;
    }
    int job = 1;
    if (listing.jobs.size() > 1) {
        QStringList labels;
        for (const auto& j : listing.jobs)
            labels << QString::fromStdString(j.label() + ", " +
                                             core::formatBytes(static_cast<double>(j.bytes())));
        bool chosen = false;
        const QString label =
            QInputDialog::getItem(this, tr("Import TORCH_TRACE"),
                                  tr("%1 holds %2 runs. Which one?").arg(path).arg(labels.size()),
                                  labels, static_cast<int>(labels.size()) - 1, false, &chosen);
        if (!chosen)
            return;
        job = static_cast<int>(labels.indexOf(label)) + 1;
    }
    const auto progress = beginLoading(tr("Importing"), path);
    auto flag = std::make_shared<CancelFlag>();
    *flag = importTraceAsync(
        this, path, job, progress, [this, path, flag](core::trace::ImportResult result) {
            if (!endLoading(*flag))
                return; // superseded by a later open or import
            if (result.cancelled) {
                status_->setText(tr("Import of %1 cancelled").arg(path));
                return;
            }
            if (!result.error.empty()) {
                showError(tr("Cannot import the TORCH_TRACE log"),
                          QString::fromStdString(result.error));
                status_->setText(tr("Could not import %1").arg(path));
                return;
            }
            result.report.generator = std::string("compilescope ") + COMPILESCOPE_VERSION;
            result.report.created =
                QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
            const size_t ranks = result.report.runs.size();
            // No path: Save asks where, it never writes into the log's directory.
            document_->setSourceReader({});
            document_->showReport(std::move(result.report));
            showResults(true);
            QStringList warnings;
            for (const auto& w : result.warnings)
                warnings << QString::fromStdString(w);
            if (!warnings.isEmpty())
                console_->appendNotice(warnings.join('\n'));
            status_->setText(
                warnings.isEmpty()
                    ? tr("Imported %1: %n run(s)", nullptr, static_cast<int>(ranks)).arg(path)
                    : tr("Imported %1 with %n problem(s): see the console", nullptr,
                         static_cast<int>(warnings.size()))
                          .arg(path));
            emit traceImported();
        });
    loading_ = *flag;
}

void MainWindow::openDiff(const QString& pathA, const QString& pathB) {
    status_->setText(tr("Reading %1 and %2 to compare them…").arg(pathA, pathB));
    diffReportsAsync(this, pathA, pathB, 10.0, [this, pathA, pathB](DiffLoad load) {
        if (!load.ok) {
            showError(tr("Cannot compare the reports"), load.error);
            status_->setText(tr("Could not compare %1 and %2").arg(pathA, pathB));
            return;
        }
        if (!diffView_) {
            diffView_ = new widgets::ReportDiffView(this);
            diffView_->setWindowFlag(Qt::Window);
            diffView_->resize(1200, 640);
        }
        diffView_->setDiff(std::move(load.diff), pathA, pathB);
        diffView_->show();
        diffView_->raise();
        status_->setText(load.warnings.isEmpty() ? diffView_->summaryText()
                                                 : load.warnings.join("; "));
        if (!load.warnings.isEmpty())
            console_->appendNotice(load.warnings.join('\n'));
        emit diffOpened();
    });
}

void MainWindow::saveReport(const QString& path) {
    saveReportAsync(this, document_->report(), path, ReportFormat::Json,
                    [this, path](const QString& error) {
                        if (!error.isEmpty()) {
                            // The results stay open, marked unsaved (the title's
                            // "*"), and closing still asks about them.
                            showError(tr("Report not saved"), error);
                            status_->setText(tr("Report not saved: %1 The results are still open "
                                                "and unsaved.")
                                                 .arg(error));
                            return;
                        }
                        document_->setPath(path);
                        document_->setModified(false);
                        addRecent(path);
                        status_->setText(tr("Saved %1").arg(path));
                    });
}

void MainWindow::exportHtml(const QString& path) {
    saveReportAsync(this, document_->report(), path, ReportFormat::Html,
                    [this, path](const QString& error) {
                        if (!error.isEmpty())
                            showError(tr("HTML not exported"), error);
                        else
                            status_->setText(tr("Exported %1").arg(path));
                    });
}

void MainWindow::exportTrace(const QString& path) {
    saveReportAsync(this, document_->report(), path, ReportFormat::ChromeTrace,
                    [this, path](const QString& error) {
                        if (!error.isEmpty())
                            showError(tr("Trace not exported"), error);
                        else
                            status_->setText(
                                tr("Exported trace %1 (open it in ui.perfetto.dev)").arg(path));
                        emit traceExported(path, error);
                    });
}

void MainWindow::showError(const QString& title, const QString& message) {
    lastError_ = message;
    if (quiet_) {
        status_->setText(title + ": " + message);
        return;
    }
    QMessageBox::warning(this, title, message);
}

void MainWindow::updateTitle() {
    QString name = QFileInfo(document_->path()).fileName();
    if (name.isEmpty()) {
        const auto& model = document_->report().model;
        name = QFileInfo(QString::fromStdString(model.spec)).fileName();
        if (name.isEmpty())
            name = QFileInfo(settings_->modelSpec()).fileName();
    }
    setWindowTitle(QStringLiteral("%1%2 — compilescope")
                       .arg(oneLine(name), document_->isModified() ? "*" : ""));
}

widgets::SourceReader MainWindow::sourceReaderFor(const std::string& target) {
    if (target.empty())
        return {};
    std::string error;
    const auto parsed = core::parseSshTarget(target, &error);
    if (!parsed) {
        const QString why = tr("The report names its host as %1, which is not an SSH target (%2): "
                               "its source files cannot be read.")
                                .arg(QString::fromStdString(target), QString::fromStdString(error));
        return [why](const QString& path) {
            widgets::SourceText text;
            text.path = path;
            text.error = why;
            return text;
        };
    }
    // One login: the run's connection, else the panel's, else a new one (it
    // connects when the first file is read).
    for (const auto& open : {runner_->remoteHost(), settings_->remoteHost()}) {
        if (open && open->target().spec() == parsed->spec())
            return widgets::remoteSourceReader(open);
    }
    return widgets::remoteSourceReader(
        std::make_shared<core::RemoteHost>(*parsed, settings_->remoteOptions()));
}

void MainWindow::showResults(bool results) {
    centre_->setCurrentIndex(results ? 1 : 0);
}

bool MainWindow::hasUnsavedResults() const {
    return document_->isModified() && !document_->isEmpty() && !runner_->isRunning();
}

bool MainWindow::confirmDiscard() {
    if (quiet_ || !hasUnsavedResults())
        return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved results"), tr("The current results are not saved. Discard them?"),
        QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Cancel);
    return answer == QMessageBox::Discard;
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recent").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue("recent", recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    if (!recentMenu_)
        return;
    recentMenu_->clear();
    const QStringList recent = QSettings().value("recent").toStringList();
    for (const QString& path : recent) {
        // "&" would underline the next letter instead of showing itself.
        auto* action = recentMenu_->addAction(QString(oneLine(path)).replace('&', "&&"), this,
                                              [this, path] { openPath(path); });
        action->setData(path);
    }
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (runner_->isRunning() && !quiet_) {
        const auto answer = QMessageBox::question(this, tr("A run is in progress"),
                                                  tr("Stop the running probe and quit?"));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
    }
    if (!runner_->isRunning() && !confirmDiscard()) {
        event->ignore();
        return;
    }
    runner_->cancel();
    QSettings state;
    state.setValue("window/geometry", saveGeometry());
    state.setValue("window/state", saveState());
    settings_->saveState();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        openPath(urls.first().toLocalFile());
}

} // namespace cs::app
