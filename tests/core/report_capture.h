// Every report a core test writes is also kept in the build tree, so the
// schema test (tests/reports/test_report_schema.py) validates each of them.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "core/report/report_json.h"

namespace cs::test {

inline std::string writeAndKeepReport(const cs::core::Report& report, const std::string& name) {
    std::string text = cs::core::writeReportJson(report);
    const std::filesystem::path dir(COMPILESCOPE_TEST_REPORTS);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / (name + ".json"), std::ios::binary) << text;
    return text;
}

} // namespace cs::test
