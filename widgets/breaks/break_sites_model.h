// The graph breaks of one run grouped by site: one row per (reason, file,
// line) with the function and how many breaks happened there. Adapts the run;
// the breaks table, the source markers and tests read it.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace cs::widgets {

class ReportDocument;

class BreakSitesModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Reason, Location, Function, Count, ColumnCount };
    struct Site {
        QString reason;     // short: torch's break type or the first line
        QString fullReason; // everything torch said, hints included
        QString file;
        int line = -1;
        QString function;
        QString code;
        bool inLibrary = false;
        QString libraryNote;
        QString skipNote;        // torch skipped a frame for a break of this site
        std::vector<int> breaks; // indexes into run.graphBreaks
        QStringList compiles;    // the compile ids of the graphs beside them, in order
    };

    explicit BreakSitesModel(ReportDocument* document, QObject* parent = nullptr);

    int run() const { return run_; }
    const Site* site(int row) const;
    int rowForBreak(int graphBreak) const;
    int rowForLine(const QString& file, int line) const;
    // Lines of this file where a break happened (for the source view's markers).
    std::vector<int> breakLines(const QString& file) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    void rebuild();

    ReportDocument* document_;
    int run_ = -1;
    size_t breakCount_ = 0;
    std::vector<Site> sites_;
};

} // namespace cs::widgets
