// The user's source file around the selected location, with every graph-break
// line of the shown run marked. Reads the file off the GUI thread; if it cannot
// be read any more it says so (naming the file) and the other views go on
// working. Clicking a line selects that line in the document.
#pragma once

#include <QWidget>

class QLabel;
class QStackedWidget;

namespace cs::widgets {

class BreakSitesModel;
class CodeTextView;
class ReportDocument;
class SourceFileLoader;
struct Selection;

class SourcePane : public QWidget {
    Q_OBJECT
  public:
    SourcePane(ReportDocument* document, BreakSitesModel* sites, QWidget* parent = nullptr);

    QString shownFile() const { return file_; }
    // The message shown instead of the code (empty while code is shown).
    QString message() const;
    QString note() const;
    bool isShowingCode() const;

  private:
    void onSelection(const Selection& selection);
    // selected: the line is the selection (highlighted), not just where to look.
    void show(const QString& file, int line, bool selected = true);
    void refresh();
    void updateNote(const Selection& selection);

    ReportDocument* document_;
    BreakSitesModel* sites_;
    SourceFileLoader* loader_;
    QLabel* header_;
    QLabel* note_;
    QStackedWidget* stack_;
    CodeTextView* code_;
    QLabel* message_;
    QString file_;
    int line_ = -1;
    bool lineSelected_ = false;
    QString loadedFile_; // the file whose text is in code_
};

} // namespace cs::widgets
