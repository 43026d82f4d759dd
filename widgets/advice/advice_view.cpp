#include "widgets/advice/advice_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "widgets/advice/advice_detail.h"
#include "widgets/advice/advice_model.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

namespace {
QString counted(int n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}
} // namespace

AdviceView::AdviceView(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), model_(new AdviceModel(document, this)) {
    setObjectName("adviceView");
    model_->setObjectName("adviceModel");
    table_ = new QTableView(this);
    table_->setObjectName("adviceTable");
    proxy_ = setupTableView(table_, model_);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(AdviceModel::Finding, QHeaderView::Stretch);
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    detail_ = new AdviceDetail(this);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName("adviceSplitter");
    splitter->addWidget(table_);
    splitter->addWidget(detail_);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);

    empty_ = new QLabel(this);
    empty_->setObjectName("adviceEmpty");
    empty_->setAlignment(Qt::AlignCenter);
    empty_->setWordWrap(true);
    pages_ = new QStackedWidget(this);
    pages_->addWidget(empty_);
    pages_->addWidget(splitter);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 0);
    layout->addWidget(buildOptionsBar());
    layout->addWidget(pages_, 1);

    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this] { showCurrent(true); });
    connect(table_, &QTableView::activated, this, [this] { openEvidence(); });
    connect(detail_, &AdviceDetail::evidenceRequested, this, &AdviceView::openEvidence);
    connect(model_, &AdviceModel::refreshed, this, &AdviceView::updateSummary);
    connect(document_, &ReportDocument::reportReset, this, &AdviceView::updateSummary);
    // The spin boxes show the options of the report on screen (a saved report keeps its own).
    auto syncOptions = [this] {
        const auto options = document_->adviceOptions();
        const QSignalBlocker blockCalls(calls_), blockMemory(memoryPercent_);
        calls_->setValue(options.expectedCalls);
        memoryPercent_->setValue(qRound(options.memoryFraction * 100));
    };
    connect(document_, &ReportDocument::adviceOptionsChanged, this, syncOptions);
    connect(document_, &ReportDocument::reportReset, this, syncOptions);
    updateSummary();
}

QWidget* AdviceView::buildOptionsBar() {
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    summary_ = new QLabel(bar);
    summary_->setObjectName("adviceSummary");
    row->addWidget(summary_, 1);

    calls_ = new QSpinBox(bar);
    calls_->setObjectName("adviceExpectedCalls");
    calls_->setRange(1, 1'000'000'000);
    calls_->setGroupSeparatorShown(true);
    calls_->setToolTip(
        tr("How many calls your program makes per start. Compile must pay back its "
           "warmup within these calls (break-even), or the advice says it does not pay off."));
    memoryPercent_ = new QSpinBox(bar);
    memoryPercent_->setObjectName("adviceMemoryPercent");
    memoryPercent_->setRange(0, 10'000);
    memoryPercent_->setSuffix(QStringLiteral("%"));
    memoryPercent_->setToolTip(tr("Flag a setting whose peak memory is this much above eager's"));
    auto* callsLabel = new QLabel(tr("calls per start"), bar);
    callsLabel->setBuddy(calls_);
    auto* memoryLabel = new QLabel(tr("flag memory above eager by"), bar);
    memoryLabel->setBuddy(memoryPercent_);
    row->addWidget(callsLabel);
    row->addWidget(calls_);
    row->addSpacing(12);
    row->addWidget(memoryLabel);
    row->addWidget(memoryPercent_);

    const auto options = document_->adviceOptions();
    calls_->setValue(options.expectedCalls);
    memoryPercent_->setValue(qRound(options.memoryFraction * 100));
    auto apply = [this] {
        auto options = document_->adviceOptions();
        options.expectedCalls = calls_->value();
        options.memoryFraction = memoryPercent_->value() / 100.0;
        document_->setAdviceOptions(options);
    };
    connect(calls_, &QSpinBox::valueChanged, this, apply);
    connect(memoryPercent_, &QSpinBox::valueChanged, this, apply);
    return bar;
}

void AdviceView::updateSummary() {
    const auto& findings = model_->findings();
    int counts[3] = {0, 0, 0};
    for (const auto& f : findings)
        ++counts[static_cast<int>(f.severity)];
    const auto& report = document_->report();
    if (findings.empty()) {
        summary_->setText(report.runs.empty() ? tr("No report") : tr("No findings"));
        if (report.runs.empty())
            empty_->setText(tr("Run a model or open a report: what to change appears here, most "
                               "important first."));
        else if (document_->isLive())
            empty_->setText(tr("No findings yet: advice updates as settings finish."));
        else
            empty_->setText(tr("No findings in %1: no graph break, recompile or failure to fix, "
                               "and nothing measured says compile costs more than it gains.")
                                .arg(counted(static_cast<int>(report.runs.size()), tr("setting"),
                                             tr("settings"))));
        pages_->setCurrentIndex(0);
        detail_->showFinding(nullptr);
        return;
    }
    QStringList parts;
    if (counts[0])
        parts << counted(counts[0], tr("critical"), tr("critical"));
    if (counts[1])
        parts << counted(counts[1], tr("warning"), tr("warnings"));
    if (counts[2])
        parts << counted(counts[2], tr("note"), tr("notes"));
    summary_->setText(
        QStringLiteral("<b>%1</b>: %2")
            .arg(counted(static_cast<int>(findings.size()), tr("finding"), tr("findings")),
                 parts.join(QStringLiteral(", "))));
    pages_->setCurrentIndex(1);
    if (!table_->currentIndex().isValid()) {
        // Show the most important finding without moving the shared selection.
        const QSignalBlocker block(table_->selectionModel());
        table_->selectRow(0);
    }
    showCurrent(false);
}

int AdviceView::currentSourceRow() const {
    const QModelIndex current = table_->currentIndex();
    return current.isValid() ? proxy_->mapToSource(current).row() : -1;
}

void AdviceView::showCurrent(bool pushSelection) {
    const core::Finding* f = model_->finding(currentSourceRow());
    detail_->showFinding(f, tr("Select a finding to see its evidence."));
    if (!f || !pushSelection || f->run < 0)
        return;
    if (f->graphBreak >= 0)
        document_->selectBreak(f->run, f->graphBreak);
    else if (!f->file.empty())
        document_->selectSourceLine(f->run, QString::fromStdString(f->file), f->line);
    else if (f->graph >= 0)
        document_->selectGraph(f->run, f->graph);
    else
        document_->selectRun(f->run);
}

void AdviceView::selectRow(int row) {
    if (row < 0 || row >= proxy_->rowCount())
        return;
    table_->setCurrentIndex(proxy_->index(row, 0));
    table_->selectRow(row);
}

void AdviceView::openEvidence() {
    const core::Finding* f = model_->finding(currentSourceRow());
    if (!f)
        return;
    showCurrent(true);
    if (f->tab != core::EvidenceTab::None)
        document_->requestTab(f->tab);
}

} // namespace cs::widgets
