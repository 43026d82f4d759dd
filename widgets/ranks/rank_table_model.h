// The ranks of an imported TORCH_TRACE log, one row each (core::compareRanks):
// cells where a rank diverges from the others are tinted, their tooltip says why.
#pragma once

#include <QAbstractTableModel>

#include "core/analysis/rank_divergence.h"

namespace cs::widgets {

class ReportDocument;

class RankTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Rank,
        Compiles,
        Graphs,
        Breaks,
        Recompiles,
        CompileTime,
        CacheHits,
        CacheMisses,
        CacheBypasses,
        Failures,
        Restarts,
        ColumnCount
    };
    // True for a cell where the rank diverges from the others.
    static constexpr int DivergentRole = Qt::UserRole + 2;

    explicit RankTableModel(ReportDocument* document, QObject* parent = nullptr);

    const core::RankComparison& comparison() const { return ranks_; }
    // Index into Report::runs of a row; -1 when out of range.
    int runAt(int row) const;
    int rowOfRun(int run) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  public slots:
    void rebuild();

  private:
    QString why(const core::RankRow& row, int column) const;

    ReportDocument* document_;
    core::RankComparison ranks_;
};

} // namespace cs::widgets
