#include "widgets/common/setting_picker.h"

#include <QPixmap>

#include "core/analysis/palette.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"

namespace cs::widgets {

int shownRun(const ReportDocument& document) {
    const int count = static_cast<int>(document.report().runs.size());
    const int selected = document.selection().run;
    if (selected >= 0 && selected < count)
        return selected;
    return count > 0 ? 0 : -1;
}

SettingPicker::SettingPicker(ReportDocument* document, QWidget* parent)
    : QComboBox(parent), document_(document) {
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    setToolTip(tr("The setting these charts show; picking one selects it in every tab"));
    connect(document_, &ReportDocument::reportReset, this, &SettingPicker::rebuild);
    connect(document_, &ReportDocument::runChanged, this, [this](int run) {
        // A live run's status changes its label; new runs appear only on reset.
        if (run >= 0 && run < count() && document_->run(run))
            setItemText(run, QString::fromStdString(document_->run(run)->setting.label()));
    });
    connect(document_, &ReportDocument::selectionChanged, this, &SettingPicker::follow);
    connect(this, &QComboBox::activated, this, [this](int index) {
        if (index != document_->selection().run)
            document_->selectRun(index);
    });
    rebuild();
}

void SettingPicker::rebuild() {
    const QSignalBlocker block(this);
    clear();
    const auto& report = document_->report();
    for (size_t r = 0; r < report.runs.size(); ++r) {
        QPixmap swatch(12, 12);
        swatch.fill(toQColor(core::runColor(report, static_cast<int>(r))));
        addItem(QIcon(swatch), QString::fromStdString(report.runs[r].setting.label()));
    }
    setEnabled(count() > 0);
    follow();
}

void SettingPicker::follow() {
    const QSignalBlocker block(this);
    setCurrentIndex(shownRun(*document_));
}

} // namespace cs::widgets
