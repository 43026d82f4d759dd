#include "widgets/graph/graph_layout_service.h"

#include <QCoreApplication>
#include <QPointer>

#include "widgets/graph/graph_picture_builder.h"

namespace cs::widgets {

namespace {
constexpr size_t kCacheSize = 12;
constexpr size_t kCacheItems =
    150000; // boxes over all cached pictures: bounds memory for huge graphs
} // namespace

GraphLayoutService::GraphLayoutService(QObject* parent)
    : QObject(parent), latest_(std::make_shared<std::atomic<int>>(0)) {
    // One lane: layouts of one view follow each other; a stale one yields to the next.
    pool_.setMaxThreadCount(1);
    pool_.setObjectName("graphLayout");
}

GraphLayoutService::~GraphLayoutService() {
    latest_->store(-1); // everything queued or running is stale now
    pool_.clear();
    pool_.waitForDone();
}

std::shared_ptr<const GraphPicture> GraphLayoutService::cached(const GraphHierarchy* hierarchy,
                                                               const Expansion& expansion) {
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
        if ((*it)->hierarchy.get() == hierarchy && (*it)->expansion == expansion) {
            auto picture = *it;
            cache_.erase(it);
            cache_.push_front(picture);
            return picture;
        }
    }
    return nullptr;
}

void GraphLayoutService::request(Request request) {
    const int generation = ++generation_;
    latest_->store(generation);
    if (request.hierarchy && !request.expansion)
        request.expansion =
            request.hierarchy->defaultExpansion(GraphPictureBuilder::kDefaultBudget);
    if (request.hierarchy) {
        if (auto picture = cached(request.hierarchy.get(), *request.expansion)) {
            ++inFlight_;
            QMetaObject::invokeMethod(
                this, [this, generation, picture] { deliver(generation, picture); },
                Qt::QueuedConnection);
            return;
        }
    }
    ++inFlight_;
    QPointer<GraphLayoutService> guard(this);
    auto latest = latest_;
    const LabelMetrics metrics = metrics_;
    pool_.start([guard, latest, generation, metrics, request = std::move(request)] {
        std::shared_ptr<const GraphPicture> picture;
        if (latest->load() == generation) {
            auto hierarchy = request.hierarchy
                                 ? request.hierarchy
                                 : std::make_shared<const GraphHierarchy>(request.graph);
            const Expansion expansion =
                request.expansion
                    ? *request.expansion
                    : hierarchy->defaultExpansion(GraphPictureBuilder::kDefaultBudget);
            picture =
                GraphPictureBuilder::build(hierarchy, expansion, metrics, [latest, generation] {
                    return latest->load() != generation;
                });
        }
        // Posted to the application object, which outlives us; the guard is read on the GUI thread.
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [guard, generation, picture] {
                if (guard)
                    guard->deliver(generation, picture);
            },
            Qt::QueuedConnection);
    });
}

void GraphLayoutService::deliver(int generation,
                                 const std::shared_ptr<const GraphPicture>& picture) {
    --inFlight_;
    if (!picture)
        return;
    if (!cached(picture->hierarchy.get(), picture->expansion)) {
        cache_.push_front(picture);
        size_t items = 0;
        for (const auto& p : cache_)
            items += p->items.size();
        while (cache_.size() > 1 && (cache_.size() > kCacheSize || items > kCacheItems)) {
            items -= cache_.back()->items.size();
            cache_.pop_back();
        }
    }
    if (generation == generation_)
        emit pictureReady(picture);
}

void GraphLayoutService::clearCache() {
    cache_.clear();
}

} // namespace cs::widgets
