// Remote targets against a real sshd on loopback (tests/support/sshd_fixture.py
// serve): the shared connection, reading files, describing the host, and
// sessions of the fake probe run over SSH, cancelled and cut off.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

#include "core/runner/remote_run.h"
#include "core/runner/session_runner.h"
#include "core/runner/shell_quote.h"

using namespace cs::core;

namespace {

// Any process whose command line holds `needle` (the model's unique path).
bool processWithArgument(const QString& needle) {
    const QDir proc("/proc");
    for (const auto& entry : proc.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool number = false;
        entry.toInt(&number);
        if (!number)
            continue;
        QFile cmdline("/proc/" + entry + "/cmdline");
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(needle.toUtf8()))
            return true;
    }
    return false;
}

} // namespace

class RemoteTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QVERIFY(sshdDir_.isValid());
        sshd_.setProgram("python3");
        sshd_.setArguments({QStringLiteral(SSHD_FIXTURE), "serve", sshdDir_.path()});
        sshd_.start();
        QVERIFY(sshd_.waitForStarted());
        QElapsedTimer clock;
        clock.start();
        while (!sshd_.canReadLine() && clock.elapsed() < 60000)
            sshd_.waitForReadyRead(500);
        const auto line = sshd_.readLine();
        const auto info = QJsonDocument::fromJson(line).object();
        QVERIFY2(!info.isEmpty(),
                 qPrintable("sshd fixture did not start: " + line + sshd_.readAllStandardError()));
        config_ = info.value("client_config").toString().toStdString();
        port_ = info.value("port").toInt();
        listenerPid_ = info.value("pid").toInt();
        cacheDir_ = info.value("cache_dir").toString();
        target_.host = "127.0.0.1";
        target_.port = port_;
        qputenv("COMPILESCOPE_PROBE_ROOT", FAKE_PROBE_ROOT);
    }

    void cleanupTestCase() {
        sshd_.closeWriteChannel(); // the fixture stops sshd when its stdin closes
        if (!sshd_.waitForFinished(10000))
            sshd_.kill();
    }

    void launchSurvivesHostileWordsThroughTheShell() {
        QTemporaryDir dir;
        const QString argvFile = dir.filePath("argv");
        const QString fake = dir.filePath("python it's");
        QFile script(fake);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(("#!/bin/sh\nprintf '%s\\n' \"$PYTHONPATH\" > " +
                      shellQuote(argvFile.toStdString()) + "\nprintf '%s\\0' \"$@\" >> " +
                      shellQuote(argvFile.toStdString()) + "\n")
                         .c_str());
        script.close();
        script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        RemoteHost host(target_);
        RemotePlan plan;
        plan.probeRoot = "/opt/probe dir/$(touch x)";
        plan.modelSpec = "/m/it's a \"model\"; `x`\n$(y).py";
        ProbeOptions options;
        options.python = fake.toStdString();
        Setting setting;
        setting.mode = "eager";
        const auto launch = buildRemoteProbeLaunch(host, plan, setting, options);
        QVERIFY(launch.remote);
        QCOMPARE(launch.program, std::string("ssh"));
        // The last word is what the remote shell runs: run it here with sh.
        QProcess sh;
        sh.setWorkingDirectory(dir.path());
        sh.start("/bin/sh", {"-c", QString::fromStdString(launch.arguments.back())});
        QVERIFY(sh.waitForFinished(10000));
        QCOMPARE(sh.exitCode(), 0);
        QVERIFY(sh.readAllStandardError().startsWith(
            QByteArray::fromStdString(std::string(kRemotePidPrefix))));
        QFile out(argvFile);
        QVERIFY(out.open(QIODevice::ReadOnly));
        const QByteArray all = out.readAll();
        const auto newline = all.indexOf('\n');
        QVERIFY(all.left(newline).startsWith(QByteArray::fromStdString(plan.probeRoot)));
        const auto words = all.mid(newline + 1).split('\0');
        QVERIFY(words.contains(QByteArray::fromStdString(plan.modelSpec)));
        QVERIFY(words.contains("--lifeline-stdin"));
        QVERIFY(!QFile::exists(dir.filePath("x")));
    }

    void cuptiChoices() {
        CuptiFacts f;
        f.gpu = false;
        QCOMPARE(int(chooseRemoteCupti(f).how), int(CuptiPlan::None));
        f.gpu = true;
        f.haveSources = true;
        f.compiler = "/usr/bin/c++";
        f.cuptiInclude = "/usr/local/cuda/include";
        f.cuptiLibrary = "/usr/local/cuda/lib64/libcupti.so";
        QCOMPARE(int(chooseRemoteCupti(f).how), int(CuptiPlan::Build));
        f.alreadyThere = true;
        QCOMPARE(int(chooseRemoteCupti(f).how), int(CuptiPlan::Present));
        f.alreadyThere = false;
        f.compiler.clear();
        f.localLibrary = "/build/libcompilescope_cupti.so";
        f.localArch = f.remoteArch = "x86_64";
        f.localGlibc = "2.36";
        f.remoteGlibc = "2.39";
        QCOMPARE(int(chooseRemoteCupti(f).how), int(CuptiPlan::Copy));
        f.remoteGlibc = "2.31";
        auto plan = chooseRemoteCupti(f);
        QCOMPARE(int(plan.how), int(CuptiPlan::None));
        QVERIFY(QString::fromStdString(plan.why).contains("glibc 2.31"));
        f.remoteGlibc = "2.39";
        f.remoteArch = "aarch64";
        plan = chooseRemoteCupti(f);
        QCOMPARE(int(plan.how), int(CuptiPlan::None));
        QVERIFY(QString::fromStdString(plan.why).contains("aarch64"));
        f.wanted = false;
        QCOMPARE(int(chooseRemoteCupti(f).how), int(CuptiPlan::None));
    }

    void connectRunAndReadFiles() {
        RemoteHost host(target_, options());
        QVERIFY2(!host.connect(), "connect failed");
        QVERIFY(host.isConnected());
        const auto echo = host.run(shellJoin({"echo", "it's $(here)"}));
        QVERIFY(echo.ok());
        QCOMPARE(echo.out, QByteArray("it's $(here)\n"));
        QTemporaryDir dir;
        const QString name = dir.filePath("src it's $(x) ü.py");
        QFile file(name);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("def f():\n    return 1\n");
        file.close();
        std::string error;
        auto text = host.readFile(name.toStdString(), &error);
        QVERIFY2(text, error.c_str());
        QCOMPARE(*text, std::string("def f():\n    return 1\n"));
        QVERIFY(!host.readFile(dir.filePath("gone.py").toStdString(), &error));
        QVERIFY2(QString::fromStdString(error).contains("127.0.0.1:" + QString::number(port_)),
                 error.c_str());
        QVERIFY(!host.readFile(name.toStdString(), &error, 4));
        QVERIFY2(QString::fromStdString(error).contains("too big"), error.c_str());
        host.disconnect();
        QVERIFY(!host.isConnected());
    }

    void describeListsInterpretersAndTorch() {
        RemoteHost host(target_, options());
        const std::string venv = VENV_PYTHON;
        const auto d = host.describe({venv, "/no/such/python"});
        QVERIFY2(d.connected, d.problem.c_str());
        QVERIFY(!d.arch.empty());
        QVERIFY(!d.home.empty());
        const RemotePython* found = nullptr;
        const RemotePython* missing = nullptr;
        for (const auto& p : d.pythons) {
            // Searched places that do not exist (an unmatched glob) are not listed.
            QVERIFY2(p.path.find('*') == std::string::npos, p.path.c_str());
            QVERIFY2(p.ok || p.path == "/no/such/python", p.path.c_str());
            if (p.path == venv)
                found = &p;
            if (p.path == "/no/such/python")
                missing = &p;
        }
        QVERIFY(found);
        QVERIFY2(found->ok && !found->torch.empty(), found->problem.c_str());
        QVERIFY(missing && !missing->ok);
        QVERIFY(QString::fromStdString(missing->problem).contains("does not exist"));
        QVERIFY2(QString::fromStdString(d.summary()).contains("connected"), d.summary().c_str());
    }

    void wrongKeyAndClosedPortSayWhy() {
        RemoteOptions wrong = options();
        wrong.configFile = config_ + ".wrong_key";
        RemoteHost host(target_, wrong);
        auto problem = host.connect();
        QVERIFY(problem);
        QVERIFY2(QString::fromStdString(*problem).contains("authentication failed"),
                 problem->c_str());
        SshTarget closed = target_;
        closed.port = 1;
        RemoteHost refused(closed, options());
        problem = refused.connect();
        QVERIFY(problem);
        QVERIFY2(QString::fromStdString(*problem).contains("refused"), problem->c_str());
    }

    void sessionRunsOverSshAndReusesTheProbe() {
        QTemporaryDir dir;
        const QString model = dir.filePath("ok.py"); // the fake probe's behaviour
        QFile(model).open(QIODevice::WriteOnly);
        SessionRunner runner;
        runSession(runner, model);
        const Run& run = runner.report().runs.front();
        QCOMPARE(QString(toString(run.status)), QString("ok"));
        QCOMPARE(run.measuredLatencies().size(), size_t(5));
        QCOMPARE(runner.report().environment.target, target_.spec());
        QVERIFY(runner.remoteHost());
        const QStringList probes = QDir(cacheDir_ + "/compilescope").entryList({"probe-*"});
        QCOMPARE(probes.size(), 1);
        const QString marker = cacheDir_ + "/compilescope/" + probes.front() + "/.complete";
        const auto copiedAt = QFileInfo(marker).lastModified();
        runSession(runner, model);
        QCOMPARE(QString(toString(runner.report().runs.front().status)), QString("ok"));
        QCOMPARE(QFileInfo(marker).lastModified(), copiedAt); // not copied again
    }

    void cancelEndsTheRemoteGroupWithinTwoSeconds() {
        QTemporaryDir dir;
        const QString model = dir.filePath("ignore_term.py"); // needs SIGKILL
        QFile(model).open(QIODevice::WriteOnly);
        SessionRunner runner;
        QSignalSpy finished(&runner, &SessionRunner::sessionFinished);
        runner.start(request(model));
        QVERIFY(QTest::qWaitFor([&] { return processWithArgument("ignore_term.py"); }, 30000));
        QTest::qWait(300);
        QElapsedTimer clock;
        clock.start();
        runner.cancel();
        QVERIFY(QTest::qWaitFor([&] { return !processWithArgument("ignore_term.py"); }, 5000));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(finished.wait(10000) || finished.size() == 1);
        QCOMPARE(QString(toString(runner.report().runs.front().status)), QString("cancelled"));
    }

    void aCutConnectionEndsAsDisconnected() {
        QTemporaryDir dir;
        const QString model = dir.filePath("chunks_slow.py");
        QFile(model).open(QIODevice::WriteOnly);
        SessionRunner runner;
        QSignalSpy finished(&runner, &SessionRunner::sessionFinished);
        runner.start(request(model));
        QVERIFY(QTest::qWaitFor(
            [&] { return runner.report().runs.front().measuredLatencies().size() >= 10; }, 30000));
        QProcess::execute("pkill", {"-KILL", "-P", QString::number(listenerPid_)});
        QVERIFY(finished.wait(20000) || finished.size() == 1);
        const Run& run = runner.report().runs.front();
        QCOMPARE(QString(toString(run.status)), QString("disconnected"));
        QVERIFY(run.measuredLatencies().size() >= 10);
        QVERIFY(run.error);
        QVERIFY2(QString::fromStdString(run.error->message).contains("127.0.0.1"),
                 run.error->message.c_str());
        // The lifeline ends the probe there when its channel goes.
        QVERIFY(QTest::qWaitFor([&] { return !processWithArgument("chunks_slow.py"); }, 5000));
    }

    void theCuptiCollectorBuildsOnTheHost() {
        // A GPU host with a compiler and CUPTI headers: here the toolkit at
        // /usr/local/cuda stands in, the GPU is pretended.
        if (!QFile::exists("/usr/local/cuda/include/cupti.h"))
            QSKIP("no CUDA toolkit with CUPTI here");
        RemoteHost host(target_, options());
        RemotePrepareRequest prepare;
        prepare.modelSpec = "torchvision:resnet18";
        prepare.python = VENV_PYTHON;
        prepare.localProbeRoot = FAKE_PROBE_ROOT;
        prepare.cuptiSourceDir = CUPTI_SOURCES;
        prepare.forceCupti = true;
        RemotePlan plan;
        const auto problem = prepareRemoteRun(host, prepare, plan);
        QVERIFY2(!problem, problem ? problem->c_str() : "");
        QVERIFY(!plan.notes.empty());
        QVERIFY2(!plan.cuptiLibrary.empty(), plan.notes.front().text.c_str());
        QVERIFY(QFile::exists(QString::fromStdString(plan.cuptiLibrary)));
    }

    void closingTheAppLeavesNoRemoteProcess() {
        QTemporaryDir dir;
        const QString model = dir.filePath("hang.py");
        QFile(model).open(QIODevice::WriteOnly);
        auto runner = std::make_unique<SessionRunner>();
        runner->start(request(model));
        QVERIFY(QTest::qWaitFor([&] { return processWithArgument("hang.py"); }, 30000));
        QElapsedTimer clock;
        clock.start();
        runner.reset(); // what closing the window does to a running session
        QVERIFY(QTest::qWaitFor([&] { return !processWithArgument("hang.py"); }, 5000));
        QVERIFY2(clock.elapsed() < 2500, qPrintable(QString::number(clock.elapsed())));
    }

    void aFullRemoteDiskIsSaidWithTheHost() {
        // A 64 KiB filesystem where the host keeps the probe: too small for it.
        const QString cache = cacheDir_ + "/compilescope";
        QDir().mkpath(cache + "-full");
        if (QProcess::execute("mount",
                              {"-t", "tmpfs", "-o", "size=64k", "tmpfs", cache + "-full"}) != 0)
            QSKIP("cannot mount a small tmpfs here (needs root)");
        struct Unmount {
            QString path;
            ~Unmount() { QProcess::execute("umount", {path}); }
        } unmount{cache + "-full"};
        QVERIFY(QFile::rename(cache, cache + "-kept") || !QFile::exists(cache));
        QVERIFY(QFile::link(cache + "-full", cache));
        struct Restore {
            QString cache;
            ~Restore() {
                QFile::remove(cache);
                QFile::rename(cache + "-kept", cache);
            }
        } restore{cache};
        RemoteHost host(target_, options());
        RemotePrepareRequest prepare;
        prepare.modelSpec = "torchvision:resnet18";
        prepare.python = VENV_PYTHON;
        prepare.localProbeRoot = PROBE_ROOT;
        RemotePlan plan;
        const auto problem = prepareRemoteRun(host, prepare, plan);
        QVERIFY(problem);
        QVERIFY2(QString::fromStdString(*problem).contains("disk of 127.0.0.1:"), problem->c_str());
        QVERIFY2(QString::fromStdString(*problem).contains("full"), problem->c_str());
    }

  private:
    RemoteOptions options() const {
        RemoteOptions o;
        o.configFile = config_;
        return o;
    }

    SessionRequest request(const QString& model) const {
        SessionRequest r;
        r.modelSpec = model.toStdString();
        Setting s;
        s.mode = "eager";
        r.settings = {s};
        r.probe.python = "python3";
        r.target = target_;
        r.remote = options();
        r.timeoutSeconds = 60;
        return r;
    }

    void runSession(SessionRunner& runner, const QString& model) {
        QSignalSpy finished(&runner, &SessionRunner::sessionFinished);
        runner.start(request(model));
        QVERIFY(finished.wait(60000));
    }

    QTemporaryDir sshdDir_;
    QProcess sshd_;
    std::string config_;
    int port_ = 0;
    qint64 listenerPid_ = 0;
    QString cacheDir_;
    SshTarget target_;
};

QTEST_GUILESS_MAIN(RemoteTest)
#include "test_remote.moc"
