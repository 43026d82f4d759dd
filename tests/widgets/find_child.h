// Tests reach a view's parts by the object names the views set, not through
// accessors kept only for tests.
#pragma once

#include <QObject>
#include <QtGlobal>

namespace cs::test {

// The named child; a missing one stops the test at once (a renamed object).
template <typename T> T* child(const QObject& parent, const char* name) {
    T* found = parent.findChild<T*>(QString::fromLatin1(name));
    if (!found)
        qFatal("no child named %s under %s", name, qPrintable(parent.objectName()));
    return found;
}

} // namespace cs::test
