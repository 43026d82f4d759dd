// Builds the command lines a remote POSIX shell runs. Every word that comes
// from a user (a path, a model spec, an interpreter) goes through shellQuote:
// the one place where quoting is done, tested with hostile strings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cs::core {

// One word for sh: single quotes around it, each ' written as '\''. The empty
// word becomes ''. Newlines, $(...), `...`, ; and non-ASCII pass unchanged.
std::string shellQuote(std::string_view word);
// The words quoted and joined by spaces: a command sh runs as exactly these argv.
std::string shellJoin(const std::vector<std::string>& words);

} // namespace cs::core
