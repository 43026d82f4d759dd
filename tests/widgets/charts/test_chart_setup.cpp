// Charts stay legible when the window gives them little room.
#include <QtTest>
#include <qcustomplot.h>

#include "widgets/charts/chart_setup.h"

using namespace cs::widgets;

class TestChartSetup : public QObject {
    Q_OBJECT
  private slots:
    void valueTicksFollowTheHeight() {
        QCustomPlot plot;
        setupChart(&plot);
        setBytesAxis(&plot, "peak");
        plot.yAxis->setRange(0, 900.0 * 1024 * 1024);
        plot.show(); // a hidden widget keeps its resizes pending
        auto ticksAt = [&plot](int height) {
            plot.resize(500, height);
            QCoreApplication::processEvents();
            plot.replot();
            QCoreApplication::processEvents(); // the queued replot with the new count
            plot.replot();
            return plot.yAxis->tickVector().size();
        };
        const int shortTicks = static_cast<int>(ticksAt(140));
        const int shortRect = plot.axisRect()->height();
        // Tick labels about 15 pixels tall need room between them.
        QVERIFY2(shortTicks * 20 <= shortRect + 20,
                 qPrintable(QString("%1 ticks on %2 px").arg(shortTicks).arg(shortRect)));
        const int tallTicks = static_cast<int>(ticksAt(600));
        QVERIFY2(tallTicks > shortTicks,
                 qPrintable(QString("%1 ticks tall, %2 short").arg(tallTicks).arg(shortTicks)));
        // A ticker set after setup (another unit) gets the same treatment.
        setDurationAxis(&plot, "latency");
        plot.yAxis->setRange(0, 5e6);
        QVERIFY(static_cast<int>(ticksAt(140)) * 20 <= plot.axisRect()->height() + 20);
    }

    void settingNamesTurnAslantOnlyWhereTheyCollide() {
        QCustomPlot plot;
        setupChart(&plot);
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        const QStringList names = {"eager", "default", "reduce-overhead", "max-autotune", "aoti"};
        for (int i = 0; i < names.size(); ++i)
            ticker->addTick(i + 1, names[i]);
        plot.xAxis->setTicker(ticker);
        plot.xAxis->setRange(0.4, names.size() + 0.6);
        plot.show();
        auto angleAt = [&plot](int width) {
            plot.resize(width, 240);
            QCoreApplication::processEvents();
            plot.replot();
            QCoreApplication::processEvents(); // the queued replot at the new angle
            plot.replot();
            return plot.xAxis->tickLabelRotation();
        };
        QCOMPARE(angleAt(380), kAslantDegrees);
        QVERIFY(!categoryLabelsFit(plot.xAxis));
        QCOMPARE(angleAt(1000), 0.0);
        QVERIFY(categoryLabelsFit(plot.xAxis));
    }

    // A latency histogram's log axis over less than a decade: ticks at 1, 2,
    // 3 and 5 times a power of ten, never closer than a label's width.
    void aLogAxisUnderADecadeSpacesItsTicksEvenly() {
        QCustomPlot plot;
        setupChart(&plot);
        setLogDurationAxis(plot.xAxis, "latency");
        plot.xAxis->setRange(240e3, 1.6e6); // 240 µs to 1.6 ms, in ns
        plot.resize(500, 240);
        plot.show();
        QCoreApplication::processEvents();
        plot.replot();
        const QVector<double> ticks = plot.xAxis->tickVector();
        QCOMPARE(ticks, QVector<double>({300e3, 500e3, 1e6}));
        for (int i = 1; i < ticks.size(); ++i)
            QVERIFY(plot.xAxis->coordToPixel(ticks[i]) - plot.xAxis->coordToPixel(ticks[i - 1]) >
                    50);
        // Over more decades QCustomPlot's own powers of ten stay.
        plot.xAxis->setRange(1e3, 1e9);
        plot.replot();
        for (double tick : plot.xAxis->tickVector())
            QCOMPARE(std::fmod(std::log10(tick), 1.0), 0.0);
    }
};

QTEST_MAIN(TestChartSetup)
#include "test_chart_setup.moc"
