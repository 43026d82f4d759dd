// A read-only table of prepared cells: the Code tab's tables (kernels, lines,
// the two comparisons) fill rows of text, a raw value to sort by and a tooltip,
// so each table is a function of the core rows and not a model class.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <QVariant>

#include <utility>
#include <vector>

namespace cs::widgets {

struct Cell {
    Cell() = default;
    Cell(QString text, QVariant sort = {}, QString tip = {}, bool number = false, bool bold = false)
        : text(std::move(text)), sort(std::move(sort)), tip(std::move(tip)), number(number),
          bold(bold) {}
    QString text;
    QVariant sort; // the raw value (a number); empty: sort by text
    QString tip;   // empty: the text
    bool number = false;
    bool bold = false;
};

// A share of the compiled time as the Code tab shows it: "6.61 %", "12.5 %".
QString shareText(double share);

class CellTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    CellTableModel(const QStringList& headers, const QStringList& tips, QObject* parent = nullptr);

    void setRows(std::vector<std::vector<Cell>> rows);
    const Cell* cell(int row, int column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    QStringList headers_;
    QStringList tips_;
    std::vector<std::vector<Cell>> rows_;
};

} // namespace cs::widgets
