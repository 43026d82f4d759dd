#include "widgets/advice/advice_model.h"

#include <QApplication>
#include <QStyle>

#include "core/advice/advice_text.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

namespace {

QIcon severityIcon(core::Severity severity) {
    auto* style = QApplication::style();
    switch (severity) {
    case core::Severity::Critical:
        return style->standardIcon(QStyle::SP_MessageBoxCritical);
    case core::Severity::Warning:
        return style->standardIcon(QStyle::SP_MessageBoxWarning);
    case core::Severity::Info:
        return style->standardIcon(QStyle::SP_MessageBoxInformation);
    }
    return {};
}

} // namespace

AdviceModel::AdviceModel(ReportDocument* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
    connect(&throttle_, &RefreshThrottle::due, this, &AdviceModel::refresh);
    connect(document_, &ReportDocument::reportReset, this, &AdviceModel::refresh);
    connect(document_, &ReportDocument::adviceOptionsChanged, this, &AdviceModel::refresh);
    connect(document_, &ReportDocument::runChanged, &throttle_, &RefreshThrottle::request);
    refresh();
}

void AdviceModel::refresh() {
    throttle_.cancel();
    auto findings = core::advise(document_->report(), document_->adviceOptions());
    if (findings == findings_)
        return;
    beginResetModel();
    findings_ = std::move(findings);
    endResetModel();
    emit refreshed();
}

const core::Finding* AdviceModel::finding(int row) const {
    if (row < 0 || row >= static_cast<int>(findings_.size()))
        return nullptr;
    return &findings_[static_cast<size_t>(row)];
}

int AdviceModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(findings_.size());
}

int AdviceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AdviceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* names[] = {"severity", "finding", "where", "setting", "confidence"};
    static const char* severityTip = "critical: a setting failed or fell back to eager; "
                                     "warning: costs speed or memory; info: worth knowing";
    static const char* tips[] = {
        severityTip, "What was found, in one line", "The line of your code it rests on",
        "The setting whose run shows it", "How sure the rule is of its reading of the evidence"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

QVariant AdviceModel::data(const QModelIndex& index, int role) const {
    const core::Finding* f = finding(index.row());
    if (!f)
        return {};
    const auto column = static_cast<Column>(index.column());
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Severity:
            return QString::fromLatin1(core::toString(f->severity));
        case Finding:
            return QString::fromStdString(f->title);
        case Where:
            return QString::fromStdString(core::advice::shortLocation(f->file, f->line));
        case Setting:
            return QString::fromStdString(f->setting);
        case Confidence:
            return QStringLiteral("%1%").arg(qRound(f->confidence * 100));
        case ColumnCount:
            break;
        }
    } else if (role == SortRole) {
        switch (column) {
        case Severity:
            return static_cast<int>(f->severity) * 1000 + index.row();
        case Confidence:
            return f->confidence;
        case Where:
            return QStringLiteral("%1:%2")
                .arg(QString::fromStdString(f->file))
                .arg(f->line, 8, 10, QChar('0'));
        default:
            return data(index, Qt::DisplayRole);
        }
    } else if (role == Qt::DecorationRole && column == Severity) {
        return severityIcon(f->severity);
    } else if (role == Qt::ToolTipRole) {
        if (column == Where && !f->file.empty())
            return QString::fromStdString(f->file + ":" + std::to_string(f->line) +
                                          (f->code.empty() ? "" : "\n" + f->code));
        if (column == Finding)
            return QString::fromStdString(f->title + "\n\n" + f->remedy);
        return QString::fromStdString(f->remedy);
    }
    return {};
}

} // namespace cs::widgets
