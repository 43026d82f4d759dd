#include "widgets/compare/compare_tab.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "core/analysis/comparison_text.h"
#include "core/analysis/rank_divergence.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/compare/comparison_model.h"

namespace cs::widgets {

CompareTab::CompareTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), model_(new ComparisonModel(document, this)),
      summary_(new QLabel(this)), table_(new QTableView(this)), details_(new QPlainTextEdit(this)) {
    model_->setObjectName("comparisonModel");
    summary_->setObjectName("compareSummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setMargin(6);
    proxy_ = setupTableView(table_, model_);
    table_->setObjectName("compareTable");
    // Fits 1280 px: columns fit their content up to a cap, the notes take
    // the rest, elided (full text in the tooltip).
    fitColumnsToContent(table_, ComparisonModel::Notes, 0.22);
    elideRightInColumn(table_, ComparisonModel::Notes);
    legend_ = new QLabel(
        tr("<b>Bold</b> on green: the best of its column. <b>Break-even</b>: calls until the extra "
           "warmup over "
           "eager is paid back by the time saved per call (\"never\" when nothing is saved). "
           "<b>reduce-overhead</b> replays CUDA graphs to cut per-call overhead; on CPU it "
           "compiles like default. "
           "Hover a cell for raw values."),
        this);
    legend_->setWordWrap(true);
    legend_->setMargin(6);
    details_->setObjectName("compareDetails");
    details_->setReadOnly(true);
    details_->setVisible(false);
    details_->setMaximumHeight(180);
    details_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(summary_);
    layout->addWidget(table_, 1);
    layout->addWidget(details_);
    layout->addWidget(legend_);

    connect(model_, &ComparisonModel::recomputed, this, [this] {
        updateSummary();
        showSweepColumn();
        showDetails(document_->selection().run);
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid())
                    return;
                const int row = proxy_->mapToSource(current).row();
                const int run = model_->comparison().rows[static_cast<size_t>(row)].run;
                document_->selectRun(run);
                showDetails(run);
            });
    updateSummary();
    showSweepColumn();
}

// The sweep column only where a setting swept its inputs (--sweep).
void CompareTab::showSweepColumn() {
    table_->setColumnHidden(ComparisonModel::Sweep, !model_->comparison().swept());
}

void CompareTab::updateSummary() {
    // A TORCH_TRACE log timed no calls: one line instead of a table of blanks.
    const bool imported = core::allRunsImported(document_->report());
    table_->setVisible(!imported);
    legend_->setVisible(!imported);
    if (imported) {
        details_->setVisible(false);
        summary_->setText(tr("This report was imported from a TORCH_TRACE log: it records "
                             "compiles, not calls, so there is nothing to compare. See the Ranks "
                             "tab."));
        return;
    }
    // What torch did differently from what was asked belongs beside the verdict,
    // not only in a column that may be scrolled out of view.
    QString text = QString::fromStdString(core::comparisonSummary(model_->comparison()));
    for (const auto& row : model_->comparison().rows) {
        for (const auto& note : row.notes)
            text +=
                "\n" + tr("Note — %1: %2")
                           .arg(QString::fromStdString(row.label), QString::fromStdString(note));
    }
    summary_->setText(text);
}

void CompareTab::showDetails(int run) {
    const auto* row = model_->comparison().row(run);
    if (!row || !row->error || row->status == core::RunStatus::Ok) {
        details_->setVisible(false);
        return;
    }
    QString text = QStringLiteral("%1 — %2 (%3)\n%4")
                       .arg(QString::fromStdString(row->label),
                            QString::fromLatin1(core::toString(row->status)),
                            QString::fromStdString(row->error->kind),
                            QString::fromStdString(row->error->message));
    if (!row->error->traceback.empty())
        text += "\n\n" + QString::fromStdString(row->error->traceback);
    details_->setPlainText(text);
    details_->setVisible(true);
}

} // namespace cs::widgets
