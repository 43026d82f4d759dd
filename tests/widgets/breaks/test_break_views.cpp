// The Breaks tab on recorded probe streams: break map, break-site table and
// source view stay in sync through the document's selection, the graph view
// follows a source line, a missing source file is said so, library-code
// breaks show the user's frame, recompiles (and a limit hit) are listed.
#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>

#include "tests/widgets/find_child.h"
#include "tests/widgets/fixture_report.h"
#include "tests/widgets/qt_warning_guard.h"
#include "widgets/breaks/break_map.h"
#include "widgets/breaks/break_sites_model.h"
#include "widgets/breaks/breaks_tab.h"
#include "widgets/breaks/code_text_view.h"
#include "widgets/breaks/recompiles_model.h"
#include "widgets/breaks/source_pane.h"
#include "widgets/common/report_document.h"
#include "widgets/graph/graph_canvas_item.h"
#include "widgets/graph/graph_tab.h"
#include "widgets/graph/graph_view.h"

using namespace cs;
using cs::test::child;
using widgets::BreakSitesModel;
using widgets::RecompilesModel;

namespace {

// Where a line of the code view is, in its viewport's coordinates.
// With CS_SHOT_DIR set, saves what the widget looks like (for a person to look at).
void shoot(QWidget* widget, const QString& name) {
    const QString dir = qEnvironmentVariable("CS_SHOT_DIR");
    if (!dir.isEmpty())
        widget->grab().save(dir + "/" + name + ".png");
}

QPoint linePosition(widgets::CodeTextView* code, int line) {
    QTextCursor cursor(code->document()->findBlockByNumber(line - 1));
    return code->cursorRect(cursor).center() + QPoint(20, 0);
}

core::GraphBreak libraryBreak(const std::string& userFile, bool withUserFrame) {
    core::GraphBreak br;
    br.reason = "Unsupported call inside torch.nn.functional";
    br.gbType = "Attempted to call function marked as skipped";
    if (withUserFrame)
        br.frames.push_back({userFile, 12, "forward", "return F.relu(x)", true});
    br.frames.push_back(
        {"/usr/lib/python3/site-packages/torch/nn/functional.py", 1500, "relu", "", false});
    br.userFrame = withUserFrame ? 0 : -1;
    br.graphBefore = 0;
    br.graphAfter = 1;
    return br;
}

} // namespace

class BreakViewsTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { cs::test::installWarningGuard(); }
    void cleanup() { CS_VERIFY_NO_QT_WARNINGS(); }

    void mapOrdersGraphsAndBreaks() {
        widgets::ReportDocument document;
        widgets::BreakMap map(&document);
        document.showReport(
            test::reportOf({test::replayFixture("print_break_aot_eager_cpu.jsonl")}));
        const auto& tokens = map.tokens();
        QCOMPARE(tokens.size(), size_t(3));
        QVERIFY(!tokens[0].isBreak && tokens[0].index == 0);
        QVERIFY(tokens[1].isBreak && tokens[1].index == 0);
        QVERIFY(!tokens[2].isBreak && tokens[2].index == 1);
        QVERIFY(tokens[0].rect.right() < tokens[1].rect.left());
        QVERIFY(tokens[1].rect.right() < tokens[2].rect.left());
    }

    // torchvision's SSD: a "graph break in loop" ends its frame before it
    // captures anything (no graph before it); it sits before the graph after it.
    void mapPutsABreakWithNoGraphBeforeItJustBeforeTheGraphAfterIt() {
        widgets::ReportDocument document;
        widgets::BreakMap map(&document);
        core::Run run = test::replayFixture("print_break_aot_eager_cpu.jsonl");
        core::GraphBreak loop = run.graphBreaks.front();
        loop.graphBefore = -1;
        loop.graphAfter = 1;
        core::GraphBreak orphan = loop;
        orphan.graphAfter = -1;
        run.graphBreaks.push_back(loop);
        run.graphBreaks.push_back(orphan);
        document.showReport(test::reportOf({run}));
        std::vector<std::pair<bool, int>> order;
        for (const auto& token : map.tokens())
            order.emplace_back(token.isBreak, token.index);
        // The orphan, tied to no graph, had none after it in the call: last.
        const std::vector<std::pair<bool, int>> expected = {
            {false, 0}, {true, 0}, {true, 1}, {false, 1}, {true, 2}};
        QCOMPARE(order, expected);
    }

    void mapTableAndSourceStayInSync() {
        QTemporaryDir dir;
        core::Run run = test::replayFixture("print_break_aot_eager_cpu.jsonl");
        test::relocateSource(run, "print_break.py", QDir(dir.path()));
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        QAbstractItemModelTester tester(child<widgets::BreakSitesModel>(tab, "breakSitesModel"),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        tab.resize(1280, 800);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        document.showReport(test::reportOf({run}));

        // One site: the print at line 21, once.
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")->rowCount(), 1);
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")
                     ->index(0, BreakSitesModel::Reason)
                     .data()
                     .toString(),
                 QString("Failed to trace builtin operator"));
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")
                     ->index(0, BreakSitesModel::Location)
                     .data()
                     .toString(),
                 QString("print_break.py:21"));
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")
                     ->index(0, BreakSitesModel::Function)
                     .data()
                     .toString(),
                 QString("forward"));
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")
                     ->index(0, BreakSitesModel::Count)
                     .data()
                     .toInt(),
                 1);
        QVERIFY(tab.summary().contains("2 graphs"));
        QVERIFY(tab.summary().contains("1 graph break"));

        // The source is read off the GUI thread, then shown with the break line marked.
        auto* code = child<widgets::CodeTextView>(tab, "sourceCode");
        QTRY_VERIFY(child<widgets::SourcePane>(tab, "sourcePane")->isShowingCode());
        QCOMPARE(code->breakLines(), std::set<int>{21});
        QVERIFY(code->document()->findBlockByNumber(20).text().contains("print(\"hidden mean:\""));

        // Map → table and source: click the break's gap.
        auto* map = child<widgets::BreakMap>(tab, "breakMap");
        QTest::mouseClick(map->viewport(), Qt::LeftButton, {}, map->breakRect(0).center());
        QCOMPARE(document.selection().graphBreak, 0);
        QCOMPARE(tab.selectedSite(), 0);
        QCOMPARE(code->currentLine(), 21);
        QVERIFY(map->isBreakHighlighted(0));

        // Map: a region click selects the graph and leaves the break table without a selection.
        QTest::mouseClick(map->viewport(), Qt::LeftButton, {}, map->graphRect(1).center());
        QCOMPARE(document.selection().graph, 1);
        QVERIFY(map->isGraphHighlighted(1));
        QVERIFY(!map->isBreakHighlighted(0));
        QCOMPARE(tab.selectedSite(), -1);

        // Source → table and map: click another line, then the break line.
        QTest::mouseClick(code->viewport(), Qt::LeftButton, {}, linePosition(code, 19));
        QCOMPARE(document.selection().line, 19);
        QCOMPARE(tab.selectedSite(), -1);
        QVERIFY(!map->isBreakHighlighted(0));
        QTest::mouseClick(code->viewport(), Qt::LeftButton, {}, linePosition(code, 21));
        QCOMPARE(document.selection().line, 21);
        QCOMPARE(tab.selectedSite(), 0);
        QVERIFY(map->isBreakHighlighted(0));

        // Table → map and source.
        QTest::mouseClick(code->viewport(), Qt::LeftButton, {}, linePosition(code, 19));
        QCOMPARE(tab.selectedSite(), -1);
        auto* table = child<QTableView>(tab, "breakSitesTable");
        const QRect row = table->visualRect(table->model()->index(0, BreakSitesModel::Reason));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, row.center());
        QCOMPARE(document.selection().graphBreak, 0);
        QVERIFY(map->isBreakHighlighted(0));
        QCOMPARE(code->currentLine(), 21);
        shoot(&tab, "breaks_selected");
    }

    void graphViewFollowsTheSourceLine() {
        QTemporaryDir dir;
        core::Run run = test::replayFixture("print_break_aot_eager_cpu.jsonl");
        test::relocateSource(run, "print_break.py", QDir(dir.path()));
        widgets::ReportDocument document;
        widgets::BreaksTab breaks(&document);
        widgets::GraphTab graph(&document);
        graph.resize(1000, 700);
        graph.show();
        breaks.resize(1000, 700);
        breaks.show();
        document.showReport(test::reportOf({run}));
        QTRY_VERIFY(graph.picture() != nullptr);
        QCOMPARE(graph.shownGraph(), 0);
        QTRY_VERIFY(child<widgets::SourcePane>(breaks, "sourcePane")->isShowingCode());

        // Line 22 (return self.decoder(hidden)) is in the graph after the break.
        auto* code = child<widgets::CodeTextView>(breaks, "sourceCode");
        QTest::mouseClick(code->viewport(), Qt::LeftButton, {}, linePosition(code, 22));
        QCOMPARE(graph.shownGraph(), 1);
        QTRY_VERIFY(graph.picture() && graph.picture()->hierarchy->graph().compileId == "1/0");
        int marked = 0;
        for (int i = 0; i < static_cast<int>(graph.picture()->items.size()); ++i) {
            if (graph.view()->canvas()->marks(i) & widgets::GraphCanvasItem::LineMatch) {
                const auto& node = graph.picture()->hierarchy->node(
                    graph.picture()->items[static_cast<size_t>(i)].index);
                QCOMPARE(node.line, 22);
                ++marked;
            }
        }
        QVERIFY(marked > 0);
    }

    void missingSourceFileIsSaidAndTheRestWorks() {
        QTemporaryDir dir;
        core::Run run = test::replayFixture("print_break_aot_eager_cpu.jsonl");
        const QString copy = test::relocateSource(run, "print_break.py", QDir(dir.path()));
        QVERIFY(QFile::remove(copy));
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        tab.resize(1200, 700);
        tab.show();
        document.showReport(test::reportOf({run}));
        QTRY_VERIFY(child<widgets::SourcePane>(tab, "sourcePane")
                        ->message()
                        .contains("does not exist any more"));
        QVERIFY(child<widgets::SourcePane>(tab, "sourcePane")->message().contains(copy));
        QVERIFY(!child<widgets::SourcePane>(tab, "sourcePane")->isShowingCode());
        // The table and the map still work.
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")->rowCount(), 1);
        QTest::mouseClick(child<widgets::BreakMap>(tab, "breakMap")->viewport(), Qt::LeftButton, {},
                          child<widgets::BreakMap>(tab, "breakMap")->breakRect(0).center());
        QCOMPARE(tab.selectedSite(), 0);
        QCOMPARE(document.selection().line, 21);
        QVERIFY(child<widgets::SourcePane>(tab, "sourcePane")
                    ->message()
                    .contains("does not exist any more"));
        shoot(&tab, "breaks_missing_source");
    }

    void libraryBreakShowsTheUserFrameAndSaysSo() {
        QTemporaryDir dir;
        core::Run run = test::replayFixture("print_break_aot_eager_cpu.jsonl");
        const QString copy = test::relocateSource(run, "print_break.py", QDir(dir.path()));
        run.graphBreaks = {libraryBreak(copy.toStdString(), true),
                           libraryBreak(copy.toStdString(), false)};
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        tab.resize(1200, 700);
        tab.show();
        document.showReport(test::reportOf({run}));
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")->rowCount(), 2);
        // Through the user's frame: the user's line, marked as library code.
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")
                     ->index(0, BreakSitesModel::Location)
                     .data()
                     .toString(),
                 QString("print_break.py:12 (break in library code)"));
        document.selectBreak(0, 0);
        QVERIFY(child<widgets::SourcePane>(tab, "sourcePane")->note().contains("library code"));
        QVERIFY(
            child<widgets::SourcePane>(tab, "sourcePane")->note().contains("functional.py:1500"));
        QVERIFY(child<widgets::SourcePane>(tab, "sourcePane")
                    ->note()
                    .contains("innermost line of your code"));
        QTRY_VERIFY(child<widgets::SourcePane>(tab, "sourcePane")->isShowingCode());
        QCOMPARE(child<widgets::CodeTextView>(tab, "sourceCode")->currentLine(), 12);
        shoot(&tab, "breaks_library");
        // No user frame at all: the innermost frame, and a note that none of it is the user's.
        document.selectBreak(0, 1);
        QCOMPARE(tab.selectedSite(), 1);
        QVERIFY(child<widgets::SourcePane>(tab, "sourcePane")
                    ->note()
                    .contains("no frame of your code"));
        QVERIFY(
            child<widgets::SourcePane>(tab, "sourcePane")->shownFile().endsWith("functional.py"));
    }

    // A real break inside library code (json.dumps, then torch's polyfill), from forward.
    void recordedLibraryBreakShowsTheUserLine() {
        QTemporaryDir dir;
        core::Run run = test::replayFixture("library_break_aot_eager_cpu.jsonl");
        test::relocateSource(run, "library_break.py", QDir(dir.path()),
                             QStringLiteral(COMPILESCOPE_PROBE_MODELS));
        QCOMPARE(run.graphBreaks.size(), size_t(1));
        QVERIFY(run.graphBreaks[0].frames.size() > 1);
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        tab.resize(1200, 700);
        tab.show();
        document.showReport(test::reportOf({run}));
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")
                     ->index(0, BreakSitesModel::Location)
                     .data()
                     .toString(),
                 QString("library_break.py:17 (break in library code)"));
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")
                     ->index(0, BreakSitesModel::Function)
                     .data()
                     .toString(),
                 QString("forward"));
        QTest::mouseClick(child<widgets::BreakMap>(tab, "breakMap")->viewport(), Qt::LeftButton, {},
                          child<widgets::BreakMap>(tab, "breakMap")->breakRect(0).center());
        QVERIFY(child<widgets::SourcePane>(tab, "sourcePane")->note().contains("library code"));
        QVERIFY(child<widgets::SourcePane>(tab, "sourcePane")
                    ->note()
                    .contains(QString::fromStdString(run.graphBreaks[0].frames.back().file)));
        QTRY_VERIFY(child<widgets::SourcePane>(tab, "sourcePane")->isShowingCode());
        QCOMPARE(child<widgets::CodeTextView>(tab, "sourceCode")->currentLine(), 17);
        QVERIFY(child<widgets::CodeTextView>(tab, "sourceCode")
                    ->document()
                    ->findBlockByNumber(16)
                    .text()
                    .contains("json.dumps"));
    }

    // A real break in a loop: torch's nonzero break, then "graph break in loop"
    // chained after it when pick's own frame was skipped. One site, named by the
    // cause, that says pick runs eagerly.
    void recordedLoopBreakIsOneSiteThatSaysTheFrameWasSkipped() {
        core::Run run = test::replayFixture("advice_loop_break.jsonl");
        QCOMPARE(run.graphBreaks.size(), size_t(2));
        QCOMPARE(run.graphBreaks[1].gbType, std::string("graph break in loop"));
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        tab.resize(1200, 700);
        tab.show();
        document.showReport(test::reportOf({run}));
        auto* sites = child<widgets::BreakSitesModel>(tab, "breakSitesModel");
        QCOMPARE(sites->rowCount(), 1);
        QCOMPARE(sites->index(0, BreakSitesModel::Reason).data().toString(),
                 QString("Dynamic shape operator"));
        QCOMPARE(sites->index(0, BreakSitesModel::Count).data().toString(), QString("2"));
        QVERIFY(sites->site(0)->skipNote.contains("skipped the frame pick (loop_break.py:15)"));
        QVERIFY(sites->index(0, BreakSitesModel::Reason)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(sites->site(0)->skipNote));
        // In the order they ran: graph 0, the break in forward, then pick's
        // skipped frame, which no graph followed.
        auto* map = child<widgets::BreakMap>(tab, "breakMap");
        QVERIFY(map->breakRect(1).left() > map->breakRect(0).left());
        QTest::mouseClick(map->viewport(), Qt::LeftButton, {}, map->breakRect(1).center());
        QCOMPARE(tab.selectedSite(), 0);
        QVERIFY(child<widgets::SourcePane>(tab, "sourcePane")
                    ->note()
                    .contains("runs all of it "
                              "eagerly"));
        QVERIFY(
            child<QTextBrowser>(tab, "breakReason")->toPlainText().contains("skipped the frame"));
        shoot(&tab, "breaks_loop");
    }

    void recompilesAreListedWithLimitHitsMarked() {
        core::Run run = test::replayFixture("variable_length_sweep.jsonl");
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        QAbstractItemModelTester tester(child<widgets::RecompilesModel>(tab, "recompilesModel"),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        document.showReport(test::reportOf({run}));
        auto* model = child<widgets::RecompilesModel>(tab, "recompilesModel");
        QCOMPARE(model->rowCount(), 5);
        QCOMPARE(model->index(0, widgets::RecompilesModel::Function).data().toString(),
                 QString("forward"));
        QVERIFY(model->index(0, widgets::RecompilesModel::Reason)
                    .data()
                    .toString()
                    .contains("size mismatch at index 1"));
        // The probe reports torch's recompile limit with each recompile.
        QCOMPARE(model->index(0, widgets::RecompilesModel::CacheSize).data().toString(),
                 QString("2 of 8"));
        QCOMPARE(model->index(0, widgets::RecompilesModel::Inputs).data().toString(),
                 QString("[4, 16]"));
        // The sweep's calls are not numbered: the phase says when.
        QCOMPARE(model->index(0, widgets::RecompilesModel::When).data().toString(),
                 QString("sweep"));
        QVERIFY(!model->hasLimitHit());

        // A recorded run that hit torch's recompile limit (many_lengths.py, dynamic=false).
        document.showReport(test::reportOf({test::replayFixture("advice_recompile_limit.jsonl")}));
        QCOMPARE(model->rowCount(), 8);
        QVERIFY(model->hasLimitHit());
        const QModelIndex reason = model->index(7, widgets::RecompilesModel::Reason);
        QVERIFY(reason.data().toString().contains("RECOMPILE LIMIT HIT (limit 8)"));
        QVERIFY(reason.data().toString().contains("expected 10, actual 11"));
        QCOMPARE(model->index(7, widgets::RecompilesModel::CacheSize).data().toString(),
                 QString("limit 8"));
        QCOMPARE(model->index(6, widgets::RecompilesModel::CacheSize).data().toString(),
                 QString("8"));
        QVERIFY(reason.data(Qt::BackgroundRole).isValid());
        QVERIFY(
            !model->index(6, widgets::RecompilesModel::Reason).data(Qt::BackgroundRole).isValid());
        QVERIFY(reason.data(Qt::ToolTipRole).toString().contains("runs it eagerly"));
        auto* note = tab.findChild<QLabel*>("recompilesNote");
        QVERIFY(note && note->text().contains("recompile limit was hit"));
        // Not a dimension's fix for every guard (BigBird's limit was a module's number).
        QVERIFY(note->text().contains("Advice tab's recompile findings"));
        QVERIFY(!note->text().contains("mark_dynamic"));
        tab.resize(1280, 800);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        shoot(&tab, "breaks_recompiles");
    }

    // One break site and a guard that fails every 20 calls: the recompiles
    // get as much room as the breaks, several rows in a short tab.
    void manyRecompilesGetTheRoomToBeRead() {
        core::Setting setting;
        setting.backend = "eager";
        setting.warmup = 21;
        core::Run run = test::replayFixture("recompiles_mid_measure.jsonl", setting);
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        tab.resize(1000, 460);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        document.showReport(test::reportOf({run}));
        auto* recompiles = child<widgets::RecompilesModel>(tab, "recompilesModel");
        QVERIFY(recompiles->rowCount() >= 5);
        // The cell holds the guard; torch's source comment and hint are in the tooltip.
        const QModelIndex guard = recompiles->index(0, widgets::RecompilesModel::Reason);
        QCOMPARE(guard.data().toString(), QString("1/0: self.level == 0"));
        QVERIFY(guard.data(Qt::ToolTipRole).toString().contains("HINT"));
        QCoreApplication::processEvents();
        auto* table = tab.findChild<QTableView*>("recompilesTable");
        QVERIFY(table);
        const int rows =
            table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
        QVERIFY2(rows >= 4, qPrintable(QString("%1 rows shown").arg(rows)));
        shoot(&tab, "breaks_many_recompiles");
    }

    // The LSTM tagger on a new length (recorded): its break is met again by
    // the recompile of forward. Two breaks at one site; the count says why.
    void aBreakMetAgainByARecompileSaysSoOnItsCount() {
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        document.showReport(
            test::reportOf({test::replayFixture("advice_lstm_lengths_auto_sweep.jsonl")}));
        auto* sites = child<widgets::BreakSitesModel>(tab, "breakSitesModel");
        QCOMPARE(sites->rowCount(), 1);
        QCOMPARE(sites->index(0, BreakSitesModel::Count).data().toString(), QString("2"));
        const QString tip =
            sites->index(0, BreakSitesModel::Count).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("the same break met by 2 compiles of the frame (0/0, 0/1)"),
                 qPrintable(tip));
        // The frame after the break recompiled on ___stack0[0]: its tooltip says whose name that
        // is.
        auto* recompiles = child<widgets::RecompilesModel>(tab, "recompilesModel");
        bool explained = false;
        for (int row = 0; row < recompiles->rowCount(); ++row) {
            const QString reason =
                recompiles->index(row, RecompilesModel::Reason).data(Qt::ToolTipRole).toString();
            if (reason.contains("'___stack0[0]'"))
                explained = reason.startsWith("___stack names a value torch carries across a "
                                              "graph break");
        }
        QVERIFY(explained);
        // One break, one compile: nothing to add.
        document.showReport(
            test::reportOf({test::replayFixture("print_break_aot_eager_cpu.jsonl")}));
        QVERIFY(sites->index(0, BreakSitesModel::Count).data(Qt::ToolTipRole).isNull());
    }

    // fullgraph=True: no graph, the break arrives inside the error; the views still place it.
    void fullgraphBreakIsShownWithoutGraphs() {
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        document.showReport(test::reportOf({test::replayFixture("advice_print_fullgraph.jsonl")}));
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")->rowCount(), 1);
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")
                     ->index(0, BreakSitesModel::Location)
                     .data()
                     .toString(),
                 QString("print_break.py:21"));
        const auto& tokens = child<widgets::BreakMap>(tab, "breakMap")->tokens();
        QCOMPARE(tokens.size(), size_t(1));
        QVERIFY(tokens[0].isBreak);
        QVERIFY(tab.summary().startsWith("0 graphs, 1 graph break"));
    }

    void eagerOnlyReportSaysNothingWasCompiled() {
        core::Setting eager;
        eager.mode = "eager";
        core::Run run = test::replayFixture("mlp_eager_cpu.jsonl", eager);
        widgets::ReportDocument document;
        widgets::BreaksTab tab(&document);
        document.showReport(test::reportOf({run}));
        QCOMPARE(child<widgets::BreakSitesModel>(tab, "breakSitesModel")->rowCount(), 0);
        QVERIFY(child<widgets::BreakMap>(tab, "breakMap")->message().contains("eager"));
        QVERIFY(tab.summary().contains("eager"));
    }
};

QTEST_MAIN(BreakViewsTest)
#include "test_break_views.moc"
