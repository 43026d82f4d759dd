// What the graph view's hovered or selected box is: for a node its op,
// target, shape, dtype, module, inputs, users and source line (with the line's
// text when the file can be read); for a collapsed group its contents. A
// colour key of node kinds sits underneath.
#pragma once

#include <QWidget>

class QLabel;
class QTextBrowser;

namespace cs::widgets {

struct GraphPicture;
struct SourceText;

class NodeDetailsView : public QWidget {
    Q_OBJECT
  public:
    explicit NodeDetailsView(QWidget* parent = nullptr);

    // source: the node's file when it has been read, else nullptr.
    void showItem(const GraphPicture* picture, int item, const SourceText* source);
    void showText(const QString& text);
    QString text() const;

  private:
    QTextBrowser* details_;
    QLabel* legend_;
};

} // namespace cs::widgets
