#include "widgets/compare/report_diff_view.h"

#include <QApplication>
#include <QClipboard>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "widgets/common/table_setup.h"
#include "widgets/compare/report_diff_model.h"

namespace cs::widgets {

ReportDiffView::ReportDiffView(QWidget* parent)
    : QWidget(parent), model_(new ReportDiffModel(this)), sources_(new QLabel(this)),
      summary_(new QLabel(this)), threshold_(new QDoubleSpinBox(this)),
      table_(new QTableView(this)), breaks_(new QTreeWidget(this)) {
    setObjectName("reportDiffView");
    model_->setObjectName("diffModel");
    table_->setObjectName("diffTable");
    breaks_->setObjectName("diffBreaks");
    sources_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    sources_->setWordWrap(true);
    summary_->setObjectName("diffSummary");
    threshold_->setRange(0, 1000);
    threshold_->setDecimals(1);
    threshold_->setSuffix(QStringLiteral(" %"));
    threshold_->setValue(10);
    threshold_->setToolTip(
        tr("B worse than A by more than this counts as a regression. A median counts only "
           "when the two medians' 95% intervals do not overlap; more breaks or recompiles "
           "always count."));
    auto* copy = new QPushButton(tr("Copy as Text"), this);
    copy->setToolTip(tr("The diff as compilescope-cli diff prints it"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Regression threshold:"), this));
    bar->addWidget(threshold_);
    bar->addSpacing(16);
    bar->addWidget(summary_, 1);
    bar->addWidget(copy);

    setupTableView(table_, model_);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    breaks_->setHeaderLabels({tr("setting / break"), tr("reason"), tr("source line")});
    breaks_->setRootIsDecorated(true);
    breaks_->setAlternatingRowColors(true);

    auto* breaksBox = new QWidget(this);
    auto* breaksLayout = new QVBoxLayout(breaksBox);
    breaksLayout->setContentsMargins(0, 0, 0, 0);
    breaksLayout->addWidget(
        new QLabel(tr("Graph breaks found in one report and not the other"), breaksBox));
    breaksLayout->addWidget(breaks_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName("diffSplitter");
    splitter->addWidget(table_);
    splitter->addWidget(breaksBox);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(sources_);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);

    connect(threshold_, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        model_->setThreshold(value);
        updateSummary();
    });
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(diffText()); });
}

void ReportDiffView::setDiff(core::ReportDiff diff, const QString& nameA, const QString& nameB) {
    nameA_ = nameA;
    nameB_ = nameB;
    const double threshold = diff.thresholdPercent;
    model_->setDiff(std::move(diff));
    threshold_->blockSignals(true);
    threshold_->setValue(threshold);
    threshold_->blockSignals(false);
    QString text =
        tr("<b>A</b> %1<br><b>B</b> %2").arg(nameA.toHtmlEscaped(), nameB.toHtmlEscaped());
    const auto& env = model_->diff().environment;
    if (!env.empty()) {
        QStringList changes;
        for (const auto& c : env)
            changes << QStringLiteral("%1: %2 → %3")
                           .arg(QString::fromStdString(c.field).toHtmlEscaped(),
                                QString::fromStdString(c.a.empty() ? "—" : c.a).toHtmlEscaped(),
                                QString::fromStdString(c.b.empty() ? "—" : c.b).toHtmlEscaped());
        text += tr("<br>What differs: %1").arg(changes.join(QStringLiteral("; ")));
    }
    sources_->setText(text);
    setWindowTitle(tr("Diff — %1 vs %2").arg(nameA.section('/', -1), nameB.section('/', -1)));
    updateSummary();
    fillBreaks();
}

void ReportDiffView::setThreshold(double percent) {
    threshold_->setValue(percent);
}

QString ReportDiffView::summaryText() const {
    return summary_->text();
}

QString ReportDiffView::diffText() const {
    return QString::fromStdString(
        core::formatDiffText(model_->diff(), nameA_.toStdString(), nameB_.toStdString()));
}

void ReportDiffView::updateSummary() {
    const int count = model_->diff().regressionCount();
    if (count == 0) {
        summary_->setText(
            tr("No regression beyond %1%").arg(model_->diff().thresholdPercent, 0, 'f', 1));
        summary_->setStyleSheet(QStringLiteral("color: #1b7f3b;"));
    } else {
        const QString what = count == 1 ? tr("1 regression") : tr("%1 regressions").arg(count);
        summary_->setText(tr("%1 beyond %2% — hover a setting for what")
                              .arg(what)
                              .arg(model_->diff().thresholdPercent, 0, 'f', 1));
        summary_->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold;"));
    }
}

void ReportDiffView::fillBreaks() {
    breaks_->clear();
    for (const auto& s : model_->diff().settings) {
        if (s.breaksOnlyInA.empty() && s.breaksOnlyInB.empty())
            continue;
        auto* top = new QTreeWidgetItem(breaks_, {QString::fromStdString(s.label)});
        auto add = [top](const core::BreakEntry& e, const QString& which, const QColor& colour) {
            const QString reason = QString::fromStdString(e.reason).section('\n', 0, 0);
            auto* item = new QTreeWidgetItem(
                top, {which + QStringLiteral(" ") +
                          QString::fromStdString(e.location + " in " + e.function),
                      reason, QString::fromStdString(e.code)});
            item->setForeground(0, colour);
            item->setToolTip(1, QString::fromStdString(e.reason));
        };
        for (const auto& e : s.breaksOnlyInB)
            add(e, tr("new in B:"), QColor("#c0392b"));
        for (const auto& e : s.breaksOnlyInA)
            add(e, tr("gone in B:"), QColor("#1b7f3b"));
        top->setExpanded(true);
    }
    if (breaks_->topLevelItemCount() == 0)
        new QTreeWidgetItem(breaks_, {tr("The same graph breaks in both reports")});
    breaks_->resizeColumnToContents(0);
}

} // namespace cs::widgets
