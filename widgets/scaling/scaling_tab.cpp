#include "widgets/scaling/scaling_tab.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/analysis/palette.h"
#include "core/analysis/units.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/scaling/scaling_chart.h"
#include "widgets/scaling/scaling_table_model.h"

namespace cs::widgets {

namespace {

QString stopText(const core::ScaleCurve& curve) {
    if (!curve.stop)
        return QObject::tr("the walk did not finish: the probe ended first (the sizes before "
                           "are kept)");
    const core::ScaleStop& s = *curve.stop;
    if (s.reason == "done")
        return QObject::tr("every size measured");
    QString text = s.reason == "oom"          ? QObject::tr("out of memory")
                   : s.reason == "memory_cap" ? QObject::tr("host-memory cap reached")
                   : s.reason == "budget"     ? QObject::tr("time budget")
                   : s.reason == "error"      ? QObject::tr("failed")
                                              : QString::fromStdString(s.reason);
    // A budget stop is decided before the size begins (docs/measuring.md).
    if (s.batchSize > 0)
        text +=
            (s.reason == "budget" ? QObject::tr(" before batch %1") : QObject::tr(" at batch %1"))
                .arg(s.batchSize);
    if (!s.message.empty())
        text += ": " + QString::fromStdString(s.message);
    return text;
}

// How the walk was made: where the batches came from, one compile per size or
// one dynamic compile, the sizes asked for (read from the first walk: one
// scale command makes them all alike).
QString walkText(const core::Report& report, const std::vector<core::ScaleCurve>& curves) {
    const core::Scaling& s = *report.runs[curves.front().runIndex].scaling;
    QString sizes = QObject::tr("doubling until the budget or memory ran out (auto)");
    if (!s.requested.empty()) {
        QStringList list;
        for (int64_t b : s.requested)
            list << QString::number(b);
        sizes = QObject::tr("batch sizes %1").arg(list.join(", "));
    }
    const QString source = s.batchSource == "dim0"
                               ? QObject::tr("inputs scaled along dimension 0")
                               : QObject::tr("inputs from %1")
                                     .arg(QString::fromStdString(s.batchSource).toHtmlEscaped());
    const QString compile = s.dynamic ? QObject::tr("one dynamic compile for all sizes")
                                      : QObject::tr("compiled once per size (dynamic=False)");
    QString text =
        QObject::tr("Each setting walked %1 in its own probe: %2, %3.").arg(sizes, source, compile);
    if (s.memoryCapBytes > 0)
        text += QObject::tr(" Host-memory cap %1.")
                    .arg(QString::fromStdString(
                        core::formatBytes(static_cast<double>(s.memoryCapBytes))));
    return text;
}

} // namespace

ScalingTab::ScalingTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), empty_(new QLabel(this)), body_(new QWidget(this)),
      summary_(new QLabel(body_)),
      throughput_(new ScalingChart(ScalingChart::Kind::Throughput, body_)),
      speedup_(new ScalingChart(ScalingChart::Kind::Speedup, body_)),
      memory_(new ScalingChart(ScalingChart::Kind::Memory, body_)), table_(new QTableView(body_)),
      model_(new ScalingTableModel(document, this)), stops_(new QLabel(body_)) {
    setObjectName("scalingTab");
    empty_->setObjectName("scalingEmpty");
    empty_->setText(tr("No batch-size walk in this report: run compilescope-cli scale MODEL "
                       "--batch-sizes 1,4,16 (or auto) --settings eager,default, then open its "
                       "report here to see throughput, speedup over eager and peak memory "
                       "against batch size."));
    empty_->setWordWrap(true);
    empty_->setAlignment(Qt::AlignCenter);
    empty_->setEnabled(false); // drawn in the palette's muted text colour
    empty_->setTextInteractionFlags(Qt::TextSelectableByMouse); // the command can be copied
    summary_->setObjectName("scalingSummary");
    summary_->setWordWrap(true);
    throughput_->setObjectName("scalingThroughput");
    speedup_->setObjectName("scalingSpeedup");
    memory_->setObjectName("scalingMemory");
    table_->setObjectName("scalingTable");
    stops_->setObjectName("scalingStops");
    stops_->setWordWrap(true);
    stops_->setTextFormat(Qt::RichText);
    stops_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    setupTableView(table_, model_);
    fitColumnsToContent(table_, ScalingTableModel::Setting, 0.3);

    auto* charts = new QSplitter(Qt::Horizontal, body_);
    charts->setObjectName("scalingCharts");
    charts->setChildrenCollapsible(false);
    charts->addWidget(throughput_);
    charts->addWidget(speedup_);
    charts->addWidget(memory_);
    auto* bottom = new QWidget(body_);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(table_, 1);
    bottomLayout->addWidget(stops_);
    auto* splitter = new QSplitter(Qt::Vertical, body_);
    splitter->setObjectName("scalingSplitter");
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(charts);
    splitter->addWidget(bottom);
    splitter->setSizes({430, 270}); // the charts first: the table is the same figures
    auto* bodyLayout = new QVBoxLayout(body_);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    bodyLayout->addWidget(summary_);
    bodyLayout->addWidget(splitter, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(empty_);
    layout->addWidget(body_, 1);

    connect(&throttle_, &RefreshThrottle::due, this, &ScalingTab::refresh);
    connect(document_, &ReportDocument::reportReset, this, &ScalingTab::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    refresh();
}

void ScalingTab::refresh() {
    throttle_.cancel();
    model_->rebuild();
    const auto& curves = model_->curves();
    const core::Report& report = document_->report();
    const bool any = !curves.empty();
    empty_->setVisible(!any);
    body_->setVisible(any);
    for (ScalingChart* chart : {throughput_, speedup_, memory_})
        chart->showCurves(report, curves);
    if (!any) {
        summary_->clear();
        stops_->clear();
        return;
    }
    summary_->setText(walkText(report, curves));
    QStringList lines;
    for (const auto& curve : curves) {
        const QString color =
            QString::fromStdString(core::runColor(report, static_cast<int>(curve.runIndex)));
        lines << QStringLiteral("<span style='color:%1'>■</span> <b>%2</b>: %3")
                     .arg(color, QString::fromStdString(curve.label).toHtmlEscaped(),
                          stopText(curve).toHtmlEscaped());
    }
    stops_->setText(tr("How each walk ended:") + "<br>" + lines.join("<br>"));
}

} // namespace cs::widgets
