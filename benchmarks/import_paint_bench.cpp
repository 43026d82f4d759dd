// How long from File → Import TORCH_TRACE on a directory to the first tab
// painted with the imported runs (docs/BENCHMARKS.md). Run by hand:
//   QT_QPA_PLATFORM=offscreen build/benchmarks/import_paint_bench DIR [REPEATS]
// One main window, left alone first until its start-up work (the interpreter
// check imports torch in a child) is over, as when a user opens a log in an
// app already running; each repeat imports again. The time ends when the
// window has been rendered (QWidget::grab paints every visible widget).
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/main_window.h"
#include "widgets/common/report_document.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: import_paint_bench TORCH_TRACE_DIR [REPEATS]\n");
        return 1;
    }
    const QString dir = QString::fromLocal8Bit(argv[1]);
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    std::vector<double> seconds;
    cs::app::MainWindow window;
    window.setQuiet(true);
    window.resize(1280, 800);
    window.show();
    {
        QEventLoop settle;
        QTimer::singleShot(20000, &settle, &QEventLoop::quit);
        settle.exec();
    }
    for (int i = 0; i < repeats; ++i) {
        QEventLoop loop;
        bool imported = false;
        double importedAt = 0;
        QElapsedTimer clock;
        QObject::connect(&window, &cs::app::MainWindow::traceImported, &loop, [&] {
            imported = true;
            importedAt = static_cast<double>(clock.nsecsElapsed()) / 1e9;
            loop.quit();
        });
        QTimer::singleShot(120000, &loop, &QEventLoop::quit);
        clock.start();
        window.importTrace(dir);
        if (!imported)
            loop.exec();
        if (!imported) {
            std::fprintf(stderr, "import did not finish: %s\n", qPrintable(window.lastError()));
            return 1;
        }
        const QPixmap painted = window.grab();
        seconds.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e9);
        std::printf("repeat %d: %.3f s to the first painted tab (report shown at %.3f s; %zu "
                    "runs, %dx%d)\n",
                    i + 1, seconds.back(), importedAt, window.document()->report().runs.size(),
                    painted.width(), painted.height());
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("median %.3f s, min %.3f s over %d repeats\n", seconds[seconds.size() / 2],
                seconds.front(), repeats);
    return 0;
}
