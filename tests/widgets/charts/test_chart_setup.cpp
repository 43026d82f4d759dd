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
};

QTEST_MAIN(TestChartSetup)
#include "test_chart_setup.moc"
