#include "widgets/run/settings_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTextStream>
#include <QVBoxLayout>

#include "core/runner/app_paths.h"
#include "core/runner/interpreter_probe.h"
#include "core/runner/probe_command.h"

namespace cs::widgets {

namespace {

const char* kOther = "Other…";

QComboBox* choices(const std::vector<std::string>& values, QWidget* parent) {
    auto* box = new QComboBox(parent);
    for (const auto& v : values)
        box->addItem(QString::fromStdString(v));
    return box;
}

// First line of a gallery model's docstring: the lesson it teaches.
QString lessonOf(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    QTextStream in(&file);
    for (int i = 0; i < 10 && !in.atEnd(); ++i) {
        QString line = in.readLine().trimmed();
        if (line.startsWith("\"\"\"") || line.startsWith("'''"))
            line = line.mid(3);
        if (line.endsWith("\"\"\"") || line.endsWith("'''"))
            line.chop(3);
        if (!line.isEmpty() && !line.startsWith('#'))
            return line;
    }
    return {};
}

const char* modeTip(const std::string& mode) {
    if (mode == "eager")
        return "No torch.compile: the baseline every speedup is measured against";
    if (mode == "default")
        return "torch.compile with Inductor's default options: a balance of compile time and speed";
    if (mode == "reduce-overhead")
        return "Records CUDA graphs to cut per-call launch overhead; uses more memory; no effect "
               "on CPU";
    if (mode == "max-autotune")
        return "Benchmarks kernel choices while compiling (slow to compile) and uses CUDA graphs";
    return "Autotunes kernels like max-autotune but without CUDA graphs";
}

// Whether a model file defines get_input_sweep(), read from its text: the
// panel decides before anything runs (a torchvision: or .pt2 model has none).
bool definesInputSweep(const QString& spec) {
    if (!spec.endsWith(".py"))
        return false;
    QFile file(spec);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    static const QRegularExpression def(QStringLiteral(R"(^\s*def\s+get_input_sweep\s*\()"),
                                        QRegularExpression::MultilineOption);
    return def.match(QString::fromUtf8(file.read(4 << 20))).hasMatch();
}

} // namespace

SettingsPanel::SettingsPanel(core::InterpreterProbe* interpreters, QWidget* parent)
    : QWidget(parent), interpreters_(interpreters) {
    auto* layout = new QVBoxLayout(this);

    auto* modelBox = new QGroupBox(tr("Model"), this);
    auto* modelLayout = new QVBoxLayout(modelBox);
    model_ = new QLineEdit(modelBox);
    model_->setPlaceholderText(tr("model.py, torchvision:NAME or model.pt2"));
    model_->setToolTip(tr("A .py file defining get_model() and get_inputs(), torchvision:resnet18, "
                          "or a torch.export .pt2"));
    auto* modelButtons = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open…"), modelBox);
    gallery_ = new QComboBox(modelBox);
    gallery_->setToolTip(tr("Built-in models, each showing one torch.compile lesson"));
    modelButtons->addWidget(open);
    modelButtons->addWidget(gallery_, 1);
    modelLayout->addWidget(model_);
    modelLayout->addLayout(modelButtons);
    layout->addWidget(modelBox);

    auto* pythonBox = new QGroupBox(tr("Interpreter"), this);
    auto* pythonLayout = new QVBoxLayout(pythonBox);
    python_ = new QComboBox(pythonBox);
    python_->setEditable(false);
    python_->setToolTip(
        tr("The Python whose torch compiles the model; nothing is installed into it"));
    pythonInfo_ = new QLabel(pythonBox);
    pythonInfo_->setWordWrap(true);
    pythonInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    pythonLayout->addWidget(python_);
    pythonLayout->addWidget(pythonInfo_);
    layout->addWidget(pythonBox);

    auto* settingsBox = new QGroupBox(tr("Settings"), this);
    auto* form = new QFormLayout(settingsBox);
    device_ = choices(core::knownDevices(), settingsBox);
    device_->setToolTip(tr("auto: CUDA when torch sees a GPU, else CPU"));
    form->addRow(tr("device"), device_);
    auto* modesWidget = new QWidget(settingsBox);
    auto* modesLayout = new QVBoxLayout(modesWidget);
    modesLayout->setContentsMargins(0, 0, 0, 0);
    for (const auto& mode : core::knownModes()) {
        auto* check = new QCheckBox(QString::fromStdString(mode), modesWidget);
        check->setObjectName(QString::fromStdString(mode));
        check->setToolTip(tr(modeTip(mode)));
        check->setChecked(mode == "eager" || mode == "default");
        connect(check, &QCheckBox::toggled, this, &SettingsPanel::updateRunEnabled);
        modesLayout->addWidget(check);
        modes_.push_back(check);
    }
    form->addRow(tr("modes"), modesWidget);
    backend_ = choices(core::knownBackends(), settingsBox);
    backend_->setToolTip(
        tr("inductor generates code; aot_eager and eager only trace (fast, for finding breaks)"));
    form->addRow(tr("backend"), backend_);
    dynamic_ = choices(core::knownDynamic(), settingsBox);
    dynamic_->setToolTip(tr("auto: recompile once with dynamic shapes when a size changes; true: "
                            "dynamic from the start; false: one graph per shape"));
    form->addRow(tr("dynamic"), dynamic_);
    fullgraph_ = new QCheckBox(settingsBox);
    fullgraph_->setToolTip(tr("Fail on the first graph break instead of splitting the model"));
    form->addRow(tr("fullgraph"), fullgraph_);
    autocast_ = choices(core::knownAutocast(), settingsBox);
    form->addRow(tr("autocast"), autocast_);
    warmup_ = new QSpinBox(settingsBox);
    warmup_->setRange(1, 10000);
    warmup_->setValue(5);
    warmup_->setToolTip(tr("Calls before measuring, including the first (compiling) one"));
    form->addRow(tr("warmup"), warmup_);
    iters_ = new QSpinBox(settingsBox);
    iters_->setRange(1, 1000000);
    iters_->setValue(100);
    iters_->setToolTip(tr("Measured calls in steady state"));
    form->addRow(tr("iterations"), iters_);
    threads_ = new QSpinBox(settingsBox);
    threads_->setObjectName("threads");
    threads_->setRange(0, 1024);
    threads_->setSpecialValueText(tr("torch's default"));
    threads_->setToolTip(tr("Intra-op threads (torch.set_num_threads) in the probe; fewer "
                            "threads than cores keeps the measurement out of other work's way"));
    form->addRow(tr("threads"), threads_);
    sweep_ = new QCheckBox(settingsBox);
    sweep_->setObjectName("sweepCheck");
    form->addRow(tr("input sweep"), sweep_);
    warmCache_ = new QCheckBox(settingsBox);
    warmCache_->setToolTip(tr("Compile each setting once, unmeasured, then measure with torch's "
                              "compile cache warm, as a second start of your program would"));
    form->addRow(tr("warm cache"), warmCache_);
    torchTrace_ = new QCheckBox(tr("Write torch's trace (TORCH_TRACE)"), settingsBox);
    torchTrace_->setObjectName("torchTrace");
    torchTrace_->setToolTip(
        tr("torch writes its structured trace into the directory below, one "
           "dedicated_log_torch_trace_*.log per setting: send it to someone who uses tlparse, "
           "or import it back with File → Import TORCH_TRACE… (the CLI's --torch-trace)"));
    form->addRow(torchTrace_);
    auto* traceDirRow = new QHBoxLayout;
    torchTraceDir_ = new QLineEdit(settingsBox);
    torchTraceDir_->setObjectName("torchTraceDir");
    torchTraceDir_->setText(QDir::home().filePath(QStringLiteral("compilescope-torch-trace")));
    torchTraceDir_->setPlaceholderText(tr("directory for torch's trace"));
    torchTraceDir_->setToolTip(tr("Made if missing; each setting adds its own file"));
    torchTraceBrowse_ = new QPushButton(tr("Browse…"), settingsBox);
    torchTraceBrowse_->setObjectName("torchTraceBrowse");
    torchTraceBrowse_->setToolTip(tr("Choose the directory torch writes its trace into"));
    traceDirRow->addWidget(torchTraceDir_, 1);
    traceDirRow->addWidget(torchTraceBrowse_);
    form->addRow(traceDirRow);
    layout->addWidget(settingsBox);

    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("Run"), this);
    run_->setObjectName("run");
    run_->setToolTip(tr("Run every checked mode, each in a fresh process (F5)"));
    run_->setDefault(true);
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setToolTip(tr("Stop the running probe; finished settings are kept (Esc)"));
    cancel_->setEnabled(false);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    layout->addLayout(buttons);
    compareAll_ = new QPushButton(tr("Compare all modes"), this);
    compareAll_->setObjectName("compareAll");
    compareAll_->setToolTip(
        tr("Run eager and every compile mode, each in a fresh process, with the other settings "
           "above, and compare them side by side (speedup, break-even, memory)"));
    layout->addWidget(compareAll_);
    layout->addStretch(1);

    connect(open, &QPushButton::clicked, this, &SettingsPanel::openModelRequested);
    connect(run_, &QPushButton::clicked, this, &SettingsPanel::runRequested);
    connect(compareAll_, &QPushButton::clicked, this, &SettingsPanel::compareAllRequested);
    connect(cancel_, &QPushButton::clicked, this, &SettingsPanel::cancelRequested);
    connect(model_, &QLineEdit::textChanged, this, &SettingsPanel::updateRunEnabled);
    auto enableTraceDir = [this](bool on) {
        torchTraceDir_->setEnabled(on);
        torchTraceBrowse_->setEnabled(on);
        updateRunEnabled();
    };
    connect(torchTrace_, &QCheckBox::toggled, this, enableTraceDir);
    enableTraceDir(torchTrace_->isChecked());
    connect(torchTraceDir_, &QLineEdit::textChanged, this, &SettingsPanel::updateRunEnabled);
    connect(torchTraceBrowse_, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Directory for torch's trace"), torchTraceDir_->text());
        if (!dir.isEmpty())
            torchTraceDir_->setText(dir);
    });
    // A model that defines get_input_sweep() wants its sweep: ticked by default.
    auto updateSweep = [this] {
        const bool defined = definesInputSweep(modelSpec());
        sweep_->setEnabled(defined);
        sweep_->setChecked(defined);
        sweep_->setToolTip(
            defined ? tr("This model defines get_input_sweep(), so after measuring each setting "
                         "calls it on those inputs, which shows how shape changes recompile. "
                         "Untick to skip it (the CLI's --no-sweep).")
                    : tr("This model defines no get_input_sweep(): there is nothing to sweep. "
                         "Define one returning a list of input tuples to see how shape changes "
                         "recompile."));
    };
    connect(model_, &QLineEdit::textChanged, this, updateSweep);
    updateSweep();
    connect(gallery_, &QComboBox::activated, this, [this](int index) {
        const QString path = gallery_->itemData(index).toString();
        if (!path.isEmpty())
            setModelSpec(path);
    });
    connect(interpreters_, &core::InterpreterProbe::described, this,
            &SettingsPanel::showInterpreter);
    connect(python_, &QComboBox::activated, this, [this](int index) {
        if (python_->itemText(index) == tr(kOther)) {
            const QString path =
                QFileDialog::getOpenFileName(this, tr("Choose a Python interpreter"), "/usr/bin");
            if (path.isEmpty()) {
                python_->setCurrentIndex(0);
                return;
            }
            setPython(path);
            return;
        }
        interpreters_->describe(python());
    });
    fillGallery();
    fillInterpreters();
    updateRunEnabled();
}

void SettingsPanel::fillGallery() {
    gallery_->clear();
    gallery_->addItem(tr("Gallery…"), QString());
    const QDir dir(QString::fromStdString(core::galleryDir()));
    for (const QFileInfo& info : dir.entryInfoList({"*.py"}, QDir::Files, QDir::Name)) {
        if (info.fileName().startsWith('_'))
            continue;
        gallery_->addItem(info.completeBaseName(), info.absoluteFilePath());
        gallery_->setItemData(gallery_->count() - 1, lessonOf(info.absoluteFilePath()),
                              Qt::ToolTipRole);
    }
}

void SettingsPanel::fillInterpreters() {
    python_->clear();
    const QString fallback = QString::fromStdString(core::defaultPython());
    python_->addItem(fallback);
    for (const auto& path : core::candidatePythons()) {
        if (QString::fromStdString(path) != fallback)
            python_->addItem(QString::fromStdString(path));
    }
    python_->addItem(tr(kOther));
    interpreters_->describe(python());
}

void SettingsPanel::showInterpreter(const core::InterpreterDescription& d) {
    if (d.path != python())
        return;
    pythonInfo_->setText(d.ok && d.problem.isEmpty() ? d.summary()
                                                     : QStringLiteral("⚠ ") + d.problem);
}

QString SettingsPanel::modelSpec() const {
    return model_->text().trimmed();
}

void SettingsPanel::setModelSpec(const QString& spec) {
    model_->setText(spec);
}

QString SettingsPanel::torchTraceDir() const {
    const QString dir = torchTraceDir_->text().trimmed();
    if (!torchTrace_->isChecked() || dir.isEmpty())
        return {};
    return QDir(dir).absolutePath();
}

void SettingsPanel::setTorchTrace(bool on, const QString& dir) {
    torchTraceDir_->setText(dir);
    torchTrace_->setChecked(on);
}

QString SettingsPanel::python() const {
    return python_->currentText();
}

void SettingsPanel::setPython(const QString& path) {
    int index = python_->findText(path);
    if (index < 0) {
        python_->insertItem(python_->count() - 1, path);
        index = python_->findText(path);
    }
    python_->setCurrentIndex(index);
    pythonInfo_->setText(tr("checking…"));
    interpreters_->describe(path);
}

std::vector<core::Setting> SettingsPanel::settings() const {
    std::vector<core::Setting> out;
    for (auto* check : modes_) {
        if (!check->isChecked())
            continue;
        core::Setting s;
        s.mode = check->objectName().toStdString();
        s.backend = backend_->currentText().toStdString();
        s.dynamic = dynamic_->currentText().toStdString();
        s.fullgraph = fullgraph_->isChecked();
        s.device = device_->currentText().toStdString();
        s.autocast = autocast_->currentText().toStdString();
        s.warmup = warmup_->value();
        s.iters = iters_->value();
        s.sweep = sweep_->isChecked();
        s.warmCache = warmCache_->isChecked();
        s.threads = threads_->value();
        out.push_back(s);
    }
    return out;
}

std::vector<core::Setting> SettingsPanel::allModeSettings() const {
    std::vector<core::Setting> out;
    core::Setting shared;
    shared.backend = backend_->currentText().toStdString();
    shared.dynamic = dynamic_->currentText().toStdString();
    shared.fullgraph = fullgraph_->isChecked();
    shared.device = device_->currentText().toStdString();
    shared.autocast = autocast_->currentText().toStdString();
    shared.warmup = warmup_->value();
    shared.iters = iters_->value();
    shared.sweep = sweep_->isChecked();
    shared.warmCache = warmCache_->isChecked();
    shared.threads = threads_->value();
    for (const auto& mode : core::knownModes()) {
        core::Setting s = shared;
        s.mode = mode;
        out.push_back(s);
    }
    return out;
}

void SettingsPanel::setRunning(bool running) {
    running_ = running;
    cancel_->setEnabled(running);
    updateRunEnabled();
}

void SettingsPanel::updateRunEnabled() {
    const bool anyMode =
        std::any_of(modes_.begin(), modes_.end(), [](QCheckBox* c) { return c->isChecked(); });
    // A ticked trace box needs a directory: running without the trace asked for would surprise.
    const bool traceOk = !torchTrace_->isChecked() || !torchTraceDir_->text().trimmed().isEmpty();
    run_->setEnabled(!running_ && anyMode && !modelSpec().isEmpty() && traceOk);
    if (compareAll_)
        compareAll_->setEnabled(!running_ && !modelSpec().isEmpty() && traceOk);
}

void SettingsPanel::setModeChecked(const QString& mode, bool checked) {
    for (auto* check : modes_) {
        if (check->objectName() == mode)
            check->setChecked(checked);
    }
}

void SettingsPanel::setIterations(int warmup, int iters) {
    warmup_->setValue(warmup);
    iters_->setValue(iters);
}

void SettingsPanel::setBackend(const QString& backend) {
    backend_->setCurrentText(backend);
}

void SettingsPanel::saveState() const {
    QSettings settings;
    settings.beginGroup("run");
    settings.setValue("model", modelSpec());
    settings.setValue("python", python());
    settings.setValue("device", device_->currentText());
    QStringList modes;
    for (auto* check : modes_) {
        if (check->isChecked())
            modes << check->objectName();
    }
    settings.setValue("modes", modes);
    settings.setValue("backend", backend_->currentText());
    settings.setValue("dynamic", dynamic_->currentText());
    settings.setValue("fullgraph", fullgraph_->isChecked());
    settings.setValue("autocast", autocast_->currentText());
    settings.setValue("warmup", warmup_->value());
    settings.setValue("iters", iters_->value());
    settings.setValue("warmCache", warmCache_->isChecked());
    settings.setValue("threads", threads_->value());
    settings.setValue("torchTrace", torchTrace_->isChecked());
    settings.setValue("torchTraceDir", torchTraceDir_->text());
}

void SettingsPanel::restoreState() {
    QSettings settings;
    settings.beginGroup("run");
    if (settings.contains("model"))
        setModelSpec(settings.value("model").toString());
    if (const QString python = settings.value("python").toString();
        !python.isEmpty() && QFileInfo::exists(python))
        setPython(python);
    device_->setCurrentText(settings.value("device", device_->currentText()).toString());
    if (settings.contains("modes")) {
        const QStringList modes = settings.value("modes").toStringList();
        for (auto* check : modes_)
            check->setChecked(modes.contains(check->objectName()));
    }
    backend_->setCurrentText(settings.value("backend", backend_->currentText()).toString());
    dynamic_->setCurrentText(settings.value("dynamic", dynamic_->currentText()).toString());
    fullgraph_->setChecked(settings.value("fullgraph", false).toBool());
    autocast_->setCurrentText(settings.value("autocast", autocast_->currentText()).toString());
    warmup_->setValue(settings.value("warmup", warmup_->value()).toInt());
    iters_->setValue(settings.value("iters", iters_->value()).toInt());
    warmCache_->setChecked(settings.value("warmCache", false).toBool());
    threads_->setValue(settings.value("threads", 0).toInt());
    setTorchTrace(settings.value("torchTrace", false).toBool(),
                  settings.value("torchTraceDir", torchTraceDir_->text()).toString());
    updateRunEnabled();
}

} // namespace cs::widgets
