// Text widths for node labels, measured once on the GUI thread and then used
// by layout threads: a table of advances for ASCII (FX names and targets are
// ASCII) is exact enough for box sizes and costs nothing per node.
#pragma once

#include <QFont>
#include <QString>

#include <array>
#include <string_view>

namespace cs::widgets {

class LabelMetrics {
  public:
    LabelMetrics() = default;
    explicit LabelMetrics(const QFont& font);

    double width(std::string_view text) const;
    double width(const QString& text) const;
    double lineHeight() const { return lineHeight_; }
    const QFont& font() const { return font_; }

  private:
    QFont font_;
    std::array<double, 128> advance_{};
    double wide_ = 7; // any other character
    double lineHeight_ = 14;
};

} // namespace cs::widgets
