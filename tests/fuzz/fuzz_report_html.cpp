// The HTML writer on a report whose user-controlled strings (model and setting
// names, console, errors, break reasons, source lines, graph nodes, logs...)
// come from the input. Each string is wrapped in the marker "<fz", which must
// never reach the page unescaped, and the page must stay valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/html/report_html.h"
#include "tests/core/sample_reports.h"

namespace {

using namespace cs::core;

// Pieces of the input, split at 0x01 bytes, handed out in turn.
class Texts {
  public:
    explicit Texts(std::string_view input) {
        size_t start = 0;
        for (size_t i = 0; i <= input.size(); ++i) {
            if (i == input.size() || input[i] == '\x01') {
                pieces_.emplace_back(input.substr(start, i - start));
                start = i + 1;
            }
        }
    }
    std::string next() { return "<fz" + pieces_[at_++ % pieces_.size()] + "<fz"; }
    size_t size() const { return pieces_.size(); }

  private:
    std::vector<std::string> pieces_;
    size_t at_ = 0;
};

bool validUtf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        size_t extra = 0;
        uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            extra = 1;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + extra >= s.size())
            return false;
        for (size_t k = 1; k <= extra; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (cc & 0x3F);
        }
        static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += extra + 1;
    }
    return true;
}

void fill(Run& run, Texts& t, size_t salt) {
    run.setting.mode = t.next();
    run.setting.backend = t.next();
    run.model.name = t.next();
    run.model.spec = t.next();
    run.model.inputs = {t.next()};
    run.probe.deviceName = t.next();
    run.probe.torch = t.next();
    run.console = t.next();
    run.error = ErrorInfo{t.next(), t.next(), t.next()};
    run.status = static_cast<RunStatus>(salt % 8);
    for (auto& br : run.graphBreaks) {
        br.reason = t.next();
        br.gbType = t.next();
        for (auto& frame : br.frames) {
            frame.file = t.next();
            frame.function = t.next();
            frame.code = t.next();
        }
    }
    for (auto& graph : run.graphs) {
        graph.function = t.next();
        graph.compileId = t.next();
        for (auto& node : graph.nodes) {
            node.name = t.next();
            node.target = t.next();
            node.module = t.next();
            node.shape = t.next();
            node.inputs.push_back(t.next());
        }
    }
    for (auto& r : run.recompiles) {
        r.function = t.next();
        r.reason = t.next();
        r.inputShapes = t.next();
    }
    for (auto& phase : run.compilePhases)
        phase.name = t.next();
    run.logs.push_back({1, "warning", t.next()});
    run.parseProblems.push_back({3, t.next()});
    run.captureWarnings.push_back({t.next(), t.next(), t.next()});
    run.kernels.present = true;
    run.kernels.top.push_back({t.next(), 3, 300, 100});
    run.kernels.note = t.next();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const Report sample = cs::test::sampleReport();
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    Texts texts(input);
    Report report = sample;
    report.model.name = texts.next();
    report.environment.host = texts.next();
    report.environment.platform = texts.next();
    for (size_t i = 0; i < report.runs.size(); ++i)
        fill(report.runs[i], texts, size + i);
    const std::string html = writeReportHtml(report);
    if (html.find("<fz") != std::string::npos || !validUtf8(html))
        std::abort();
    return 0;
}
