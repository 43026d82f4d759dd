#include "widgets/breaks/break_sites_model.h"

#include <QColor>
#include <QFileInfo>

#include <algorithm>
#include <map>
#include <tuple>

#include "widgets/breaks/break_place.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"
#include "widgets/graph/compiled_run.h"
#include "widgets/graph/graph_terms.h"

namespace cs::widgets {

namespace {

// The compile id of the graph beside a break: a recompile of the frame meets
// the same break again under another id ("0/1" after "0/0").
std::string compileBeside(const core::Run& run, const core::GraphBreak& br) {
    for (int g : {br.graphBefore, br.graphAfter}) {
        if (g >= 0 && g < static_cast<int>(run.graphs.size()))
            return run.graphs[static_cast<size_t>(g)].compileId;
    }
    return {};
}

} // namespace

BreakSitesModel::BreakSitesModel(ReportDocument* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
    connect(document_, &ReportDocument::reportReset, this, &BreakSitesModel::rebuild);
    connect(document_, &ReportDocument::runChanged, this, [this](int run) {
        // Live: rebuild only when the shown run has new breaks.
        const auto* r = document_->run(run);
        if ((run == run_ && r && r->graphBreaks.size() != breakCount_) || run_ < 0)
            rebuild();
    });
    connect(document_, &ReportDocument::selectionChanged, this, [this] {
        if (compiledRunIndex(*document_) != run_)
            rebuild();
    });
    rebuild();
}

void BreakSitesModel::rebuild() {
    beginResetModel();
    run_ = compiledRunIndex(*document_);
    sites_.clear();
    breakCount_ = 0;
    if (const core::Run* run = document_->run(run_)) {
        breakCount_ = run->graphBreaks.size();
        std::map<std::tuple<QString, QString, int>, size_t> byKey;
        for (size_t b = 0; b < run->graphBreaks.size(); ++b) {
            const auto& br = run->graphBreaks[b];
            const BreakPlace place = breakPlace(br);
            const QString reason = shortReason(br);
            const auto key = std::make_tuple(reason, place.file, place.line);
            auto it = byKey.find(key);
            if (it == byKey.end()) {
                Site site;
                site.reason = reason;
                site.fullReason = QString::fromStdString(br.reason).trimmed();
                site.file = place.file;
                site.line = place.line;
                site.function = place.function;
                site.code = place.code;
                site.inLibrary = place.inLibrary;
                site.libraryNote = libraryNote(place);
                it = byKey.emplace(key, sites_.size()).first;
                sites_.push_back(std::move(site));
            }
            Site& site = sites_[it->second];
            if (site.skipNote.isEmpty())
                site.skipNote = skipNote(br);
            site.breaks.push_back(static_cast<int>(b));
            const std::string id = compileBeside(*run, br);
            if (!id.empty() && std::find(site.compiles.begin(), site.compiles.end(),
                                         QString::fromStdString(id)) == site.compiles.end())
                site.compiles << QString::fromStdString(id);
        }
    }
    endResetModel();
}

const BreakSitesModel::Site* BreakSitesModel::site(int row) const {
    return row >= 0 && row < static_cast<int>(sites_.size()) ? &sites_[static_cast<size_t>(row)]
                                                             : nullptr;
}

int BreakSitesModel::rowForBreak(int graphBreak) const {
    for (size_t r = 0; r < sites_.size(); ++r) {
        for (int b : sites_[r].breaks) {
            if (b == graphBreak)
                return static_cast<int>(r);
        }
    }
    return -1;
}

int BreakSitesModel::rowForLine(const QString& file, int line) const {
    for (size_t r = 0; r < sites_.size(); ++r) {
        if (sites_[r].line == line && sites_[r].file == file)
            return static_cast<int>(r);
    }
    return -1;
}

std::vector<int> BreakSitesModel::breakLines(const QString& file) const {
    std::vector<int> lines;
    for (const auto& s : sites_) {
        if (s.file == file && s.line > 0)
            lines.push_back(s.line);
    }
    return lines;
}

int BreakSitesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(sites_.size());
}

int BreakSitesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BreakSitesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* names[] = {"reason", "file:line", "function", "count"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Reason:
            return graphBreakTerm();
        case Location:
            return tr("The innermost line of your code on the stack when the graph broke");
        case Function:
            return tr("The function that line is in");
        case Count:
            return tr("How many graph breaks happened at this site with this reason");
        default:
            return {};
        }
    }
    return {};
}

QVariant BreakSitesModel::data(const QModelIndex& index, int role) const {
    const Site* s = site(index.row());
    if (!s)
        return {};
    const QString where =
        s->line > 0 ? QStringLiteral("%1:%2").arg(QFileInfo(s->file).fileName()).arg(s->line)
                    : tr("unknown");
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Reason:
            return s->reason;
        case Location:
            return s->inLibrary ? where + tr(" (break in library code)") : where;
        case Function:
            return s->function;
        case Count:
            return static_cast<int>(s->breaks.size());
        default:
            return {};
        }
    case SortRole:
        switch (index.column()) {
        case Location:
            return QStringLiteral("%1:%2").arg(s->file).arg(s->line, 8, 10, QChar('0'));
        case Count:
            return static_cast<int>(s->breaks.size());
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::ToolTipRole:
        switch (index.column()) {
        case Reason:
            return s->skipNote.isEmpty() ? s->fullReason
                                         : s->skipNote + QStringLiteral("\n\n") + s->fullReason;
        case Location: {
            QString tip = QStringLiteral("%1:%2").arg(s->file).arg(s->line);
            if (!s->code.isEmpty())
                tip += QStringLiteral("\n") + s->code;
            if (s->inLibrary)
                tip += QStringLiteral("\n") + s->libraryNote;
            return tip;
        }
        case Function: // may be elided in the middle
            return data(index, Qt::DisplayRole);
        case Count:
            if (s->compiles.size() > 1)
                return tr("%1 graph breaks here: the same break met by %2 compiles of the frame "
                          "(%3), the first and its recompiles")
                    .arg(s->breaks.size())
                    .arg(s->compiles.size())
                    .arg(s->compiles.join(QStringLiteral(", ")));
            return {};
        default:
            return {};
        }
    case Qt::TextAlignmentRole:
        return index.column() == Count ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    default:
        return {};
    }
}

} // namespace cs::widgets
