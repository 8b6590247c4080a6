// Structured value generation for the size_computer target and the stream targets.
#include "differential/generate.h"

#include <algorithm>
#include <array>

#include "crypto/crypto.h"

namespace serdiff::differential {

uint64_t generate_edge_value(FuzzInput& input, uint64_t max)
{
    // Both sides of each CompactSize width change, VarInt 7-bit groups, and the script size limit.
    static constexpr uint64_t kEdges[] = {0,      1,      6,      20,         32,         33,        65,
                                          127,    128,    252,    253,        254,        255,       256,
                                          16511,  16512,  65535,  65536,      10000,      10001,     10006,
                                          0x7fff, 0x8000, 0xffff, 0xffffffff, 0x100000000};
    uint64_t value = 0;
    switch (input.in_range<int>(0, 2)) {
    case 0: value = input.pick(kEdges); break;
    case 1: value = input.in_range<uint64_t>(0, 40); break;
    default: value = input.integral<uint64_t>(); break;
    }
    return max == 0 ? 0 : value % (max + 1);
}

model::uint256 ValueGenerator::hash()
{
    model::uint256 out;
    const model::Bytes raw = input_.bytes(32);
    std::copy(raw.begin(), raw.end(), out.bytes.begin());
    return out;
}

model::Bytes ValueGenerator::byte_string(size_t max_size)
{
    const size_t size = static_cast<size_t>(generate_edge_value(input_, std::min(max_size, bytes_left_)));
    bytes_left_ -= size;
    // Only a short prefix comes from the input so a large edge length costs the fuzzer few bytes.
    model::Bytes out = input_.bytes(std::min<size_t>(size, 64));
    out.resize(size, 0x51);
    return out;
}

model::Bytes ValueGenerator::script()
{
    auto with = [&](std::initializer_list<uint8_t> prefix, size_t payload, std::initializer_list<uint8_t> suffix) {
        model::Bytes out(prefix);
        const model::Bytes middle = input_.bytes(payload);
        out.insert(out.end(), middle.begin(), middle.end());
        out.insert(out.end(), suffix);
        return out;
    };
    switch (input_.in_range<int>(0, 7)) {
    case 0: return with({0x76, 0xa9, 0x14}, 20, {0x88, 0xac});  // P2PKH
    case 1: return with({0xa9, 0x14}, 20, {0x87});               // P2SH
    case 2: return with({static_cast<uint8_t>(0x21), static_cast<uint8_t>(input_.boolean() ? 0x02 : 0x03)}, 32,
                        {0xac});  // P2PK, compressed key
    case 3: {  // P2PK with an uncompressed key: valid when x is on the curve, otherwise a near miss
        std::array<uint8_t, 33> compressed{};
        compressed[0] = input_.boolean() ? 0x02 : 0x03;
        const model::Bytes x = input_.bytes(32);
        std::copy(x.begin(), x.end(), compressed.begin() + 1);
        std::array<uint8_t, 65> key{};
        if (!crypto::decompress_pubkey(compressed, key)) {
            key[0] = 0x04;
            std::copy(x.begin(), x.end(), key.begin() + 1);
        }
        model::Bytes out{0x41};
        out.insert(out.end(), key.begin(), key.end());
        out.push_back(0xac);
        return out;
    }
    case 4: {  // a standard form with one byte changed
        model::Bytes out = with({0x76, 0xa9, 0x14}, 20, {0x88, 0xac});
        out[input_.in_range<size_t>(0, out.size() - 1)] ^= static_cast<uint8_t>(input_.in_range<int>(1, 255));
        return out;
    }
    default: return byte_string(model::kMaxScriptSize + 16);
    }
}

model::Transaction ValueGenerator::transaction()
{
    model::Transaction tx;
    tx.version = input_.integral<uint32_t>();
    const size_t input_count = input_.in_range<size_t>(0, kMaxGeneratedInputs);
    const bool with_witness = input_.boolean();
    for (size_t i = 0; i < input_count; ++i) {
        model::TxIn in;
        in.prevout.hash = hash();
        in.prevout.n = input_.integral<uint32_t>();
        in.script_sig = byte_string(300);
        in.sequence = input_.integral<uint32_t>();
        if (with_witness) {
            const size_t items = input_.in_range<size_t>(0, kMaxGeneratedWitnessItems);
            for (size_t j = 0; j < items; ++j) in.witness.push_back(byte_string(kMaxGeneratedWitnessItemSize));
        }
        tx.inputs.push_back(std::move(in));
    }
    const size_t output_count = input_.in_range<size_t>(0, kMaxGeneratedOutputs);
    for (size_t i = 0; i < output_count; ++i) tx.outputs.push_back({input_.integral<int64_t>(), script()});
    tx.lock_time = input_.integral<uint32_t>();
    return tx;
}

model::BlockHeader ValueGenerator::header()
{
    model::BlockHeader header;
    header.version = input_.integral<int32_t>();
    header.prev_block = hash();
    header.merkle_root = hash();
    header.time = input_.integral<uint32_t>();
    header.bits = input_.integral<uint32_t>();
    header.nonce = input_.integral<uint32_t>();
    return header;
}

model::Block ValueGenerator::block()
{
    model::Block block;
    block.header = header();
    const size_t count = input_.in_range<size_t>(0, kMaxGeneratedTransactions);
    for (size_t i = 0; i < count; ++i) block.transactions.push_back(transaction());
    return block;
}

model::BlockLocator ValueGenerator::locator()
{
    model::BlockLocator locator;
    locator.version = input_.integral<int32_t>();
    const size_t count = static_cast<size_t>(generate_edge_value(input_, kMaxGeneratedLocatorHashes));
    for (size_t i = 0; i < count; ++i) locator.have.push_back(hash());
    return locator;
}

model::Coin ValueGenerator::coin()
{
    static constexpr int64_t kAmountEdges[] = {0, 1, 9, 10, 100, 546, 100'000'000, 2'100'000'000'000'000,
                                               (int64_t{1} << 56) - 1, INT64_MAX, -1};
    model::Coin coin;
    coin.out.value = input_.boolean() ? input_.pick(kAmountEdges) : input_.integral<int64_t>();
    coin.out.script_pubkey = script();
    coin.height = input_.boolean() ? input_.in_range<uint32_t>(0, 2) : input_.integral<uint32_t>() & 0x7fffffff;
    coin.coinbase = input_.boolean();
    return coin;
}

model::BlockUndo ValueGenerator::block_undo()
{
    model::BlockUndo undo;
    const size_t tx_count = input_.in_range<size_t>(0, kMaxGeneratedTransactions);
    for (size_t i = 0; i < tx_count; ++i) {
        model::TxUndo tx_undo;
        const size_t coins = input_.in_range<size_t>(0, kMaxGeneratedCoins);
        for (size_t j = 0; j < coins; ++j) tx_undo.prevouts.push_back(coin());
        undo.txundo.push_back(std::move(tx_undo));
    }
    return undo;
}

}  // namespace serdiff::differential
