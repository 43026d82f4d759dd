// Turns the records of one TORCH_TRACE file (one rank) into a Run: graphs,
// breaks, recompiles, compiles with their phases, cache lookups. Records
// arrive in file order from TraceReader.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/session.h"
#include "core/trace/trace_reader.h"

namespace cs::core::trace {

// A break's payload (dynamo_graph_break_reason) read into a GraphBreak.
GraphBreak parseBreakText(const std::string& text);

// A break's stack as the live probe sends it: from the compiled frame (the
// function dynamo_start named, defined at defLine) inward, without nn.Module's call machinery;
// torch's traceback starts at the program's entry. The user frame is then
// the innermost one outside Python's library, installed packages and the
// probe.
void startAtCompiledFrame(GraphBreak& br, const std::string& function, const std::string& file,
                          int defLine);

class RankBuilder {
  public:
    explicit RankBuilder(const std::string& path, int rank);

    bool wantPayload(const TraceRecord& record) const;
    void add(TraceRecord& record);
    void problem(int64_t line, std::string message);
    // After the last record: fills totals, joins ids, says what was odd.
    Run finish(const TraceReader::Summary& summary);

    const std::vector<std::string>& warnings() const { return warnings_; }
    const std::string& torchVersion() const { return torch_; }

  private:
    struct Where {
        std::string function;
        std::string file;
        int line = 0;
    };

    // What compilescope's probe wrote of its keyword wrapper (KeywordCall,
    // around a model called by keyword): its frames are the model's forward
    // (root) to the user, and its values[i] the input names[i].
    struct KeywordCall {
        std::string wrapperFile;
        std::vector<std::string> names;
        Where root;
    };

    static std::string compileKey(const nlohmann::json& envelope);
    void addKeywordCall(const std::string& payload);
    void nameKeywordCall();
    void addArtifact(const TraceRecord& record, const nlohmann::json& envelope);
    void addGraph(const TraceRecord& record, const nlohmann::json& envelope);
    void addMetrics(const nlohmann::json& metrics);
    void keepUnknown(const TraceRecord& record, nlohmann::json envelope);

    Run run_;
    TraceSource source_;
    std::map<int64_t, std::string> strings_;
    std::map<std::string, Where> starts_; // compile key -> the frame dynamo_start names
    std::map<std::string, std::pair<int64_t, int64_t>> outputCode_; // compile key -> offset, bytes
    std::map<std::string, int> unknownKept_;
    std::vector<std::string> breakCompiles_;     // compile key of each graph break
    std::vector<std::string> recompileCompiles_; // compile key of each recompile
    std::vector<std::string> warnings_;
    std::optional<KeywordCall> keywordCall_;
    std::string torch_;
    int64_t lastRecordLine_ = 0;
    bool lastRecordBroken_ = false;
};

} // namespace cs::core::trace
