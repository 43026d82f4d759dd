// Code: what Inductor generated for each compiled graph of a run, and where the
// time goes (docs/kernel-cost.md). A kernel list (time per call, share, nodes)
// beside the generated code (highlighted, searchable); selecting a kernel shows
// its source and its FX nodes in the Graph tab, selecting a node or a source
// line selects the kernels made from it. "Hot lines" annotates the user's file
// with each line's compiled share and eager time, beside breaks and recompiles;
// "Compare" sets two runs side by side (kernels replaced, re-fused; lines faster).
#pragma once

#include <QWidget>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/kernel_cost.h"
#include "widgets/common/refresh_throttle.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace cs::widgets {

class AnnotatedCodeView;
class PythonHighlighter;
class CellTableModel;
class ModuleCostTree;
class ReportDocument;
class RunPicker;
class SourceFileLoader;
struct Selection;

class CodeTab : public QWidget {
    Q_OBJECT
  public:
    explicit CodeTab(ReportDocument* document, QWidget* parent = nullptr);

    // What is on screen, for tests and the status of other views.
    int shownRun() const { return run_; }
    int shownCode() const { return code_; } // index into Run::code; -1 none
    QString emptyReason() const;            // the whole tab's message; empty when content shows
    QString codeMessage() const;            // the code pane's message (e.g. --no-code)
    QStringList selectedKernels() const;    // highlighted in the kernel list
    void showCode(int code);
    void selectKernel(const QString& name);
    void showHotFile(const QString& file);
    QString hotFile() const { return hotFile_; }

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    // A kernel as listed: the code's entry joined with its cost (copied, so no
    // pointer into a live report is kept).
    struct KernelItem {
        std::string compileId;
        std::string part; // empty: profiled but in no code entry, or the wrapper row
        std::string name;
        std::string kind;
        std::optional<double> nsPerCall;
        double share = 0;
        int64_t launchesPerCall = 0;
        int firstLine = 0;
        int lastLine = 0;
        std::vector<std::string> nodes;
        std::vector<core::SourceFrame> lines;
        std::vector<std::string> modules; // of the nodes it charges
        bool inCode = false;
        // The code's entry, to join the cost rows by: a kernel the wrapper
        // calls twice has two entries of one name. Rebuilt with the rows.
        const core::CodeKernel* source = nullptr;
    };

    void onReset();
    void refresh();
    void onSelection(const Selection& selection);
    void rebuildRun();
    void fillCodePicker();
    void fillKernels();
    void fillHotLines();
    void fillModules();
    void fillCompare();
    void updateNote();
    void onKernelRow(int sourceRow);
    // The kernel's lines in the generated code (an extern kernel: its call); {0, 0} none.
    std::pair<int, int> codeRange(const KernelItem& item) const;
    void applyKernelHighlight(const KernelItem& item);
    void selectKernelRows(const std::set<std::string>& names);
    // Selects, among the shown kernels, those with a node in module `path` or below it.
    void selectModuleKernels(const QString& path);
    void selectKernelRowsWhere(const std::function<bool(const KernelItem&)>& wanted);
    void showHot();
    void runFind();
    void openFind();
    void closeFind();
    AnnotatedCodeView* findTarget() const;
    int graphOf(const std::string& compileId) const;
    const KernelItem* itemNamed(const std::string& compileId, const std::string& name) const;
    QString whyEmpty(const core::Run* run) const;

    ReportDocument* document_;
    RunPicker* runPicker_;
    QComboBox* codePicker_;
    QLabel* note_;
    QSplitter* splitter_ = nullptr;
    bool sized_ = false;
    QStackedWidget* stack_;
    QLabel* empty_;
    CellTableModel* kernelModel_;
    QSortFilterProxyModel* kernelProxy_;
    QTableView* kernelTable_;
    QTabWidget* views_;
    QWidget* findBar_;
    QLineEdit* find_;
    QLabel* findCount_;
    QStackedWidget* codeStack_;
    AnnotatedCodeView* codeView_;
    PythonHighlighter* highlighter_ = nullptr;
    QLabel* codeMessage_;
    QComboBox* hotFilePicker_;
    QStackedWidget* hotStack_;
    AnnotatedCodeView* hotView_;
    QLabel* hotMessage_;
    QStackedWidget* moduleStack_;
    ModuleCostTree* moduleTree_;
    QLabel* moduleMessage_;
    CellTableModel* lineModel_;
    QSortFilterProxyModel* lineProxy_;
    QTableView* lineTable_;
    QComboBox* compareWith_;
    QLabel* compareMessage_;
    CellTableModel* kernelChangeModel_;
    QTableView* kernelChangeTable_;
    CellTableModel* lineChangeModel_;
    QTableView* lineChangeTable_;
    CellTableModel* moduleChangeModel_;
    QTableView* moduleChangeTable_;
    QWidget* moduleChangeBox_ = nullptr;
    SourceFileLoader* sources_;
    RefreshThrottle throttle_{250};

    int run_ = -1;
    int code_ = -1;
    std::vector<KernelItem> items_;
    std::vector<int> shownItems_; // kernel table row -> items_ index
    std::vector<core::LineCostRow> lines_;
    core::CostBreakdown totals_; // only its figures (its rows are cleared)
    QString shownCode_;          // which wrapper text is in the code view
    QString hotFile_;
    std::set<int> hotLines_; // highlighted in the hot-lines view
    int sortedFor_ = -10;    // the run (and whether profiled) the kernel list was last sorted for
    bool syncing_ = false;
};

} // namespace cs::widgets
