#include "cli_args.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace cs::aoti {

namespace {

bool parseInt(const std::string& text, long long minimum, int& out) {
    if (text.empty()) {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size() || v < minimum ||
        v > std::numeric_limits<int>::max()) {
        return false;
    }
    out = static_cast<int>(v);
    return true;
}

bool parseSeconds(const std::string& text, double& out) {
    if (text.empty()) {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0) {
        return false;
    }
    out = v;
    return true;
}

bool validDevice(const std::string& d) {
    if (d == "cpu" || d == "cuda") {
        return true;
    }
    if (d.rfind("cuda:", 0) != 0 || d.size() == 5) {
        return false;
    }
    int index = 0;
    return parseInt(d.substr(5), 0, index);
}

} // namespace

std::string usage() {
    return "usage: compilescope-aoti-runner --version\n"
           "       compilescope-aoti-runner --package FILE.pt2 --inputs FILE.pt --device "
           "cpu|cuda|cuda:N\n"
           "           [--warmup N (>=1, default 10)] [--iters N (>=0, default 100)]\n"
           "           [--events-fd FD (default 1)] [--continue-stream] [--threads N]\n"
           "           [--prior-phase NAME=SECONDS]... [--cupti LIB.so]\n";
}

ParseResult parseArgs(const std::vector<std::string>& argv) {
    RunnerArgs a;
    ParseResult r;
    auto fail = [&r](std::string why) {
        r.error = std::move(why);
        return r;
    };
    for (size_t i = 0; i < argv.size(); ++i) {
        std::string opt = argv[i];
        std::optional<std::string> inlineValue;
        if (const auto eq = opt.find('='); opt.rfind("--", 0) == 0 && eq != std::string::npos) {
            inlineValue = opt.substr(eq + 1);
            opt.resize(eq);
        }
        auto flag = [&]() -> bool {
            if (inlineValue) {
                r.error = opt + " takes no value";
                return false;
            }
            return true;
        };
        auto value = [&](std::string& out) -> bool {
            if (inlineValue) {
                out = *inlineValue;
                return true;
            }
            if (i + 1 >= argv.size()) {
                r.error = opt + " needs a value";
                return false;
            }
            out = argv[++i];
            return true;
        };
        std::string v;
        if (opt == "--version") {
            if (!flag()) {
                return r;
            }
            a.version = true;
        } else if (opt == "--continue-stream") {
            if (!flag()) {
                return r;
            }
            a.continueStream = true;
        } else if (opt == "--package" || opt == "--inputs" || opt == "--device" ||
                   opt == "--cupti") {
            if (!value(v)) {
                return r;
            }
            if (v.empty()) {
                return fail(opt + " needs a non-empty value");
            }
            if (opt == "--package") {
                a.package = v;
            } else if (opt == "--inputs") {
                a.inputs = v;
            } else if (opt == "--cupti") {
                a.cupti = v;
            } else {
                if (!validDevice(v)) {
                    return fail("--device " + v + " is not cpu, cuda or cuda:N");
                }
                a.device = v;
            }
        } else if (opt == "--warmup" || opt == "--iters" || opt == "--events-fd" ||
                   opt == "--threads") {
            if (!value(v)) {
                return r;
            }
            const long long minimum = opt == "--warmup" || opt == "--threads" ? 1 : 0;
            int n = 0;
            if (!parseInt(v, minimum, n)) {
                return fail(opt + " " + v + " is not a whole number >= " + std::to_string(minimum));
            }
            (opt == "--warmup"      ? a.warmup
             : opt == "--iters"     ? a.iters
             : opt == "--events-fd" ? a.eventsFd
                                    : a.threads) = n;
        } else if (opt == "--prior-phase") {
            if (!value(v)) {
                return r;
            }
            const auto eq = v.find('=');
            double seconds = 0;
            if (eq == std::string::npos || eq == 0 || !parseSeconds(v.substr(eq + 1), seconds)) {
                return fail("--prior-phase " + v + " is not NAME=SECONDS (seconds >= 0)");
            }
            a.priorPhases.emplace_back(v.substr(0, eq), seconds);
        } else {
            return fail("unknown argument " + argv[i]);
        }
    }
    if (!a.version) {
        if (a.package.empty()) {
            return fail("--package FILE.pt2 is required");
        }
        if (a.inputs.empty()) {
            return fail("--inputs FILE.pt is required");
        }
        if (a.device.empty()) {
            return fail("--device cpu|cuda|cuda:N is required");
        }
        if (!a.cupti.empty() && a.device == "cpu") {
            return fail("--cupti is for CUDA devices only");
        }
    }
    r.args = a;
    return r;
}

} // namespace cs::aoti
