// The Code tab offscreen on reports built here: a graph with source lines,
// Inductor's code for it (a wrapper with one C++ kernel and an extern call)
// and a profiled window. The kernel list, the highlighted range, search, the
// selection kept in step with the Graph tab (both ways), the hot lines, the
// comparison of two runs and the empty states (--no-code, eager, aoti, old
// reports, no profile). With CS_SCREENSHOT_DIR set it writes PNGs of the tab.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QTreeWidget>

#include "app/main_window.h"
#include "tests/widgets/find_child.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/code/annotated_code_view.h"
#include "widgets/code/code_tab.h"
#include "widgets/code/module_cost_tree.h"
#include "widgets/common/report_document.h"
#include "widgets/graph/graph_canvas_item.h"
#include "widgets/graph/graph_tab.h"
#include "widgets/graph/graph_view.h"

using namespace cs;
using cs::test::child;
using widgets::AnnotatedCodeView;
using widgets::CodeTab;

namespace {

const char* kSource = R"(import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.linear(x)
        y = torch.relu(y) * 2
        return y.sum()
)";

// Lines 10..28 are the C++ kernel; line 39 calls the extern addmm.
const char* kWrapper = R"(# AOT ID: ['0_inference']
from ctypes import c_void_p, c_long, c_int
import torch
from torch._inductor.select_algorithm import extern_kernels

aten = torch.ops.aten
async_compile = AsyncCompile()


cpp_fused_mul_relu_sum_0 = async_compile.cpp_pybinding(['const float*', 'float*'], '''
#include "/tmp/torchinductor/pi/cpi.h"
extern "C"  void kernel(const float* in_ptr0,
                       float* out_ptr0)
{
    {
        float tmp_acc0 = 0;
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
        {
            auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
            auto tmp1 = std::max(tmp0, decltype(tmp0)(0)); // relu
            auto tmp2 = static_cast<float>(2.0);
            auto tmp3 = decltype(tmp1)(tmp1 * tmp2);
            tmp_acc0 = tmp_acc0 + tmp3;
        }
        out_ptr0[static_cast<int64_t>(0L)] = tmp_acc0;
    }
}
''')


async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, arg1_1, arg2_1 = args
    args.clear()
    buf0 = empty_strided_cpu((8, 8), (8, 1), torch.float32)
    # Topologically Sorted Source Nodes: [linear], Original ATen: [aten.addmm]
    extern_kernels.addmm(arg1_1, arg2_1, reinterpret_tensor(arg0_1, (8, 8), (1, 8), 0), alpha=1, beta=1, out=buf0)
    buf1 = empty_strided_cpu((), (), torch.float32)
    cpp_fused_mul_relu_sum_0(buf0, buf1)
    return (buf1, )
)";

const char* kCpp = "cpp_fused_mul_relu_sum_0";
const char* kAddmm = "extern_kernels.addmm";
const char* kAddmmShown = "addmm"; // the table's name: the kind column says extern

core::GraphNode node(const std::string& name, const std::string& op, const std::string& target,
                     const std::string& file, int line, std::vector<std::string> inputs = {}) {
    core::GraphNode n;
    n.name = name;
    n.op = op;
    n.target = target;
    n.file = line > 0 ? file : std::string();
    n.line = line;
    n.inputs = std::move(inputs);
    return n;
}

// One compiled run of the model above. `cppName` lets a second setting re-fuse
// the kernel under another name; `cppNs` and `addmmNs` are summed over 10 calls.
core::Run compiledRun(const std::string& file, const std::string& mode, const std::string& cppName,
                      int64_t cppNs, int64_t addmmNs, bool profiled = true) {
    core::Run run;
    run.setting.mode = mode;
    run.status = core::RunStatus::Ok;
    run.model.file = file;
    core::Graph g;
    g.index = 0;
    g.compileId = "0/0";
    g.function = "forward";
    g.file = file;
    g.line = 9;
    g.nodes = {node("l_x_", "placeholder", "L_x_", file, 0),
               node("linear", "call_function", "torch._C._nn.linear", file, 10, {"l_x_"}),
               node("relu", "call_function", "torch.relu", file, 11, {"linear"}),
               node("mul", "call_function", "operator.mul", file, 11, {"relu"}),
               node("sum_1", "call_method", "sum", file, 12, {"mul"}),
               node("output", "output", "output", file, 0, {"sum_1"})};
    run.graphs.push_back(g);

    core::GeneratedCode code;
    code.compileId = "0/0";
    code.part = "inference";
    code.wrapper = kWrapper;
    code.wrapperBytes = static_cast<int64_t>(code.wrapper.size());
    code.fusionSource = "provenance";
    core::CodeKernel addmm;
    addmm.name = kAddmm;
    addmm.kind = "extern";
    addmm.handle = 1;
    addmm.nodes = {"linear"};
    addmm.lines = {{file, 10, "forward", "y = self.linear(x)"}};
    core::CodeKernel cpp;
    cpp.name = cppName;
    cpp.kind = "cpp";
    cpp.handle = 2;
    cpp.firstLine = 10;
    cpp.lastLine = 28;
    cpp.nodes = {"relu", "mul", "sum_1"};
    cpp.lines = {{file, 11, "forward", "y = torch.relu(y) * 2"},
                 {file, 12, "forward", "return y.sum()"}};
    code.kernels = {addmm, cpp};
    run.code.push_back(code);

    if (profiled) {
        auto& p = run.kernelProfile;
        p.present = true;
        p.source = "torch_profiler";
        p.calls = 10;
        p.windowNs = 2'000'000;
        p.callNs = 1'200'000;
        p.kernels = {{"0/0", cppName, cppNs, 10}, {"0/0", kAddmm, addmmNs, 10}};
        p.wrappers = {{"0/0", "", 100'000, 10}};
    }
    return run;
}

// Eager, default (addmm 30 µs, the C++ kernel 70 µs per call), max-autotune (re-fused, faster).
core::Report report(const std::string& file) {
    core::Report r;
    core::Run eager;
    eager.setting.mode = "eager";
    eager.status = core::RunStatus::Ok;
    r.runs.push_back(eager);
    core::Run def = compiledRun(file, "default", kCpp, 700'000, 300'000);
    core::GraphBreak br;
    br.reason = "Tensor.item";
    br.frames = {{file, 12, "forward", "return y.sum()"}};
    br.userFrame = 0;
    br.graphBefore = 0;
    def.graphBreaks.push_back(br);
    r.runs.push_back(def);
    r.runs.push_back(
        compiledRun(file, "max-autotune", "cpp_fused_mul_relu_sum_1", 400'000, 300'000));
    return r;
}

QString writeSource(const QTemporaryDir& dir) {
    QString path = dir.filePath("model.py");
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(kSource);
    return path;
}

// The kernel table's rows by kernel name: the text of `column`.
QMap<QString, QString> kernelColumn(const CodeTab& tab, int column) {
    auto* table = child<QTableView>(tab, "codeKernelTable");
    QMap<QString, QString> out;
    for (int row = 0; row < table->model()->rowCount(); ++row)
        out[table->model()->index(row, 0).data().toString()] =
            table->model()->index(row, column).data().toString();
    return out;
}

void shoot(app::MainWindow* window, const QString& name) {
    const QString dir = qEnvironmentVariable("CS_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    // A report shown through the document leaves the welcome page in front.
    if (auto* centre = qobject_cast<QStackedWidget*>(window->tabs()->parentWidget()))
        centre->setCurrentWidget(window->tabs());
    QTest::qWait(50);
    QDir().mkpath(dir);
    window->grab().save(dir + "/" + name + ".png");
}

} // namespace

class CodeTabTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void kernelListAndHighlightedRange() {
        QTemporaryDir dir;
        widgets::ReportDocument document;
        CodeTab tab(&document);
        tab.resize(1200, 760);
        tab.show();
        document.showReport(report(writeSource(dir).toStdString()));
        // The eager run is selected first; the tab shows the first compiled run.
        QCOMPARE(tab.shownRun(), 1);
        QCOMPARE(tab.emptyReason(), QString());
        QCOMPARE(tab.shownCode(), 0);
        const auto shares = kernelColumn(tab, 3);
        QVERIFY2(shares.contains(kCpp), qPrintable(QStringList(shares.keys()).join(",")));
        QVERIFY(shares.contains(kAddmmShown));
        QCOMPARE(shares[kCpp], QString("70.0 %"));
        QCOMPARE(shares[kAddmmShown], QString("30.0 %"));
        QCOMPARE(kernelColumn(tab, 4)[kCpp], QString("3"));
        QVERIFY(!kernelColumn(tab, 2)[kCpp].contains("—"));
        // Costliest first.
        QCOMPARE(child<QTableView>(tab, "codeKernelTable")->model()->index(0, 0).data().toString(),
                 QString(kCpp));

        auto* code = child<AnnotatedCodeView>(tab, "generatedCode");
        QVERIFY(code->toPlainText().contains("extern \"C\"  void kernel"));
        // Highlighting: the wrapper's comment, and C++ keywords inside the kernel's string.
        auto formatAt = [code](int line, int column) {
            const auto block = code->document()->findBlockByNumber(line - 1);
            for (const auto& range : block.layout()->formats()) {
                if (range.start <= column && column < range.start + range.length)
                    return range.format;
            }
            return QTextCharFormat();
        };
        QVERIFY(formatAt(1, 2).fontItalic());                 // # AOT ID
        QVERIFY(formatAt(16, 9).fontWeight() == QFont::Bold); // float, in the C++ source
        QVERIFY(formatAt(12, 0).fontWeight() == QFont::Bold); // extern
        QVERIFY(formatAt(20, 60).fontItalic());               // // relu
        QVERIFY(formatAt(34, 1).fontWeight() == QFont::Bold); // def, Python again
        tab.selectKernel(kCpp);
        QCOMPARE(code->highlightFirst(), 10);
        QCOMPARE(code->highlightLast(), 28);
        QCOMPARE(document.selection().kernel, QString(kCpp));
        QCOMPARE(document.selection().graph, 0);
        QCOMPARE(document.selection().kernelNodes, QStringList({"relu", "mul", "sum_1"}));
        // An extern kernel has no source: its call in the wrapper.
        tab.selectKernel(kAddmm);
        QCOMPARE(code->highlightFirst(), 39);
        QCOMPARE(code->highlightLast(), 39);
        QCOMPARE(document.selection().kernelNodes, QStringList({"linear"}));
        QVERIFY(child<QLabel>(tab, "codeNote")->text().contains("10 calls"));
    }

    // Inductor reuses identical code: one kernel name at two call sites (two
    // addmm externs, one C++ kernel for two ReLUs), each with its own time.
    void aKernelNameAtTwoCallSitesKeepsTwoTimes() {
        QTemporaryDir dir;
        const std::string file = writeSource(dir).toStdString();
        core::Report r;
        core::Run run = compiledRun(file, "default", kCpp, 700'000, 300'000);
        core::CodeKernel second = run.code[0].kernels[0]; // extern_kernels.addmm
        second.handle = 3;
        second.nodes = {"sum_1"};
        run.code[0].kernels.push_back(second);
        run.kernelProfile.kernels = {{"0/0", kAddmm, 300'000, 10},
                                     {"0/0", kCpp, 700'000, 10},
                                     {"0/0", kAddmm, 1'000'000, 10}};
        r.runs.push_back(run);
        widgets::ReportDocument document;
        CodeTab tab(&document);
        document.showReport(r);
        auto* table = child<QTableView>(tab, "codeKernelTable");
        QStringList addmmTimes;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            if (table->model()->index(row, 0).data().toString() == kAddmmShown)
                addmmTimes << table->model()->index(row, 3).data().toString();
        }
        addmmTimes.sort();
        QCOMPARE(addmmTimes, (QStringList{"15.0 %", "50.0 %"}));
    }

    // A custom op among the kernels: its kind says so, and the graph's time
    // outside kernels holds the op's Python between its ops.
    void aCustomOpIsNamedAndItsPythonIsOutsideKernels() {
        QTemporaryDir dir;
        core::Report r;
        core::Run run =
            compiledRun(writeSource(dir).toStdString(), "default", kCpp, 700'000, 300'000);
        const std::string op = "torch.ops.mylib.grouped.default";
        run.code[0].kernels[0].name = op;
        run.code[0].kernels[0].kind = "fallback";
        run.kernelProfile.kernels[1].name = op;
        r.runs.push_back(run);
        widgets::ReportDocument document;
        CodeTab tab(&document);
        document.showReport(r);
        auto* table = child<QTableView>(tab, "codeKernelTable");
        QString kind, kindTip, wrapperTip;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const QString name = table->model()->index(row, 0).data().toString();
            if (name == "mylib.grouped") {
                kind = table->model()->index(row, 1).data().toString();
                kindTip = table->model()->index(row, 1).data(Qt::ToolTipRole).toString();
            } else if (name.contains("outside kernels")) {
                wrapperTip = table->model()->index(row, 0).data(Qt::ToolTipRole).toString();
            }
        }
        QCOMPARE(kind, QString("custom op"));
        QVERIFY2(kindTip.contains("A custom op (mylib::grouped)"), qPrintable(kindTip));
        QVERIFY2(wrapperTip.contains("the Python of the custom ops it calls"),
                 qPrintable(wrapperTip));
    }

    void searchNextPreviousAndEscape() {
        QTemporaryDir dir;
        widgets::ReportDocument document;
        CodeTab tab(&document);
        tab.resize(1200, 760);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        document.showReport(report(writeSource(dir).toStdString()));
        auto* find = child<QLineEdit>(tab, "codeFind");
        auto* count = child<QLabel>(tab, "codeFindCount");
        auto* code = child<AnnotatedCodeView>(tab, "generatedCode");
        QVERIFY(!child<QWidget>(tab, "codeFindBar")->isVisible());
        code->setFocus();
        QTest::keyClick(code, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(child<QWidget>(tab, "codeFindBar")->isVisible());
        QVERIFY(find->hasFocus());
        QTest::keyClicks(find, "TMP_ACC0");
        const int expected = static_cast<int>(QString(kWrapper).count("tmp_acc0"));
        QCOMPARE(code->matchCount(), expected);
        QCOMPARE(count->text(), QString("1 of %1").arg(expected));
        QCOMPARE(code->currentMatchLine(), 16);
        QTest::keyClick(find, Qt::Key_Return);
        QCOMPARE(count->text(), QString("2 of %1").arg(expected));
        QTest::keyClick(find, Qt::Key_F3);
        QCOMPARE(count->text(), QString("3 of %1").arg(expected));
        QTest::keyClick(find, Qt::Key_F3, Qt::ShiftModifier);
        QCOMPARE(count->text(), QString("2 of %1").arg(expected));
        QTest::keyClick(find, Qt::Key_Return, Qt::ShiftModifier);
        QTest::keyClick(find, Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(count->text(), QString("%1 of %1").arg(expected)); // wrapped
        QTest::keyClicks(find, "xyz");
        QCOMPARE(count->text(), QString("no match"));
        QTest::keyClick(find, Qt::Key_Escape);
        QVERIFY(!child<QWidget>(tab, "codeFindBar")->isVisible());
        QCOMPARE(code->matchCount(), 0);
    }

    // The issue's selection-sync test: both tabs in the main window.
    void selectionSyncsWithGraphTab() {
        QTemporaryDir dir;
        app::MainWindow window;
        window.setQuiet(true);
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.document()->showReport(report(writeSource(dir).toStdString()));
        auto* code = window.findChild<CodeTab*>("codeTab");
        auto* graph = window.findChild<widgets::GraphTab*>("graphTab");
        QVERIFY(code && graph);
        window.document()->selectRun(1);
        window.tabs()->setCurrentWidget(graph);
        QTRY_VERIFY_WITH_TIMEOUT(graph->picture() != nullptr, 20000);

        // Kernel -> nodes: the Graph tab marks the kernel's nodes.
        code->selectKernel(kCpp);
        QTRY_COMPARE(graph->kernelNodes().size(), size_t(3));
        const auto* picture = graph->picture();
        auto itemOf = [&](const char* name) {
            for (size_t i = 0; i < picture->items.size(); ++i) {
                if (!picture->items[i].group && picture->items[i].title == name)
                    return static_cast<int>(i);
            }
            return -1;
        };
        QTRY_VERIFY(itemOf("relu") >= 0);
        picture = graph->picture();
        using Mark = widgets::GraphCanvasItem;
        QVERIFY(graph->view()->canvas()->marks(itemOf("relu")) & Mark::KernelMatch);
        QVERIFY(graph->view()->canvas()->marks(itemOf("sum_1")) & Mark::KernelMatch);
        QVERIFY(!(graph->view()->canvas()->marks(itemOf("linear")) & Mark::KernelMatch));
        shoot(&window, "code_graph_kernel");

        // Node -> kernel: clicking "linear" in the graph selects the addmm kernel.
        const int linear = itemOf("linear");
        QVERIFY(linear >= 0);
        const QPoint at =
            graph->view()->mapFromScene(picture->items[static_cast<size_t>(linear)].rect.center());
        QTest::mouseClick(graph->view()->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(window.document()->selection().node, QString("linear"));
        QCOMPARE(code->selectedKernels(), QStringList({kAddmm}));
        QCOMPARE(child<AnnotatedCodeView>(*code, "generatedCode")->highlightFirst(), 39);
        // The kernel's marks in the graph are gone with the new selection.
        QVERIFY(graph->kernelNodes().empty());
        // A node fused with others: its one kernel.
        window.document()->selectNode(1, 0, "mul");
        QCOMPARE(code->selectedKernels(), QStringList({kCpp}));

        window.tabs()->setCurrentWidget(code);
        code->selectKernel(kCpp);
        shoot(&window, "code_tab");
    }

    void hotLinesShowSharesAndSelectKernels() {
        QTemporaryDir dir;
        const QString file = writeSource(dir);
        app::MainWindow window;
        window.setQuiet(true);
        window.resize(1280, 800);
        window.show();
        window.document()->showReport(report(file.toStdString()));
        window.document()->selectRun(1);
        auto* tab = window.findChild<CodeTab*>("codeTab");
        window.tabs()->setCurrentWidget(tab);
        child<QTabWidget>(*tab, "codeViews")->setCurrentIndex(1);
        QCOMPARE(tab->hotFile(), file);
        auto* hot = child<AnnotatedCodeView>(*tab, "hotLinesView");
        QTRY_VERIFY(hot->toPlainText().contains("torch.relu(y) * 2"));
        // addmm (30 %) on line 10; the C++ kernel's 70 % over relu, mul (line 11), sum_1 (line 12).
        const auto& a = hot->annotations();
        QVERIFY(a.count(10) && a.count(11) && a.count(12));
        QVERIFY2(a.at(10).compiled.startsWith("30.0 %"), qPrintable(a.at(10).compiled));
        QVERIFY2(a.at(11).compiled.startsWith("46.7 %"), qPrintable(a.at(11).compiled));
        QVERIFY2(a.at(12).compiled.startsWith("23.3 %"), qPrintable(a.at(12).compiled));
        QCOMPARE(a.at(11).heat, 1.0);
        QVERIFY(hot->markers().count(12) && (hot->markers().at(12) & AnnotatedCodeView::Break));
        auto* lines = child<QTableView>(*tab, "lineCostTable");
        QVERIFY(lines->model()->rowCount() >= 3);
        QCOMPARE(lines->model()->index(0, 0).data().toString(), QString("model.py:11"));

        // A line selects its kernels; a kernel highlights its lines.
        emit hot->lineClicked(10);
        QCOMPARE(window.document()->selection().line, 10);
        QCOMPARE(tab->selectedKernels(), QStringList({kAddmm}));
        QCOMPARE(hot->highlightLines(), std::set<int>({10}));
        tab->selectKernel(kCpp);
        QCOMPARE(hot->highlightLines(), std::set<int>({11, 12}));
        QTest::mouseClick(lines->viewport(), Qt::LeftButton, {},
                          lines->visualRect(lines->model()->index(0, 0)).center());
        QCOMPARE(window.document()->selection().line, 11);
        QCOMPARE(tab->selectedKernels(), QStringList({kCpp}));
        shoot(&window, "code_hot_lines");

        // Compare with max-autotune: the kernel re-fused under a new name, line 11 faster.
        child<QTabWidget>(*tab, "codeViews")->setCurrentIndex(3);
        auto* with = child<QComboBox>(*tab, "compareWith");
        QCOMPARE(with->currentText(), QString("max-autotune"));
        auto* kernels = child<QTableView>(*tab, "kernelChangeTable");
        QVERIFY(kernels->model()->rowCount() >= 1);
        QStringList changes;
        bool addmmShort = false;
        for (int row = 0; row < kernels->model()->rowCount(); ++row) {
            changes << kernels->model()->index(row, 3).data().toString();
            // The names are short, as in the kernel list; the full one in the tooltip.
            const QModelIndex name = kernels->model()->index(row, 1);
            addmmShort = addmmShort || (name.data().toString() == kAddmmShown &&
                                        name.data(Qt::ToolTipRole).toString() == kAddmm);
        }
        QVERIFY2(changes.contains("re-fused") || changes.contains("replaced"),
                 qPrintable(changes.join(",")));
        QVERIFY(addmmShort);
        QVERIFY(child<QTableView>(*tab, "lineChangeTable")->model()->rowCount() >= 1);
        shoot(&window, "code_compare");
    }

    // The Modules view: the linear in encoder.linear takes the addmm's 30 µs;
    // the C++ kernel's 70 µs goes a third each to relu and mul (encoder.act)
    // and to sum_1, in the model's own forward.
    void modulesSumTheirKernelsTime() {
        QTemporaryDir dir;
        const std::string file = writeSource(dir).toStdString();
        core::Report withModules = report(file);
        for (auto* run : {&withModules.runs[1], &withModules.runs[2]}) {
            for (auto& n : run->graphs[0].nodes)
                n.module = n.name == "linear"                    ? "encoder.linear"
                           : n.name == "relu" || n.name == "mul" ? "encoder.act"
                                                                 : "";
        }
        app::MainWindow window;
        window.setQuiet(true);
        window.resize(1280, 800);
        window.show();
        window.document()->showReport(withModules);
        window.document()->selectRun(1);
        auto* tab = window.findChild<CodeTab*>("codeTab");
        window.tabs()->setCurrentWidget(tab);
        auto* views = child<QTabWidget>(*tab, "codeViews");
        QCOMPARE(views->tabText(2), QString("Modules"));
        views->setCurrentIndex(2);
        auto* tree = child<widgets::ModuleCostTree>(*tab, "moduleCostTree");
        QTRY_VERIFY(!tree->isHidden());
        QCOMPARE(tree->topLevelItemCount(), 1);
        QTreeWidgetItem* model = tree->topLevelItem(0);
        QCOMPARE(model->text(0), QString("(the model)"));
        QCOMPARE(model->text(widgets::ModuleCostTree::Share), QString("100.0 %"));
        QCOMPARE(model->childCount(), 1);
        QTreeWidgetItem* encoder = model->child(0);
        QCOMPARE(encoder->text(0), QString("encoder"));
        QCOMPARE(encoder->text(widgets::ModuleCostTree::Share), QString("76.7 %"));
        QVERIFY(model->isExpanded() && encoder->isExpanded()); // two levels open at first
        QCOMPARE(encoder->childCount(), 2);
        // Costliest first: act (46.7 µs) before linear (30 µs).
        QCOMPARE(encoder->child(0)->text(0), QString("act"));
        QCOMPARE(encoder->child(0)->toolTip(0), QString("encoder.act"));
        QCOMPARE(encoder->child(1)->text(widgets::ModuleCostTree::Self), QString("30.0 µs"));
        QCOMPARE(encoder->child(1)->text(widgets::ModuleCostTree::Kernels), QString(kAddmmShown));
        QVERIFY(tree->isColumnHidden(widgets::ModuleCostTree::Eager)); // nothing ran eagerly

        // Ops that ran uncompiled in a module (after a graph break) show
        // beside its compiled time: 200 µs over 10 calls in encoder.act.
        {
            core::Report broken = withModules;
            broken.runs[1].kernelProfile.eagerModules = {{"encoder.act", 200'000}};
            window.document()->showReport(broken);
            window.document()->selectRun(1);
            QTRY_VERIFY(!tree->isColumnHidden(widgets::ModuleCostTree::Eager));
            QTreeWidgetItem* act = tree->topLevelItem(0)->child(0)->child(0);
            QCOMPARE(act->text(0), QString("act"));
            QCOMPARE(act->text(widgets::ModuleCostTree::Eager), QString("20.0 µs"));
            QCOMPARE(
                tree->topLevelItem(0)->child(0)->child(1)->text(widgets::ModuleCostTree::Eager),
                QString("—"));
            window.document()->showReport(withModules);
            window.document()->selectRun(1);
            QTRY_VERIFY(tree->isColumnHidden(widgets::ModuleCostTree::Eager));
        }

        // A refresh of the same run keeps what the user closed.
        tree->topLevelItem(0)->child(0)->setExpanded(false); // encoder, refilled above
        window.document()->showReport(withModules);
        window.document()->selectRun(1);
        QTRY_VERIFY(tree->topLevelItemCount() == 1 && tree->topLevelItem(0)->childCount() == 1);
        QVERIFY(!tree->topLevelItem(0)->child(0)->isExpanded());

        // A module selects the kernels with a node in it or below it; the
        // kernel's tooltip names its module.
        tree->setCurrentItem(tree->topLevelItem(0)->child(0)); // encoder
        QStringList selected = tab->selectedKernels();
        selected.sort();
        QStringList both{kAddmm, kCpp};
        both.sort();
        QCOMPARE(selected, both);
        tree->setCurrentItem(tree->topLevelItem(0)->child(0)->child(1)); // encoder.linear
        QCOMPARE(tab->selectedKernels(), QStringList({kAddmm}));
        auto* table = child<QTableView>(*tab, "codeKernelTable");
        QString addmmTip;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            if (table->model()->index(row, 0).data().toString() == kAddmmShown)
                addmmTip = table->model()->index(row, 0).data(Qt::ToolTipRole).toString();
        }
        QVERIFY2(addmmTip.contains("module: encoder.linear"), qPrintable(addmmTip));
        shoot(&window, "code_modules");

        // Against max-autotune (its C++ kernel 70 → 40 µs): encoder.act gained
        // its two thirds of the 30 µs, encoder.linear nothing.
        views->setCurrentIndex(3);
        auto* moduleChanges = child<QTableView>(*tab, "moduleChangeTable");
        QVERIFY(!moduleChanges->parentWidget()->isHidden());
        QMap<QString, QString> gains;
        for (int row = 0; row < moduleChanges->model()->rowCount(); ++row)
            gains[moduleChanges->model()->index(row, 0).data().toString()] =
                moduleChanges->model()->index(row, 3).data().toString();
        QCOMPARE(gains.keys(), QStringList({"encoder", "encoder.act", "encoder.linear"}));
        QVERIFY2(gains["encoder.act"].startsWith("20.0 µs"), qPrintable(gains["encoder.act"]));
        QVERIFY2(gains["encoder.linear"].startsWith("0"), qPrintable(gains["encoder.linear"]));

        // Against eager, whose probe timed its modules' eager ops: the linear
        // took 50 µs a call there, 20 µs more than its kernel here.
        core::Report againstEager = withModules;
        auto& eagerProfile = againstEager.runs[0].kernelProfile;
        eagerProfile.present = true;
        eagerProfile.source = "torch_profiler";
        eagerProfile.calls = 10;
        eagerProfile.callNs = 1'000'000;
        eagerProfile.eagerNs = 800'000;
        eagerProfile.eagerModules = {{"encoder.linear", 500'000}, {"encoder.act", 300'000}};
        window.document()->showReport(againstEager);
        window.document()->selectRun(1);
        auto* with = child<QComboBox>(*tab, "compareWith");
        with->setCurrentIndex(with->findText("eager"));
        emit with->activated(with->currentIndex()); // as the user's pick
        QMap<QString, QString> others;
        for (int row = 0; row < moduleChanges->model()->rowCount(); ++row)
            others[moduleChanges->model()->index(row, 0).data().toString()] =
                moduleChanges->model()->index(row, 2).data().toString();
        QCOMPARE(others.value("encoder.linear"), QString("50.0 µs"));

        // A model of plain functions: no tree, and no module column, with the reason.
        window.document()->showReport(report(file));
        window.document()->selectRun(1);
        QTRY_VERIFY(!child<QLabel>(*tab, "modulesMessage")->isHidden());
        QVERIFY(child<QLabel>(*tab, "modulesMessage")->text().contains("model's own forward"));
        QVERIFY(moduleChanges->parentWidget()->isHidden());
    }

    // On CUDA the kernels are Triton: Python inside the string, its decorator and comments.
    void tritonSourceIsColouredAsPython() {
        QTemporaryDir dir;
        core::Report r = report(writeSource(dir).toStdString());
        auto& code = r.runs[1].code[0];
        code.wrapper = R"(# AOT ID: ['0_inference']
import triton
import triton.language as tl

triton_per_fused_mul_relu_sum_0 = async_compile.triton('triton_per_fused_mul_relu_sum_0', '''
import triton
import triton.language as tl

@triton.jit
def triton_per_fused_mul_relu_sum_0(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    r0_index = tl.arange(0, 64)[None, :]  # the reduction
    tmp0 = tl.load(in_ptr0 + (r0_index // 8), None)
    tmp1 = tl.full([1, 1], 0, tl.int32)
    tmp3 = triton_helpers.maximum(tmp1, tmp0) * 2.0
    tl.store(out_ptr0 + (tl.full([XBLOCK, 1], 0, tl.int32)), tl.sum(tmp3, 1)[:, None], None)
''', device_str='cuda')

def call(args):
    arg0_1, arg1_1, arg2_1 = args
    buf0 = empty_strided_cuda((8, 8), (8, 1), torch.float32)
    extern_kernels.addmm(arg1_1, arg2_1, arg0_1, alpha=1, beta=1, out=buf0)
    triton_per_fused_mul_relu_sum_0.run(buf0, buf1, 1, 64, stream=stream0)
    return (buf1, )
)";
        code.kernels[1].name = "triton_per_fused_mul_relu_sum_0";
        code.kernels[1].kind = "triton";
        code.kernels[1].firstLine = 5;
        code.kernels[1].lastLine = 16;
        r.runs[1].kernelProfile.kernels[0].name = "triton_per_fused_mul_relu_sum_0";
        r.runs[1].kernelProfile.source = "cupti";
        app::MainWindow window;
        window.setQuiet(true);
        window.resize(1280, 800);
        window.show();
        window.document()->showReport(r);
        auto* tab = window.findChild<CodeTab*>("codeTab");
        window.tabs()->setCurrentWidget(tab);
        auto* view = child<AnnotatedCodeView>(*tab, "generatedCode");
        auto formatAt = [view](int line, int column) {
            const auto block = view->document()->findBlockByNumber(line - 1);
            for (const auto& range : block.layout()->formats()) {
                if (range.start <= column && column < range.start + range.length)
                    return range.format;
            }
            return QTextCharFormat();
        };
        QVERIFY(formatAt(9, 1).foreground() != formatAt(5, 60).foreground()); // @triton.jit
        QVERIFY(formatAt(10, 0).fontWeight() == QFont::Bold);                 // def
        QVERIFY(formatAt(11, 45).fontItalic());                               // # the reduction
        QVERIFY(formatAt(12, 40).fontWeight() != QFont::Bold);                // // is division
        tab->selectKernel("triton_per_fused_mul_relu_sum_0");
        QCOMPARE(view->highlightFirst(), 5);
        shoot(&window, "code_triton");
    }

    void emptyStatesSayWhy() {
        QTemporaryDir dir;
        const std::string file = writeSource(dir).toStdString();
        widgets::ReportDocument document;
        CodeTab tab(&document);
        QVERIFY(tab.emptyReason().contains("open a report"));

        // --no-code: nothing of the code at all.
        core::Report stripped = report(file);
        for (auto& run : stripped.runs) {
            run.code.clear();
            run.codeOmitted = "--no-code";
        }
        document.showReport(stripped);
        QVERIFY2(tab.emptyReason().contains("The code was left out of this report (--no-code)"),
                 qPrintable(tab.emptyReason()));

        // --no-code as the probe sends it: kernels, nodes and lines without the text.
        core::Report names = report(file);
        for (auto& run : names.runs) {
            for (auto& code : run.code)
                code.wrapper.clear();
            run.codeOmitted = "--no-code";
        }
        document.showReport(names);
        QCOMPARE(tab.emptyReason(), QString());
        QVERIFY2(tab.codeMessage().contains("The code was left out of this report (--no-code)"),
                 qPrintable(tab.codeMessage()));
        QVERIFY(kernelColumn(tab, 0).contains(kCpp));

        // A report from before the Code tab: graphs, no code.
        core::Report old = report(file);
        for (auto& run : old.runs)
            run.code.clear();
        document.showReport(old);
        QVERIFY2(tab.emptyReason().contains("from before the Code tab"),
                 qPrintable(tab.emptyReason()));

        // Only eager; an aoti run.
        core::Report eager;
        eager.runs.push_back(report(file).runs[0]);
        document.showReport(eager);
        QVERIFY(tab.emptyReason().contains("eager baseline"));
        core::Report aoti = report(file);
        aoti.runs.erase(aoti.runs.begin());
        aoti.runs.resize(1);
        aoti.runs[0].setting.mode = "aoti";
        document.showReport(aoti);
        QVERIFY(tab.emptyReason().contains("AOTInductor"));
        core::Report backend = report(file);
        backend.runs[1].setting.backend = "aot_eager";
        document.showReport(backend);
        document.selectRun(1);
        QVERIFY(tab.emptyReason().contains("aot_eager backend"));

        // Code but no profile: code and kernels, times "—".
        core::Report unprofiled;
        unprofiled.runs.push_back(compiledRun(file, "default", kCpp, 0, 0, false));
        document.showReport(unprofiled);
        QCOMPARE(tab.emptyReason(), QString());
        QCOMPARE(kernelColumn(tab, 2)[kCpp], QString("—"));
        QCOMPARE(kernelColumn(tab, 3)[kCpp], QString("—"));
        QVERIFY(child<QLabel>(tab, "codeNote")->text().contains("No profiled window"));
        QVERIFY(child<AnnotatedCodeView>(tab, "generatedCode")->toPlainText().contains("def call"));
        QVERIFY(child<QLabel>(tab, "compareMessage")->text().contains("Only one setting"));
    }
};

QTEST_MAIN(CodeTabTest)
#include "test_code_tab.moc"
