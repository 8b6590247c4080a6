// Context-free block checks Bitcoin Core makes when it reads and checks a block: the header's proof of
// work against its own nBits, the merkle root over the txids, and the witness commitment. No chain state:
// whether nBits is the right difficulty for the block's height is not (and cannot be) checked here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/model.h"

namespace serdiff::crypto {

// nBits in compact form decoded to a 256-bit target (little-endian bytes, as uint256 holds hashes).
struct CompactTarget {
    model::uint256 target;
    bool negative = false;  // the sign bit 0x00800000 set with a non-zero mantissa
    bool overflow = false;  // the value does not fit in 256 bits
    bool zero = false;      // the target is 0
    bool valid() const { return !negative && !overflow && !zero; }
};
CompactTarget decode_compact_target(uint32_t bits);

// The hash, read as a little-endian 256-bit number, is at most the target.
bool hash_at_most(const model::uint256& hash, const model::uint256& target);

// Core's ComputeMerkleRoot: pairs hashed with SHA-256d level by level, the last hash of an odd level paired
// with itself. `mutated` is set when a level holds two equal adjacent hashes at a pair position (the
// CVE-2012-2459 duplication that gives two transaction lists one root). The empty list's root is zero.
model::uint256 merkle_root(std::vector<model::uint256> leaves, bool* mutated = nullptr);

// Index of the coinbase output holding the witness commitment (the last output whose script is at least 38
// bytes and starts 6a 24 aa 21 a9 ed), if any.
std::optional<size_t> witness_commitment_index(const model::Transaction& coinbase);

// Checks a decoded block against its header. `txids` and `wtxids` are the SHA-256d of each transaction
// serialized without and with its witness (callers serialize; crypto/ does not). `header_hash` is the
// SHA-256d of the 80-byte header. Returns one line per failed check; empty when the block is intact.
std::vector<std::string> check_block(const model::Block& block, const model::uint256& header_hash,
                                     std::span<const model::uint256> txids, std::span<const model::uint256> wtxids);

}  // namespace serdiff::crypto
