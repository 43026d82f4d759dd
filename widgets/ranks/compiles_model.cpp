#include "widgets/ranks/compiles_model.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

#include "core/analysis/units.h"
#include "core/report/session.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

namespace {

// "0/12" sorts after "0/2": frame, then attempt, then restart ("0/0_1").
qint64 compileIdKey(const std::string& id) {
    qint64 frame = 0, attempt = 0, restart = 0;
    const QString text = QString::fromStdString(id);
    const auto parts = text.split('/');
    frame = parts.value(0).toLongLong();
    const auto rest = parts.value(1).split('_');
    attempt = rest.value(0).toLongLong();
    restart = rest.value(1).toLongLong();
    return (frame * 100000 + attempt) * 1000 + restart;
}

double phaseSeconds(const core::CompileRecord& c, const std::string& name) {
    for (const auto& p : c.phases) {
        if (p.name == name)
            return p.seconds;
    }
    return 0;
}

QString seconds(double s) {
    return s > 0 ? QString::fromStdString(core::formatDuration(s * 1e9)) : QString();
}

} // namespace

CompilesModel::CompilesModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompilesModel::showRun(const core::Run* run) {
    beginResetModel();
    run_ = run;
    phases_.clear();
    cache_.clear();
    missed_.clear();
    if (run_) {
        for (const auto& c : run_->compiles) {
            for (const auto& p : c.phases) {
                if (std::find(phases_.begin(), phases_.end(), p.name) == phases_.end())
                    phases_.push_back(p.name);
            }
            QStringList answers;
            bool missed = false;
            for (const auto& l : run_->cacheLookups) {
                if (l.compileId != c.compileId)
                    continue;
                answers << QString::fromStdString(l.cache + " " + l.outcome);
                missed = missed || l.outcome != "hit";
            }
            cache_.push_back(answers.join(", "));
            missed_.push_back(missed);
        }
    }
    endResetModel();
}

int CompilesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !run_ ? 0 : static_cast<int>(run_->compiles.size());
}

int CompilesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : cacheColumn() + 1;
}

QVariant CompilesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case CompileId:
            return tr("compile");
        case Function:
            return tr("function");
        case Where:
            return tr("file:line");
        case Time:
            return tr("time");
        default:
            break;
        }
        if (section < failColumn())
            return QString::fromStdString(phases_[static_cast<size_t>(section - FirstPhase)]);
        if (section == failColumn())
            return tr("failure");
        if (section == restartsColumn())
            return tr("restarts");
        return tr("cache");
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case CompileId:
            return tr("torch's compile id: frame/attempt; _N after it is the Nth restart");
        case Time:
            return tr("entire_frame_compile_time_s of the compile");
        default:
            break;
        }
        if (section < failColumn())
            return tr("Seconds of this compile phase (torch's compilation_metrics)");
        if (section == failColumn())
            return tr("Why the compile failed: fail_type and fail_reason");
        if (section == restartsColumn())
            return tr("Times torch restarted the analysis of this frame; hover for why");
        return tr("What the FX graph and AOTAutograd caches answered");
    }
    return {};
}

QVariant CompilesModel::display(int row, int column) const {
    const core::CompileRecord& c = run_->compiles[static_cast<size_t>(row)];
    switch (column) {
    case CompileId:
        return QString::fromStdString(c.compileId);
    case Function:
        return QString::fromStdString(c.function);
    case Where:
        if (c.file.empty())
            return {};
        return QString::fromStdString(c.file) + (c.line > 0 ? ":" + QString::number(c.line) : "");
    case Time:
        return seconds(c.seconds);
    default:
        break;
    }
    if (column < failColumn())
        return seconds(phaseSeconds(c, phases_[static_cast<size_t>(column - FirstPhase)]));
    if (column == failColumn()) {
        if (c.failType.empty())
            return {};
        return QString::fromStdString(c.failType + (c.failReason.empty() ? "" : ": ") +
                                      c.failReason)
            .section('\n', 0, 0);
    }
    if (column == restartsColumn())
        return c.restartReasons.empty() ? QVariant() : QVariant(int(c.restartReasons.size()));
    return cache_[static_cast<size_t>(row)];
}

QVariant CompilesModel::sortValue(int row, int column) const {
    const core::CompileRecord& c = run_->compiles[static_cast<size_t>(row)];
    if (column == CompileId)
        return compileIdKey(c.compileId);
    if (column == Time)
        return c.seconds;
    if (column >= FirstPhase && column < failColumn())
        return phaseSeconds(c, phases_[static_cast<size_t>(column - FirstPhase)]);
    if (column == restartsColumn())
        return int(c.restartReasons.size());
    return display(row, column);
}

QString CompilesModel::toolTip(int row, int column) const {
    const core::CompileRecord& c = run_->compiles[static_cast<size_t>(row)];
    if (column == Where || column == Function)
        return QString::fromStdString(c.file) + (c.line > 0 ? ":" + QString::number(c.line) : "");
    if (column == failColumn() && !c.failType.empty())
        return QString::fromStdString(c.failType + "\n" + c.failReason);
    if (column == restartsColumn() && !c.restartReasons.empty()) {
        QStringList reasons;
        for (const auto& r : c.restartReasons)
            reasons << QString::fromStdString(r);
        return reasons.join("\n");
    }
    if (column == CompileId && !c.recompileReason.empty())
        return tr("Recompiled: %1").arg(QString::fromStdString(c.recompileReason));
    if (column == cacheColumn()) {
        QStringList reasons;
        for (const auto& l : run_->cacheLookups) {
            if (l.compileId == c.compileId && !l.reason.empty())
                reasons << QString::fromStdString(l.cache + ": " + l.reason);
        }
        return reasons.join("\n");
    }
    return {};
}

QVariant CompilesModel::data(const QModelIndex& index, int role) const {
    if (!run_ || index.row() < 0 || index.row() >= rowCount() || index.column() < 0 ||
        index.column() >= columnCount())
        return {};
    const int row = index.row(), column = index.column();
    const core::CompileRecord& c = run_->compiles[static_cast<size_t>(row)];
    switch (role) {
    case Qt::DisplayRole:
        return display(row, column);
    case SortRole:
        return sortValue(row, column);
    case Qt::ToolTipRole:
        return toolTip(row, column);
    case Qt::ForegroundRole:
        if ((column == failColumn() && !c.failType.empty()) ||
            (column == cacheColumn() && missed_[static_cast<size_t>(row)]))
            return QBrush(QColor("#c0392b"));
        return {};
    case Qt::TextAlignmentRole:
        return column == Time || (column >= FirstPhase && column <= restartsColumn() &&
                                  column != failColumn())
                   ? int(Qt::AlignRight | Qt::AlignVCenter)
                   : int(Qt::AlignLeft | Qt::AlignVCenter);
    default:
        return {};
    }
}

} // namespace cs::widgets
