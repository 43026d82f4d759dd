#include "widgets/graph/label_metrics.h"

#include <QFontMetricsF>

namespace cs::widgets {

LabelMetrics::LabelMetrics(const QFont& font) : font_(font) {
    const QFontMetricsF metrics(font);
    for (size_t c = 32; c < advance_.size(); ++c)
        advance_[c] = metrics.horizontalAdvance(QChar(static_cast<char16_t>(c)));
    wide_ = metrics.horizontalAdvance(QChar(u'M'));
    lineHeight_ = metrics.height();
}

double LabelMetrics::width(std::string_view text) const {
    double total = 0;
    for (unsigned char c : text) {
        if (c >= 0x80 && c < 0xc0)
            continue; // UTF-8 continuation byte: counted with its lead byte
        total += c < advance_.size() && c >= 32 ? advance_[c] : wide_;
    }
    return total;
}

double LabelMetrics::width(const QString& text) const {
    double total = 0;
    for (QChar c : text) {
        const char16_t u = c.unicode();
        total += u < advance_.size() && u >= 32 ? advance_[u] : wide_;
    }
    return total;
}

} // namespace cs::widgets
