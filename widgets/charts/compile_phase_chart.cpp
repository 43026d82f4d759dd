#include "widgets/charts/compile_phase_chart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <map>

#include "core/analysis/comparison.h"
#include "core/analysis/palette.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"

namespace cs::widgets {

namespace {

// Phase colours: muted, and apart from the settings' colours (those outline the bars).
struct PhaseStyle {
    const char* name;
    const char* title;
    const char* color;
};
constexpr PhaseStyle kPhases[] = {
    {"dynamo_tracing", "Dynamo tracing", "#5b8db8"},
    {"aot_autograd", "AOTAutograd", "#9ecae1"},
    {"inductor_codegen", "Inductor code generation", "#f2b447"},
    {"cpp_triton_compile", "C++/Triton compile", "#d9822b"},
    {"precompiled_header", "torch's precompiled header (once per machine)", "#8c510a"},
    {"autotune", "autotuning", "#b5523b"},
    {"cudagraph_recording", "CUDA-graph recording", "#6aaa64"},
    {"other", "other (running the call, guards, capture)", "#bdbdbd"},
    // aoti (docs/aoti.md): built once in Python, then the service's cold start in C++.
    {"export", "torch.export", "#8c6bb1"},
    {"package", "AOTInductor package", "#c994c7"},
    {"load", "package load", "#41ab5d"},
    {"first_call", "first call", "#a1d99b"},
};

} // namespace

QString CompilePhaseChart::phaseTitle(const QString& name) {
    for (const auto& p : kPhases) {
        if (name == QLatin1String(p.name))
            return tr(p.title);
    }
    return name;
}

CompilePhaseChart::CompilePhaseChart(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), plot_(new QCustomPlot(this)) {
    plot_->setObjectName("compilePhasePlot");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setupChart(plot_);
    // Short: the tab's heading says which calls; a long label is cut on a short chart.
    setDurationAxis(plot_, tr("compile time, by phase"));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Vertical);
    plot_->axisRect()->setRangeZoom(Qt::Vertical);
    // The legend beside the bars, not over them: any slot may hold the tallest stack.
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    auto* side = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(0, 1, side);
    plot_->plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, plot_->legend);
    side->addElement(1, 0,
                     new QCPLayoutElement(plot_)); // keeps the legend at the top, at its own height
    side->setRowStretchFactor(0, 0.001);
    plot_->legend->setMargins(QMargins(6, 4, 6, 4));
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        showHover(event->pos(), event->globalPosition().toPoint());
    });
    connect(document_, &ReportDocument::reportReset, this, &CompilePhaseChart::refresh);
    connect(&throttle_, &RefreshThrottle::due, this, &CompilePhaseChart::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    refresh();
}

void CompilePhaseChart::refresh() {
    plot_->clearPlottables();
    plot_->clearItems();
    const auto& report = document_->report();
    std::vector<core::WarmupAnalysis> warmups;
    std::vector<QString> names; // phase names in stacking order: known ones first
    std::map<QString, double> totals;
    // Per setting and phase: the first call's share plus what later warmup
    // calls compiled (CUDA-graph recording happens on the second or third call).
    std::vector<std::map<QString, double>> seconds;
    for (const auto& run : report.runs) {
        warmups.push_back(core::analyzeWarmup(run));
        auto& mine = seconds.emplace_back();
        for (const auto& p : warmups.back().phases)
            mine[QString::fromStdString(p.name)] += p.seconds;
        for (const auto& p : warmups.back().laterPhases)
            mine[QString::fromStdString(p.name)] += p.seconds;
        for (const auto& [name, value] : mine)
            totals[name] += value;
    }
    for (const auto& p : kPhases) {
        if (totals.count(p.name))
            names.push_back(p.name);
    }
    for (const auto& [name, total] : totals) {
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 0;
    std::vector<double> stackHeights(report.runs.size(), 0.0);
    QCPBars* below = nullptr;
    for (const QString& name : names) {
        if (totals[name] <= 0)
            continue; // a phase this torch never spent time in (CUDA graphs on CPU) adds only
                      // clutter
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setName(phaseTitle(name));
        bars->setProperty("phase", name);
        QColor color("#9e9e9e");
        for (const auto& p : kPhases) {
            if (name == QLatin1String(p.name))
                color = QColor(p.color);
        }
        bars->setBrush(color);
        bars->setPen(QPen(plot_->palette().color(QPalette::Base), 0.5));
        bars->setWidth(0.6);
        for (size_t r = 0; r < warmups.size(); ++r) {
            if (auto it = seconds[r].find(name); it != seconds[r].end() && it->second > 0) {
                bars->addData(static_cast<double>(r + 1), it->second * 1e9);
                stackHeights[r] += it->second * 1e9;
            }
        }
        if (below)
            bars->moveAbove(below);
        below = bars;
    }
    // Outline each setting's stack in its colour and name it on the axis.
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const auto& run = report.runs[r];
        QString label = QString::fromStdString(run.setting.label());
        if (warmups[r].firstCallNs < 0)
            label += "\n" +
                     tr("(no first call: %1)").arg(QString::fromLatin1(core::toString(run.status)));
        ticker->addTick(static_cast<double>(r + 1), label);
        top = std::max(top, stackHeights[r]);
        if (stackHeights[r] <= 0)
            continue;
        // The total on top: a short first call is a sliver beside a compile of seconds.
        auto* total = new QCPItemText(plot_);
        total->position->setType(QCPItemPosition::ptPlotCoords);
        total->position->setCoords(static_cast<double>(r + 1), stackHeights[r]);
        total->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        total->setPadding(QMargins(0, 0, 0, 3));
        total->setText(durationText(stackHeights[r]));
        total->setColor(plot_->palette().color(QPalette::Text));
        total->setSelectable(false);
        auto* outline = new QCPItemRect(plot_);
        outline->topLeft->setCoords(static_cast<double>(r + 1) - 0.3, stackHeights[r]);
        outline->bottomRight->setCoords(static_cast<double>(r + 1) + 0.3, 0);
        outline->setPen(QPen(toQColor(core::runColor(report, static_cast<int>(r))), 2.5));
        outline->setBrush(Qt::NoBrush);
        outline->setSelectable(false);
    }
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setSubTicks(false);
    plot_->xAxis->setTickLength(0, 4);
    plot_->xAxis->grid()->setVisible(false);
    plot_->xAxis->setRange(0.4, static_cast<double>(std::max<size_t>(1, report.runs.size())) + 0.6);
    plot_->yAxis->setRange(0, top > 0 ? top * 1.12 : 1e9);
    plot_->legend->setVisible(plot_->plottableCount() > 0);
    if (report.runs.empty())
        setEmptyMessage(plot_, tr("Run a model to see what its first call costs"));
    else if (top <= 0)
        setEmptyMessage(plot_, tr("No first call measured yet"));
    else
        setEmptyMessage(plot_, {});
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void CompilePhaseChart::showHover(const QPoint& pos, const QPoint& globalPos) {
    const auto& report = document_->report();
    for (int i = 0; i < plot_->plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(plot_->plottable(i));
        if (!bars)
            continue;
        QVariant details;
        if (bars->selectTest(pos, false, &details) < 0)
            continue;
        const auto selection = details.value<QCPDataSelection>();
        if (selection.isEmpty())
            continue;
        const auto it = bars->data()->at(selection.dataRange().begin());
        const auto run = static_cast<size_t>(it->key) - 1;
        if (run >= report.runs.size())
            continue;
        const auto w = core::analyzeWarmup(report.runs[run]);
        const QString phase = bars->property("phase").toString();
        double later = 0;
        for (const auto& p : w.laterPhases)
            later += QString::fromStdString(p.name) == phase ? p.seconds * 1e9 : 0;
        QString text = tr("%1 — %2: %3")
                           .arg(QString::fromStdString(report.runs[run].setting.label()),
                                bars->name(), durationText(it->value));
        if (later > 0)
            text += "\n" + tr("%1 in the first call, %2 in later warmup calls")
                               .arg(durationText(it->value - later), durationText(later));
        text += "\n" + tr("first call: %1").arg(durationText(static_cast<double>(w.firstCallNs)));
        QToolTip::showText(globalPos, text, plot_);
        return;
    }
    QToolTip::hideText();
}

} // namespace cs::widgets
