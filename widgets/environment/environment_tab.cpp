#include "widgets/environment/environment_tab.h"

#include <QColor>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "core/analysis/environment_facts.h"
#include "core/analysis/units.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/environment/torch_variables_model.h"

namespace cs::widgets {

namespace {

QLabel* heading(const QString& text, QWidget* parent) {
    auto* label = new QLabel("<b>" + text.toHtmlEscaped() + "</b>", parent);
    label->setTextFormat(Qt::RichText);
    return label;
}

// A table as tall as its rows, so the page scrolls as one instead of each
// table in it scrolling apart. Asked when the layout is, after the style set
// the row and header heights.
class WholeTable : public QTableView {
  public:
    using QTableView::QTableView;
    QSize sizeHint() const override {
        const int header =
            horizontalHeader()->isVisible() ? horizontalHeader()->sizeHint().height() : 0;
        return {QTableView::sizeHint().width(),
                header + verticalHeader()->length() + 2 * frameWidth()};
    }
    QSize minimumSizeHint() const override {
        return {QTableView::minimumSizeHint().width(), sizeHint().height()};
    }
};

// Read-only rows of text; sorted as text. A cell's tooltip holds it whole.
void fillRows(QStandardItemModel* model, const std::vector<QStringList>& rows) {
    model->setRowCount(static_cast<int>(rows.size()));
    for (int row = 0; row < static_cast<int>(rows.size()); ++row) {
        const QStringList& cells = rows[static_cast<size_t>(row)];
        for (int column = 0; column < cells.size(); ++column) {
            auto* item = new QStandardItem(cells[column]);
            item->setEditable(false);
            item->setToolTip(cells[column]);
            item->setData(cells[column], SortRole);
            model->setItem(row, column, item);
        }
    }
}

QString orDash(const std::string& text) {
    return text.empty() ? QStringLiteral("—") : QString::fromStdString(text);
}

QLabel* noteLabel(const QString& objectName, QWidget* parent) {
    auto* note = new QLabel(parent);
    note->setObjectName(objectName);
    note->setWordWrap(true);
    note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    note->setVisible(false);
    return note;
}

} // namespace

EnvironmentTab::EnvironmentTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), facts_(new WholeTable(this)),
      factsModel_(new QStandardItemModel(0, 2, this)),
      versions_(noteLabel("environmentVersions", this)), probes_(new WholeTable(this)),
      probesModel_(new QStandardItemModel(0, 7, this)), variables_(new WholeTable(this)),
      variablesModel_(new TorchVariablesModel(this)),
      variablesNote_(noteLabel("torchVariablesNote", this)) {
    setObjectName("environmentTab");
    facts_->setObjectName("environmentFacts");
    probes_->setObjectName("environmentProbes");
    variables_->setObjectName("torchVariables");
    factsModel_->setHorizontalHeaderLabels({tr("Item"), tr("Value")});
    setupTableView(facts_, factsModel_);
    facts_->setSortingEnabled(false); // the order reads top-down: model, software, machine
    facts_->horizontalHeader()->setVisible(false);
    fitColumnsToContent(facts_, 1);
    probesModel_->setHorizontalHeaderLabels({tr("Setting"), tr("Interpreter"), tr("Python"),
                                             tr("Torch"), tr("Device"), tr("Host"), tr("Threads")});
    setupTableView(probes_, probesModel_);
    fitColumnsToContent(probes_, 1, 0.2);
    setupTableView(variables_, variablesModel_);
    // What a variable does is the prose to read; names and settings elide, whole in the tooltip.
    fitColumnsToContent(variables_, TorchVariablesModel::Effect, 0.2);
    elideRightInColumn(variables_, TorchVariablesModel::Effect);
    versions_->setStyleSheet(QStringLiteral("color: #c0392b"));

    for (QTableView* table : {facts_, probes_, variables_}) {
        table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // columns fit, elided
        table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    }

    // The variables first: what the env.* advice points at.
    auto* page = new QWidget(this);
    auto* pageLayout = new QVBoxLayout(page);
    pageLayout->addWidget(heading(tr("Torch variables the probes started with"), page));
    pageLayout->addWidget(variables_);
    pageLayout->addWidget(variablesNote_);
    pageLayout->addSpacing(8);
    pageLayout->addWidget(heading(tr("What ran where"), page));
    pageLayout->addWidget(facts_);
    pageLayout->addWidget(versions_);
    pageLayout->addSpacing(8);
    probesTitle_ = heading(tr("Each probe"), page);
    pageLayout->addWidget(probesTitle_);
    pageLayout->addWidget(probes_);
    pageLayout->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName("environmentScroll");
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(page);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    connect(&throttle_, &RefreshThrottle::due, this, &EnvironmentTab::refresh);
    connect(document_, &ReportDocument::reportReset, this, &EnvironmentTab::refresh);
    // A live run's hello fills in the facts and its variables.
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    refresh();
}

void EnvironmentTab::refresh() {
    const core::Report& report = document_->report();
    // A live report's environment and model are filled in from the runs when
    // it ends; until then, from what the probes said so far. Only that is
    // copied: a live report's measurements can be large.
    core::Report shown;
    shown.environment = report.environment;
    shown.model = report.model;
    shown.created = report.created;
    shown.generator = report.generator;
    if (document_->isLive()) {
        for (const auto& run : report.runs) {
            core::Run said;
            said.sawHello = run.sawHello;
            said.probe = run.probe;
            said.model = run.model;
            shown.runs.push_back(std::move(said));
        }
        shown.deriveFromRuns();
    }
    std::vector<QStringList> facts;
    for (const auto& fact : core::environmentFacts(shown))
        facts.push_back({QString::fromStdString(fact.name), orDash(fact.value)});
    fillRows(factsModel_, facts);

    // A probe unlike the first (another interpreter, torch or host) is marked.
    const auto probes = core::probeFacts(report);
    std::vector<QStringList> probeRows;
    for (const auto& p : probes) {
        QStringList row{QString::fromStdString(p.setting)};
        for (const auto& value : p.compared())
            row << orDash(value);
        probeRows.push_back(row << orDash(p.threads));
    }
    fillRows(probesModel_, probeRows);
    for (int row = 0; row < static_cast<int>(probes.size()); ++row) {
        const auto& unlike = probes[static_cast<size_t>(row)].unlikeFirst;
        for (int k = 0; k < static_cast<int>(unlike.size()); ++k) {
            if (unlike[static_cast<size_t>(k)]) {
                QStandardItem* item = probesModel_->item(row, k + 1); // after the setting
                item->setForeground(QColor("#b86e00"));
                item->setToolTip(item->text() + "\n" + tr("Not what the first probe had"));
            }
        }
    }
    probesTitle_->setVisible(!probeRows.empty());
    probes_->setVisible(!probeRows.empty());

    const auto torches = core::differingTorchVersions(report);
    versions_->setText(
        tr("The runs used different torch versions: %1. Their figures do not compare alike.")
            .arg(QString::fromStdString(core::joinList(torches))));
    versions_->setVisible(!torches.empty());

    variablesModel_->showReport(report);
    const bool said = core::runsWithEnvironment(report) > 0;
    const bool none = variablesModel_->variables().empty();
    variablesNote_->setText(
        !said ? tr("No probe of this report said what it started with (a report imported from a "
                   "TORCH_TRACE log, or written before compilescope recorded it).")
              : tr("None: the probes started with no variable that changes torch, so what they "
                   "measured is what the settings say."));
    variablesNote_->setVisible(none);
    variables_->setVisible(!none);
    for (QTableView* table : {facts_, probes_, variables_})
        table->updateGeometry(); // their rows changed: so does the height they ask for
}

} // namespace cs::widgets
