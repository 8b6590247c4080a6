// The peer implementations linked into this binary and their verdicts next to the reference's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "differential/oracles/peer_abi.h"
#include "model/model.h"

namespace serdiff::oracles {

// header: an 80-byte block header (only Bitcoin Core has a header decoder; the other peers say unsupported).
enum class ObjectKind { transaction, block, header };

struct Peer {
    const char* name;     // "bitcoin-core", "rust-bitcoin", "btcd", "python-bitcoinlib"
    const char* version;  // the pinned upstream version (Bitcoin Core: also the version the library reports)
    int (*decode_tx)(const uint8_t* data, size_t size, int allow_witness, serdiff_peer_result* out);
    int (*decode_block)(const uint8_t* data, size_t size, serdiff_peer_result* out);
    // Times block decode or encode inside the peer (peer_abi.h); nullptr for peers without it (Python).
    int (*bench_block)(const uint8_t* data, size_t size, uint64_t iterations, int mode, uint64_t* total_ns);
    // Decodes a block header; nullptr for peers without a header decoder.
    int (*decode_header)(const uint8_t* data, size_t size, serdiff_peer_result* out) = nullptr;
};

// A peer this binary was configured with that cannot run here, and why (Bitcoin Core when
// libbitcoinkernel.so cannot be loaded).
struct MissingPeer {
    const char* name;
    std::string reason;
};

// Every peer this binary was linked with that can run (the fuzz binaries leave python-bitcoinlib out), Bitcoin
// Core first. The first call loads libbitcoinkernel; when that fails, Core is left out, listed by
// missing_peers(), and one line on stderr says why.
std::span<const Peer> linked_peers();
std::span<const MissingPeer> missing_peers();
// The peer called `name`, or nullptr.
const Peer* find_peer(std::string_view name);

// One implementation's verdict on one input, the shape shared by the reference and every peer.
struct Verdict {
    enum class Status { ok, unsupported, internal_error };
    Status status = Status::ok;  // only ok carries accepted/consumed/reencoded
    bool accepted = false;
    size_t consumed = 0;
    model::Bytes reencoded;
    std::string error;
    std::vector<model::Transaction> transactions;  // the reference's decoded transactions (empty for peers)
};

Verdict reference_verdict(ObjectKind kind, std::span<const uint8_t> input, bool allow_witness);
Verdict peer_verdict(const Peer& peer, ObjectKind kind, std::span<const uint8_t> input, bool allow_witness);

// "" when the two verdicts agree on accept/reject and, when both accept, on consumed and the re-encoding;
// otherwise one line naming what differs. Unsupported modes agree with everything.
std::string disagreement(const Verdict& reference, const Verdict& peer);

// One line: "accept, N bytes[, re-encodes HEX]", "reject (error)", "unsupported" or "internal error: ...".
std::string describe(const Verdict& verdict);

const char* kind_name(ObjectKind kind);

}  // namespace serdiff::oracles
