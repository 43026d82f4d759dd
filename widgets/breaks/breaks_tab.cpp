#include "widgets/breaks/breaks_tab.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "core/analysis/run_summary.h"
#include "widgets/breaks/break_map.h"
#include "widgets/breaks/break_sites_model.h"
#include "widgets/breaks/recompiles_model.h"
#include "widgets/breaks/source_pane.h"
#include "widgets/common/report_document.h"
#include "widgets/common/run_picker.h"
#include "widgets/common/table_setup.h"
#include "widgets/graph/compiled_run.h"
#include "widgets/graph/graph_terms.h"

namespace cs::widgets {

namespace {

QLabel* heading(const QString& text, const QString& tip, QWidget* parent) {
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(text), parent);
    label->setToolTip(tip);
    label->setContentsMargins(6, 4, 6, 0);
    return label;
}

} // namespace

BreaksTab::BreaksTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), runPicker_(new RunPicker(document, this)),
      summary_(new QLabel(this)), breakMap_(new BreakMap(document, this)),
      sites_(new BreakSitesModel(document, this)), table_(new QTableView(this)),
      reason_(new QTextBrowser(this)), source_(new SourcePane(document, sites_, this)),
      recompiles_(new RecompilesModel(document, this)), recompilesTable_(new QTableView(this)),
      recompilesNote_(new QLabel(this)) {
    setObjectName("breaksTab");
    setToolTip(graphBreakTerm());
    table_->setObjectName("breakSitesTable");
    recompilesTable_->setObjectName("recompilesTable");
    sites_->setObjectName("breakSitesModel");
    recompiles_->setObjectName("recompilesModel");
    summary_->setObjectName("breaksSummary");

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    bar->addWidget(new QLabel(tr("Setting:"), this));
    bar->addWidget(runPicker_);
    bar->addSpacing(12);
    bar->addWidget(summary_, 1);

    sitesProxy_ = setupTableView(table_, sites_);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    // Location and function fit their content up to a quarter of the width
    // each (elided in the middle beyond it): the reason keeps the rest.
    fitColumnsToContent(table_, BreakSitesModel::Reason);
    reason_->setObjectName("breakReason");
    reason_->setMaximumHeight(150);
    reason_->setOpenExternalLinks(true);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(heading(tr("Graph breaks"), graphBreakTerm(), left));
    leftLayout->addWidget(table_, 1);
    leftLayout->addWidget(reason_);
    auto* top = new QSplitter(Qt::Horizontal, this);
    top->setObjectName("breaksSplitter");
    top->addWidget(left);
    top->addWidget(source_);
    // The table gets the larger share: a break's reason is what the user reads first.
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);

    setupTableView(recompilesTable_, recompiles_);
    fitColumnsToContent(recompilesTable_, RecompilesModel::Reason);
    recompilesNote_->setWordWrap(true);
    recompilesNote_->setObjectName("recompilesNote");
    auto* bottom = new QWidget(this);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(heading(tr("Recompiles"), recompileTerm(), bottom));
    bottomLayout->addWidget(recompilesTable_, 1);
    bottomLayout->addWidget(recompilesNote_);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName("breaksVerticalSplitter");
    split->addWidget(top);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(breakMap_);
    layout->addWidget(split, 1);

    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (syncing_ || !current.isValid())
                    return;
                const int row = sitesProxy_->mapToSource(current).row();
                if (const auto* site = sites_->site(row))
                    document_->selectBreak(sites_->run(), site->breaks.front());
            });
    connect(document_, &ReportDocument::selectionChanged, this, &BreaksTab::onSelection);
    connect(sites_, &BreakSitesModel::modelReset, this, [this] {
        updateSummary();
        onSelection(document_->selection());
    });
    connect(recompiles_, &RecompilesModel::modelReset, this, &BreaksTab::updateSummary);
    // The room goes where the rows are: a run with recompiles but no breaks
    // (a shape sweep) gives it to the recompiles, more recompiles than break
    // sites (a guard that keeps failing) shares it evenly. Relative sizes:
    // the splitter scales them to its height, also while hidden.
    connect(document_, &ReportDocument::reportReset, this, [this, split] {
        const int sites = sites_->rowCount();
        const int recompiles = recompiles_->rowCount();
        if (sites == 0 && recompiles > 0)
            split->setSizes({1000, 2000});
        else if (recompiles > sites)
            split->setSizes({1000, 1000});
        else
            split->setSizes({3000, 1000});
    });
    updateSummary();
    onSelection(document_->selection());
}

QString BreaksTab::summary() const {
    return summary_->text();
}

int BreaksTab::selectedSite() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    if (!current.isValid() || !table_->selectionModel()->isRowSelected(current.row(), {}))
        return -1;
    return sitesProxy_->mapToSource(current).row();
}

void BreaksTab::onSelection(const Selection& sel) {
    int row = -1;
    if (sel.graphBreak >= 0 && sel.run == sites_->run())
        row = sites_->rowForBreak(sel.graphBreak);
    else if (sel.line > 0)
        row = sites_->rowForLine(sel.file, sel.line);
    syncing_ = true;
    if (row >= 0) {
        const QModelIndex index = sitesProxy_->mapFromSource(sites_->index(row, 0));
        table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                             QItemSelectionModel::Rows);
        table_->scrollTo(index);
    } else {
        // Also forget the current row, so that clicking it again is a change.
        table_->selectionModel()->clearCurrentIndex();
        table_->selectionModel()->clearSelection();
    }
    syncing_ = false;
    showReason(row);
}

void BreaksTab::showReason(int row) {
    const auto* site = sites_->site(row);
    if (!site) {
        reason_->setPlainText(sites_->rowCount()
                                  ? tr("Select a break to read what torch said about it.")
                                  : QString());
        return;
    }
    QString html = QStringLiteral("<b>%1</b> — %2:%3 in %4")
                       .arg(site->reason.toHtmlEscaped(), site->file.toHtmlEscaped())
                       .arg(site->line)
                       .arg(site->function.toHtmlEscaped());
    if (!site->code.isEmpty())
        html += QStringLiteral("<pre>%1</pre>").arg(site->code.toHtmlEscaped());
    if (!site->skipNote.isEmpty())
        html += QStringLiteral("<p><b>%1</b></p>").arg(site->skipNote.toHtmlEscaped());
    if (site->inLibrary)
        html += QStringLiteral("<p><i>%1</i></p>").arg(site->libraryNote.toHtmlEscaped());
    html += QStringLiteral("<pre style='white-space: pre-wrap'>%1</pre>")
                .arg(site->fullReason.toHtmlEscaped());
    reason_->setHtml(html);
}

void BreaksTab::updateSummary() {
    const auto* run = document_->run(sites_->run());
    if (!run) {
        summary_->setText(document_->isEmpty()
                              ? tr("No run yet.")
                              : tr("Only the eager baseline ran: nothing was compiled."));
        recompilesNote_->clear();
        return;
    }
    QString breaks = counted(static_cast<qsizetype>(run->graphBreaks.size()), tr("graph break"),
                             tr("graph breaks"));
    if (!run->graphBreaks.empty())
        breaks += tr(" at %1").arg(counted(sites_->rowCount(), tr("site"), tr("sites")));
    summary_->setText(
        tr("%1, %2, %3")
            .arg(counted(static_cast<qsizetype>(run->graphs.size()), tr("graph"), tr("graphs")),
                 breaks, counted(core::recompileCount(*run), tr("recompile"), tr("recompiles"))));
    if (recompiles_->hasLimitHit())
        recompilesNote_->setText(
            // The fix depends on the guard (a dimension, a module's number, a
            // None): the recompile findings read it, this line does not.
            tr("⚠ The recompile limit was hit: %1 What to change depends on the guard that "
               "failed: the Advice tab's recompile findings name it and the fix.")
                .arg(recompileLimitTerm()));
    else if (run->recompiles.empty())
        recompilesNote_->setText(
            run->setting.sweep
                ? tr("No recompiles: every call matched the guards of code already compiled.")
                : tr("No recompiles. Run with an input sweep to see how shape changes recompile."));
    else
        recompilesNote_->clear();
}

} // namespace cs::widgets
