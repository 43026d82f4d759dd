#include "widgets/breaks/source_pane.h"

#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <set>

#include "widgets/breaks/break_place.h"
#include "widgets/breaks/break_sites_model.h"
#include "widgets/breaks/code_text_view.h"
#include "widgets/breaks/source_file_loader.h"
#include "widgets/common/report_document.h"
#include "widgets/graph/graph_terms.h"

namespace cs::widgets {

SourcePane::SourcePane(ReportDocument* document, BreakSitesModel* sites, QWidget* parent)
    : QWidget(parent), document_(document), sites_(sites), loader_(new SourceFileLoader(this)),
      header_(new QLabel(this)), note_(new QLabel(this)), stack_(new QStackedWidget(this)),
      code_(new CodeTextView(this)), message_(new QLabel(this)) {
    setObjectName("sourcePane");
    code_->setObjectName("sourceCode");
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setWordWrap(true);
    note_->setWordWrap(true);
    note_->setStyleSheet(QStringLiteral("color: #b45f06;"));
    note_->setVisible(false);
    message_->setObjectName("sourceMessage");
    message_->setWordWrap(true);
    message_->setAlignment(Qt::AlignCenter);
    message_->setMargin(24);
    stack_->addWidget(code_);
    stack_->addWidget(message_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(header_);
    layout->addWidget(note_);
    layout->addWidget(stack_, 1);

    connect(loader_, &SourceFileLoader::loaded, this, [this](const QString& path) {
        if (path == file_)
            refresh();
    });
    connect(code_, &CodeTextView::lineClicked, this, [this](int line) {
        if (!file_.isEmpty())
            document_->selectSourceLine(sites_->run(), file_, line);
    });
    connect(document_, &ReportDocument::selectionChanged, this, &SourcePane::onSelection);
    loader_->setReader(document_->sourceReader());
    connect(document_, &ReportDocument::reportReset, this, [this] {
        loader_->setReader(document_->sourceReader());
        file_.clear();
        loadedFile_.clear();
        line_ = -1;
        onSelection(document_->selection());
    });
    connect(sites_, &BreakSitesModel::modelReset, this, [this] {
        if (file_.isEmpty())
            onSelection(document_->selection());
        else
            refresh();
    });
    onSelection(document_->selection());
}

QString SourcePane::message() const {
    return stack_->currentWidget() == message_ ? message_->text() : QString();
}

QString SourcePane::note() const {
    return note_->isVisible() ? note_->text() : QString();
}

bool SourcePane::isShowingCode() const {
    return stack_->currentWidget() == code_;
}

void SourcePane::onSelection(const Selection& sel) {
    if (!sel.file.isEmpty() && sel.line > 0) {
        show(sel.file, sel.line);
    } else if (file_.isEmpty()) {
        // Nothing picked yet: the first break site, else the model's own file.
        if (const auto* site = sites_->site(0))
            show(site->file, site->line, false);
        else if (const auto* run = document_->run(sites_->run()); run && !run->model.file.empty())
            show(QString::fromStdString(run->model.file), -1, false);
        else
            show({}, -1, false);
    }
    updateNote(sel);
}

void SourcePane::updateNote(const Selection& sel) {
    QString note;
    const auto* run = document_->run(sites_->run());
    if (run && sel.run == sites_->run() && sel.graphBreak >= 0 &&
        sel.graphBreak < static_cast<int>(run->graphBreaks.size())) {
        const auto& br = run->graphBreaks[static_cast<size_t>(sel.graphBreak)];
        note = QStringList{skipNote(br), libraryNote(breakPlace(br))}.join(' ').trimmed();
    } else if (const auto* site = sites_->site(sites_->rowForLine(sel.file, sel.line))) {
        note = QStringList{site->skipNote, site->libraryNote}.join(' ').trimmed();
    }
    note_->setText(note);
    note_->setVisible(!note.isEmpty());
}

void SourcePane::show(const QString& file, int line, bool selected) {
    file_ = file;
    line_ = line;
    lineSelected_ = selected;
    refresh();
}

void SourcePane::refresh() {
    const std::vector<int> lines = sites_->breakLines(file_);
    if (file_.isEmpty())
        header_->clear();
    else if (lines.empty())
        header_->setText(QStringLiteral("<b>%1</b>").arg(file_.toHtmlEscaped()));
    else
        header_->setText(
            tr("<b>%1</b> — %2 marked")
                .arg(file_.toHtmlEscaped(), counted(static_cast<qsizetype>(lines.size()),
                                                    tr("break line"), tr("break lines"))));
    if (file_.isEmpty()) {
        message_->setText(document_->isEmpty()
                              ? tr("No run yet.")
                              : tr("No source location: select a graph break or a node."));
        stack_->setCurrentWidget(message_);
        return;
    }
    const SourceText* text = loader_->get(file_);
    if (!text) {
        message_->setText(tr("Reading %1…").arg(file_));
        stack_->setCurrentWidget(message_);
        return;
    }
    if (!text->ok) {
        message_->setText(text->error + QStringLiteral("\n\n") +
                          tr("The break table, the map and the graph still work; the line numbers "
                             "are those of the run."));
        stack_->setCurrentWidget(message_);
        loadedFile_.clear();
        return;
    }
    if (loadedFile_ != file_) {
        code_->setLines(text->lines);
        loadedFile_ = file_;
    }
    code_->setBreakLines(std::set<int>(lines.begin(), lines.end()));
    if (lineSelected_) {
        code_->setCurrentLine(line_);
    } else {
        code_->setCurrentLine(-1);
        code_->scrollToLine(line_);
    }
    stack_->setCurrentWidget(code_);
}

} // namespace cs::widgets
