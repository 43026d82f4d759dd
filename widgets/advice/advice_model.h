// One row per finding of the report on screen, most severe first. Recomputes
// the findings when the report or the advice options change (coalesced while
// a session runs: advice is cheap, but events arrive many times a second).
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "core/advice/advice.h"
#include "widgets/common/refresh_throttle.h"

namespace cs::widgets {

class ReportDocument;

class AdviceModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Severity, Finding, Where, Setting, Confidence, ColumnCount };

    explicit AdviceModel(ReportDocument* document, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    const std::vector<core::Finding>& findings() const { return findings_; }
    const core::Finding* finding(int row) const;
    // Recompute now (the live path waits a moment to batch updates).
    void refresh();

  signals:
    void refreshed();

  private:
    ReportDocument* document_;
    std::vector<core::Finding> findings_;
    RefreshThrottle throttle_{300};
};

} // namespace cs::widgets
