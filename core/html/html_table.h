// Builds an HTML table cell by cell: text cells are always escaped; only
// markup made by the report's own code goes in unescaped (html()).
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace cs::core::html {

struct Column {
    Column(std::string title, bool left = false, std::string tip = {})
        : title(std::move(title)), left(left), tip(std::move(tip)) {}
    std::string title;
    bool left = false; // text columns align left, numbers right
    std::string tip;   // explains the column on hover
};

class HtmlTable {
  public:
    explicit HtmlTable(std::vector<Column> columns, std::string_view cssClass = {});

    void beginRow(std::string_view cssClass = {});
    void text(std::string_view text, std::string_view tip = {}, std::string_view cssClass = {});
    void html(std::string_view markup, std::string_view cssClass = {});
    // One cell across every column (an error under its row).
    void wide(std::string_view markup, std::string_view cssClass = {});
    size_t rows() const { return rows_; }
    std::string str(); // closes the table

  private:
    void open(std::string_view cssClass, std::string_view tip, size_t span);
    void closeRow();

    std::vector<Column> columns_;
    std::ostringstream out_;
    size_t cell_ = 0;
    size_t rows_ = 0;
    bool inRow_ = false;
};

} // namespace cs::core::html
