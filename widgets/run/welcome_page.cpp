#include "widgets/run/welcome_page.h"

#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace cs::widgets {

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->addStretch(2);
    auto* title = new QLabel(
        tr("<h2>compilescope</h2>"
           "<p>Is <code>torch.compile</code> worth it for your model? Where does it break, "
           "recompile, or spend its time?</p>"),
        this);
    title->setAlignment(Qt::AlignCenter);
    title->setWordWrap(true);
    layout->addWidget(title);
    auto addButton = [&](const QString& text, const QString& tip, auto signal) {
        auto* button = new QPushButton(text, this);
        button->setToolTip(tip);
        button->setMinimumWidth(260);
        connect(button, &QPushButton::clicked, this, signal);
        layout->addWidget(button, 0, Qt::AlignHCenter);
    };
    addButton(tr("Open a model… (Ctrl+O)"),
              tr("A .py file with get_model() and get_inputs(), or a .pt2"),
              &WelcomePage::openModelRequested);
    addButton(tr("Run the demo model (F5)"), tr("The gallery MLP under eager and default"),
              &WelcomePage::runDemoRequested);
    addButton(tr("Open a report…"),
              tr("A compilescope .json report, e.g. from compilescope-cli on a GPU server"),
              &WelcomePage::openReportRequested);
    auto* hint =
        new QLabel(tr("You can also drop a .py, .pt2 or report .json onto this window."), this);
    hint->setAlignment(Qt::AlignCenter);
    hint->setEnabled(false);
    layout->addWidget(hint);
    layout->addStretch(3);
}

} // namespace cs::widgets
