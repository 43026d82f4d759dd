// Colours Inductor's output code: the Python wrapper, and the kernel sources it
// carries in triple-quoted strings (C++ after `cpp_pybinding(`/`cpp(`, Triton's
// Python otherwise) as code rather than as one long string. Keywords, strings,
// comments, numbers, decorators and preprocessor lines; follows a dark palette.
#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace cs::widgets {

class PythonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
  public:
    explicit PythonHighlighter(QTextDocument* document);

    // Block states: where a line ends (inside which triple-quoted string).
    enum State { Plain = 0, CppSource = 1, PythonSource = 2, TextString = 3 };

  protected:
    void highlightBlock(const QString& text) override;

  private:
    void highlightCode(const QString& text, int from, int to, bool cpp);

    QTextCharFormat keyword_;
    QTextCharFormat builtin_;
    QTextCharFormat string_;
    QTextCharFormat comment_;
    QTextCharFormat number_;
    QTextCharFormat decorator_;
    QTextCharFormat preprocessor_;
};

} // namespace cs::widgets
