#include "core/html/html_table.h"

#include "core/html/report_html.h"

namespace cs::core::html {

HtmlTable::HtmlTable(std::vector<Column> columns, std::string_view cssClass)
    : columns_(std::move(columns)) {
    out_ << "<div class=\"tablewrap\"><table";
    if (!cssClass.empty())
        out_ << " class=\"" << htmlEscape(cssClass) << "\"";
    out_ << ">";
    // A key-value table has no column titles: no empty header row either.
    bool titled = false;
    for (const auto& c : columns_)
        titled |= !c.title.empty();
    if (titled) {
        out_ << "<thead><tr>";
        for (const auto& c : columns_) {
            out_ << "<th" << (c.left ? " class=\"l\"" : "");
            if (!c.tip.empty())
                out_ << " title=\"" << htmlEscape(c.tip) << "\"";
            out_ << ">" << htmlEscape(c.title) << "</th>";
        }
        out_ << "</tr></thead>";
    }
    out_ << "<tbody>";
}

void HtmlTable::closeRow() {
    if (!inRow_)
        return;
    for (; cell_ < columns_.size(); ++cell_)
        out_ << "<td></td>";
    out_ << "</tr>";
    inRow_ = false;
}

void HtmlTable::beginRow(std::string_view cssClass) {
    closeRow();
    out_ << "<tr";
    if (!cssClass.empty())
        out_ << " class=\"" << htmlEscape(cssClass) << "\"";
    out_ << ">";
    cell_ = 0;
    inRow_ = true;
    ++rows_;
}

void HtmlTable::open(std::string_view cssClass, std::string_view tip, size_t span) {
    if (!inRow_)
        beginRow();
    const bool left = span == 1 && cell_ < columns_.size() && columns_[cell_].left;
    std::string classes = left ? "l" : "";
    if (!cssClass.empty())
        classes += (classes.empty() ? "" : " ") + std::string(cssClass);
    out_ << "<td";
    if (span > 1)
        out_ << " colspan=\"" << span << "\"";
    if (!classes.empty())
        out_ << " class=\"" << htmlEscape(classes) << "\"";
    if (!tip.empty())
        out_ << " title=\"" << htmlEscape(tip) << "\"";
    out_ << ">";
    cell_ += span;
}

void HtmlTable::text(std::string_view text, std::string_view tip, std::string_view cssClass) {
    open(cssClass, tip, 1);
    out_ << htmlEscape(text) << "</td>";
}

void HtmlTable::html(std::string_view markup, std::string_view cssClass) {
    open(cssClass, {}, 1);
    out_ << markup << "</td>";
}

void HtmlTable::wide(std::string_view markup, std::string_view cssClass) {
    beginRow();
    std::string classes = "l";
    if (!cssClass.empty())
        classes += " " + std::string(cssClass);
    open(classes, {}, columns_.size());
    out_ << markup << "</td>";
}

std::string HtmlTable::str() {
    closeRow();
    return out_.str() + "</tbody></table></div>";
}

} // namespace cs::core::html
