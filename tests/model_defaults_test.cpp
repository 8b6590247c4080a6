// A value-initialised model object is serdiff's null record: every integer zero, every hash zero, every container
// empty (for a block header that is Core's SetNull; Core's other defaults differ: a CTxIn's sequence is final).
// Tests and callers build records from `T{}` and set only the fields they care about, so a default is part of
// what a record encodes to; checked here through the optimized codecs against bytes written out by hand.
#include <gtest/gtest.h>

#include <string>

#include "model/model.h"
#include "serialize/codec.h"
#include "tests/test_util.h"

namespace serdiff::test {
namespace {

const std::string kZeroHash(64, '0');

TEST(ModelDefaults, ValueInitialisedRecordsEncodeAsZerosAndEmptyLists)
{
    // version, prev_block, merkle_root, time, bits, nonce: 80 zero bytes.
    EXPECT_EQ(to_hex(optimized::encode_header(model::BlockHeader{})), std::string(160, '0'));
    // The header, then no transactions.
    EXPECT_EQ(to_hex(optimized::encode_block(model::Block{})), std::string(160, '0') + "00");
    EXPECT_EQ(to_hex(optimized::encode_locator(model::BlockLocator{})), "00000000" "00");
    EXPECT_EQ(to_hex(optimized::encode_block_undo(model::BlockUndo{})), "00");
    // version, no inputs, no outputs, lock_time.
    EXPECT_EQ(to_hex(optimized::encode_transaction(model::Transaction{}, true)), "00000000" "00" "00" "00000000");

    // One input and one output, each value-initialised: the null outpoint (zero hash, index 0), an empty script,
    // sequence 0, no witness; value 0 and an empty script.
    model::Transaction tx;
    tx.inputs.emplace_back();
    tx.outputs.emplace_back();
    EXPECT_EQ(to_hex(optimized::encode_transaction(tx, true)),
              "00000000" "01" + kZeroHash + "00000000" "00" "00000000" "01" "0000000000000000" "00" "00000000");

    // A value-initialised coin in undo data: code VarInt(height 0 * 2 + not coinbase) = 00, no legacy version byte
    // (height 0), amount CompressAmount(0) = VarInt 00, script as its raw size + 6 = VarInt 06 with no bytes.
    model::BlockUndo undo;
    undo.txundo.emplace_back().prevouts.emplace_back();
    EXPECT_EQ(to_hex(optimized::encode_block_undo(undo)), "01" "01" "00" "00" "06");
}

}  // namespace
}  // namespace serdiff::test
