// The probe's stderr: the model's own prints, torch's warnings, tracebacks.
#pragma once

#include <QPlainTextEdit>

namespace cs::widgets {

class ReportDocument;

class ConsoleView : public QPlainTextEdit {
    Q_OBJECT
  public:
    explicit ConsoleView(ReportDocument* document, QWidget* parent = nullptr);
    void appendOutput(int run, const QString& text);
    void appendNotice(const QString& text);

  private:
    void showSavedConsole();

    ReportDocument* document_;
    int lastRun_ = -1;
};

} // namespace cs::widgets
