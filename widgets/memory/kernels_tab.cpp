#include "widgets/memory/kernels_tab.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "core/analysis/gpu_status.h"
#include "core/analysis/palette.h"
#include "widgets/charts/run_bar_chart.h"
#include "widgets/common/report_document.h"
#include "widgets/common/setting_picker.h"
#include "widgets/common/table_setup.h"
#include "widgets/memory/kernel_runs_model.h"
#include "widgets/memory/kernel_table_model.h"

namespace cs::widgets {

namespace {

// Why no setting has kernel data: the first run's reason stands for all (they ran alike).
QString noneHaveKernels(const core::Report& report) {
    for (const auto& run : report.runs) {
        const std::string why = core::gpuDataMissingReason(run, core::GpuData::Kernels);
        if (!why.empty())
            return QString::fromStdString(why);
    }
    return QObject::tr("Run a model to compare settings");
}

} // namespace

KernelsTab::KernelsTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), picker_(new SettingPicker(document, this)),
      runsModel_(new KernelRunsModel(document, this)), runsTable_(new QTableView(this)),
      launches_(new RunBarChart(
          tr("kernel launches per iteration"), [](double v) { return QString::number(v, 'g', 4); },
          this)),
      gpuTime_(new RunBarChart(tr("GPU time per iteration"), durationText, this)),
      kernelTitle_(new QLabel(this)), kernelStack_(new QStackedWidget(this)),
      kernelModel_(new KernelTableModel(this)), kernelTable_(new QTableView(this)),
      emptyReason_(new QLabel(this)) {
    setObjectName("kernelsTab");
    runsTable_->setObjectName("kernelRunsTable");
    kernelTable_->setObjectName("topKernelsTable");
    runsModel_->setObjectName("kernelRunsModel");
    kernelModel_->setObjectName("topKernelsModel");
    launches_->setObjectName("kernelLaunchesChart");
    gpuTime_->setObjectName("kernelGpuTimeChart");
    kernelTitle_->setObjectName("topKernelsTitle");
    auto* runsProxy = setupTableView(runsTable_, runsModel_);
    runsTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The note (why a setting has no kernels) takes what is left; its tooltip has it all.
    runsTable_->horizontalHeader()->setSectionResizeMode(KernelRunsModel::Note,
                                                         QHeaderView::Stretch);
    setupTableView(kernelTable_, kernelModel_);
    kernelTable_->horizontalHeader()->setSectionResizeMode(KernelTableModel::Name,
                                                           QHeaderView::Stretch);
    kernelTable_->horizontalHeader()->setStretchLastSection(false);
    emptyReason_->setObjectName("kernelsEmptyReason");
    emptyReason_->setAlignment(Qt::AlignCenter);
    emptyReason_->setWordWrap(true);
    emptyReason_->setForegroundRole(QPalette::PlaceholderText);
    kernelStack_->addWidget(kernelTable_);
    kernelStack_->addWidget(emptyReason_);
    kernelTitle_->setTextFormat(Qt::RichText);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Setting:"), this));
    top->addWidget(picker_);
    top->addStretch(1);
    auto* charts = new QSplitter(Qt::Horizontal, this);
    charts->setChildrenCollapsible(false);
    charts->addWidget(launches_);
    charts->addWidget(gpuTime_);
    auto* kernels = new QWidget(this);
    auto* kernelsLayout = new QVBoxLayout(kernels);
    kernelsLayout->setContentsMargins(0, 0, 0, 0);
    kernelsLayout->addWidget(kernelTitle_);
    kernelsLayout->addWidget(kernelStack_, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->setObjectName("kernelsSplitter");
    splitter->addWidget(runsTable_);
    splitter->addWidget(charts);
    splitter->addWidget(kernels);
    // The summary has a row per setting: little height; the charts and the kernels share the rest.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 3);
    splitter->setSizes({140, 300, 300});
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);

    connect(runsTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, runsProxy](const QModelIndex& current) {
                const int run = current.isValid() ? runsProxy->mapToSource(current).row() : -1;
                if (run >= 0 && run != document_->selection().run)
                    document_->selectRun(run);
            });
    connect(&throttle_, &RefreshThrottle::due, this, &KernelsTab::refresh);
    connect(document_, &ReportDocument::reportReset, this, &KernelsTab::refresh);
    connect(document_, &ReportDocument::selectionChanged, this, &KernelsTab::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    refresh();
}

void KernelsTab::refresh() {
    const auto& report = document_->report();
    std::vector<RunBar> launches, gpuTime;
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const core::Run& run = report.runs[r];
        const auto& k = run.kernels;
        const bool perIter = k.present && k.iterations > 0;
        const QString label = QString::fromStdString(run.setting.label());
        const QColor color = toQColor(core::runColor(report, static_cast<int>(r)));
        launches.push_back(
            {label, color, perIter ? std::optional(k.launchesPerIter) : std::nullopt});
        gpuTime.push_back({label, color, perIter ? std::optional(k.gpuNsPerIter) : std::nullopt});
    }
    // With no kernel summary anywhere the figure columns are all blank: leave room for the reason.
    const bool anyKernels = std::any_of(report.runs.begin(), report.runs.end(),
                                        [](const core::Run& run) { return run.kernels.present; });
    for (int c = KernelRunsModel::Launches; c <= KernelRunsModel::Memset; ++c)
        runsTable_->setColumnHidden(c, !anyKernels);
    const QString none = noneHaveKernels(report);
    launches_->setBars(launches, none);
    gpuTime_->setBars(gpuTime, none);

    const int r = shownRun(*document_);
    const core::Run* run = document_->run(r);
    if (!run) {
        kernelModel_->setSummary({});
        kernelTitle_->setText(tr("<b>Top kernels</b>"));
        emptyReason_->setText(tr("Run a model to see its kernels"));
        kernelStack_->setCurrentWidget(emptyReason_);
        return;
    }
    const auto& k = run->kernels;
    const QString label = QString::fromStdString(run->setting.label()).toHtmlEscaped();
    kernelModel_->setSummary(k);
    const std::string why = core::gpuDataMissingReason(*run, core::GpuData::Kernels);
    if (!why.empty()) {
        kernelTitle_->setText(tr("<b>Top kernels — %1</b>").arg(label));
        const std::string hint = core::gpuDataHint(*run);
        emptyReason_->setText(QString::fromStdString(why) +
                              (hint.empty() ? QString() : "\n" + QString::fromStdString(hint)));
        kernelStack_->setCurrentWidget(emptyReason_);
        return;
    }
    QString title =
        tr("<b>Top kernels — %1</b> (measure phase, %2 iterations, %3 kernel records in the run)")
            .arg(label)
            .arg(k.iterations)
            .arg(k.kernelRecords);
    if (k.dropped > 0)
        title +=
            tr(" <span style='color:#c0392b'><b>%1 records dropped: figures undercount</b></span>")
                .arg(k.dropped);
    if (!k.note.empty())
        title += " — " + QString::fromStdString(k.note).toHtmlEscaped();
    kernelTitle_->setText(title);
    if (k.top.empty()) {
        emptyReason_->setText(tr("No kernel started inside the measure phase."));
        kernelStack_->setCurrentWidget(emptyReason_);
    } else {
        kernelStack_->setCurrentWidget(kernelTable_);
    }
}

} // namespace cs::widgets
