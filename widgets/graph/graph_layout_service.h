// Lays out graph pictures on a worker thread (never the GUI thread) and posts
// them back. Only the newest request is delivered: a newer request makes older
// ones stale (they stop early where they can, and are dropped on arrival).
// Recent pictures are cached by (hierarchy, expansion).
#pragma once

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <list>
#include <memory>
#include <optional>

#include "widgets/graph/graph_picture.h"
#include "widgets/graph/label_metrics.h"

namespace cs::widgets {

class GraphLayoutService : public QObject {
    Q_OBJECT
  public:
    struct Request {
        std::shared_ptr<const core::Graph> graph;        // used when there is no hierarchy yet
        std::shared_ptr<const GraphHierarchy> hierarchy; // built on the worker when null
        std::optional<Expansion> expansion;              // the default level of detail when empty
    };

    explicit GraphLayoutService(QObject* parent = nullptr);
    ~GraphLayoutService() override;

    void setMetrics(const LabelMetrics& metrics) { metrics_ = metrics; }
    const LabelMetrics& metrics() const { return metrics_; }
    // pictureReady follows later, also for a cached picture (never from inside this call).
    void request(Request request);
    void clearCache();
    bool busy() const { return inFlight_ > 0; }

  signals:
    void pictureReady(std::shared_ptr<const GraphPicture> picture);

  private:
    void deliver(int generation, const std::shared_ptr<const GraphPicture>& picture);
    std::shared_ptr<const GraphPicture> cached(const GraphHierarchy* hierarchy,
                                               const Expansion& expansion);

    QThreadPool pool_;
    std::shared_ptr<std::atomic<int>> latest_;
    int generation_ = 0;
    int inFlight_ = 0;
    LabelMetrics metrics_;
    std::list<std::shared_ptr<const GraphPicture>> cache_; // most recently used first
};

} // namespace cs::widgets
