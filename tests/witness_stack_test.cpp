// model::WitnessStack: one buffer holding the items in wire form. Its items, its iteration, its size
// prefixes at every CompactSize width and its encoded size, checked against bytes written here and against
// the reference's encoding (which writes each item with its own CompactSize).
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "differential/reference/reference.h"
#include "model/model.h"
#include "serialize/codec.h"

namespace serdiff::test {
namespace {

using model::Bytes;
using model::WitnessStack;

Bytes as_bytes(WitnessStack::Item item) { return Bytes(item.begin(), item.end()); }

TEST(WitnessStack, ItemsComeBackInOrder)
{
    const std::vector<Bytes> items = {{0xaa}, {}, Bytes(252, 1), Bytes(253, 2), Bytes(0x10000, 3)};
    WitnessStack stack;
    EXPECT_TRUE(stack.empty());
    for (const Bytes& item : items) stack.push_back(item);
    ASSERT_EQ(stack.size(), items.size());
    EXPECT_FALSE(stack.empty());
    for (size_t i = 0; i < items.size(); ++i) EXPECT_EQ(as_bytes(stack.item(i)), items[i]) << i;
    std::vector<Bytes> walked;
    for (const WitnessStack::Item item : stack) walked.push_back(as_bytes(item));
    EXPECT_EQ(walked, items);
}

TEST(WitnessStack, WireFormHasEveryPrefixWidth)
{
    const WitnessStack stack{{0xaa}, {}, Bytes(253, 2), Bytes(0x10000, 3)};
    Bytes expected = {0x01, 0xaa, 0x00, 0xfd, 0xfd, 0x00};
    expected.insert(expected.end(), 253, 2);
    expected.insert(expected.end(), {0xfe, 0x00, 0x00, 0x01, 0x00});
    expected.insert(expected.end(), 0x10000, 3);
    EXPECT_EQ(as_bytes(stack.encoded_items()), expected);
    EXPECT_EQ(stack.serialized_size(), 1 + expected.size());
}

TEST(WitnessStack, EncodedSizeMatchesBothEncoders)
{
    model::Transaction tx;
    tx.inputs.resize(2);
    tx.outputs.resize(1);
    tx.inputs[0].witness = {{0x30, 0x44}, Bytes(33, 0x02)};
    for (int i = 0; i < 300; ++i) tx.inputs[1].witness.push_back(Bytes(static_cast<size_t>(i % 7), 0x51));
    const Bytes reference = reference::encode_transaction(tx, true);
    EXPECT_EQ(optimized::encode_transaction(tx, true), reference);
    EXPECT_EQ(optimized::size_transaction(tx, true), reference.size());
    const size_t witness_bytes = tx.inputs[0].witness.serialized_size() + tx.inputs[1].witness.serialized_size();
    EXPECT_EQ(witness_bytes, reference.size() - reference::encode_transaction(tx, false).size() - 2);
    size_t item_bytes = 0;
    for (int i = 0; i < 300; ++i) item_bytes += 1 + static_cast<size_t>(i % 7);  // one-byte prefix, then the item
    EXPECT_EQ(tx.inputs[1].witness.serialized_size(), 3 + item_bytes);            // count 300: 0xfd 2c 01
}

TEST(WitnessStack, PushingItsOwnItemCopiesItFirst)
{
    WitnessStack stack{Bytes(100, 0x11)};
    for (int i = 0; i < 8; ++i) stack.push_back(stack.item(0));  // the buffer grows and moves meanwhile
    ASSERT_EQ(stack.size(), 9u);
    for (const WitnessStack::Item item : stack) EXPECT_EQ(as_bytes(item), Bytes(100, 0x11));
}

TEST(WitnessStack, MovedFromStackIsEmpty)
{
    // Found by the model_witness_stack target: the defaulted moves left the count behind, so a moved-from stack
    // said size() 2 with no bytes, and item(0) or a push_back then walked past its buffer.
    WitnessStack stack{{0xaa}, {0xbb, 0xcc}};
    WitnessStack moved(std::move(stack));
    EXPECT_EQ(moved, (WitnessStack{{0xaa}, {0xbb, 0xcc}}));
    EXPECT_EQ(stack.size(), 0u);  // NOLINT(bugprone-use-after-move): the state after a move is the point
    EXPECT_TRUE(stack.empty());
    EXPECT_EQ(stack.serialized_size(), 1u);
    stack.push_back(Bytes{0x07});
    EXPECT_EQ(stack, (WitnessStack{{0x07}}));
    WitnessStack assigned;
    assigned = std::move(moved);
    EXPECT_EQ(assigned, (WitnessStack{{0xaa}, {0xbb, 0xcc}}));
    EXPECT_EQ(moved.size(), 0u);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(moved, WitnessStack{});
    WitnessStack& self = assigned;
    assigned = std::move(self);
    EXPECT_EQ(assigned, (WitnessStack{{0xaa}, {0xbb, 0xcc}}));
}

TEST(WitnessStack, EqualityIsByItems)
{
    EXPECT_EQ((WitnessStack{{0xaa}, {}}), (WitnessStack{{0xaa}, {}}));
    EXPECT_NE((WitnessStack{{0xaa}, {}}), (WitnessStack{{0xaa}}));
    EXPECT_NE((WitnessStack{{0xaa, 0xbb}}), (WitnessStack{{0xaa}, {0xbb}}));
    EXPECT_NE(WitnessStack{}, (WitnessStack{{}}));
    WitnessStack cleared{{0x01}};
    cleared.clear();
    EXPECT_EQ(cleared, WitnessStack{});
    EXPECT_EQ(cleared.serialized_size(), 1u);
}

}  // namespace
}  // namespace serdiff::test
