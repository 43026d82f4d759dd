// The recompiles of one run: the function, the guard that failed, the cache
// size reached, the input shapes of the call that caused it and which call
// that was. A hit of the
// recompile limit is a row of its own, marked, with what it means.
#pragma once

#include <QAbstractTableModel>

namespace cs::widgets {

class ReportDocument;

class RecompilesModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Function, Reason, CacheSize, Inputs, When, ColumnCount };

    explicit RecompilesModel(ReportDocument* document, QObject* parent = nullptr);

    int run() const { return run_; }
    bool hasLimitHit() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    void rebuild();

    ReportDocument* document_;
    int run_ = -1;
    int rows_ = 0;
};

} // namespace cs::widgets
