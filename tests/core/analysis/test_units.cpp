#include <gtest/gtest.h>

#include "core/analysis/units.h"

using namespace cs::core;

TEST(Units, Durations) {
    EXPECT_EQ(formatDuration(0), "0");
    EXPECT_EQ(formatDuration(812), "812 ns");
    EXPECT_EQ(formatDuration(3410), "3.41 µs");
    EXPECT_EQ(formatDuration(1.2e6), "1.20 ms");
    EXPECT_EQ(formatDuration(19.5e9), "19.5 s");
    EXPECT_EQ(formatDuration(250e6), "250 ms");
}

TEST(Units, Bytes) {
    EXPECT_EQ(formatBytes(0), "0");
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBytes(3.2 * 1024), "3.20 KiB");
    EXPECT_EQ(formatBytes(1.5 * 1024 * 1024 * 1024), "1.50 GiB");
}

TEST(Units, CountsHaveSeparatorsAndNoExponent) {
    EXPECT_EQ(formatCount(0), "0");
    EXPECT_EQ(formatCount(999), "999");
    EXPECT_EQ(formatCount(1000), "1,000");
    EXPECT_EQ(formatCount(823478), "823,478");
    EXPECT_EQ(formatCount(2.85e6), "2,850,000");
    EXPECT_EQ(formatCount(1234.6), "1,235");
    EXPECT_EQ(formatCount(-1234567), "-1,234,567");
    EXPECT_EQ(formatCount(1e20), "100,000,000,000,000,000,000"); // past long long, still digits
}

TEST(Units, PercentsKeepTwoSignificantDigits) {
    EXPECT_EQ(formatPercent(0), "0%");
    EXPECT_EQ(formatPercent(0.0714), "7.1%");
    EXPECT_EQ(formatPercent(0.003), "0.30%");
    EXPECT_EQ(formatPercent(1.2e-5), "0.0012%");
    EXPECT_EQ(formatPercent(0.5), "50%");
    EXPECT_EQ(formatPercent(2.5), "250%");
}
