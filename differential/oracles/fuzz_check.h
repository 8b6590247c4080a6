// Peer verdicts beside the reference inside a fuzz target: an unexplained divergence is a mismatch (abort).
#pragma once

#include <span>
#include <string>

#include "differential/compare.h"
#include "differential/oracles/divergences.h"
#include "differential/oracles/peers.h"

namespace serdiff::oracles {

// Every linked peer on `input`; a disagreement with the reference that no allow-list entry explains
// prints the mismatch report (both verdicts, the input) and aborts like any other fuzz finding.
inline void check_peers(ObjectKind kind, std::span<const uint8_t> input, bool allow_witness)
{
    const Verdict reference = reference_verdict(kind, input, allow_witness);
    for (const Peer& peer : linked_peers()) {
        const Verdict verdict = peer_verdict(peer, kind, input, allow_witness);
        const std::string difference = disagreement(reference, verdict);
        if (difference.empty()) continue;
        const Observation observation{kind, allow_witness, input, peer.name, reference, verdict};
        if (explain(observation) != nullptr) continue;
        differential::report_mismatch(
            std::string(peer.name) + " " + kind_name(kind) + (allow_witness ? "" : " (witness off)"),
            "unexplained peer divergence (not on differential/oracles/divergences.cpp's allow-list)",
            difference + "\n  reference: " + describe(reference) + "\n  " + peer.name + ": " + describe(verdict),
            input);
    }
}

}  // namespace serdiff::oracles
