// compilescope: the GUI. Usage: compilescope [MODEL.py | REPORT.json] [--run]
//   [--modes eager,default] [--warmup N] [--iters N] [--backend B] [--target ssh://HOST]
//   [--python PATH] [--screenshot OUT.png] [--size 1280x800]
// --screenshot grabs the window once the run (or the report) is shown, then quits:
// how scripts/screenshots.sh looks at the GUI under Xvfb.
// Started by ssh with COMPILESCOPE_ASKPASS=1, it is only ssh's password dialog.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QIcon>
#include <QTabWidget>
#include <QTextStream>
#include <QTimer>

#include <cstdio>
#include <cstring>

#include "app/askpass.h"
#include "app/main_window.h"
#include "core/runner/probe_command.h"
#include "widgets/run/settings_panel.h"

namespace {

struct CommandLine {
    QCommandLineParser parser;
    struct Options {
        QCommandLineOption run{"run", "start running the model at once"};
        QCommandLineOption modes{"modes", "modes to run, comma-separated", "list"};
        QCommandLineOption warmup{"warmup", "warmup calls", "n"};
        QCommandLineOption iters{"iters", "measured calls", "n"};
        QCommandLineOption backend{"backend", "inductor, aot_eager or eager", "name"};
        QCommandLineOption target{
            "target", "run on this SSH host: ssh://[user@]host[:port] or a Host of ~/.ssh/config",
            "spec"};
        QCommandLineOption python{"python", "the interpreter (a path on the --target host)",
                                  "path"};
        QCommandLineOption tab{"tab", "show this tab first", "name"};
        QCommandLineOption screenshot{"screenshot", "save a PNG of the window when done, then quit",
                                      "png"};
        QCommandLineOption size{"size", "window size for screenshots, e.g. 1280x800", "WxH"};
    } options;

    CommandLine() {
        parser.setApplicationDescription("A profiler and doctor for torch.compile");
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument(
            "path", "a model (.py, .pt2, torchvision:NAME) or a report (.json)", "[path]");
        auto& o = options;
        parser.addOptions({o.run, o.modes, o.warmup, o.iters, o.backend, o.target, o.python, o.tab,
                           o.screenshot, o.size});
    }
};

void describeApplication() {
    QCoreApplication::setOrganizationName("compilescope");
    QCoreApplication::setApplicationName("compilescope");
    QCoreApplication::setApplicationVersion(COMPILESCOPE_VERSION);
}

// On X11 and Wayland desktops a window needs DISPLAY or WAYLAND_DISPLAY,
// unless a platform is named (QT_QPA_PLATFORM=offscreen, -platform).
bool hasDisplay(int argc, char** argv) {
#if defined(Q_OS_LINUX)
    if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") ||
        !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        return true;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "-platform") == 0 || std::strcmp(argv[i], "--platform") == 0)
            return true;
    }
    return false;
#else
    Q_UNUSED(argc);
    Q_UNUSED(argv);
    return true;
#endif
}

constexpr const char* kNoDisplay =
    "compilescope: there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are "
    "unset).\n"
    "  Without a window, compilescope-cli writes the same report:\n"
    "    compilescope-cli run MODEL --settings eager,default --json out.json --html out.html\n"
    "  then open out.json in compilescope on a machine with a display.\n"
    "  Over SSH, 'ssh -X' forwards a display; QT_QPA_PLATFORM=offscreen runs without one\n"
    "  (for --screenshot).\n";

} // namespace

int main(int argc, char** argv) {
    if (cs::app::isAskpassInvocation()) {
        // Nothing else starts: no window, no settings; the answer goes to ssh on stdout.
        // The prompt is read first: QApplication may take Qt's own options out of argv.
        const QString prompt = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
        QApplication app(argc, argv);
        QTextStream out(stdout);
        return cs::app::askpass(prompt, qgetenv("SSH_ASKPASS_PROMPT"), out);
    }
    CommandLine cli;
    if (!hasDisplay(argc, argv)) {
        // Qt would abort ("could not connect to display"); --help and
        // --version need no window, anything else is told what to use instead.
        QCoreApplication app(argc, argv);
        describeApplication();
        cli.parser.process(app);
        std::fputs(kNoDisplay, stderr);
        return 2;
    }
    QApplication app(argc, argv);
    describeApplication();
    QApplication::setWindowIcon(QIcon(":/icons/compilescope.svg"));
    QApplication::setDesktopFileName("compilescope");
    QCommandLineParser& parser = cli.parser;
    const auto& [run, modes, warmup, iters, backend, target, python, tab, screenshot, size] =
        cli.options;
    parser.process(app);

    cs::app::MainWindow window;
    auto* panel = window.settingsPanel();
    if (parser.isSet(modes)) {
        const QStringList wanted = parser.value(modes).split(',', Qt::SkipEmptyParts);
        for (const auto& mode : cs::core::knownModes()) {
            const QString name = QString::fromStdString(mode);
            panel->setModeChecked(name, wanted.contains(name));
        }
    }
    if (parser.isSet(warmup) || parser.isSet(iters)) {
        const auto current = panel->settings();
        const int w = parser.isSet(warmup) ? parser.value(warmup).toInt()
                                           : (current.empty() ? 5 : current[0].warmup);
        const int n = parser.isSet(iters) ? parser.value(iters).toInt()
                                          : (current.empty() ? 100 : current[0].iters);
        panel->setIterations(w, n);
    }
    if (parser.isSet(backend))
        panel->setBackend(parser.value(backend));
    if (parser.isSet(target)) {
        QString error;
        if (!panel->addTarget(parser.value(target), &error)) {
            std::fprintf(stderr, "compilescope: --target %s: %s\n",
                         qPrintable(parser.value(target)), qPrintable(error));
            return 2;
        }
    }
    if (parser.isSet(python))
        panel->setPython(parser.value(python));
    if (parser.isSet(target))
        panel->testConnection(); // as picking it in the panel does, the --python included
    if (const QStringList wh = parser.value(size).split('x'); wh.size() == 2)
        window.resize(wh[0].toInt(), wh[1].toInt());
    window.show();

    const QString shot = parser.value(screenshot);
    auto grab = [&window, shot, tabName = parser.value(tab)] {
        if (!tabName.isEmpty()) {
            for (int i = 0; i < window.tabs()->count(); ++i) {
                if (window.tabs()->tabText(i).compare(tabName, Qt::CaseInsensitive) == 0)
                    window.tabs()->setCurrentIndex(i);
            }
        }
        if (shot.isEmpty())
            return;
        window.setQuiet(true);
        QTimer::singleShot(800, &window, [&window, shot] {
            window.grab().save(shot);
            QApplication::quit();
        });
    };
    QObject::connect(&window, &cs::app::MainWindow::sessionFinished, &window, grab);
    QObject::connect(&window, &cs::app::MainWindow::reportOpened, &window, grab);

    const QStringList positional = parser.positionalArguments();
    if (!positional.isEmpty())
        window.openPath(positional.first());
    if (parser.isSet(run))
        QTimer::singleShot(0, &window, [&window] { window.startRun(); });
    return app.exec();
}
