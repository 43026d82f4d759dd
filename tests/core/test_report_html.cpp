#include <gtest/gtest.h>

#include "report_html.h"

using namespace cs::core;

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
    EXPECT_EQ(htmlEscape("</script><img src=x onerror=alert(1)>"),
              "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
    EXPECT_EQ(htmlEscape("a\"b'c&d"), "a&quot;b&#39;c&amp;d");
}

TEST(HtmlEscape, InvalidUtf8BecomesReplacement) {
    EXPECT_EQ(htmlEscape(std::string("ok\xff\xfe!")), "ok\xEF\xBF\xBD\xEF\xBF\xBD!");
    EXPECT_EQ(htmlEscape("µs"), "µs");
    EXPECT_EQ(htmlEscape(std::string("a\x01z")), "a\xEF\xBF\xBDz");
}

TEST(ReportHtml, HostileStringsNeverReachTheMarkup) {
    Report report;
    report.model.spec = "<script>alert('spec')</script>";
    cs::core::Run run;
    run.status = RunStatus::Failed;
    run.error = ErrorInfo{"model_raised", "<img src=x onerror=alert(1)>", ""};
    run.setting.mode = "default";
    report.runs.push_back(run);
    const std::string html = writeReportHtml(report);
    EXPECT_EQ(html.find("<script>alert"), std::string::npos);
    EXPECT_EQ(html.find("<img src=x"), std::string::npos);
    EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}
