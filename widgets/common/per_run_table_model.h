// A table with one row per run of the document, kept in step with it: reset
// with a new report, a row repainted when its run changes. Subclasses say what
// the columns hold.
#pragma once

#include <QAbstractTableModel>

namespace cs::widgets {

class ReportDocument;

class PerRunTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    PerRunTableModel(ReportDocument* document, int columns, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;

  protected:
    ReportDocument* document_;

  private:
    int columns_;
};

} // namespace cs::widgets
