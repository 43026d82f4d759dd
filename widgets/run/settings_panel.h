// The left dock: where to run (this computer or an SSH host), what to run
// (model, interpreter, settings) and Run/Cancel.
#pragma once

#include <QHash>
#include <QWidget>

#include <map>
#include <memory>
#include <optional>

#include "core/report/session.h"
#include "core/runner/remote_host.h"
#include "core/runner/remote_run.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace cs::core {
class InterpreterProbe;
struct InterpreterDescription;
} // namespace cs::core

namespace cs::widgets {

class SettingsPanel : public QWidget {
    Q_OBJECT
  public:
    SettingsPanel(core::InterpreterProbe* interpreters, QWidget* parent = nullptr);
    ~SettingsPanel() override;

    // The SSH host every setting runs on; nullopt: this computer.
    std::optional<core::SshTarget> target() const;
    // Picks the target with this spec ("ssh://..."; empty: this computer),
    // adding it to the remembered ones if the picker lacks it. Does not connect.
    void setTarget(const QString& spec);
    // Validates "ssh://[user@]host[:port]", remembers and picks it; false and
    // `error` in words when it is not one. What "Add…" does with its answer.
    bool addTarget(const QString& text, QString* error = nullptr);
    // Where the model named by the model field lives, for a remote target.
    core::ModelPlacement modelPlacement() const;
    void setModelPlacement(core::ModelPlacement placement);
    // How ssh is run (config file, askpass); set before any connection.
    const core::RemoteOptions& remoteOptions() const { return remoteOptions_; }
    void setRemoteOptions(const core::RemoteOptions& options);
    // The connection to the picked remote target (made on its first use);
    // null for this computer.
    std::shared_ptr<core::RemoteHost> remoteHost() const;
    // Asks the picked remote target what it has, on a worker thread; the
    // answer shows under the picker and fills the interpreter list.
    void testConnection();
    // The last answer for a target spec, if any.
    const core::RemoteDescription* description(const QString& spec) const;

    QString modelSpec() const;
    void setModelSpec(const QString& spec);
    QString python() const;
    void setPython(const QString& path);
    // Variables set in every probe (the environment field, NAME=VALUE words).
    std::map<std::string, std::string> probeEnvironment() const;
    // What is wrong with the environment field, in words; empty when nothing.
    QString environmentProblem() const;
    void setProbeEnvironment(const QString& text);
    // Where torch writes its TORCH_TRACE log; empty when the box is unticked.
    QString torchTraceDir() const;
    // Whether Inductor's generated code goes into the report (off: --no-code).
    bool keepCode() const;
    void setTorchTrace(bool on, const QString& dir);
    // One setting per checked mode, sharing the other choices.
    std::vector<core::Setting> settings() const;
    // autocast: "compare none and bf16" gives "bf16"; empty for one choice
    QString compareAutocast() const;
    // One setting per known mode, eager first: what "Compare all modes" runs.
    std::vector<core::Setting> allModeSettings() const;
    core::Setting sharedSetting() const;
    void setRunning(bool running);
    // Probe processes per setting, in rounds (--repeat).
    int repeat() const;
    // Each probe's time limit (--timeout).
    int timeoutSeconds() const;

    void saveState() const; // QSettings
    void restoreState();

    // For tests and scripted use.
    void setModeChecked(const QString& mode, bool checked);
    void setIterations(int warmup, int iters);
    void setRepeat(int probes);
    void setBackend(const QString& backend);

  signals:
    // A connection test of this target spec ended (its answer is shown).
    void connectionTested(const QString& spec);
    void runRequested();
    void compareAllRequested();
    void cancelRequested();
    void openModelRequested();

  private:
    std::vector<core::Setting> withVariants(std::vector<core::Setting> settings) const;
    bool compareDynamic() const; // dynamic: "compare all three"
    void fillTargets(const QStringList& added);
    QString targetSpec() const; // of the picked item; empty: this computer
    void onTargetPicked(int index);
    void applyTarget();
    // The torch variables a local probe would inherit, said before the run.
    void showInheritedEnvironment();
    void askForTarget();
    void showDescription(const QString& spec);
    void fillRemoteInterpreters(const QString& preferred);
    void showRemoteInterpreter();
    void updateModelSource();
    void fillGallery();
    void fillInterpreters();
    void showInterpreter(const core::InterpreterDescription& description);
    void updateRunEnabled();

    core::InterpreterProbe* interpreters_;
    QComboBox* target_;
    QPushButton* testConnection_;
    QLabel* targetInfo_;
    QLineEdit* model_;
    QLabel* modelSource_;
    QWidget* placementRow_;
    QComboBox* placement_;
    QComboBox* gallery_;
    QComboBox* python_;
    QLabel* pythonInfo_;
    QComboBox* device_;
    std::vector<QCheckBox*> modes_;
    QComboBox* backend_;
    QComboBox* dynamic_;
    QCheckBox* fullgraph_;
    QComboBox* autocast_;
    QSpinBox* warmup_;
    QSpinBox* iters_;
    QSpinBox* repeat_;
    QSpinBox* timeLimit_;
    QSpinBox* threads_;
    QLineEdit* environment_;
    QLabel* environmentError_;
    QLabel* inheritedEnvironment_;
    QCheckBox* sweep_;
    QCheckBox* warmCache_;
    QCheckBox* strictExport_;
    QCheckBox* keepCode_;
    QCheckBox* warmStarts_;
    QCheckBox* torchTrace_;
    QLineEdit* torchTraceDir_;
    QPushButton* torchTraceBrowse_;
    QPushButton* run_;
    QPushButton* compareAll_ = nullptr;
    QPushButton* cancel_;
    bool running_ = false;

    core::RemoteOptions remoteOptions_;
    QString shownTarget_;     // the target the interpreter list is for; empty: this computer
    int lastTargetIndex_ = 0; // picked again when "Add…" is cancelled
    QString localPython_;     // kept while a remote target is picked
    QHash<QString, QString> remotePythons_; // target spec -> interpreter path there
    QHash<QString, std::shared_ptr<core::RemoteHost>> hosts_;
    QHash<QString, core::RemoteDescription> descriptions_;
    QHash<QString, QStringList> typedPythons_; // target spec -> paths typed there that ran
    QHash<QString, bool> testing_;             // target specs with a test under way
};

// The config whose Host entries the picker lists: $COMPILESCOPE_SSH_CONFIG,
// else ~/.ssh/config.
QString sshConfigPath();
// The detail of a connection test, for a tooltip: host, GPUs, each interpreter.
QString describeRemoteDetail(const core::RemoteDescription& description);

} // namespace cs::widgets
