// Structured model values built from fuzz bytes, biased towards the edges of every encoding.
#pragma once

#include <cstddef>
#include <cstdint>

#include "differential/fuzz_input.h"
#include "model/model.h"

namespace serdiff::differential {

// Named bounds on every loop and allocation the generator makes from input.
inline constexpr size_t kMaxGeneratedInputs = 8;
inline constexpr size_t kMaxGeneratedOutputs = 8;
inline constexpr size_t kMaxGeneratedWitnessItems = 6;
inline constexpr size_t kMaxGeneratedWitnessItemSize = 0x10010;  // crosses the 0xffff/0x10000 CompactSize edge
inline constexpr size_t kMaxGeneratedTransactions = 6;
inline constexpr size_t kMaxGeneratedLocatorHashes = 300;  // crosses the 0xfd CompactSize edge
inline constexpr size_t kMaxGeneratedCoins = 8;
inline constexpr size_t kGeneratedBytesBudget = 1 << 20;  // total script/witness bytes per generated value

// A length or count near a CompactSize/VarInt/limit edge, or a small value, at most `max`.
uint64_t generate_edge_value(FuzzInput& input, uint64_t max);

// Keeps the generated values of one fuzz input under kGeneratedBytesBudget bytes in total.
class ValueGenerator {
public:
    // `bytes_budget` lowers the script/witness byte budget (targets that write values to files byte by byte).
    explicit ValueGenerator(FuzzInput& input, size_t bytes_budget = kGeneratedBytesBudget)
        : input_(input), bytes_left_(bytes_budget)
    {
    }

    model::uint256 hash();
    model::Bytes byte_string(size_t max_size);
    // Raw bytes, or one of the standard forms the undo script compressor recognises (P2PKH, P2SH,
    // P2PK with a compressed or a valid uncompressed key), or a near miss of one of them.
    model::Bytes script();
    model::Transaction transaction();
    model::BlockHeader header();
    model::Block block();
    model::BlockLocator locator();
    model::Coin coin();
    model::BlockUndo block_undo();

private:
    FuzzInput& input_;
    size_t bytes_left_;
};

}  // namespace serdiff::differential
