#include "widgets/memory/memory_tab.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/analysis/gpu_status.h"
#include "core/analysis/kept_memory.h"
#include "core/analysis/palette.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/units.h"
#include "widgets/charts/memory_peak_chart.h"
#include "widgets/charts/memory_timeline_chart.h"
#include "widgets/common/report_document.h"
#include "widgets/common/setting_picker.h"

namespace cs::widgets {

namespace {

QString html(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

// What the charts of one run show and what is missing, in a line or two.
QString notesFor(const core::Run& run) {
    QStringList lines;
    const std::string missing = core::gpuDataMissingReason(run, core::GpuData::Memory);
    const core::MemorySeries* device = run.memorySeries("device");
    if (!missing.empty()) {
        QString line = QObject::tr("<b>GPU memory:</b> %1.").arg(html(missing));
        const std::string hint = core::gpuDataHint(run);
        if (!hint.empty())
            line += " " + html(hint);
        lines << line;
        if (!run.memoryStats.empty())
            lines << QObject::tr(
                "Showing torch's own counters at each phase edge (torch.cuda.memory_stats).");
        else if (run.memorySeries("host_rss"))
            lines << QObject::tr("Showing the probe process's <b>host memory (RSS)</b> instead.");
    } else if (device) {
        int64_t peak = 0;
        for (const auto& sample : device->samples)
            peak = std::max(peak, sample.second);
        QString line =
            QObject::tr("Device memory held by the process, from CUPTI's allocation records: "
                        "torch's reserved segments, not its tensors. Peak %1.")
                .arg(html(core::formatBytes(static_cast<double>(peak))));
        if (device->baseline > 0)
            line += QObject::tr(" Includes %1 held before CUPTI started.")
                        .arg(html(core::formatBytes(double(device->baseline))));
        if (device->unknownFrees > 0)
            line += (device->unknownFrees == 1
                         ? QObject::tr(" 1 free of memory allocated before CUPTI started.")
                         : QObject::tr(" %1 frees of memory allocated before CUPTI started.")
                               .arg(device->unknownFrees));
        lines << line;
        const QString dropped = QObject::tr("Records dropped: %1").arg(device->dropped);
        lines << (device->dropped > 0
                      ? "<span style='color:#c0392b'><b>" + dropped +
                            QObject::tr(" — the timeline undercounts.") + "</b></span>"
                      : dropped + ".");
    }
    for (const auto& kept : core::keptMemory(run)) {
        QString line = QObject::tr("<b>Kept per call</b> at the same inputs: %1.")
                           .arg(html(core::keptMemoryText(kept)));
        const core::KeptVerdict verdict = kept.verdict();
        line += verdict == core::KeptVerdict::Kept
                    ? " <span style='color:#c0392b'><b>" +
                          QObject::tr("It grows with every call (see the advice).") + "</b></span>"
                : verdict == core::KeptVerdict::TooFewCalls
                    ? " " + QObject::tr("Can't tell: %1.").arg(html(core::notKeptText(kept)))
                    : " " + QObject::tr("Nothing kept: %1.").arg(html(core::notKeptText(kept)));
        lines << line;
    }
    return lines.join("<br>");
}

} // namespace

MemoryTab::MemoryTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), picker_(new SettingPicker(document, this)),
      hostRss_(new QCheckBox(tr("host RSS"), this)), notes_(new QLabel(this)),
      imported_(new QLabel(this)), body_(new QWidget(this)),
      timeline_(new MemoryTimelineChart(this)), peaks_(new MemoryPeakChart(this)) {
    setObjectName("memoryTab");
    hostRss_->setObjectName("memoryHostRss");
    timeline_->setObjectName("memoryTimelineChart");
    peaks_->setObjectName("memoryPeakChart");
    hostRss_->setToolTip(tr("Also draw the probe process's resident host memory"));
    notes_->setWordWrap(true);
    notes_->setTextFormat(Qt::RichText);
    notes_->setObjectName("memoryNotes");

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Setting:"), this));
    top->addWidget(picker_);
    top->addWidget(hostRss_);
    top->addStretch(1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->setObjectName("memorySplitter");
    splitter->addWidget(timeline_);
    splitter->addWidget(peaks_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    imported_->setObjectName("memoryImported");
    imported_->setText(tr("This report was imported from a TORCH_TRACE log: it holds no memory "
                          "samples. See the Ranks tab."));
    imported_->setWordWrap(true);
    imported_->setAlignment(Qt::AlignCenter);
    imported_->setEnabled(false); // the palette's muted text colour
    auto* bodyLayout = new QVBoxLayout(body_);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    bodyLayout->addLayout(top);
    bodyLayout->addWidget(notes_);
    bodyLayout->addWidget(splitter, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(imported_);
    layout->addWidget(body_, 1);

    connect(&throttle_, &RefreshThrottle::due, this, &MemoryTab::refresh);
    connect(document_, &ReportDocument::reportReset, this, &MemoryTab::refresh);
    connect(document_, &ReportDocument::selectionChanged, this, &MemoryTab::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    connect(hostRss_, &QCheckBox::toggled, this, &MemoryTab::refresh);
    refresh();
}

void MemoryTab::refresh() {
    const auto& report = document_->report();
    const int r = shownRun(*document_);
    const core::Run* run = document_->run(r);
    timeline_->showRun(run, run ? core::runColor(report, r) : std::string(), hostRss_->isChecked());
    peaks_->showReport(report);
    notes_->setText(run ? notesFor(*run) : QString());
    notes_->setVisible(!notes_->text().isEmpty());
    const bool imported = core::allRunsImported(report);
    imported_->setVisible(imported);
    body_->setVisible(!imported);
}

} // namespace cs::widgets
