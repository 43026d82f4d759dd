#include "widgets/run/settings_panel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTextStream>
#include <QThreadPool>
#include <QVBoxLayout>

#include "core/analysis/torch_environment.h"
#include "core/analysis/warm_start.h"
#include "core/runner/app_paths.h"
#include "core/runner/interpreter_probe.h"
#include "core/runner/probe_command.h"
#include "core/runner/session_runner.h"
#include "core/runner/ssh_target.h"

namespace cs::widgets {

namespace {

const char* kOther = "Other…";

// What a Target picker item stands for (Qt::UserRole + 1); its spec is Qt::UserRole.
enum TargetKind { kThisComputer, kConfigHost, kAddedHost, kAddHost };
constexpr int kSpecRole = Qt::UserRole;
constexpr int kKindRole = Qt::UserRole + 1;
constexpr int kDefaultTimeLimitMinutes = core::kDefaultProbeTimeoutSeconds / 60;

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

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
    if (mode == "aoti")
        return "Deploy: torch.export, an AOTInductor package, run and timed from C++ without "
               "Python; its first call is the package load (the service's cold start)";
    if (mode == "as-written")
        return "The model as its file compiles it: its own torch.compile calls (a compiled "
               "model from get_model(), Module.compile(), @torch.compile) kept, each with its "
               "own options; every other mode undoes them";
    return "Autotunes kernels like max-autotune but without CUDA graphs";
}

// Whether a model file's text matches: the panel decides from it before
// anything runs (a torchvision: or .pt2 model has no text to match).
bool modelFileMatches(const QString& spec, const QRegularExpression& pattern) {
    if (!spec.endsWith(".py"))
        return false;
    QFile file(spec);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    return pattern.match(QString::fromUtf8(file.read(4 << 20))).hasMatch();
}

// Whether a model file defines get_input_sweep().
bool definesInputSweep(const QString& spec) {
    static const QRegularExpression def(QStringLiteral(R"(^\s*def\s+get_input_sweep\s*\()"),
                                        QRegularExpression::MultilineOption);
    return modelFileMatches(spec, def);
}

// Whether a model file calls torch.compile or Module.compile: where mode
// as-written has something to keep ("Compare all modes" runs it then).
bool mentionsCompile(const QString& spec) {
    // torch.compile (a decorator need not call it), or model.compile(...), not re.compile(.
    static const QRegularExpression call(
        QStringLiteral(R"(\btorch\.compile\b|(?<!\bre)\.compile\s*\()"));
    return modelFileMatches(spec, call);
}

} // namespace

SettingsPanel::SettingsPanel(core::InterpreterProbe* interpreters, QWidget* parent)
    : QWidget(parent), interpreters_(interpreters) {
    auto* layout = new QVBoxLayout(this);
    remoteOptions_.configFile = qEnvironmentVariable("COMPILESCOPE_SSH_CONFIG").toStdString();

    auto* targetBox = new QGroupBox(tr("Target"), this);
    auto* targetLayout = new QVBoxLayout(targetBox);
    auto* targetRow = new QHBoxLayout;
    target_ = new QComboBox(targetBox);
    target_->setObjectName("target");
    target_->setToolTip(tr("Where the model runs: this computer, or a host you reach with ssh "
                           "(your ~/.ssh/config, keys and agent apply)"));
    testConnection_ = new QPushButton(tr("Test connection"), targetBox);
    testConnection_->setObjectName("testConnection");
    testConnection_->setToolTip(tr("Log in once and say what the host has: Pythons, torch, "
                                   "CUDA and GPUs"));
    targetRow->addWidget(target_, 1);
    targetRow->addWidget(testConnection_);
    targetInfo_ = new QLabel(targetBox);
    targetInfo_->setObjectName("targetInfo");
    targetInfo_->setWordWrap(true);
    targetInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    targetLayout->addLayout(targetRow);
    targetLayout->addWidget(targetInfo_);
    layout->addWidget(targetBox);

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
    // For a remote target: which of the model's cases applies, and a say in it.
    placementRow_ = new QWidget(modelBox);
    auto* placementLayout = new QHBoxLayout(placementRow_);
    placementLayout->setContentsMargins(0, 0, 0, 0);
    auto* placementLabel = new QLabel(tr("model is on"), placementRow_);
    placement_ = new QComboBox(placementRow_);
    placement_->setObjectName("modelPlacement");
    placement_->addItem(tr("auto"), static_cast<int>(core::ModelPlacement::Auto));
    placement_->addItem(tr("this computer"), static_cast<int>(core::ModelPlacement::Local));
    placement_->addItem(tr("the remote"), static_cast<int>(core::ModelPlacement::Remote));
    placement_->setToolTip(tr("auto: a file that exists on this computer is copied over for the "
                              "run; any other path is a path on the remote"));
    placementLabel->setBuddy(placement_);
    placementLayout->addWidget(placementLabel);
    placementLayout->addWidget(placement_, 1);
    modelSource_ = new QLabel(modelBox);
    modelSource_->setObjectName("modelSource");
    modelSource_->setWordWrap(true);
    modelLayout->addWidget(placementRow_);
    modelLayout->addWidget(modelSource_);
    layout->addWidget(modelBox);

    auto* pythonBox = new QGroupBox(tr("Interpreter"), this);
    auto* pythonLayout = new QVBoxLayout(pythonBox);
    python_ = new QComboBox(pythonBox);
    python_->setObjectName("python");
    python_->setEditable(false);
    python_->setToolTip(
        tr("The Python whose torch compiles the model; nothing is installed into it"));
    pythonInfo_ = new QLabel(pythonBox);
    pythonInfo_->setObjectName("pythonInfo");
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
    dynamic_->setObjectName("dynamic");
    dynamic_->addItem(tr("compare all three"), QStringLiteral("compare"));
    dynamic_->setToolTip(tr("auto: recompile once with dynamic shapes when a size changes; true: "
                            "dynamic from the start; false: one graph per shape; compare all "
                            "three: each compiled mode runs three times, side by side"));
    form->addRow(tr("dynamic"), dynamic_);
    fullgraph_ = new QCheckBox(settingsBox);
    fullgraph_->setToolTip(tr("Fail on the first graph break instead of splitting the model"));
    form->addRow(tr("fullgraph"), fullgraph_);
    autocast_ = choices(core::knownAutocast(), settingsBox);
    autocast_->setObjectName("autocast");
    for (const auto& type : core::knownAutocast())
        if (type != "none")
            autocast_->addItem(tr("compare none and %1").arg(QString::fromStdString(type)),
                               QStringLiteral("compare:%1").arg(QString::fromStdString(type)));
    autocast_->setToolTip(tr("Autocast the calls to a narrower type; compare none and bf16: "
                             "every mode, eager too, runs without and with it, side by side"));
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
    repeat_ = new QSpinBox(settingsBox);
    repeat_->setObjectName("repeat");
    repeat_->setRange(1, 20);
    repeat_->setValue(1);
    repeat_->setSuffix(tr(" per setting"));
    repeat_->setToolTip(tr("Fresh probe processes per setting, run in rounds (each setting once, "
                           "then each again): two processes of one setting can differ by more "
                           "than their own intervals, so each speedup is judged over every "
                           "round"));
    form->addRow(tr("probes"), repeat_);
    timeLimit_ = new QSpinBox(settingsBox);
    timeLimit_->setObjectName("timeLimit");
    timeLimit_->setRange(1, 24 * 60);
    timeLimit_->setValue(kDefaultTimeLimitMinutes);
    timeLimit_->setSuffix(tr(" min per probe"));
    timeLimit_->setToolTip(
        tr("A probe still running after this long is stopped and what it measured is kept "
           "(--timeout): raise it for a model whose compile, or whose input sweep's "
           "recompiles, take longer on this machine"));
    form->addRow(tr("time limit"), timeLimit_);
    threads_ = new QSpinBox(settingsBox);
    threads_->setObjectName("threads");
    threads_->setRange(0, 1024);
    threads_->setSpecialValueText(tr("torch's default"));
    threads_->setToolTip(tr("Intra-op threads (torch.set_num_threads) in the probe; fewer "
                            "threads than cores keeps the measurement out of other work's way"));
    form->addRow(tr("threads"), threads_);
    environment_ = new QLineEdit(settingsBox);
    environment_->setObjectName("probeEnvironment");
    environment_->setPlaceholderText(tr("NAME=VALUE …"));
    environment_->setClearButtonEnabled(true);
    environment_->setToolTip(
        tr("Variables set in every probe, here or on the remote target, separated by spaces "
           "(--env NAME=VALUE): MALLOC_MMAP_THRESHOLD_=33554432 "
           "MALLOC_TRIM_THRESHOLD_=1073741824 to keep malloc's memory, "
           "TORCHINDUCTOR_FREEZING=1, OMP_PROC_BIND=close. A value holding a blank goes in "
           "double quotes: PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True\" needs none, "
           "LD_PRELOAD=\"/opt/my libs/libjemalloc.so\" does. The report records them"));
    form->addRow(tr("environment"), environment_);
    environmentError_ = new QLabel(settingsBox);
    environmentError_->setObjectName("probeEnvironmentError");
    environmentError_->setWordWrap(true);
    environmentError_->setStyleSheet(QStringLiteral("color: #c0392b"));
    environmentError_->hide();
    form->addRow(QString(), environmentError_);
    inheritedEnvironment_ = new QLabel(settingsBox);
    inheritedEnvironment_->setObjectName("inheritedEnvironment");
    inheritedEnvironment_->setWordWrap(true);
    inheritedEnvironment_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    inheritedEnvironment_->hide();
    form->addRow(QString(), inheritedEnvironment_);
    connect(environment_, &QLineEdit::textChanged, this, [this] {
        const QString problem = environmentProblem();
        environmentError_->setText(problem);
        environmentError_->setVisible(!problem.isEmpty());
        showInheritedEnvironment();
        updateRunEnabled();
    });
    sweep_ = new QCheckBox(settingsBox);
    sweep_->setObjectName("sweepCheck");
    form->addRow(tr("input sweep"), sweep_);
    warmCache_ = new QCheckBox(settingsBox);
    warmCache_->setToolTip(tr("Compile each setting once, unmeasured, then measure with torch's "
                              "compile cache warm, as a second start of your program would"));
    form->addRow(tr("warm cache"), warmCache_);
    strictExport_ = new QCheckBox(settingsBox);
    strictExport_->setObjectName("strictExport");
    strictExport_->setToolTip(tr("aoti only: torch.export with strict=True (traced by Dynamo, "
                                 "stricter about Python) instead of non-strict"));
    form->addRow(tr("strict export"), strictExport_);
    keepCode_ = new QCheckBox(settingsBox);
    keepCode_->setObjectName("keepCode");
    keepCode_->setChecked(true);
    keepCode_->setToolTip(tr("Keep Inductor's generated code in the report (the Code tab). "
                             "Untick for code that must not leave this machine: kernel names, "
                             "their nodes and source lines stay (--no-code)"));
    form->addRow(tr("generated code"), keepCode_);
    warmStarts_ = new QCheckBox(settingsBox);
    warmStarts_->setObjectName("warmStarts");
    warmStarts_->setToolTip(
        tr("Measure each compiled setting's cold start three ways: a fresh compile, a warm "
           "Inductor cache and torch's portable cache artifacts (save_cache_artifacts in an "
           "unmeasured run, load_cache_artifacts before the measured one's first compile). The "
           "Warmup tab shows them side by side"));
    form->addRow(tr("warm starts"), warmStarts_);
    // Warm starts measure the warm cache themselves.
    connect(warmStarts_, &QCheckBox::toggled, warmCache_,
            [this](bool on) { warmCache_->setEnabled(!on); });
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
        if (!shownTarget_.isEmpty()) {
            showRemoteInterpreter(); // the remote's interpreters are described by the test
            return;
        }
        interpreters_->describe(python());
    });
    connect(python_, &QComboBox::editTextChanged, this, [this] {
        if (!shownTarget_.isEmpty())
            showRemoteInterpreter();
    });
    connect(target_, &QComboBox::activated, this, &SettingsPanel::onTargetPicked);
    connect(target_, &QComboBox::currentIndexChanged, this, &SettingsPanel::applyTarget);
    connect(testConnection_, &QPushButton::clicked, this, &SettingsPanel::testConnection);
    connect(model_, &QLineEdit::textChanged, this, &SettingsPanel::updateModelSource);
    connect(placement_, &QComboBox::currentIndexChanged, this, &SettingsPanel::updateModelSource);
    fillGallery();
    fillInterpreters();
    fillTargets({});
    applyTarget();
    updateRunEnabled();
    // Top to bottom, as they are shown: the target first.
    setTabOrder(target_, testConnection_);
    setTabOrder(testConnection_, model_);
    setTabOrder(model_, open);
    setTabOrder(open, gallery_);
    setTabOrder(gallery_, placement_);
    setTabOrder(placement_, python_);
}

SettingsPanel::~SettingsPanel() = default;

QString sshConfigPath() {
    const QString configured = qEnvironmentVariable("COMPILESCOPE_SSH_CONFIG");
    return configured.isEmpty() ? qs(core::defaultSshConfigPath()) : configured;
}

QString describeRemoteDetail(const core::RemoteDescription& d) {
    QStringList lines;
    if (!d.connected)
        return qs(d.problem);
    QString host = qs(d.hostname);
    QStringList traits;
    if (!d.arch.empty())
        traits << qs(d.arch);
    if (!d.glibc.empty())
        traits << QObject::tr("glibc %1").arg(qs(d.glibc));
    if (!traits.isEmpty())
        host += QStringLiteral(" (%1)").arg(traits.join(", "));
    lines << host;
    if (d.gpus.empty())
        lines << QObject::tr("GPUs: none found (no nvidia-smi, or it lists none)");
    else
        lines << QObject::tr("GPUs:");
    for (const auto& gpu : d.gpus)
        lines << QStringLiteral("  ") + qs(gpu);
    lines << (d.pythons.empty() ? QObject::tr("Pythons: none found") : QObject::tr("Pythons:"));
    for (const auto& python : d.pythons) {
        const QString what = python.ok && python.problem.empty()
                                 ? qs(python.summary())
                                 : QStringLiteral("⚠ ") + qs(python.problem);
        lines << QStringLiteral("  %1: %2").arg(qs(python.path), what);
    }
    return lines.join('\n');
}

void SettingsPanel::fillTargets(const QStringList& added) {
    const QSignalBlocker block(target_);
    target_->clear();
    target_->addItem(tr("This computer"), QString());
    target_->setItemData(0, kThisComputer, kKindRole);
    target_->setItemData(0, tr("Run the probe here, in the interpreter below"), Qt::ToolTipRole);
    QStringList specs;
    auto addHost = [&](const core::SshTarget& target, TargetKind kind, const QString& tip) {
        const QString spec = qs(target.spec());
        if (specs.contains(spec))
            return;
        specs << spec;
        target_->addItem(qs(target.label()), spec);
        target_->setItemData(target_->count() - 1, kind, kKindRole);
        target_->setItemData(target_->count() - 1, tip, Qt::ToolTipRole);
    };
    const QString config = sshConfigPath();
    for (const auto& host : core::sshConfigHosts(config.toStdString())) {
        if (const auto target = core::parseSshTarget(host))
            addHost(*target, kConfigHost, tr("Host %1 in %2").arg(qs(host), config));
    }
    for (const QString& text : added) {
        if (const auto target = core::parseSshTarget(text.toStdString()))
            addHost(*target, kAddedHost, qs(target->spec()));
    }
    target_->addItem(tr("Add…"), QString());
    target_->setItemData(target_->count() - 1, kAddHost, kKindRole);
    target_->setItemData(target_->count() - 1, tr("Another host: ssh://[user@]host[:port]"),
                         Qt::ToolTipRole);
    target_->setCurrentIndex(0);
    lastTargetIndex_ = 0;
}

QString SettingsPanel::targetSpec() const {
    return target_->currentData(kSpecRole).toString();
}

std::optional<core::SshTarget> SettingsPanel::target() const {
    const QString spec = targetSpec();
    if (spec.isEmpty())
        return std::nullopt;
    return core::parseSshTarget(spec.toStdString());
}

void SettingsPanel::setTarget(const QString& spec) {
    if (spec.isEmpty()) {
        target_->setCurrentIndex(0);
        return;
    }
    const auto parsed = core::parseSshTarget(spec.toStdString());
    if (!parsed)
        return;
    const int index = target_->findData(qs(parsed->spec()), kSpecRole);
    if (index >= 0) {
        target_->setCurrentIndex(index);
        return;
    }
    const int add = target_->count() - 1; // before "Add…"
    target_->insertItem(add, qs(parsed->label()), qs(parsed->spec()));
    target_->setItemData(add, kAddedHost, kKindRole);
    target_->setItemData(add, qs(parsed->spec()), Qt::ToolTipRole);
    target_->setCurrentIndex(add);
}

bool SettingsPanel::addTarget(const QString& text, QString* error) {
    std::string why;
    const auto parsed = core::parseSshTarget(text.trimmed().toStdString(), &why);
    if (!parsed) {
        if (error)
            *error = qs(why);
        return false;
    }
    setTarget(qs(parsed->spec()));
    return true;
}

void SettingsPanel::onTargetPicked(int index) {
    const int kind = target_->itemData(index, kKindRole).toInt();
    if (kind == kAddHost) {
        askForTarget();
        return;
    }
    // Picking a host asks it what it has, once: the interpreter list needs it.
    const QString spec = targetSpec();
    if (!spec.isEmpty() && !descriptions_.contains(spec) && !testing_.contains(spec))
        testConnection();
}

void SettingsPanel::askForTarget() {
    QString text = QStringLiteral("ssh://");
    for (;;) {
        bool ok = false;
        text = QInputDialog::getText(this, tr("Add a target"),
                                     tr("An SSH host to run on: ssh://[user@]host[:port]\n"
                                        "(a Host of your ~/.ssh/config works too)"),
                                     QLineEdit::Normal, text, &ok);
        if (!ok) {
            target_->setCurrentIndex(lastTargetIndex_);
            return;
        }
        QString error;
        if (addTarget(text, &error)) {
            onTargetPicked(target_->currentIndex());
            return;
        }
        QMessageBox::warning(this, tr("Not an SSH target"),
                             tr("%1 is not an SSH target: %2").arg(text, error));
    }
}

void SettingsPanel::applyTarget() {
    const int index = target_->currentIndex();
    if (target_->itemData(index, kKindRole).toInt() == kAddHost)
        return; // "Add…" is a question, not a target: onTargetPicked asks it
    lastTargetIndex_ = index;
    const QString spec = targetSpec();
    const QString previous = shownTarget_;
    if (spec != previous) {
        if (previous.isEmpty())
            localPython_ = python();
        else
            remotePythons_[previous] = python();
        shownTarget_ = spec;
        if (spec.isEmpty()) {
            // Back home: the local picker, probed as before.
            python_->setEditable(false);
            fillInterpreters();
            if (!localPython_.isEmpty() && localPython_ != python())
                setPython(localPython_);
        } else {
            // A path on the host, picked from its interpreters or typed.
            python_->setEditable(true);
            python_->setInsertPolicy(QComboBox::NoInsert);
            python_->lineEdit()->setPlaceholderText(tr("/path/to/python on the host"));
            fillRemoteInterpreters(remotePythons_.value(spec));
        }
    }
    python_->setToolTip(
        spec.isEmpty()
            ? tr("The Python whose torch compiles the model; nothing is installed into it")
            : tr("A Python on the host: one the connection test found, or type its path"));
    testConnection_->setEnabled(!spec.isEmpty() && !testing_.contains(spec));
    showDescription(spec);
    updateModelSource();
    showInheritedEnvironment();
}

void SettingsPanel::showInheritedEnvironment() {
    // A remote probe inherits the host's login environment, which the report shows after.
    const auto notable = targetSpec().isEmpty()
                             ? core::notableVariables(core::processEnvironment(),
                                                      environmentProblem().isEmpty()
                                                          ? probeEnvironment()
                                                          : std::map<std::string, std::string>{})
                             : std::vector<core::TorchVariable>{};
    inheritedEnvironment_->setVisible(!notable.empty());
    if (notable.empty())
        return;
    const bool voids = std::any_of(notable.begin(), notable.end(), core::voidsMeasurement);
    inheritedEnvironment_->setStyleSheet(voids ? QStringLiteral("color: #c0392b") : QString());
    inheritedEnvironment_->setText(
        tr("The probes inherit from compilescope's environment: %1. Unset where you start "
           "compilescope, or override here.")
            .arg(QString::fromStdString(core::notableVariablesText(notable))));
}

std::shared_ptr<core::RemoteHost> SettingsPanel::remoteHost() const {
    return hosts_.value(targetSpec());
}

void SettingsPanel::setRemoteOptions(const core::RemoteOptions& options) {
    remoteOptions_ = options;
    hosts_.clear(); // connections made with the old options are not reused
}

const core::RemoteDescription* SettingsPanel::description(const QString& spec) const {
    auto it = descriptions_.constFind(spec);
    return it == descriptions_.constEnd() ? nullptr : &it.value();
}

void SettingsPanel::testConnection() {
    const auto parsed = target();
    if (!parsed)
        return;
    const QString spec = qs(parsed->spec());
    if (testing_.contains(spec))
        return;
    auto& host = hosts_[spec];
    if (!host)
        host = std::make_shared<core::RemoteHost>(*parsed, remoteOptions_);
    // Typed paths are asked about too (this one, and earlier ones that ran):
    // the list then says whether they have torch.
    QStringList typed = typedPythons_.value(spec);
    if (const QString current = python().trimmed(); !current.isEmpty() && !typed.contains(current))
        typed << current;
    typedPythons_[spec] = typed;
    std::vector<std::string> extra;
    for (const QString& path : typed)
        extra.push_back(path.toStdString());
    testing_.insert(spec, true);
    testConnection_->setEnabled(false);
    testConnection_->setText(tr("Testing…"));
    showDescription(spec);
    QPointer<SettingsPanel> guard(this);
    QThreadPool::globalInstance()->start([guard, host, spec, extra] {
        core::RemoteDescription description = host->describe(extra);
        // Candidates the host lacks are noise in the list; a path the user
        // typed stays, with its problem.
        std::erase_if(description.pythons, [&extra](const core::RemotePython& p) {
            return !p.ok && std::find(extra.begin(), extra.end(), p.path) == extra.end();
        });
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [guard, spec, description = std::move(description)] {
                if (!guard)
                    return;
                guard->testing_.remove(spec);
                QStringList ran;
                for (const auto& p : description.pythons) {
                    if (p.ok)
                        ran << qs(p.path);
                }
                QStringList& typed = guard->typedPythons_[spec];
                typed.removeIf([&ran](const QString& path) { return !ran.contains(path); });
                guard->descriptions_.insert(spec, description);
                if (guard->targetSpec() == spec) {
                    guard->fillRemoteInterpreters(guard->python());
                    guard->testConnection_->setEnabled(true);
                }
                guard->testConnection_->setText(tr("Test connection"));
                guard->showDescription(guard->targetSpec());
                emit guard->connectionTested(spec);
            },
            Qt::QueuedConnection);
    });
}

void SettingsPanel::showDescription(const QString& spec) {
    targetInfo_->setVisible(!spec.isEmpty());
    if (spec.isEmpty()) {
        testConnection_->setText(tr("Test connection"));
        return;
    }
    const QString label = target_->currentText();
    testConnection_->setText(testing_.contains(spec) ? tr("Testing…") : tr("Test connection"));
    if (testing_.contains(spec)) {
        targetInfo_->setText(tr("Connecting to %1…").arg(label));
        targetInfo_->setToolTip({});
        return;
    }
    const core::RemoteDescription* d = description(spec);
    if (!d) {
        targetInfo_->setText(tr("Not tested yet: Test connection lists its interpreters."));
        targetInfo_->setToolTip({});
        return;
    }
    const QString line =
        d->connected ? qs(d->summary()) : qs(d->problem.empty() ? d->summary() : d->problem);
    targetInfo_->setText((d->connected ? QStringLiteral("✓ ") : QStringLiteral("⚠ ")) + line);
    targetInfo_->setToolTip(describeRemoteDetail(*d));
}

void SettingsPanel::fillRemoteInterpreters(const QString& preferred) {
    const QSignalBlocker block(python_);
    python_->clear();
    QStringList paths;
    if (const core::RemoteDescription* d = description(shownTarget_)) {
        for (const auto& p : d->pythons) {
            const QString path = qs(p.path);
            if (paths.contains(path))
                continue;
            paths << path;
            python_->addItem(path);
            python_->setItemData(python_->count() - 1,
                                 p.ok && p.problem.empty() ? qs(p.summary()) : qs(p.problem),
                                 Qt::ToolTipRole);
        }
    }
    QString pick = preferred;
    if (pick.isEmpty()) {
        // The first with torch, as a user would pick.
        if (const core::RemoteDescription* d = description(shownTarget_)) {
            for (const auto& p : d->pythons) {
                if (p.ok && !p.torch.empty()) {
                    pick = qs(p.path);
                    break;
                }
            }
        }
    }
    if (!pick.isEmpty() && !paths.contains(pick))
        python_->insertItem(0, pick);
    if (!pick.isEmpty())
        python_->setCurrentIndex(python_->findText(pick));
    else
        python_->setEditText({});
    showRemoteInterpreter();
}

void SettingsPanel::showRemoteInterpreter() {
    const QString path = python().trimmed();
    const core::RemoteDescription* d = description(shownTarget_);
    if (path.isEmpty()) {
        pythonInfo_->setText(tr("Pick or type the path of a Python on the host."));
        return;
    }
    if (d) {
        for (const auto& p : d->pythons) {
            if (qs(p.path) != path)
                continue;
            pythonInfo_->setText(p.ok && p.problem.empty() ? qs(p.summary())
                                                           : QStringLiteral("⚠ ") + qs(p.problem));
            return;
        }
    }
    if (testing_.contains(shownTarget_))
        pythonInfo_->setText(tr("checking…"));
    else if (d && !d->connected)
        pythonInfo_->setText(tr("Not checked: the host could not be reached (see above)."));
    else
        pythonInfo_->setText(tr("Not checked: Test connection asks the host about it."));
}

void SettingsPanel::updateModelSource() {
    const auto parsed = target();
    placementRow_->setVisible(parsed.has_value());
    modelSource_->setVisible(parsed.has_value());
    if (!parsed)
        return;
    const QString spec = modelSpec();
    if (spec.isEmpty()) {
        modelSource_->setText(tr("A path on the host, a .py or .pt2 here, or torchvision:NAME"));
        return;
    }
    const core::ModelSource source = core::classifyModelSpec(spec.toStdString(), modelPlacement());
    modelSource_->setText(tr("Model: %1").arg(qs(core::describeModelSource(source, *parsed))));
}

core::ModelPlacement SettingsPanel::modelPlacement() const {
    return static_cast<core::ModelPlacement>(placement_->currentData().toInt());
}

void SettingsPanel::setModelPlacement(core::ModelPlacement placement) {
    placement_->setCurrentIndex(placement_->findData(static_cast<int>(placement)));
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
    if (!shownTarget_.isEmpty() || d.path != python())
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

bool SettingsPanel::keepCode() const {
    return keepCode_->isChecked();
}

namespace {

// The environment field's NAME=VALUE words into `variables`; what is wrong
// with the first one that cannot be set, or empty.
QString readEnvironmentField(const QString& text, std::map<std::string, std::string>& variables) {
    if (auto problem = core::addEnvironmentAssignments(text.toStdString(), variables))
        return QString::fromStdString(*problem);
    return {};
}

} // namespace

std::map<std::string, std::string> SettingsPanel::probeEnvironment() const {
    std::map<std::string, std::string> variables;
    readEnvironmentField(environment_->text(), variables);
    return variables;
}

QString SettingsPanel::environmentProblem() const {
    std::map<std::string, std::string> variables;
    const QString problem = readEnvironmentField(environment_->text(), variables);
    return problem.isEmpty() ? problem : tr("environment: %1").arg(problem);
}

void SettingsPanel::setProbeEnvironment(const QString& text) {
    environment_->setText(text);
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
    return shownTarget_.isEmpty() ? python_->currentText() : python_->currentText().trimmed();
}

void SettingsPanel::setPython(const QString& path) {
    if (!shownTarget_.isEmpty()) {
        // A path on the host: never probed here.
        if (python_->findText(path) < 0)
            python_->insertItem(0, path);
        python_->setCurrentIndex(python_->findText(path));
        showRemoteInterpreter();
        return;
    }
    int index = python_->findText(path);
    if (index < 0) {
        python_->insertItem(python_->count() - 1, path);
        index = python_->findText(path);
    }
    python_->setCurrentIndex(index);
    pythonInfo_->setText(tr("checking…"));
    interpreters_->describe(path);
}

// Everything but the mode, as the panel shows it.
core::Setting SettingsPanel::sharedSetting() const {
    core::Setting s;
    s.backend = backend_->currentText().toStdString();
    s.dynamic = compareDynamic() ? "auto" : dynamic_->currentText().toStdString();
    s.fullgraph = fullgraph_->isChecked();
    s.device = device_->currentText().toStdString();
    s.autocast = compareAutocast().isEmpty() ? autocast_->currentText().toStdString() : "none";
    s.warmup = warmup_->value();
    s.iters = iters_->value();
    s.sweep = sweep_->isChecked();
    s.start = warmCache_->isChecked() ? core::kStartWarmCache : core::kStartFresh;
    s.threads = threads_->value();
    s.strictExport = strictExport_->isChecked();
    return s;
}

std::vector<core::Setting> SettingsPanel::settings() const {
    std::vector<core::Setting> out;
    for (auto* check : modes_) {
        if (!check->isChecked())
            continue;
        core::Setting s = sharedSetting();
        s.mode = check->objectName().toStdString();
        out.push_back(s);
    }
    return withVariants(std::move(out));
}

bool SettingsPanel::compareDynamic() const {
    return dynamic_->currentData().toString() == QStringLiteral("compare");
}

QString SettingsPanel::compareAutocast() const {
    const QString data = autocast_->currentData().toString();
    const QString prefix = QStringLiteral("compare:");
    return data.startsWith(prefix) ? data.mid(prefix.size()) : QString();
}

// With dynamic "compare all three", each compiled mode runs under each dynamic
// choice; with autocast "compare none and bf16", each setting without and with. With "warm starts"
// ticked, each compiled setting runs three ways (fresh, warm cache, cache artifacts), without the
// sweep: other shapes would add compiles.
std::vector<core::Setting> SettingsPanel::withVariants(std::vector<core::Setting> settings) const {
    if (compareDynamic())
        settings = core::dynamicVariants(settings);
    if (const QString type = compareAutocast(); !type.isEmpty())
        settings = core::autocastVariants(settings, type.toStdString());
    if (!warmStarts_->isChecked())
        return settings;
    auto out = core::warmStartSettings(settings);
    for (auto& s : out)
        s.sweep = false;
    return out;
}

std::vector<core::Setting> SettingsPanel::allModeSettings() const {
    std::vector<core::Setting> out;
    const core::Setting shared = sharedSetting();
    const bool compilesItself = mentionsCompile(modelSpec());
    for (const auto& mode : core::knownModes()) {
        if (mode == core::kAsWritten && !compilesItself)
            continue; // it would only fail: the file makes no torch.compile call to keep
        core::Setting s = shared;
        s.mode = mode;
        out.push_back(s);
    }
    return withVariants(std::move(out));
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
    // A variable that cannot be set would be left out silently: say so and wait.
    const bool optionsOk = traceOk && environmentProblem().isEmpty();
    run_->setEnabled(!running_ && anyMode && !modelSpec().isEmpty() && optionsOk);
    if (compareAll_)
        compareAll_->setEnabled(!running_ && !modelSpec().isEmpty() && optionsOk);
}

void SettingsPanel::setModeChecked(const QString& mode, bool checked) {
    for (auto* check : modes_) {
        if (check->objectName() == mode)
            check->setChecked(checked);
    }
}

int SettingsPanel::repeat() const {
    return repeat_->value();
}

int SettingsPanel::timeoutSeconds() const {
    return timeLimit_->value() * 60;
}

void SettingsPanel::setRepeat(int probes) {
    repeat_->setValue(probes);
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
    // "python" stays the local one: a remote path means nothing here.
    settings.setValue("python", shownTarget_.isEmpty() ? python() : localPython_);
    QHash<QString, QString> remotePythons = remotePythons_;
    if (!shownTarget_.isEmpty())
        remotePythons[shownTarget_] = python();
    QVariantMap pythons;
    for (auto it = remotePythons.cbegin(); it != remotePythons.cend(); ++it)
        pythons.insert(it.key(), it.value());
    settings.setValue("remotePythons", pythons);
    settings.setValue("target", targetSpec());
    QStringList added;
    for (int i = 0; i < target_->count(); ++i) {
        if (target_->itemData(i, kKindRole).toInt() == kAddedHost)
            added << target_->itemData(i, kSpecRole).toString();
    }
    settings.setValue("targets", added);
    settings.setValue("placement", static_cast<int>(modelPlacement()));
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
    settings.setValue("repeat", repeat_->value());
    settings.setValue("timeLimitMinutes", timeLimit_->value());
    settings.setValue("warmCache", warmCache_->isChecked());
    settings.setValue("strictExport", strictExport_->isChecked());
    settings.setValue("keepCode", keepCode_->isChecked());
    settings.setValue("warmStarts", warmStarts_->isChecked());
    settings.setValue("threads", threads_->value());
    settings.setValue("environment", environment_->text());
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
    const QVariantMap pythons = settings.value("remotePythons").toMap();
    for (auto it = pythons.cbegin(); it != pythons.cend(); ++it)
        remotePythons_.insert(it.key(), it.value().toString());
    // The remembered target is picked without connecting: no login prompt at start.
    target_->setCurrentIndex(0); // from here, as the constructor left it
    fillTargets(settings.value("targets").toStringList());
    setTarget(settings.value("target").toString());
    setModelPlacement(static_cast<core::ModelPlacement>(
        settings.value("placement", static_cast<int>(core::ModelPlacement::Auto)).toInt()));
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
    repeat_->setValue(settings.value("repeat", 1).toInt());
    timeLimit_->setValue(settings.value("timeLimitMinutes", kDefaultTimeLimitMinutes).toInt());
    warmCache_->setChecked(settings.value("warmCache", false).toBool());
    strictExport_->setChecked(settings.value("strictExport", false).toBool());
    keepCode_->setChecked(settings.value("keepCode", true).toBool());
    warmStarts_->setChecked(settings.value("warmStarts", false).toBool());
    threads_->setValue(settings.value("threads", 0).toInt());
    environment_->setText(settings.value("environment").toString());
    setTorchTrace(settings.value("torchTrace", false).toBool(),
                  settings.value("torchTraceDir", torchTraceDir_->text()).toString());
    updateRunEnabled();
}

} // namespace cs::widgets
