// Phase labels on a memory timeline never print over each other: the short
// phases at a run's end (measure, crosscheck, profile, outputs) share pixels.
#include <QtTest>
#include <qcustomplot.h>

#include "widgets/charts/chart_setup.h"
#include "widgets/charts/phase_bands.h"

using namespace cs;
using namespace cs::widgets;

namespace {

constexpr int64_t kMs = 1'000'000;

// The convnet probe's phases, as a real run had them (ms since start).
core::Run convnetPhases() {
    core::Run run;
    const std::vector<std::tuple<const char*, int64_t, int64_t>> spans = {
        {"load", 1705, 1725},    {"compile", 1725, 2750},    {"warmup", 2750, 2860},
        {"measure", 2860, 2880}, {"crosscheck", 2880, 2905}, {"profile", 2905, 2950},
        {"outputs", 2950, 3000}};
    for (const auto& [name, begin, end] : spans)
        run.phases.push_back({name, begin * kMs, end * kMs});
    return run;
}

QRectF labelRect(QCPItemText* label) {
    return QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition());
}

} // namespace

class TestPhaseBands : public QObject {
    Q_OBJECT
  private slots:
    void labelsNeverOverlapAndHiddenOnesAreInTheHover() {
        QCustomPlot plot;
        setupChart(&plot);
        plot.resize(880, 240);
        plot.show();
        QCoreApplication::processEvents();
        const core::Run run = convnetPhases();
        QCOMPARE(drawPhaseBands(&plot, run, 0), 7);
        plot.xAxis->setRange(0, 3.06);
        plot.replot();
        std::vector<QCPItemText*> shown;
        int labels = 0;
        for (int i = 0; i < plot.itemCount(); ++i) {
            auto* label = qobject_cast<QCPItemText*>(plot.item(i));
            if (!label)
                continue;
            ++labels;
            if (label->visible())
                shown.push_back(label);
        }
        QCOMPARE(labels, 7);
        QVERIFY2(shown.size() >= 4, qPrintable(QString::number(shown.size())));
        for (size_t a = 0; a < shown.size(); ++a)
            for (size_t b = a + 1; b < shown.size(); ++b)
                QVERIFY2(!labelRect(shown[a]).intersects(labelRect(shown[b])),
                         qPrintable(shown[a]->text() + " over " + shown[b]->text()));
        QCOMPARE(phaseAt(&plot, 2.87), QString("measure"));
        QCOMPARE(phaseAt(&plot, 1.0), QString());
        // Zoomed in on the end, every label has room again.
        plot.xAxis->setRange(2.84, 3.01);
        plot.replot();
        for (int i = 0; i < plot.itemCount(); ++i) {
            if (auto* label = qobject_cast<QCPItemText*>(plot.item(i));
                label && label->text() != "load" && label->text() != "compile")
                QVERIFY2(label->visible(), qPrintable(label->text()));
        }
    }
};

QTEST_MAIN(TestPhaseBands)
#include "test_phase_bands.moc"
