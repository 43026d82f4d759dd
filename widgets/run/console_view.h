// The probe's stderr: the model's own prints, torch's warnings, tracebacks;
// the probe's capture warnings (a fallback fired under this torch) and its
// warning log lines (the model changed its own inputs, a mode that does not apply).
#pragma once

#include <QPlainTextEdit>

#include <vector>

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
    void startSection(int run);
    void showNewCaptureWarnings(int run);

    ReportDocument* document_;
    int lastRun_ = -1;
    std::vector<size_t> warningsShown_; // per run, so a live run shows each once
    std::vector<size_t> logsShown_;     // per run: log lines looked at so far
};

} // namespace cs::widgets
