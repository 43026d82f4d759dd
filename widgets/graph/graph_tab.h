// Graph: the compiled regions of the selected run as a break map, and the
// selected region's FX graph laid out top-down (off the GUI thread), with
// search (Ctrl+F), zoom, pan, fit, expand/collapse of groups, and the details
// of the node under the mouse. Follows and sets the document's selection.
#pragma once

#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "widgets/graph/graph_picture.h"
#include "widgets/graph/graph_search.h"

class QLabel;
class QLineEdit;
class QToolButton;

namespace cs::widgets {

class BreakMap;
class GraphLayoutService;
class GraphView;
class NodeDetailsView;
class ReportDocument;
class RunPicker;
class SourceFileLoader;
struct Selection;

class GraphTab : public QWidget {
    Q_OBJECT
  public:
    explicit GraphTab(ReportDocument* document, QWidget* parent = nullptr);

    GraphView* view() const { return view_; }
    GraphLayoutService* layoutService() const { return service_; }
    const GraphPicture* picture() const { return picture_.get(); }
    const GraphSearch& search() const { return searchState_; }
    int shownRun() const { return shownRun_; }
    int shownGraph() const { return shownGraph_; }
    QString statusText() const;
    // The shown graph's nodes in the kernel selected in the Code tab (hierarchy indices).
    std::vector<int> kernelNodes() const;

    void findNext();
    void findPrevious();
    void expandGroup(int group);
    void collapseGroup(int group);
    void expandAll();
    void collapseToOverview();

  signals:
    // A picture is on screen (after a layout or from the cache).
    void pictureShown();

  private:
    void onSelection(const Selection& selection);
    void onReset();
    void onRunChanged(int run);
    void showGraph(int run, int graph);
    void requestLayout(std::optional<Expansion> expansion);
    void onPicture(std::shared_ptr<const GraphPicture> picture);
    void runSearch();
    void goToMatch(int node);
    void updateMarks();
    void updateDetails();
    void focusNode(int node);
    void showContextMenu(int item, int cluster, const QPoint& globalPos);
    int nodeItem(int node) const;
    int firstKernelNode() const;

    ReportDocument* document_;
    RunPicker* runPicker_;
    BreakMap* breakMap_;
    GraphView* view_;
    NodeDetailsView* details_;
    QLineEdit* search_;
    QLabel* matchLabel_;
    QLabel* status_;
    GraphLayoutService* service_;
    SourceFileLoader* sources_;

    int shownRun_ = -1;
    int shownGraph_ = -1;
    std::shared_ptr<const core::Graph> snapshot_;
    std::shared_ptr<const GraphHierarchy> hierarchy_;
    std::shared_ptr<const GraphPicture> picture_;
    std::map<std::pair<int, int>, std::shared_ptr<const GraphHierarchy>> hierarchies_;
    std::map<std::pair<int, int>, Expansion> expansions_;
    GraphSearch searchState_;
    bool firstPicture_ = true;
    int focusNode_ = -1;  // centre on this node when the next picture arrives
    int focusGroup_ = -1; // or on this group's box or frame
    int selectedNode_ = -1;
    int hoveredItem_ = -1;
    bool selectingFromView_ = false;
};

} // namespace cs::widgets
