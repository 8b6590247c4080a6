// The SizeComputer at every CompactSize width a length can take (1, 3, 5 and 9 bytes): transactions and blocks whose
// scriptSigs, scriptPubKeys, witness items and counts sit on either side of 252/253 and 65,535/65,536, each size
// compared with the reference's encoding; and the generic byte-payload sizing and CompactSize width at the same
// edges and at 2^32, where the length is claimed (computed), not allocated.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "differential/reference/reference.h"
#include "model/model.h"
#include "serialize/codec.h"
#include "serialize/model_formats.h"
#include "serialize/prevector.h"
#include "serialize/serialize.h"
#include "tests/test_util.h"

namespace serdiff::test {
namespace {

// Both sides of each CompactSize width change a length can reach in memory.
constexpr size_t kLengthEdges[] = {0, 1, 252, 253, 254, 0xffff, 0x10000, 0x10001};

Bytes pattern(size_t size, uint8_t salt)
{
    Bytes bytes(size);
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(salt + i * 13 + (i >> 8));
    return bytes;
}

model::TxIn input_with(size_t script_size, uint8_t salt)
{
    model::TxIn in;
    in.prevout.hash.bytes.fill(salt);
    in.prevout.n = salt;
    in.script_sig = pattern(script_size, salt);
    in.sequence = 0xfffffffe;
    return in;
}

// The optimized size and encoding of `tx` against the reference's encoding, with and without witness.
void expect_transaction_sized(const model::Transaction& tx, const std::string& what)
{
    for (const bool witness : {true, false}) {
        SCOPED_TRACE(what + (witness ? " (witness)" : " (no witness)"));
        const Bytes expected = reference::encode_transaction(tx, witness);
        EXPECT_EQ(optimized::size_transaction(tx, witness), expected.size());
        try {
            const Bytes encoded = optimized::encode_transaction(tx, witness);  // sized by the SizeComputer first
            EXPECT_TRUE(encoded == expected) << "the optimized encoding differs (" << encoded.size() << " bytes, "
                                             << expected.size() << " expected)";
        } catch (const std::exception& error) {
            ADD_FAILURE() << "optimized encode_transaction threw: " << error.what();
        }
    }
}

void expect_block_sized(const model::Block& block, const std::string& what)
{
    SCOPED_TRACE(what);
    const Bytes expected = reference::encode_block(block);
    EXPECT_EQ(optimized::size_block(block), expected.size());
    try {
        EXPECT_TRUE(optimized::encode_block(block) == expected) << "the optimized encoding differs";
    } catch (const std::exception& error) {
        ADD_FAILURE() << "optimized encode_block threw: " << error.what();
    }
}

TEST(SizeComputer, TransactionsAndBlocksWithScriptsAndWitnessItemsAtEveryLengthEdge)
{
    model::Block block;
    block.header.version = 4;
    for (const size_t length : kLengthEdges) {
        const std::string at = std::to_string(length) + " bytes";
        // The scriptSig of the first of two inputs, the scriptPubKey of the second of two outputs, and one witness
        // item among short ones: each alone, then all three in one transaction.
        model::Transaction tx;
        tx.version = 2;
        tx.inputs = {input_with(length, 1), input_with(3, 2)};
        tx.outputs = {{1000, pattern(25, 3)}, {2000, pattern(22, 4)}};
        tx.lock_time = 700000;
        expect_transaction_sized(tx, "scriptSig of " + at);
        model::Transaction output_tx = tx;
        output_tx.inputs[0].script_sig = pattern(107, 1);
        output_tx.outputs[1].script_pubkey = pattern(length, 5);
        expect_transaction_sized(output_tx, "scriptPubKey of " + at);
        model::Transaction witness_tx = output_tx;
        witness_tx.outputs[1].script_pubkey = pattern(34, 5);
        witness_tx.inputs[1].witness = {pattern(72, 6), pattern(length, 7), pattern(33, 8)};
        expect_transaction_sized(witness_tx, "witness item of " + at);
        model::Transaction all = tx;
        all.outputs[1].script_pubkey = pattern(length, 9);
        all.inputs[0].witness = {pattern(length, 10)};
        expect_transaction_sized(all, "scriptSig, scriptPubKey and witness item of " + at);
        expect_block_sized(model::Block{block.header, {tx, output_tx, witness_tx}}, "a block with " + at + " scripts");
        if (length >= 0x10000) block.transactions.push_back(all);
    }
    // Two scripts of each length past 0xffff in one transaction: the widths add up, they do not stand in for each other.
    model::Transaction wide;
    wide.inputs = {input_with(0x10000, 11), input_with(0x10001, 12), input_with(0xffff, 13)};
    wide.outputs = {{1, pattern(0x10000, 14)}, {2, pattern(0x10001, 15)}, {3, pattern(253, 16)}};
    expect_transaction_sized(wide, "three scripts of 65,535-65,537 bytes on each side");
    block.transactions.push_back(wide);
    expect_block_sized(block, "a block of every transaction with 65,536-byte or longer scripts");

    // Counts on either side of 252/253: inputs, outputs and witness items.
    for (const size_t count : {252, 253}) {
        model::Transaction many;
        for (size_t i = 0; i < count; ++i) many.inputs.push_back(input_with(i % 3, static_cast<uint8_t>(i)));
        for (size_t i = 0; i < count; ++i) many.outputs.push_back({static_cast<int64_t>(i), pattern(i % 2, 1)});
        for (size_t i = 0; i < count; ++i) many.inputs[1].witness.push_back(pattern(i % 4, 2));
        expect_transaction_sized(many, std::to_string(count) + " inputs, outputs and witness items");
    }
}

// Bytes the reference writes for a byte vector of `size` bytes: its CompactSize, then the bytes.
uint64_t reference_payload_size(uint64_t size) { return reference::encode_compactsize(size).size() + size; }

TEST(SizeComputer, BytePayloadsAndCompactSizeWidthsUpToAndPast2To32)
{
    // Real payloads: every byte container serialize/ writes as a CompactSize length and its bytes.
    const Bytes largest = pattern(0x10001, 1);
    for (const size_t length : kLengthEdges) {
        SCOPED_TRACE(std::to_string(length) + " bytes");
        const Bytes bytes(largest.begin(), largest.begin() + static_cast<std::ptrdiff_t>(length));
        reference::Writer expected;
        expected.write_byte_vector(bytes);
        EXPECT_EQ(optimized::GetSerializeSize(bytes), expected.out.size()) << "std::vector<uint8_t>";
        EXPECT_EQ(optimized::GetSerializeSize(std::string(bytes.begin(), bytes.end())), expected.out.size())
            << "std::string";
        EXPECT_EQ(optimized::GetSerializeSize(optimized::prevector<28, uint8_t>(bytes.begin(), bytes.end())),
                  expected.out.size())
            << "prevector<28>";
        EXPECT_EQ(optimized::GetSerializeSize(model::Script(bytes)), expected.out.size()) << "model::Script";
        EXPECT_EQ(optimized::GetSerializeSize(model::WitnessStack{bytes}), expected.out.size() + 1) << "one-item stack";
    }

    // Lengths no test allocates: the sizing is arithmetic on the claimed length (a 4 GiB script cannot be held, and
    // the SizeComputer never reads the bytes it counts).
    const uint64_t values[] = {0,          1,          0xfc,        0xfd,        0xfe,        0xff,
                               0x100,      0xfffe,     0xffff,      0x10000,     0x10001,     0x02000000,
                               0xfffffffe, 0xffffffff, 0x100000000, 0x100000001, 0x1ffffffff, 0x200000000};
    for (const uint64_t value : values) {
        SCOPED_TRACE(std::to_string(value));
        const size_t width = reference::encode_compactsize(value).size();
        EXPECT_EQ(optimized::GetSizeOfCompactSize(value), width);
        EXPECT_EQ(model::compact_size_length(value), width);  // the witness stack's item prefixes
        EXPECT_EQ(optimized::encode_compactsize(value).size(), width);
        optimized::SizeComputer compact;
        optimized::WriteCompactSize(compact, value);
        EXPECT_EQ(compact.size(), width);
        // The generic byte payload (every byte vector, string and prevector) through the SizeComputer, its length
        // claimed: the one byte behind `claimed` is never read.
        const uint8_t claimed = 0;
        optimized::SizeComputer payload;
        optimized::detail::write_byte_payload(payload, &claimed, static_cast<size_t>(value));
        EXPECT_EQ(payload.size(), reference_payload_size(value));
    }
    EXPECT_EQ(optimized::GetSizeOfCompactSize(std::numeric_limits<uint64_t>::max()), 9u);
}

}  // namespace
}  // namespace serdiff::test
