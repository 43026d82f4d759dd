#pragma once

#include <string>
#include <string_view>

#include "core/report/session.h"

namespace cs::core {

// After a graph break Dynamo continues the user's function in a resume
// function it names torch_dynamo_resume_in_<function>_at_<line>. Users never
// wrote that name; these map it back to theirs.
struct UserFunction {
    std::string name;  // "forward"
    int afterLine = 0; // the line of the break it resumes after; 0 when not a resume function
};

UserFunction userFunction(std::string_view raw);

// "forward (after the break at line 14)", or the name unchanged.
std::string functionLabel(std::string_view raw);

// "forward": the user's name alone, for sentences that already say where.
std::string functionName(std::string_view raw);

// Whether `name` is `function` or qualifies it with its class or owner:
// "LongformerModel.forward" and "t5.forward" name "forward".
bool namesFunction(std::string_view name, std::string_view function);

// "0/7: ..." → "0", the frame a guard failure is about (frame 0: the first
// the call compiled, the model's forward); empty when the reason has no compile id.
std::string frameId(const std::string& reason);

// The function a recompile event is about. The recompile-limit event may come
// without one: then the function whose recompiles carry its frame id (the "0"
// of "0/7: ...") is its; empty when none or several do.
std::string recompiledFunction(const Run& run, const Recompile& recompile);

} // namespace cs::core
