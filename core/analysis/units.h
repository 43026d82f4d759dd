// Human units for durations and sizes, shared by tables, charts and reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cs::core {

std::string formatDuration(double ns); // "812 ns", "3.41 µs", "1.20 ms", "19.5 s"
std::string formatBytes(double bytes); // "512 B", "3.2 KiB", "1.50 GiB"
// A count rounded to a whole number, with thousands separators and never an
// exponent: "823,478", "2,850,000". Every count a user reads goes through it.
std::string formatCount(double count);
// A fraction as a percentage with two significant digits and no exponent:
// "7.1%", "0.30%", "0.0012%"; "0%" for zero.
std::string formatPercent(double fraction);
// A difference as a signed percentage with one decimal: "+32.7%", "-1.8%".
std::string formatSignedPercent(double fraction);
// "a, b, c": a list a user reads in one cell or line.
std::string joinList(const std::vector<std::string>& items);

} // namespace cs::core
