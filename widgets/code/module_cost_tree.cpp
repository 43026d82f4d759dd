#include "widgets/code/module_cost_tree.h"

#include <QHeaderView>

#include <algorithm>
#include <map>
#include <set>

#include "widgets/charts/chart_setup.h"
#include "widgets/code/cell_table_model.h"

namespace cs::widgets {

namespace {

constexpr int kPathRole = Qt::UserRole + 1;
constexpr int kSortRole = Qt::UserRole + 2;
constexpr int kOpenDepth = 2;         // levels open when a run is first shown
constexpr char kNoModuleKey[] = "\n"; // no module path holds a newline

// Numbers sort by value, not by their text.
class ModuleItem : public QTreeWidgetItem {
  public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override {
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        const QVariant a = data(column, kSortRole);
        const QVariant b = other.data(column, kSortRole);
        if (a.isValid() && b.isValid())
            return a.toDouble() < b.toDouble();
        return QTreeWidgetItem::operator<(other);
    }
};

QString shownName(const core::ModuleCostRow& row) {
    if (!row.attributed)
        return QObject::tr("(no module)");
    if (row.path.empty())
        return QObject::tr("(the model)");
    const auto dot = row.path.rfind('.');
    return QString::fromStdString(dot == std::string::npos ? row.path : row.path.substr(dot + 1));
}

void setNumber(QTreeWidgetItem* item, int column, const QString& text, double value) {
    item->setText(column, text);
    item->setData(column, kSortRole, value);
    item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
}

} // namespace

ModuleCostTree::ModuleCostTree(QWidget* parent) : QTreeWidget(parent) {
    setObjectName("moduleCostTree");
    setColumnCount(ColumnCount);
    setHeaderLabels({tr("module"), tr("compiled/call"), tr("share"), tr("self/call"),
                     tr("eager/call"), tr("kernels")});
    auto* head = headerItem();
    head->setToolTip(Module, tr("The module's attribute name; its full path in the tooltip"));
    head->setToolTip(Compiled, tr("Its nodes' and its submodules' part of the kernels' time per "
                                  "call: each kernel's time split equally over its FX nodes "
                                  "(docs/kernel-cost.md)"));
    head->setToolTip(Share, tr("Share of the compiled (kernel) time per call"));
    head->setToolTip(Self, tr("Its own nodes' part, without its submodules"));
    head->setToolTip(Eager, tr("Time per call its ops and its submodules' ran outside compiled "
                               "graphs (uncompiled), by the innermost module running"));
    head->setToolTip(Kernels, tr("The kernels its nodes went into, costliest first"));
    setAlternatingRowColors(true);
    setUniformRowHeights(true);
    setSortingEnabled(true);
    sortByColumn(Compiled, Qt::DescendingOrder);
    header()->setStretchLastSection(true);
    header()->setSectionResizeMode(QHeaderView::Interactive);
    connect(this, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (!item || refilling_)
            return;
        const QString key = item->data(Module, kPathRole).toString();
        if (key != QLatin1String(kNoModuleKey))
            emit moduleSelected(key);
    });
}

void ModuleCostTree::setModules(const std::vector<core::ModuleCostRow>& modules) {
    // Which modules the user opened or closed, to keep across a live refresh.
    std::set<std::string> before;
    std::map<std::string, bool> expanded;
    for (QTreeWidgetItemIterator it(this); *it; ++it) {
        const std::string path = (*it)->data(Module, kPathRole).toString().toStdString();
        before.insert(path);
        expanded[path] = (*it)->isExpanded();
    }
    std::set<std::string> now;
    for (const auto& row : modules)
        now.insert(row.attributed ? row.path : std::string(kNoModuleKey));
    const bool sameRun = !before.empty() && before == now;

    setUpdatesEnabled(false);
    refilling_ = true;
    clear();
    std::map<std::string, QTreeWidgetItem*> itemOf;
    for (const auto& row : modules) {
        const std::string key = row.attributed ? row.path : std::string(kNoModuleKey);
        QTreeWidgetItem* parent = nullptr;
        if (row.attributed && !row.path.empty()) {
            const auto dot = row.path.rfind('.');
            const auto found =
                itemOf.find(dot == std::string::npos ? std::string() : row.path.substr(0, dot));
            parent = found == itemOf.end() ? nullptr : found->second;
        }
        auto* item = parent ? new ModuleItem(parent) : new ModuleItem(this);
        itemOf[key] = item;
        item->setData(Module, kPathRole, QString::fromStdString(key));
        item->setText(Module, shownName(row));
        QString tip = row.attributed
                          ? QString::fromStdString(row.path.empty() ? "the model" : row.path)
                          : tr("Kernels whose nodes are not in the captured graph");
        setNumber(item, Compiled, durationText(row.compiledNsPerCall), row.compiledNsPerCall);
        setNumber(item, Share, shareText(row.compiledShare), row.compiledShare);
        setNumber(item, Self, row.selfNsPerCall > 0 ? durationText(row.selfNsPerCall) : "—",
                  row.selfNsPerCall);
        setNumber(item, Eager, row.eagerNsPerCall > 0 ? durationText(row.eagerNsPerCall) : "—",
                  row.eagerNsPerCall);
        QStringList kernels;
        for (const auto& kernel : row.kernels)
            kernels << QString::fromStdString(core::shortKernelName(kernel));
        item->setText(Kernels, kernels.join(", "));
        item->setToolTip(Module, tip);
        item->setToolTip(Kernels, kernels.join("\n"));
        const bool open = sameRun ? expanded[key] : row.depth < kOpenDepth;
        item->setExpanded(open);
    }
    // A whole-graph compile runs nothing eagerly: the column would be all dashes.
    setColumnHidden(Eager, std::none_of(modules.begin(), modules.end(),
                                        [](const auto& row) { return row.eagerNsPerCall > 0; }));
    for (int c = 0; c < Kernels; ++c)
        resizeColumnToContents(c);
    refilling_ = false;
    setUpdatesEnabled(true);
}

} // namespace cs::widgets
