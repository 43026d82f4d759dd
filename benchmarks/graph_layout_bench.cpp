// Graph layout and paint timings on synthetic FX-like graphs (see
// tests/support/synthetic_fx_graph.h): hierarchy building, the default
// level-of-detail view (dot), the fully expanded graph (fast layered layout),
// dot alone by size, paint and pan frames, and the end-to-end time from
// showing a report to the first paint with the longest GUI stall meanwhile.
// Results go into docs/BENCHMARKS.md.
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QScrollBar>

#include <benchmark/benchmark.h>

#include <memory>

#include "tests/support/synthetic_fx_graph.h"
#include "widgets/common/report_document.h"
#include "widgets/graph/graph_canvas_item.h"
#include "widgets/graph/graph_hierarchy.h"
#include "widgets/graph/graph_layout_service.h"
#include "widgets/graph/graph_picture_builder.h"
#include "widgets/graph/graph_tab.h"
#include "widgets/graph/graph_view.h"

using namespace cs;
using widgets::GraphPictureBuilder;

namespace {

std::shared_ptr<const core::Graph> graphOf(int nodes, int shape) {
    return std::make_shared<const core::Graph>(
        test::syntheticFxGraph(nodes, shape ? test::GraphShape::Flat : test::GraphShape::Modules));
}

const char* shapeName(int shape) {
    return shape ? "flat" : "modules";
}

widgets::LabelMetrics metrics() {
    static const widgets::LabelMetrics m{QApplication::font()};
    return m;
}

void BM_Hierarchy(benchmark::State& state) {
    const auto graph = graphOf(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    for (auto _ : state) {
        widgets::GraphHierarchy h(graph);
        benchmark::DoNotOptimize(h.groupCount());
    }
    state.SetLabel(shapeName(static_cast<int>(state.range(1))));
}

// What a person sees first: hierarchy, default expansion, labels, dot layout.
void BM_DefaultView(benchmark::State& state) {
    const auto graph = graphOf(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    size_t items = 0;
    QString engine;
    for (auto _ : state) {
        auto h = std::make_shared<const widgets::GraphHierarchy>(graph);
        auto picture = GraphPictureBuilder::build(
            h, h->defaultExpansion(GraphPictureBuilder::kDefaultBudget), metrics());
        items = picture->items.size();
        engine = picture->engine;
    }
    state.counters["boxes"] = static_cast<double>(items);
    state.SetLabel(std::string(shapeName(static_cast<int>(state.range(1)))) + " " +
                   engine.toStdString());
}

// Every node open: above kDotMaxItems this is the fast layered layout.
void BM_FullExpansion(benchmark::State& state) {
    const auto graph = graphOf(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    auto h = std::make_shared<const widgets::GraphHierarchy>(graph);
    QString engine;
    for (auto _ : state) {
        auto picture = GraphPictureBuilder::build(h, h->fullExpansion(), metrics());
        engine = picture->engine;
    }
    state.SetLabel(std::string(shapeName(static_cast<int>(state.range(1)))) + " " +
                   engine.toStdString());
}

// dot by size (flat graphs, all open, run groups as clusters): where kDotMaxItems comes from.
void BM_Dot(benchmark::State& state) {
    const auto graph = graphOf(static_cast<int>(state.range(0)), 1);
    auto h = std::make_shared<const widgets::GraphHierarchy>(graph);
    for (auto _ : state)
        benchmark::DoNotOptimize(GraphPictureBuilder::build(h, h->fullExpansion(), metrics(), {},
                                                            GraphPictureBuilder::Engine::Dot));
}

void BM_Layered(benchmark::State& state) {
    const auto graph = graphOf(static_cast<int>(state.range(0)), 1);
    auto h = std::make_shared<const widgets::GraphHierarchy>(graph);
    for (auto _ : state)
        benchmark::DoNotOptimize(GraphPictureBuilder::build(h, h->fullExpansion(), metrics(), {},
                                                            GraphPictureBuilder::Engine::Layered));
}

std::shared_ptr<const widgets::GraphPicture> fullPicture(int nodes, int shape) {
    auto h = std::make_shared<const widgets::GraphHierarchy>(graphOf(nodes, shape));
    return GraphPictureBuilder::build(h, h->fullExpansion(), metrics());
}

// One full paint of a 1280×800 view with the whole graph in it (every box drawn, far out).
void BM_PaintFit(benchmark::State& state) {
    widgets::GraphView view;
    view.resize(1280, 800);
    view.setPicture(
        fullPicture(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))));
    view.fitAll();
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) {
        QPainter painter(&image);
        view.render(&painter);
    }
    state.counters["canvas_paint_ms"] = view.canvas()->lastPaintMs();
    state.SetLabel(shapeName(static_cast<int>(state.range(1))));
}

// A pan step at a readable zoom: scroll 40 px and let the view repaint what it exposes.
void BM_PanFrame(benchmark::State& state) {
    widgets::GraphView view;
    view.resize(1280, 800);
    view.show();
    view.setPicture(
        fullPicture(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))));
    view.showStart();
    QApplication::processEvents();
    int direction = 1;
    for (auto _ : state) {
        QScrollBar* bar = view.verticalScrollBar();
        if (bar->value() + 40 > bar->maximum() || bar->value() - 40 < bar->minimum())
            direction = -direction;
        bar->setValue(bar->value() + 40 * direction);
        QApplication::processEvents();
    }
    state.SetLabel(shapeName(static_cast<int>(state.range(1))));
}

// A report of one finished compiled run holding the benchmark's graph.
core::Report reportWithGraph(const benchmark::State& state) {
    core::Run run;
    run.setting.mode = "default";
    run.status = core::RunStatus::Ok;
    run.graphs.push_back(
        *graphOf(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))));
    core::Report report;
    report.runs.push_back(std::move(run));
    return report;
}

// From showing a report with one big graph to the first paint of its picture,
// with the longest time the GUI event loop went without turning meanwhile.
void BM_EndToEnd(benchmark::State& state) {
    const core::Report report = reportWithGraph(state);
    widgets::ReportDocument document;
    widgets::GraphTab tab(&document);
    tab.resize(1280, 800);
    tab.show();
    double maxStallMs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        document.clear();
        QApplication::processEvents();
        core::Report copy = report;
        state.ResumeTiming();
        const int before = tab.view()->canvas()->paintCount();
        QElapsedTimer stall; // from before showReport: the graph copy on the GUI thread counts
        stall.start();
        document.showReport(std::move(copy));
        while (tab.view()->canvas()->paintCount() == before) {
            QApplication::processEvents(QEventLoop::AllEvents, 5);
            maxStallMs = std::max(maxStallMs, static_cast<double>(stall.nsecsElapsed()) / 1e6);
            stall.restart();
        }
    }
    state.counters["max_stall_ms"] = maxStallMs;
    state.SetLabel(std::string(shapeName(static_cast<int>(state.range(1)))) + " " +
                   tab.picture()->engine.toStdString());
}

// "Open all" on a shown graph: from the click to the first paint of every node laid out,
// with the longest GUI stall meanwhile.
void BM_OpenAll(benchmark::State& state) {
    const core::Report report = reportWithGraph(state);
    widgets::ReportDocument document;
    widgets::GraphTab tab(&document);
    tab.resize(1280, 800);
    tab.show();
    double maxStallMs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        document.showReport(report);
        while (!tab.picture())
            QApplication::processEvents(QEventLoop::AllEvents, 5);
        tab.layoutService()->clearCache(); // a fresh layout every time
        QApplication::processEvents();
        state.ResumeTiming();
        const int before = tab.view()->canvas()->paintCount();
        QElapsedTimer stall;
        stall.start();
        tab.expandAll();
        while (tab.view()->canvas()->paintCount() == before ||
               tab.picture()->items.size() != static_cast<size_t>(state.range(0))) {
            QApplication::processEvents(QEventLoop::AllEvents, 5);
            maxStallMs = std::max(maxStallMs, static_cast<double>(stall.nsecsElapsed()) / 1e6);
            stall.restart();
        }
    }
    state.counters["max_stall_ms"] = maxStallMs;
    state.SetLabel(std::string(shapeName(static_cast<int>(state.range(1)))) + " " +
                   tab.picture()->engine.toStdString());
}

} // namespace

BENCHMARK(BM_Hierarchy)->ArgsProduct({{10000, 50000}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DefaultView)
    ->ArgsProduct({{1000, 10000, 50000}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_FullExpansion)
    ->ArgsProduct({{10000, 50000}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_Dot)
    ->Arg(100)
    ->Arg(200)
    ->Arg(300)
    ->Arg(600)
    ->Arg(1000)
    ->Arg(2000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK(BM_Layered)->Arg(300)->Arg(600)->Arg(2000)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_PaintFit)
    ->ArgsProduct({{10000, 50000}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK(BM_PanFrame)
    ->ArgsProduct({{10000, 50000}, {0}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(30);
BENCHMARK(BM_OpenAll)
    ->ArgsProduct({{10000, 50000}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_EndToEnd)
    ->ArgsProduct({{10000, 50000}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
