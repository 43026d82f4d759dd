#include "widgets/ranks/ranks_tab.h"

#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/analysis/rank_divergence.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/ranks/compiles_model.h"
#include "widgets/ranks/rank_table_model.h"

namespace cs::widgets {

RanksTab::RanksTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), empty_(new QLabel(this)), body_(new QWidget(this)),
      summary_(new QLabel(body_)), ranks_(new QTableView(body_)),
      rankModel_(new RankTableModel(document, this)), rankProxy_(nullptr),
      compilesTitle_(new QLabel(body_)), compiles_(new QTableView(body_)),
      compilesModel_(new CompilesModel(this)) {
    setObjectName("ranksTab");
    empty_->setObjectName("ranksEmpty");
    empty_->setText(tr("No ranks to show: this report was not imported from a TORCH_TRACE log "
                       "(torch's structured trace, one file per rank)."));
    empty_->setWordWrap(true);
    empty_->setAlignment(Qt::AlignCenter);
    empty_->setEnabled(false); // drawn in the palette's muted text colour
    ranks_->setObjectName("ranksTable");
    compiles_->setObjectName("compilesTable");
    summary_->setObjectName("ranksSummary");
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    compilesTitle_->setObjectName("compilesTitle");

    rankProxy_ = setupTableView(ranks_, rankModel_);
    setupTableView(compiles_, compilesModel_);
    ranks_->setSelectionMode(QAbstractItemView::SingleSelection);
    // Every column as wide as its content; a stretched last one overflows by a pixel.
    ranks_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    ranks_->horizontalHeader()->setStretchLastSection(false);
    fitColumnsToContent(compiles_, CompilesModel::Function, 0.3);

    auto* top = new QWidget(body_);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(ranks_, 1);
    topLayout->addWidget(summary_);
    auto* bottom = new QWidget(body_);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(compilesTitle_);
    bottomLayout->addWidget(compiles_, 1);
    auto* splitter = new QSplitter(Qt::Vertical, body_);
    splitter->setObjectName("ranksSplitter");
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(top);
    splitter->addWidget(bottom);
    splitter->setSizes({260, 420});
    auto* bodyLayout = new QVBoxLayout(body_);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    bodyLayout->addWidget(splitter);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(empty_);
    layout->addWidget(body_, 1);

    connect(ranks_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid())
                    return;
                const int run = rankModel_->runAt(rankProxy_->mapToSource(current).row());
                if (run >= 0 && run != document_->selection().run)
                    document_->selectRun(run);
            });
    connect(&throttle_, &RefreshThrottle::due, this, &RanksTab::refresh);
    connect(document_, &ReportDocument::reportReset, this, &RanksTab::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    connect(document_, &ReportDocument::selectionChanged, this, &RanksTab::showCompiles);
    refresh();
}

void RanksTab::refresh() {
    rankModel_->rebuild();
    // Before anything is laid out: the compiles model still points into the old report.
    showCompiles();
    const auto& comparison = rankModel_->comparison();
    const bool any = !comparison.rows.empty();
    empty_->setVisible(!any);
    body_->setVisible(any);
    QString summary;
    if (comparison.rows.size() == 1) {
        summary = tr("One rank: nothing to compare it with.");
    } else if (comparison.comparable() && comparison.divergences.empty()) {
        summary = tr("The %1 ranks compiled alike: the same graphs, no extra recompiles or cache "
                     "misses, no rank far slower than the others.")
                      .arg(comparison.rows.size());
    } else if (comparison.comparable()) {
        QStringList items;
        for (const auto& d : comparison.divergences)
            items << "<li>" + QString::fromStdString(d.text).toHtmlEscaped() + "</li>";
        summary = tr("<b>Where ranks differ</b> (tinted cells; hover for why). Ranks that compile "
                     "differently wait on each other at collectives, or hang:") +
                  "<ul style='margin:2px 0 0 -20px'>" + items.join("") + "</ul>";
    }
    summary_->setText(summary);
    summary_->setVisible(!summary.isEmpty());
}

int RanksTab::compilesRun() const {
    const auto& rows = rankModel_->comparison().rows;
    const int selected = document_->selection().run;
    if (rankModel_->rowOfRun(selected) >= 0)
        return selected;
    return rows.empty() ? -1 : rows.front().run;
}

void RanksTab::showCompiles() {
    const int run = compilesRun();
    const core::Run* r = document_->run(run);
    compilesModel_->showRun(r);
    if (r) {
        const int n = static_cast<int>(r->compiles.size());
        compilesTitle_->setText(
            tr("<b>Compiles of %1</b> (%2)%3")
                .arg(QString::fromStdString(core::rankLabel(*r, run)).toHtmlEscaped())
                .arg(n)
                .arg(n == 0 ? tr(": the log holds no compilation_metrics records") : QString()));
    } else {
        compilesTitle_->clear();
    }
    // Keep the rank table's current row on the rank shown.
    const int row = rankModel_->rowOfRun(run);
    if (row >= 0) {
        const QModelIndex index = rankProxy_->mapFromSource(rankModel_->index(row, 0));
        if (ranks_->currentIndex().row() != index.row()) {
            // Showing a rank is not choosing one: the shared selection stays as it is.
            const QSignalBlocker blocker(ranks_->selectionModel());
            ranks_->setCurrentIndex(index);
            ranks_->viewport()->update();
        }
    }
}

} // namespace cs::widgets
