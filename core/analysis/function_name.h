#pragma once

#include <string>
#include <string_view>

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

} // namespace cs::core
