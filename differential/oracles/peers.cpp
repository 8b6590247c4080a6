// The list of linked peers (with or without python-bitcoinlib) and the reference/peer verdict comparison.
#include "differential/oracles/peers.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "differential/allocation_bound.h"
#include "differential/reference/reference.h"
#if SERDIFF_WITH_CORE_PEER
#include "differential/oracles/core/library.h"
#endif

#ifndef SERDIFF_WITH_PYTHON_PEER
#error "SERDIFF_WITH_PYTHON_PEER must be 0 or 1 (set by differential/oracles/CMakeLists.txt)"
#endif
#ifndef SERDIFF_WITH_CORE_PEER
#error "SERDIFF_WITH_CORE_PEER must be 0 or 1 (set by differential/oracles/CMakeLists.txt)"
#endif

extern "C" void serdiff_peer_result_free(serdiff_peer_result* result)
{
    if (result == nullptr) return;
    std::free(result->reencoded);
    result->reencoded = nullptr;
    result->reencoded_len = 0;
}

namespace serdiff::oracles {

namespace {

constexpr Peer kStaticPeers[] = {
    {"rust-bitcoin", SERDIFF_RUST_BITCOIN_VERSION, serdiff_peer_rust_bitcoin_decode_tx,
     serdiff_peer_rust_bitcoin_decode_block, serdiff_peer_rust_bitcoin_bench_block},
    {"btcd", SERDIFF_BTCD_VERSION, serdiff_peer_btcd_decode_tx, serdiff_peer_btcd_decode_block,
     serdiff_peer_btcd_bench_block},
#if SERDIFF_WITH_PYTHON_PEER
    {"python-bitcoinlib", SERDIFF_PYTHON_BITCOINLIB_VERSION, serdiff_peer_python_bitcoinlib_decode_tx,
     serdiff_peer_python_bitcoinlib_decode_block, nullptr},
#endif
};

struct PeerList {
    std::vector<Peer> peers;
    std::vector<MissingPeer> missing;
};

const PeerList& peer_list()
{
    static const PeerList list = [] {
        PeerList built;
#if SERDIFF_WITH_CORE_PEER
        // Bitcoin Core first: it is the rule book the reference follows.
        if (core::unavailable_reason().empty()) {
            built.peers.push_back({"bitcoin-core", core::description().c_str(), serdiff_peer_core_decode_tx,
                                   serdiff_peer_core_decode_block, serdiff_peer_core_bench_block,
                                   serdiff_peer_core_decode_header});
        } else {
            built.missing.push_back({"bitcoin-core", core::unavailable_reason()});
            std::fprintf(stderr, "serdiff: Bitcoin Core peer left out: %s\n", core::unavailable_reason().c_str());
        }
#endif
        built.peers.insert(built.peers.end(), std::begin(kStaticPeers), std::end(kStaticPeers));
        return built;
    }();
    return list;
}

}  // namespace

std::span<const Peer> linked_peers() { return peer_list().peers; }
std::span<const MissingPeer> missing_peers() { return peer_list().missing; }

const Peer* find_peer(std::string_view name)
{
    for (const Peer& peer : linked_peers())
        if (name == peer.name) return &peer;
    return nullptr;
}

const char* kind_name(ObjectKind kind)
{
    switch (kind) {
    case ObjectKind::transaction: return "tx";
    case ObjectKind::block: return "block";
    case ObjectKind::header: return "header";
    }
    return "?";
}

namespace {

// A reference decoding as a verdict: accepted or the error, and on success the bytes consumed and the re-encoding.
template <typename T, typename Encode>
Verdict verdict_of(const model::Decoded<T>& decoded, Encode encode)
{
    Verdict verdict;
    verdict.accepted = decoded.ok;
    verdict.error = decoded.error;
    if (decoded.ok) {
        verdict.consumed = decoded.consumed;
        verdict.reencoded = encode(decoded.value);
    }
    return verdict;
}

}  // namespace

Verdict reference_verdict(ObjectKind kind, std::span<const uint8_t> input, bool allow_witness)
{
    if (kind == ObjectKind::header) {
        return verdict_of(reference::decode_header(input), reference::encode_header);
    }
    if (kind == ObjectKind::transaction) {
        auto decoded = reference::decode_transaction(input, allow_witness);
        Verdict verdict = verdict_of(decoded, [&](const model::Transaction& tx) {
            return reference::encode_transaction(tx, allow_witness);
        });
        if (decoded.ok) verdict.transactions.push_back(std::move(decoded.value));
        return verdict;
    }
    auto decoded = reference::decode_block(input);
    Verdict verdict = verdict_of(decoded, reference::encode_block);
    if (decoded.ok) verdict.transactions = std::move(decoded.value.transactions);
    return verdict;
}

Verdict peer_verdict(const Peer& peer, ObjectKind kind, std::span<const uint8_t> input, bool allow_witness)
{
    serdiff_peer_result result{};
    int status = SERDIFF_PEER_UNSUPPORTED;
    {
        const differential::PeerAllocations peer_allocations;  // the peer's, outside the allocation bound
        switch (kind) {
        case ObjectKind::transaction:
            status = peer.decode_tx(input.data(), input.size(), allow_witness ? 1 : 0, &result);
            break;
        case ObjectKind::block: status = peer.decode_block(input.data(), input.size(), &result); break;
        case ObjectKind::header:
            if (peer.decode_header != nullptr) status = peer.decode_header(input.data(), input.size(), &result);
            break;
        }
    }
    Verdict verdict;
    verdict.status = status == SERDIFF_PEER_OK            ? Verdict::Status::ok
                     : status == SERDIFF_PEER_UNSUPPORTED ? Verdict::Status::unsupported
                                                          : Verdict::Status::internal_error;
    verdict.accepted = status == SERDIFF_PEER_OK && result.accepted != 0;
    verdict.error = result.error;
    if (verdict.accepted) {
        verdict.consumed = result.consumed;
        verdict.reencoded.assign(result.reencoded, result.reencoded + result.reencoded_len);
    }
    serdiff_peer_result_free(&result);
    return verdict;
}

std::string describe(const Verdict& verdict)
{
    switch (verdict.status) {
    case Verdict::Status::unsupported: return "unsupported";
    case Verdict::Status::internal_error: return "internal error: " + verdict.error;
    case Verdict::Status::ok: break;
    }
    if (!verdict.accepted) return "reject (" + verdict.error + ")";
    std::string text = "accept, " + std::to_string(verdict.consumed) + " bytes";
    if (verdict.reencoded.size() <= 64) text += ", re-encodes " + model::to_hex(verdict.reencoded);
    return text;
}

std::string disagreement(const Verdict& reference, const Verdict& peer)
{
    if (peer.status == Verdict::Status::unsupported) return "";
    if (peer.status == Verdict::Status::internal_error) return "peer failed internally: " + peer.error;
    if (reference.accepted != peer.accepted)
        return reference.accepted ? "reference accepts, peer rejects (" + peer.error + ")"
                                  : "reference rejects (" + reference.error + "), peer accepts";
    if (!reference.accepted) return "";
    if (reference.consumed != peer.consumed)
        return "consumed differs: reference " + std::to_string(reference.consumed) + ", peer " +
               std::to_string(peer.consumed);
    if (reference.reencoded != peer.reencoded) {
        size_t offset = 0;
        while (offset < reference.reencoded.size() && offset < peer.reencoded.size() &&
               reference.reencoded[offset] == peer.reencoded[offset])
            ++offset;
        return "re-encoding differs at byte " + std::to_string(offset) + " (reference " +
               std::to_string(reference.reencoded.size()) + " bytes, peer " + std::to_string(peer.reencoded.size()) +
               " bytes)";
    }
    return "";
}

}  // namespace serdiff::oracles
