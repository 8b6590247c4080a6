// Proof of work, merkle root and witness commitment checks, written from Bitcoin's consensus rules.
#include "crypto/block_check.h"

#include <algorithm>
#include <cstdio>

#include "crypto/crypto.h"
#include "serialize/planted.h"

namespace serdiff::crypto {
namespace {

constexpr uint8_t kCommitmentHeader[] = {0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed};
constexpr size_t kCommitmentScriptMinSize = 38;  // OP_RETURN, push 36, 4-byte tag, 32-byte commitment

}  // namespace

CompactTarget decode_compact_target(uint32_t bits)
{
    CompactTarget out;
    const unsigned size = bits >> 24;
    uint32_t word = bits & 0x007fffff;
    if (size <= 3) {
        word >>= 8 * (3 - size);
        for (unsigned i = 0; i < 3; ++i) out.target.bytes[i] = static_cast<uint8_t>(word >> (8 * i));
    } else {
        // word << 8 * (size - 3): byte i of the word lands at byte (size - 3 + i) when that is inside 256 bits.
        for (unsigned i = 0; i < 3; ++i) {
            const unsigned at = size - 3 + i;
            if (at < 32) out.target.bytes[at] = static_cast<uint8_t>(word >> (8 * i));
        }
    }
    out.negative = word != 0 && (bits & 0x00800000) != 0;
    out.overflow = word != 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
    out.zero = std::all_of(out.target.bytes.begin(), out.target.bytes.end(), [](uint8_t b) { return b == 0; });
    return out;
}

bool hash_at_most(const model::uint256& hash, const model::uint256& target)
{
    // Most significant byte first: the last of the 32 little-endian bytes.
    for (size_t i = 32; i > 0; --i)
        if (hash.bytes[i - 1] != target.bytes[i - 1]) return hash.bytes[i - 1] < target.bytes[i - 1];
    return true;
}

model::uint256 merkle_root(std::vector<model::uint256> leaves, bool* mutated)
{
    bool found_mutation = false;
    if (leaves.empty()) {
        if (mutated) *mutated = false;
        return {};
    }
    for (bool leaf_level = true; leaves.size() > 1; leaf_level = false) {
        for (size_t i = 0; i + 1 < leaves.size() && (leaf_level || !SERDIFF_PLANTED(merkle_mutation_leaves_only));
             i += 2)
            if (leaves[i] == leaves[i + 1]) found_mutation = true;
        if (leaves.size() % 2 == 1) leaves.push_back(leaves.back());
        std::vector<model::uint256> next(leaves.size() / 2);
        for (size_t i = 0; i < next.size(); ++i) next[i] = sha256d(leaves[2 * i].bytes, leaves[2 * i + 1].bytes);
        leaves = std::move(next);
    }
    if (mutated) *mutated = found_mutation;
    return leaves[0];
}

std::optional<size_t> witness_commitment_index(const model::Transaction& coinbase)
{
    std::optional<size_t> index;
    for (size_t i = 0; i < coinbase.outputs.size(); ++i) {
        const model::Script& script = coinbase.outputs[i].script_pubkey;
        if (script.size() >= kCommitmentScriptMinSize &&
            std::equal(std::begin(kCommitmentHeader), std::end(kCommitmentHeader), script.begin()) &&
            !(SERDIFF_PLANTED(witness_commitment_first) && index))
            index = i;
    }
    return index;
}

std::vector<std::string> check_block(const model::Block& block, const model::uint256& header_hash,
                                     std::span<const model::uint256> txids, std::span<const model::uint256> wtxids)
{
    std::vector<std::string> failures;

    // Proof of work (Core's CheckProofOfWork, less the network's powLimit): nBits must decode to a positive
    // target that fits in 256 bits, and the header hash must not exceed it.
    char bits_hex[9];
    std::snprintf(bits_hex, sizeof bits_hex, "%08x", block.header.bits);
    const CompactTarget target = decode_compact_target(block.header.bits);
    if (!target.valid())
        failures.push_back(std::string("proof of work: nBits ") + bits_hex + " is " +
                           (target.negative ? "negative" : target.overflow ? "an overflowing target" : "a zero target"));
    else if (!hash_at_most(header_hash, target.target))
        failures.push_back(std::string("proof of work: header hash ") + model::hash_to_hex(header_hash) +
                           " is above the target of nBits " + bits_hex + " (" + model::hash_to_hex(target.target) +
                           ")");

    // Merkle root over the txids, and Core's duplicate-transaction mutation check.
    if (block.transactions.empty()) {
        failures.push_back("merkle root: the block has no transactions");
        return failures;
    }
    bool mutated = false;
    const model::uint256 root = merkle_root({txids.begin(), txids.end()}, &mutated);
    if (root != block.header.merkle_root)
        failures.push_back("merkle root: header has " + model::hash_to_hex(block.header.merkle_root) +
                           ", the transactions give " + model::hash_to_hex(root));
    if (mutated) failures.push_back("merkle root: duplicate transaction hashes at a pair position (CVE-2012-2459)");

    // Witness commitment (BIP 141): with a commitment, the coinbase witness is one 32-byte reserved value and
    // SHA-256d(witness merkle root || reserved value) is the commitment; without one, no witness data.
    const model::Transaction& coinbase = block.transactions.front();
    if (const std::optional<size_t> index = witness_commitment_index(coinbase)) {
        const model::WitnessStack no_stack;
        const model::WitnessStack& stack = coinbase.inputs.empty() ? no_stack : coinbase.inputs[0].witness;
        if (stack.size() != 1 || stack[0].size() != 32) {
            failures.push_back("witness commitment: the coinbase witness is not one 32-byte reserved value (" +
                               std::to_string(stack.size()) + " items)");
        } else {
            std::vector<model::uint256> leaves(wtxids.begin(), wtxids.end());
            leaves[0] = {};  // the coinbase's wtxid counts as zero
            const model::uint256 witness_root = merkle_root(std::move(leaves));
            const model::uint256 expected = sha256d(witness_root.bytes, stack[0]);
            const model::Script& script = coinbase.outputs[*index].script_pubkey;
            if (!std::equal(expected.bytes.begin(), expected.bytes.end(), script.begin() + 6))
                failures.push_back("witness commitment: coinbase output " + std::to_string(*index) + " commits to " +
                                   model::to_hex(script.data() + 6, 32) + ", the witnesses give " +
                                   model::to_hex(expected.bytes.data(), 32));
        }
    } else {
        for (size_t i = 0; i < block.transactions.size(); ++i)
            if (block.transactions[i].has_witness()) {
                failures.push_back("witness commitment: transaction " + std::to_string(i) +
                                   " has witness data but the coinbase has no commitment");
                break;
            }
    }
    return failures;
}

}  // namespace serdiff::crypto
