#include "widgets/graph/graph_tab.h"

#include <QAction>
#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

#include "widgets/breaks/break_map.h"
#include "widgets/breaks/source_file_loader.h"
#include "widgets/common/report_document.h"
#include "widgets/common/run_picker.h"
#include "widgets/graph/compiled_run.h"
#include "widgets/graph/graph_canvas_item.h"
#include "widgets/graph/graph_layout_service.h"
#include "widgets/graph/graph_terms.h"
#include "widgets/graph/graph_view.h"
#include "widgets/graph/node_details_view.h"

namespace cs::widgets {

namespace {

QToolButton* toolButton(QWidget* parent, const QString& text, const QString& tip) {
    auto* button = new QToolButton(parent);
    button->setText(text);
    button->setToolTip(tip);
    button->setAutoRaise(true);
    return button;
}

void insertSorted(Expansion& expansion, int group) {
    const auto it = std::lower_bound(expansion.begin(), expansion.end(), group);
    if (it == expansion.end() || *it != group)
        expansion.insert(it, group);
}

} // namespace

GraphTab::GraphTab(ReportDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), runPicker_(new RunPicker(document, this)),
      breakMap_(new BreakMap(document, this)), view_(new GraphView(this)),
      details_(new NodeDetailsView(this)), search_(new QLineEdit(this)),
      matchLabel_(new QLabel(this)), status_(new QLabel(this)),
      service_(new GraphLayoutService(this)), sources_(new SourceFileLoader(this)) {
    setObjectName("graphTab");
    setToolTip(compiledGraphTerm());
    service_->setMetrics(LabelMetrics(view_->font()));

    search_->setObjectName("graphSearch");
    search_->setPlaceholderText(tr("Find node by name or op (Ctrl+F)"));
    search_->setClearButtonEnabled(true);
    search_->setMinimumWidth(240);
    search_->setMaximumWidth(360);
    auto* previous = toolButton(this, tr("◀"), tr("Previous match (Shift+F3, Shift+Enter)"));
    auto* next = toolButton(this, tr("▶"), tr("Next match (F3, Enter)"));
    auto* fit = toolButton(this, tr("Fit"), tr("Show the whole graph"));
    auto* openAll = toolButton(
        this, tr("Open all"),
        tr("Open every group: all nodes, laid out with the fast layout when there are many"));
    auto* overview =
        toolButton(this, tr("Overview"), tr("Close groups again down to an overview of modules"));
    matchLabel_->setMinimumWidth(80);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    bar->addWidget(new QLabel(tr("Setting:"), this));
    bar->addWidget(runPicker_);
    bar->addSpacing(12);
    bar->addWidget(search_);
    bar->addWidget(previous);
    bar->addWidget(next);
    bar->addWidget(matchLabel_);
    bar->addStretch(1);
    bar->addWidget(fit);
    bar->addWidget(openAll);
    bar->addWidget(overview);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName("graphSplitter");
    splitter->addWidget(view_);
    splitter->addWidget(details_);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({900, 260});

    status_->setObjectName("graphStatus");
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(breakMap_);
    layout->addWidget(splitter, 1);
    layout->addWidget(status_);

    auto* find = new QAction(tr("Find"), this);
    find->setShortcut(QKeySequence::Find);
    find->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QAction::triggered, this, [this] {
        search_->setFocus(Qt::ShortcutFocusReason);
        search_->selectAll();
    });
    auto* findNextAction = new QAction(tr("Find next"), this);
    findNextAction->setShortcut(QKeySequence::FindNext);
    findNextAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(findNextAction, &QAction::triggered, this, &GraphTab::findNext);
    auto* findPreviousAction = new QAction(tr("Find previous"), this);
    findPreviousAction->setShortcut(QKeySequence::FindPrevious);
    findPreviousAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(findPreviousAction, &QAction::triggered, this, &GraphTab::findPrevious);
    addActions({find, findNextAction, findPreviousAction});

    connect(search_, &QLineEdit::textChanged, this, &GraphTab::runSearch);
    connect(search_, &QLineEdit::returnPressed, this, [this] {
        if (QApplication::keyboardModifiers() & Qt::ShiftModifier)
            findPrevious();
        else
            findNext();
    });
    connect(previous, &QToolButton::clicked, this, &GraphTab::findPrevious);
    connect(next, &QToolButton::clicked, this, &GraphTab::findNext);
    connect(fit, &QToolButton::clicked, view_, &GraphView::fitAll);
    connect(openAll, &QToolButton::clicked, this, &GraphTab::expandAll);
    connect(overview, &QToolButton::clicked, this, &GraphTab::collapseToOverview);

    connect(service_, &GraphLayoutService::pictureReady, this, &GraphTab::onPicture);
    connect(sources_, &SourceFileLoader::loaded, this, &GraphTab::updateDetails);
    connect(view_, &GraphView::itemHovered, this, [this](int item) {
        hoveredItem_ = item;
        updateDetails();
    });
    connect(view_, &GraphView::itemClicked, this, [this](int item) {
        if (!picture_ || item < 0)
            return;
        const auto& it = picture_->items[static_cast<size_t>(item)];
        if (it.group)
            return; // a group has no source line; its details show on hover
        selectingFromView_ = true;
        document_->selectNode(shownRun_, shownGraph_,
                              QString::fromStdString(hierarchy_->node(it.index).name));
        selectingFromView_ = false;
    });
    connect(view_, &GraphView::itemDoubleClicked, this, [this](int item) {
        if (picture_ && item >= 0 && picture_->items[static_cast<size_t>(item)].group)
            expandGroup(picture_->items[static_cast<size_t>(item)].index);
    });
    connect(view_, &GraphView::clusterDoubleClicked, this, [this](int cluster) {
        if (picture_ && cluster >= 0)
            collapseGroup(picture_->clusters[static_cast<size_t>(cluster)].group);
    });
    connect(view_, &GraphView::contextMenuRequested, this, &GraphTab::showContextMenu);

    connect(document_, &ReportDocument::selectionChanged, this, &GraphTab::onSelection);
    connect(document_, &ReportDocument::reportReset, this, &GraphTab::onReset);
    connect(document_, &ReportDocument::runChanged, this, &GraphTab::onRunChanged);
    onReset();
}

QString GraphTab::statusText() const {
    return status_->text();
}

void GraphTab::onReset() {
    hierarchies_.clear();
    expansions_.clear();
    service_->clearCache();
    sources_->setReader(document_->sourceReader());
    shownRun_ = -2; // force showGraph to run
    shownGraph_ = -2;
    onSelection(document_->selection());
}

void GraphTab::onRunChanged(int run) {
    // Live: the first graph of the shown run arrived.
    if (run == compiledRunIndex(*document_) && (shownRun_ != run || shownGraph_ < 0)) {
        const auto* r = document_->run(run);
        if (r && !r->graphs.empty())
            onSelection(document_->selection());
    }
}

void GraphTab::onSelection(const Selection& sel) {
    const int run = compiledRunIndex(*document_);
    const core::Run* r = document_->run(run);
    int graph = run == shownRun_ ? shownGraph_ : -1;
    if (r) {
        const int graphs = static_cast<int>(r->graphs.size());
        const int breaks = static_cast<int>(r->graphBreaks.size());
        if (sel.run == run && sel.graph >= 0 && sel.graph < graphs) {
            graph = sel.graph;
        } else if (sel.run == run && sel.graphBreak >= 0 && sel.graphBreak < breaks && graph < 0) {
            const auto& br = r->graphBreaks[static_cast<size_t>(sel.graphBreak)];
            graph = br.graphBefore >= 0 && br.graphBefore < graphs ? br.graphBefore : br.graphAfter;
        } else if (sel.run == run && sel.graph < 0 && sel.graphBreak < 0 && sel.line > 0) {
            // A source line: show a graph that has nodes from it, preferring the one on screen.
            const std::string file = sel.file.toStdString();
            auto hasLine = [&](int g) {
                if (g < 0 || g >= graphs)
                    return false;
                const auto& nodes = r->graphs[static_cast<size_t>(g)].nodes;
                return std::any_of(nodes.begin(), nodes.end(), [&](const core::GraphNode& n) {
                    return n.line == sel.line && n.file == file;
                });
            };
            if (!hasLine(graph)) {
                for (int g = 0; g < graphs; ++g) {
                    if (hasLine(g)) {
                        graph = g;
                        break;
                    }
                }
            }
        }
        if ((graph < 0 || graph >= graphs) && graphs > 0)
            graph = 0;
        if (graph >= graphs)
            graph = -1;
    }
    showGraph(run, graph);
    breakMap_->setCurrentGraph(shownGraph_);

    selectedNode_ = -1;
    if (hierarchy_ && sel.run == shownRun_ && sel.graph == shownGraph_ && !sel.node.isEmpty())
        selectedNode_ = hierarchy_->findNode(sel.node.toStdString());
    updateMarks();
    if (!selectingFromView_ && picture_) {
        if (selectedNode_ >= 0) {
            focusNode(selectedNode_);
        } else if (const int node = firstKernelNode(); node >= 0) {
            focusNode(node);
        } else if (sel.run == shownRun_ && sel.line > 0) {
            // Centre on the first box that holds a node from the selected line.
            const auto& marks = picture_->items;
            for (size_t i = 0; i < marks.size(); ++i) {
                if (view_->canvas()->marks(static_cast<int>(i)) & GraphCanvasItem::LineMatch) {
                    view_->centreOnItem(static_cast<int>(i));
                    break;
                }
            }
        }
    }
    updateDetails();
}

void GraphTab::showGraph(int run, int graph) {
    if (run == shownRun_ && graph == shownGraph_)
        return;
    shownRun_ = run;
    shownGraph_ = graph;
    snapshot_.reset();
    hierarchy_.reset();
    picture_.reset();
    view_->setPicture(nullptr);
    searchState_.clear();
    matchLabel_->clear();
    firstPicture_ = true;
    focusNode_ = -1;
    focusGroup_ = -1;
    hoveredItem_ = -1;
    status_->clear();
    const core::Run* r = document_->run(run);
    if (!r) {
        view_->setMessage(
            document_->isEmpty()
                ? tr("Run a model with a compile setting, or open a report, to see its graphs.")
                : tr("Only the eager baseline ran: it compiles nothing, so there is no graph."));
        return;
    }
    if (graph < 0) {
        QString message =
            tr("%1 captured no graph.").arg(QString::fromStdString(r->setting.label()));
        if (!r->finished())
            message = tr("%1: waiting for the first compiled graph…")
                          .arg(QString::fromStdString(r->setting.label()));
        else if (r->error)
            message += QStringLiteral("\n") + QString::fromStdString(r->error->message);
        view_->setMessage(message);
        return;
    }
    const core::Graph& g = r->graphs[static_cast<size_t>(graph)];
    const auto key = std::make_pair(run, graph);
    if (auto it = hierarchies_.find(key);
        it != hierarchies_.end() && it->second->nodeCount() == static_cast<int>(g.nodes.size())) {
        hierarchy_ = it->second;
        snapshot_ = std::shared_ptr<const core::Graph>(hierarchy_, &hierarchy_->graph());
    } else {
        // A copy: the live report may grow (and move its graphs) while the layout thread reads.
        snapshot_ = std::make_shared<const core::Graph>(g);
    }
    view_->setMessage(
        tr("Laying out %1…")
            .arg(counted(static_cast<qsizetype>(g.nodes.size()), tr("node"), tr("nodes"))));
    const auto saved = expansions_.find(key);
    requestLayout(saved != expansions_.end() ? std::optional<Expansion>(saved->second)
                                             : std::nullopt);
    if (!search_->text().isEmpty() && hierarchy_)
        runSearch();
}

void GraphTab::requestLayout(std::optional<Expansion> expansion) {
    if (!snapshot_)
        return;
    service_->request({snapshot_, hierarchy_, std::move(expansion)});
}

void GraphTab::onPicture(std::shared_ptr<const GraphPicture> picture) {
    if (!snapshot_ || &picture->hierarchy->graph() != snapshot_.get())
        return; // for a graph no longer shown
    const auto key = std::make_pair(shownRun_, shownGraph_);
    if (!hierarchy_) {
        hierarchy_ = picture->hierarchy;
        hierarchies_[key] = hierarchy_;
        if (!search_->text().isEmpty())
            searchState_.setQuery(hierarchy_, search_->text());
    }
    picture_ = picture;
    expansions_[key] = picture->expansion;
    view_->setPicture(picture_);

    const Selection& sel = document_->selection();
    selectedNode_ = -1;
    if (sel.run == shownRun_ && sel.graph == shownGraph_ && !sel.node.isEmpty())
        selectedNode_ = hierarchy_->findNode(sel.node.toStdString());
    updateMarks();

    if (focusNode_ >= 0) {
        view_->centreOnItem(nodeItem(focusNode_));
        focusNode_ = -1;
    } else if (focusGroup_ >= 0) {
        const auto& items = picture_->items;
        const auto item = std::find_if(items.begin(), items.end(), [this](const auto& it) {
            return it.group && it.index == focusGroup_;
        });
        const auto& clusters = picture_->clusters;
        const auto cluster = std::find_if(clusters.begin(), clusters.end(),
                                          [this](const auto& c) { return c.group == focusGroup_; });
        if (item != items.end())
            view_->centreOnItem(static_cast<int>(item - items.begin()));
        else if (cluster != clusters.end())
            view_->centreOnRect(cluster->rect);
        focusGroup_ = -1;
    } else if (firstPicture_) {
        view_->showStart();
        if (selectedNode_ >= 0)
            focusNode(selectedNode_);
        else if (const int node = firstKernelNode(); node >= 0)
            focusNode(node);
    }
    firstPicture_ = false;

    int collapsed = 0;
    int shownNodes = 0;
    for (const auto& item : picture_->items) {
        collapsed += item.group;
        shownNodes += !item.group;
    }
    QString text = tr("%1 layout: %2 boxes, %3 of %4 nodes shown")
                       .arg(picture_->engine)
                       .arg(picture_->items.size())
                       .arg(shownNodes)
                       .arg(hierarchy_->nodeCount());
    if (collapsed)
        text += tr(", %1 (double-click to open)")
                    .arg(counted(collapsed, tr("closed group"), tr("closed groups")));
    text += tr(" · layout %1 ms").arg(picture_->totalMs, 0, 'f', 0);
    if (!picture_->note.isEmpty())
        text += QStringLiteral(" · ") + picture_->note;
    status_->setText(text);
    updateDetails();
    emit pictureShown();
}

std::vector<int> GraphTab::kernelNodes() const {
    std::vector<int> nodes;
    const Selection& sel = document_->selection();
    if (!hierarchy_ || sel.run != shownRun_ || sel.graph != shownGraph_)
        return nodes;
    for (const QString& name : sel.kernelNodes) {
        if (const int node = hierarchy_->findNode(name.toStdString()); node >= 0)
            nodes.push_back(node);
    }
    return nodes;
}

int GraphTab::firstKernelNode() const {
    const auto nodes = kernelNodes();
    return nodes.empty() ? -1 : nodes.front();
}

int GraphTab::nodeItem(int node) const {
    if (!picture_ || node < 0 || node >= static_cast<int>(picture_->itemOfNode.size()))
        return -1;
    return picture_->itemOfNode[static_cast<size_t>(node)];
}

void GraphTab::focusNode(int node) {
    if (!picture_ || !hierarchy_ || node < 0)
        return;
    const int item = nodeItem(node);
    if (item >= 0 && !picture_->items[static_cast<size_t>(item)].group) {
        view_->centreOnItem(item);
        return;
    }
    Expansion expansion = picture_->expansion;
    for (int g : hierarchy_->ancestors(node))
        insertSorted(expansion, g);
    focusNode_ = node;
    requestLayout(expansion);
}

void GraphTab::expandGroup(int group) {
    if (!picture_ || !hierarchy_ || group <= 0 || group >= hierarchy_->groupCount())
        return;
    Expansion expansion = picture_->expansion;
    for (int g : hierarchy_->groupAncestors(group))
        insertSorted(expansion, g);
    focusGroup_ = group;
    requestLayout(expansion);
}

void GraphTab::collapseGroup(int group) {
    if (!picture_ || !hierarchy_ || group <= 0)
        return;
    Expansion expansion;
    for (int g : picture_->expansion) {
        const auto chain = hierarchy_->groupAncestors(g);
        if (std::find(chain.begin(), chain.end(), group) == chain.end())
            expansion.push_back(g);
    }
    focusGroup_ = group;
    requestLayout(expansion);
}

void GraphTab::expandAll() {
    if (!hierarchy_)
        return;
    firstPicture_ = true;
    view_->setMessage(
        tr("Laying out all %1…").arg(counted(hierarchy_->nodeCount(), tr("node"), tr("nodes"))));
    requestLayout(hierarchy_->fullExpansion());
}

void GraphTab::collapseToOverview() {
    if (!hierarchy_)
        return;
    firstPicture_ = true;
    requestLayout(std::nullopt);
}

void GraphTab::runSearch() {
    const int count = searchState_.setQuery(hierarchy_, search_->text());
    if (search_->text().trimmed().isEmpty())
        matchLabel_->clear();
    else
        matchLabel_->setText(count ? tr("1 of %1").arg(count) : tr("no match"));
    updateMarks();
    if (count && picture_) {
        const int item = nodeItem(searchState_.currentNode());
        view_->centreOnItem(item); // the node, or the closed group that holds it
    }
    updateDetails();
}

void GraphTab::goToMatch(int node) {
    if (node < 0)
        return;
    matchLabel_->setText(tr("%1 of %2").arg(searchState_.position() + 1).arg(searchState_.count()));
    updateMarks();
    focusNode(node);
    updateDetails();
}

void GraphTab::findNext() {
    if (searchState_.query() != search_->text())
        runSearch();
    goToMatch(searchState_.next());
}

void GraphTab::findPrevious() {
    if (searchState_.query() != search_->text())
        runSearch();
    goToMatch(searchState_.previous());
}

void GraphTab::updateMarks() {
    if (!picture_ || !hierarchy_)
        return;
    std::vector<uint8_t> marks(picture_->items.size(), 0);
    auto mark = [&](int node, uint8_t bit) {
        const int item = nodeItem(node);
        if (item >= 0)
            marks[static_cast<size_t>(item)] |= bit;
    };
    for (int node : searchState_.matches())
        mark(node, GraphCanvasItem::Match);
    mark(searchState_.currentNode(), GraphCanvasItem::CurrentMatch);
    mark(selectedNode_, GraphCanvasItem::Selected);
    const Selection& sel = document_->selection();
    for (int node : kernelNodes())
        mark(node, GraphCanvasItem::KernelMatch);
    if (sel.run == shownRun_ && sel.line > 0 && !sel.file.isEmpty()) {
        const std::string file = sel.file.toStdString();
        for (int node = 0; node < hierarchy_->nodeCount(); ++node) {
            const auto& n = hierarchy_->node(node);
            if (n.line == sel.line && n.file == file)
                mark(node, GraphCanvasItem::LineMatch);
        }
    }
    view_->canvas()->setMarks(std::move(marks));
}

void GraphTab::updateDetails() {
    if (!picture_) {
        details_->showItem(nullptr, -1, nullptr);
        return;
    }
    int item = hoveredItem_;
    if (item < 0)
        item = nodeItem(selectedNode_);
    if (item < 0)
        item = nodeItem(searchState_.currentNode());
    const SourceText* source = nullptr;
    if (item >= 0 && !picture_->items[static_cast<size_t>(item)].group) {
        const auto& node = hierarchy_->node(picture_->items[static_cast<size_t>(item)].index);
        if (!node.file.empty())
            source = sources_->get(QString::fromStdString(node.file));
    }
    details_->showItem(picture_.get(), item, source);
}

void GraphTab::showContextMenu(int item, int cluster, const QPoint& globalPos) {
    if (!picture_)
        return;
    QMenu menu(this);
    if (item >= 0 && picture_->items[static_cast<size_t>(item)].group) {
        const int group = picture_->items[static_cast<size_t>(item)].index;
        menu.addAction(tr("Open group"), this, [this, group] { expandGroup(group); });
    }
    // The innermost open group around the item (or the frame whose title was clicked).
    int around = cluster;
    if (around < 0 && item >= 0) {
        for (size_t c = 0; c < picture_->clusters.size(); ++c) {
            const auto& cl = picture_->clusters[c];
            if (cl.firstItem <= item && item < cl.endItem)
                around = static_cast<int>(c);
        }
    }
    if (around >= 0) {
        const auto& cl = picture_->clusters[static_cast<size_t>(around)];
        const int group = cl.group;
        menu.addAction(tr("Close group %1").arg(cl.label), this,
                       [this, group] { collapseGroup(group); });
    }
    menu.addSeparator();
    menu.addAction(tr("Open all groups"), this, &GraphTab::expandAll);
    menu.addAction(tr("Overview"), this, &GraphTab::collapseToOverview);
    menu.addAction(tr("Fit"), view_, &GraphView::fitAll);
    menu.exec(globalPos);
}

} // namespace cs::widgets
