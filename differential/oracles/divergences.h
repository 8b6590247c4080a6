// The allow-list: every known way a peer parts from the reference, with its rule, upstream source and input.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "differential/oracles/peers.h"
#include "model/model.h"

namespace serdiff::oracles {

// One reference/peer disagreement as the fuzz targets, the CLI and the checker see it.
struct Observation {
    ObjectKind kind;
    bool allow_witness;
    std::span<const uint8_t> input;
    std::string_view peer;  // Peer::name
    const Verdict& reference;
    const Verdict& peer_verdict;
};

struct AllowedDivergence {
    const char* peer;         // Peer::name
    const char* rule;         // what the peer does that Bitcoin Core (the reference) does not
    const char* upstream;     // repository + issue/PR number or documentation page that explains it
    ObjectKind kind;          // of the minimal input
    const char* input_shape;  // the minimal input, in words
    model::Bytes (*minimal_input)();
    // True when this rule accounts for the observation: the verdicts differ the way the rule says,
    // the input has the rule's shape, and the peer's own error (when it rejects) names the rule.
    bool (*explains)(const Observation& observation);
};

std::span<const AllowedDivergence> allowed_divergences();

// The allow-list entry that accounts for this disagreement, or nullptr (an unexplained divergence).
const AllowedDivergence* explain(const Observation& observation);

}  // namespace serdiff::oracles
