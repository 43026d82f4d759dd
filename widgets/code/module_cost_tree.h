// The Code tab's Modules view: the model's nn.Module tree with each module's
// share of the compiled kernels' time (core::CostBreakdown::modules), and the
// time its ops ran uncompiled, after a graph break, where there was any. A model
// built of containers spends most of its time on the one line that calls one;
// its modules still tell the layers apart.
#pragma once

#include <QTreeWidget>

#include <vector>

#include "core/analysis/kernel_cost.h"

namespace cs::widgets {

class ModuleCostTree : public QTreeWidget {
    Q_OBJECT
  public:
    enum Column { Module, Compiled, Share, Self, Eager, Kernels, ColumnCount };

    explicit ModuleCostTree(QWidget* parent = nullptr);
    // Refills the tree, keeping which modules the user expanded or collapsed
    // when the rows are another refresh of the same run.
    void setModules(const std::vector<core::ModuleCostRow>& modules);

  signals:
    // The user made a module current: its path ("" the model itself). Not
    // sent for the "no module" row.
    void moduleSelected(const QString& path);

  private:
    bool refilling_ = false; // a refill's current-item changes are not the user's
};

} // namespace cs::widgets
