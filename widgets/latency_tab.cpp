#include "latency_tab.h"

#include <QHeaderView>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "iteration_chart.h"
#include "report_document.h"
#include "runs_model.h"
#include "table_setup.h"

namespace cs::widgets {

LatencyTab::LatencyTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), chart_(new IterationChart(document, this)), table_(new QTableView(this)),
      model_(new RunsModel(document, this)) {
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName("latencySplitter");
    splitter->addWidget(chart_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    auto* proxy = setupTableView(table_, model_);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [document, proxy](const QModelIndex& current) {
                if (current.isValid())
                    document->selectRun(proxy->mapToSource(current).row());
            });
}

} // namespace cs::widgets
