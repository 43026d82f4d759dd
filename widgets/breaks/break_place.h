// Where a graph break is shown and how it is named: the innermost frame of
// the user's code (else the innermost frame), whether the break itself
// happened inside torch or library code, and a one-line reason.
#pragma once

#include <QString>

#include "core/report/session.h"

namespace cs::widgets {

struct BreakPlace {
    QString file;
    int line = -1;
    QString function;
    QString code;
    bool inLibrary = false;   // the innermost frame is torch or library code
    bool hasUserFrame = true; // some frame on the stack is the user's
    QString libraryFrame;     // "torch/nn/functional.py:123 in relu", when inLibrary
};

BreakPlace breakPlace(const core::GraphBreak& graphBreak);
// torch's break type when present ("Failed to trace builtin operator"), else the reason's first
// line; of a chain of breaks, the first (the cause).
QString shortReason(const core::GraphBreak& graphBreak);
// "torch skipped forward (model.py:5) for this break in a loop: …", or empty
// when torch did not give up on a frame for it.
QString skipNote(const core::GraphBreak& graphBreak);
// One sentence for the views: "in library code (…), reached from this line of your code".
QString libraryNote(const BreakPlace& place);

} // namespace cs::widgets
