// The compiles of one imported rank (Run::compiles): compile id, function,
// place, time and its phases (one column per phase the rank's compiles name),
// failure, restarts and the compile caches' answers.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <string>
#include <vector>

namespace cs::core {
struct Run;
}

namespace cs::widgets {

class CompilesModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { CompileId, Function, Where, Time, FirstPhase };

    explicit CompilesModel(QObject* parent = nullptr);

    // Not owned; null shows nothing. Call again when the run changed.
    void showRun(const core::Run* run);
    const core::Run* run() const { return run_; }
    // The columns after the phases.
    int failColumn() const { return FirstPhase + static_cast<int>(phases_.size()); }
    int restartsColumn() const { return failColumn() + 1; }
    int cacheColumn() const { return failColumn() + 2; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    QVariant display(int row, int column) const;
    QVariant sortValue(int row, int column) const;
    QString toolTip(int row, int column) const;

    const core::Run* run_ = nullptr;
    std::vector<std::string> phases_;
    std::vector<QString> cache_; // per compile: "fx_graph hit, aotautograd miss"
    std::vector<bool> missed_;   // per compile: a lookup missed or bypassed
};

} // namespace cs::widgets
