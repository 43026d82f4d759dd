// The left dock: what to run (model, interpreter, settings) and Run/Cancel.
#pragma once

#include <QWidget>

#include "core/report/session.h"

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

    QString modelSpec() const;
    void setModelSpec(const QString& spec);
    QString python() const;
    void setPython(const QString& path);
    // Where torch writes its TORCH_TRACE log; empty when the box is unticked.
    QString torchTraceDir() const;
    void setTorchTrace(bool on, const QString& dir);
    // One setting per checked mode, sharing the other choices.
    std::vector<core::Setting> settings() const;
    // One setting per known mode, eager first: what "Compare all modes" runs.
    std::vector<core::Setting> allModeSettings() const;
    void setRunning(bool running);

    void saveState() const; // QSettings
    void restoreState();

    // For tests and scripted use.
    void setModeChecked(const QString& mode, bool checked);
    void setIterations(int warmup, int iters);
    void setBackend(const QString& backend);

  signals:
    void runRequested();
    void compareAllRequested();
    void cancelRequested();
    void openModelRequested();

  private:
    void fillGallery();
    void fillInterpreters();
    void showInterpreter(const core::InterpreterDescription& description);
    void updateRunEnabled();

    core::InterpreterProbe* interpreters_;
    QLineEdit* model_;
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
    QSpinBox* threads_;
    QCheckBox* sweep_;
    QCheckBox* warmCache_;
    QCheckBox* torchTrace_;
    QLineEdit* torchTraceDir_;
    QPushButton* torchTraceBrowse_;
    QPushButton* run_;
    QPushButton* compareAll_ = nullptr;
    QPushButton* cancel_;
    bool running_ = false;
};

} // namespace cs::widgets
