#include <gtest/gtest.h>

#include <cmath>

#include "core/html/svg_chart.h"

using namespace cs::core::html;

TEST(SvgChart, LinearTicksCoverTheRangeWithNiceSteps) {
    auto ticks = linearTicks(0, 97, AxisUnit::Plain);
    ASSERT_GE(ticks.size(), 3u);
    EXPECT_EQ(ticks.front(), 0);
    EXPECT_GE(ticks.back(), 97);
    EXPECT_DOUBLE_EQ(ticks[1] - ticks[0], 20);
    // Bytes step in whole binary units.
    auto bytes = linearTicks(0, 300.0 * 1024 * 1024, AxisUnit::Bytes);
    const double step = bytes[1] - bytes[0];
    EXPECT_DOUBLE_EQ(std::fmod(step, 1024.0 * 1024), 0.0);
    EXPECT_GE(bytes.back(), 300.0 * 1024 * 1024);
}

TEST(SvgChart, LogTicksArePowersOfTen) {
    auto ticks = logTicks(3e5, 2e9);
    EXPECT_DOUBLE_EQ(ticks.front(), 1e5);
    EXPECT_DOUBLE_EQ(ticks.back(), 1e10);
    auto fine = logTicks(2e6, 8e6);
    EXPECT_NE(std::find(fine.begin(), fine.end(), 5e6), fine.end());
}

TEST(SvgChart, AxisTextHasUnits) {
    EXPECT_EQ(axisValueText(1.5e6, AxisUnit::DurationNs), "1.50 ms");
    EXPECT_EQ(axisValueText(2.0, AxisUnit::Seconds), "2.00 s");
    EXPECT_EQ(axisValueText(3.0 * 1024 * 1024, AxisUnit::Bytes), "3.00 MiB");
    EXPECT_EQ(axisValueText(40, AxisUnit::Plain), "40");
}

TEST(SvgChart, RendersAxesLabelsAndEscapedNames) {
    SvgChart chart("latency <of> \"runs\"");
    chart.setXAxis({"call number", AxisUnit::Plain});
    chart.setYAxis({"latency per call", AxisUnit::DurationNs});
    chart.addLine("<b>run</b>", "#123456", {{1, 1e6}, {2, 2e6}, {3, 1.5e6}});
    chart.addLegend("<b>run</b>", "#123456");
    const std::string svg = chart.render();
    EXPECT_NE(svg.find("call number"), std::string::npos);
    EXPECT_NE(svg.find("latency per call"), std::string::npos);
    EXPECT_NE(svg.find("2.00 ms"), std::string::npos); // a y tick with its unit
    EXPECT_NE(svg.find("&lt;b&gt;run&lt;/b&gt;"), std::string::npos);
    EXPECT_EQ(svg.find("<b>"), std::string::npos);
    EXPECT_NE(svg.find("latency &lt;of&gt; &quot;runs&quot;"), std::string::npos);
}

TEST(SvgChart, LongSeriesAreThinnedButKeepTheirExtremes) {
    SvgChart chart("many points");
    chart.setXAxis({"call", AxisUnit::Plain});
    chart.setYAxis({"latency", AxisUnit::DurationNs});
    std::vector<Point> points;
    for (int i = 0; i < 200000; ++i)
        points.emplace_back(i, 1e6 + (i % 100));
    points[123457].second = 9e6; // one spike
    chart.addLine("run", "#000000", points);
    const std::string svg = chart.render();
    EXPECT_LT(svg.size(), 60000u);
    // The spike sets the top of the axis: a 10 ms tick exists only because of it.
    EXPECT_NE(svg.find("10.0 ms"), std::string::npos);
}

TEST(SvgChart, NothingToChartSaysSo) {
    SvgChart chart("empty <chart>");
    EXPECT_TRUE(chart.empty());
    EXPECT_NE(chart.render().find("empty &lt;chart&gt;: nothing to chart"), std::string::npos);
}
