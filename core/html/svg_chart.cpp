#include "core/html/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/analysis/units.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

std::string num(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
}

double niceStep(double raw) {
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double normal = raw / magnitude;
    const double nice = normal < 1.5 ? 1 : normal < 3 ? 2 : normal < 7 ? 5 : 10;
    return nice * magnitude;
}

struct Range {
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    void add(double v, bool log) {
        if (!std::isfinite(v) || (log && v <= 0))
            return;
        low = std::min(low, v);
        high = std::max(high, v);
    }
    bool valid() const { return low <= high; }
};

// Maps data values to pixels along one axis.
struct Scale {
    double low = 0, high = 1; // data range (log: exponents)
    double from = 0, to = 1;  // pixel range
    bool log = false;
    double operator()(double v) const {
        const double d = log ? std::log10(std::max(v, 1e-300)) : v;
        return from + (d - low) / (high - low) * (to - from);
    }
};

} // namespace

std::vector<double> linearTicks(double low, double high, AxisUnit unit, int target) {
    if (!(high > low))
        high = low + 1;
    double base = 1;
    if (unit == AxisUnit::Bytes) {
        // Steps in whole KiB, MiB or GiB read better than decimal bytes.
        while (base * 1024 <= (high - low) / 2)
            base *= 1024;
    }
    const double step = niceStep((high - low) / base / std::max(target, 1)) * base;
    std::vector<double> ticks;
    const double first = std::floor(low / step) * step;
    for (double t = first; t <= high + step * 1e-9 || ticks.size() < 2; t += step) {
        ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
        if (ticks.size() > 64)
            break;
    }
    if (ticks.back() < high - step * 1e-9)
        ticks.push_back(ticks.back() + step);
    return ticks;
}

std::vector<double> logTicks(double low, double high) {
    const int lo = static_cast<int>(std::floor(std::log10(low)));
    int hi = static_cast<int>(std::ceil(std::log10(high)));
    if (hi <= lo)
        hi = lo + 1;
    std::vector<double> ticks;
    const bool fine = hi - lo <= 2;
    for (int e = lo; e <= hi; ++e) {
        const double p = std::pow(10.0, e);
        ticks.push_back(p);
        if (fine && e < hi) {
            ticks.push_back(2 * p);
            ticks.push_back(5 * p);
        }
    }
    return ticks;
}

std::string axisValueText(double value, AxisUnit unit) {
    switch (unit) {
    case AxisUnit::DurationNs:
        return value == 0 ? "0" : formatDuration(value);
    case AxisUnit::Seconds:
        return value == 0 ? "0" : formatDuration(value * 1e9);
    case AxisUnit::Bytes:
        return value == 0 ? "0" : formatBytes(value);
    case AxisUnit::Plain:
        break;
    }
    char text[32];
    if (std::abs(value - std::round(value)) < 1e-9 && std::abs(value) < 1e15)
        std::snprintf(text, sizeof text, "%.0f", value);
    else
        std::snprintf(text, sizeof text, "%.3g", value);
    return text;
}

SvgChart::SvgChart(std::string title, double width, double height)
    : title_(std::move(title)), width_(width), height_(height) {}

void SvgChart::setYCategories(std::vector<std::string> labels) {
    categories_ = std::move(labels);
}

void SvgChart::addLine(const std::string& name, const std::string& color, std::vector<Point> points,
                       bool markers, const std::vector<std::string>& markerTips) {
    lines_.push_back({name, color, std::move(points), markers, markerTips});
}

void SvgChart::addRect(double x0, double y0, double x1, double y1, const std::string& color,
                       std::string tip, double opacity) {
    rects_.push_back({x0, y0, x1, y1, color, std::move(tip), opacity});
}

void SvgChart::addSegment(Point from, Point to, const std::string& color, double width,
                          std::string tip) {
    segments_.push_back({from, to, color, width, std::move(tip)});
}

void SvgChart::addBand(double x0, double x1, std::string label) {
    bands_.push_back({x0, x1, std::move(label)});
}

void SvgChart::addMarker(Point at, const std::string& color, std::string tip) {
    markers_.push_back({at, color, std::move(tip)});
}

void SvgChart::addLegend(std::string name, std::string color) {
    legend_.emplace_back(std::move(name), std::move(color));
}

bool SvgChart::empty() const {
    const bool noLines =
        std::all_of(lines_.begin(), lines_.end(), [](const Line& l) { return l.points.empty(); });
    return noLines && rects_.empty() && segments_.empty();
}

std::string SvgChart::render() const {
    Range xr, yr;
    for (const auto& l : lines_) {
        for (const auto& [x, y] : l.points) {
            xr.add(x, x_.log);
            yr.add(y, y_.log);
        }
    }
    for (const auto& r : rects_) {
        xr.add(r.x0, x_.log), xr.add(r.x1, x_.log);
        yr.add(r.y0, y_.log), yr.add(r.y1, y_.log);
    }
    for (const auto& s : segments_) {
        xr.add(s.from.first, x_.log), xr.add(s.to.first, x_.log);
        yr.add(s.from.second, y_.log), yr.add(s.to.second, y_.log);
    }
    for (const auto& b : bands_)
        xr.add(b.x0, x_.log), xr.add(b.x1, x_.log);
    for (const auto& m : markers_)
        xr.add(m.at.first, x_.log), yr.add(m.at.second, y_.log);
    if (!xr.valid() || (!yr.valid() && categories_.empty()))
        return "<p class=\"empty\">" + htmlEscape(title_) + ": nothing to chart.</p>";

    size_t longest = 0;
    for (const auto& c : categories_)
        longest = std::max(longest, c.size());
    const double left = categories_.empty()
                            ? 84
                            : std::clamp(12.0 + 6.6 * static_cast<double>(longest), 60.0, 240.0);
    const double right = 18, top = bands_.empty() ? 12 : 34, bottom = 46;
    const double plotW = width_ - left - right, plotH = height_ - top - bottom;

    auto axisRange = [](Range r, const AxisSpec& spec, std::vector<double>& ticks) {
        if (spec.log) {
            ticks = logTicks(r.low, r.high);
            return std::pair{std::log10(ticks.front()), std::log10(ticks.back())};
        }
        if (spec.includeZero)
            r.low = std::min(r.low, 0.0), r.high = std::max(r.high, 0.0);
        ticks = linearTicks(r.low, r.high, spec.unit);
        return std::pair{ticks.front(), ticks.back()};
    };
    std::vector<double> xTicks, yTicks;
    const auto [xLow, xHigh] = axisRange(xr, x_, xTicks);
    Scale sx{xLow, xHigh, left, left + plotW, x_.log};
    Scale sy;
    if (categories_.empty()) {
        const auto [yLow, yHigh] = axisRange(yr, y_, yTicks);
        sy = {yLow, yHigh, top + plotH, top, y_.log};
    } else {
        const double n = static_cast<double>(categories_.size());
        sy = {-0.5, n - 0.5, top, top + plotH, false};
    }

    std::ostringstream svg;
    svg << "<figure class=\"chart\"><svg viewBox=\"0 0 " << num(width_) << " " << num(height_)
        << "\" role=\"img\" aria-label=\"" << htmlEscape(title_) << "\"><title>"
        << htmlEscape(title_) << "</title>";
    // Band labels go on one of two rows above the plot; one that fits on neither is left to the
    // hover title.
    double rowEnd[2] = {-1e9, -1e9};
    for (const auto& b : bands_) {
        const double x0 = sx(b.x0), x1 = sx(b.x1);
        svg << "<rect class=\"band\" x=\"" << num(x0) << "\" y=\"" << num(top) << "\" width=\""
            << num(std::max(x1 - x0, 0.5)) << "\" height=\"" << num(plotH) << "\"><title>"
            << htmlEscape(b.label) << "</title></rect>";
        const double half = 3.0 * static_cast<double>(b.label.size()) + 2;
        const double centre = std::clamp((x0 + x1) / 2, left + half, left + plotW - half);
        for (int row = 0; row < 2; ++row) {
            if (centre - half < rowEnd[row])
                continue;
            rowEnd[row] = centre + half;
            svg << "<text class=\"bandlabel\" x=\"" << num(centre) << "\" y=\""
                << num(top - 4 - 11 * row) << "\" text-anchor=\"middle\">" << htmlEscape(b.label)
                << "</text>";
            break;
        }
    }
    for (double t : xTicks) {
        const double x = sx(t);
        svg << "<line class=\"grid\" x1=\"" << num(x) << "\" x2=\"" << num(x) << "\" y1=\""
            << num(top) << "\" y2=\"" << num(top + plotH) << "\"/><text x=\"" << num(x) << "\" y=\""
            << num(top + plotH + 15) << "\" text-anchor=\"middle\">"
            << htmlEscape(axisValueText(t, x_.unit)) << "</text>";
    }
    if (categories_.empty()) {
        for (double t : yTicks) {
            const double y = sy(t);
            svg << "<line class=\"grid\" x1=\"" << num(left) << "\" x2=\"" << num(left + plotW)
                << "\" y1=\"" << num(y) << "\" y2=\"" << num(y) << "\"/><text x=\"" << num(left - 6)
                << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
                << htmlEscape(axisValueText(t, y_.unit)) << "</text>";
        }
    } else {
        for (size_t i = 0; i < categories_.size(); ++i) {
            svg << "<text x=\"" << num(left - 6) << "\" y=\"" << num(sy(static_cast<double>(i)) + 4)
                << "\" text-anchor=\"end\">" << htmlEscape(categories_[i]) << "</text>";
        }
    }
    svg << "<line class=\"axis\" x1=\"" << num(left) << "\" x2=\"" << num(left + plotW)
        << "\" y1=\"" << num(top + plotH) << "\" y2=\"" << num(top + plotH)
        << "\"/><line class=\"axis\" x1=\"" << num(left) << "\" x2=\"" << num(left) << "\" y1=\""
        << num(top) << "\" y2=\"" << num(top + plotH) << "\"/>";
    svg << "<text class=\"axislabel\" x=\"" << num(left + plotW / 2) << "\" y=\""
        << num(height_ - 6) << "\" text-anchor=\"middle\">" << htmlEscape(x_.label) << "</text>";
    if (categories_.empty()) {
        svg << "<text class=\"axislabel\" transform=\"translate(14 " << num(top + plotH / 2)
            << ") rotate(-90)\" text-anchor=\"middle\">" << htmlEscape(y_.label) << "</text>";
    }

    for (const auto& r : rects_) {
        const double x0 = sx(std::min(r.x0, r.x1)), x1 = sx(std::max(r.x0, r.x1));
        const double ya = sy(r.y0), yb = sy(r.y1);
        svg << "<rect x=\"" << num(x0) << "\" y=\"" << num(std::min(ya, yb)) << "\" width=\""
            << num(std::max(x1 - x0, 0.5)) << "\" height=\""
            << num(std::max(std::abs(yb - ya), 0.5)) << "\" fill=\"" << htmlEscape(r.color) << "\"";
        if (r.opacity < 1)
            svg << " fill-opacity=\"" << r.opacity << "\"";
        svg << "><title>" << htmlEscape(r.tip) << "</title></rect>";
    }
    for (const auto& s : segments_) {
        svg << "<line x1=\"" << num(sx(s.from.first)) << "\" y1=\"" << num(sy(s.from.second))
            << "\" x2=\"" << num(sx(s.to.first)) << "\" y2=\"" << num(sy(s.to.second))
            << "\" stroke=\"" << htmlEscape(s.color) << "\" stroke-width=\"" << num(s.width)
            << "\">";
        if (!s.tip.empty())
            svg << "<title>" << htmlEscape(s.tip) << "</title>";
        svg << "</line>";
    }
    for (const auto& l : lines_) {
        std::vector<Point> screen;
        screen.reserve(l.points.size());
        for (const auto& [x, y] : l.points) {
            if ((x_.log && x <= 0) || (y_.log && y <= 0) || !std::isfinite(x) || !std::isfinite(y))
                continue;
            screen.emplace_back(sx(x), sy(y));
        }
        if (screen.empty())
            continue;
        std::vector<Point> drawn;
        if (screen.size() > 2 * static_cast<size_t>(plotW)) {
            // Thin to the lowest and highest point per pixel column, in order.
            size_t i = 0;
            while (i < screen.size()) {
                const double column = std::floor(screen[i].first);
                size_t lo = i, hi = i, j = i;
                for (; j < screen.size() && std::floor(screen[j].first) == column; ++j) {
                    if (screen[j].second < screen[hi].second)
                        hi = j; // smaller pixel y = higher value
                    if (screen[j].second > screen[lo].second)
                        lo = j;
                }
                drawn.push_back(screen[std::min(lo, hi)]);
                if (lo != hi)
                    drawn.push_back(screen[std::max(lo, hi)]);
                i = j;
            }
        } else {
            drawn = screen;
        }
        svg << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" << htmlEscape(l.color)
            << "\" points=\"";
        for (const auto& [x, y] : drawn)
            svg << num(x) << "," << num(y) << " ";
        svg << "\"><title>" << htmlEscape(l.name) << "</title></polyline>";
        if (l.markers && screen.size() <= 400) {
            for (size_t i = 0; i < screen.size(); ++i) {
                svg << "<circle r=\"2.6\" cx=\"" << num(screen[i].first) << "\" cy=\""
                    << num(screen[i].second) << "\" fill=\"" << htmlEscape(l.color) << "\"><title>"
                    << htmlEscape(i < l.tips.size() ? l.tips[i] : l.name) << "</title></circle>";
            }
        }
    }
    for (const auto& m : markers_) {
        const auto [x, y] = m.at;
        if ((x_.log && x <= 0) || (y_.log && y <= 0) || !std::isfinite(x) || !std::isfinite(y))
            continue;
        const double px = sx(x), py = sy(y);
        // Its tip on the point, drawn above it, outlined so it reads over the line.
        svg << "<polygon class=\"marker\" points=\"" << num(px) << "," << num(py) << " "
            << num(px - 5) << "," << num(py - 9) << " " << num(px + 5) << "," << num(py - 9)
            << "\" fill=\"" << htmlEscape(m.color)
            << "\" stroke=\"#222\" stroke-width=\"1\"><title>" << htmlEscape(m.tip)
            << "</title></polygon>";
    }
    svg << "</svg>";
    if (!legend_.empty()) {
        svg << "<figcaption class=\"legend\">";
        for (const auto& [name, color] : legend_)
            svg << "<span><i style=\"background:" << htmlEscape(color) << "\"></i>"
                << htmlEscape(name) << "</span>";
        svg << "</figcaption>";
    }
    svg << "</figure>";
    return svg.str();
}

} // namespace cs::core::html
