// A small inline-SVG chart for the HTML report: two axes with labels, units
// and "nice" ticks (linear or log), and primitives placed in data coordinates
// (lines, markers, rectangles, segments, shaded x bands). Every text is escaped.
// Long lines are thinned to a min/max envelope per pixel column, so a 100,000
// iteration run stays a few kilobytes and keeps its spikes.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cs::core::html {

enum class AxisUnit {
    Plain,      // a count or ratio
    DurationNs, // values in ns, labelled "1.2 ms"
    Seconds,    // values in s, labelled like durations
    Bytes,      // labelled "12 MiB"
};

struct AxisSpec {
    std::string label; // what the axis shows, unit included where ticks don't say it
    AxisUnit unit = AxisUnit::Plain;
    bool log = false;
    bool includeZero = true; // linear axes start at 0 unless told otherwise
};

using Point = std::pair<double, double>;

class SvgChart {
  public:
    explicit SvgChart(std::string title, double width = 760, double height = 280);

    void setXAxis(AxisSpec spec) { x_ = std::move(spec); }
    void setYAxis(AxisSpec spec) { y_ = std::move(spec); }
    // Named rows on the y axis: row i is centred at y = i, top to bottom.
    void setYCategories(std::vector<std::string> labels);

    void addLine(const std::string& name, const std::string& color, std::vector<Point> points,
                 bool markers = false, const std::vector<std::string>& markerTips = {});
    void addRect(double x0, double y0, double x1, double y1, const std::string& color,
                 std::string tip, double opacity = 1.0);
    void addSegment(Point from, Point to, const std::string& color, double width = 1.5,
                    std::string tip = {});
    void addBand(double x0, double x1, std::string label);
    // A triangle pointing down at a point of a line: an event on it (a recompile).
    void addMarker(Point at, const std::string& color, std::string tip);
    void addLegend(std::string name, std::string color);

    bool empty() const;
    // The <svg> element followed by its legend (HTML).
    std::string render() const;

  private:
    struct Line {
        std::string name, color;
        std::vector<Point> points;
        bool markers;
        std::vector<std::string> tips;
    };
    struct Rect {
        double x0, y0, x1, y1;
        std::string color, tip;
        double opacity;
    };
    struct Segment {
        Point from, to;
        std::string color;
        double width;
        std::string tip;
    };
    struct Band {
        double x0, x1;
        std::string label;
    };
    struct Marker {
        Point at;
        std::string color, tip;
    };

    std::string title_;
    double width_, height_;
    AxisSpec x_, y_;
    std::vector<std::string> categories_;
    std::vector<Line> lines_;
    std::vector<Rect> rects_;
    std::vector<Segment> segments_;
    std::vector<Band> bands_;
    std::vector<Marker> markers_;
    std::vector<std::pair<std::string, std::string>> legend_;
};

// Tick positions for an axis range (exposed for tests).
std::vector<double> linearTicks(double low, double high, AxisUnit unit, int target = 5);
std::vector<double> logTicks(double low, double high);
std::string axisValueText(double value, AxisUnit unit);

} // namespace cs::core::html
