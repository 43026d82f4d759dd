// The finding in full: where, the evidence with units, what to change, what
// to expect, how sure; a link to the tab that shows the evidence.
#pragma once

#include <QTextBrowser>

#include "core/advice/advice.h"

namespace cs::widgets {

class AdviceDetail : public QTextBrowser {
    Q_OBJECT
  public:
    explicit AdviceDetail(QWidget* parent = nullptr);
    // nullptr shows `message` instead.
    void showFinding(const core::Finding* finding, const QString& message = {});

  signals:
    void evidenceRequested(); // the "Show in … tab" link
};

// The HTML the detail shows (also what tests read).
QString findingHtml(const core::Finding& finding);

} // namespace cs::widgets
