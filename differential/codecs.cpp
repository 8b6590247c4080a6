// The CodecPair table: wires serialize/codec.h and differential/reference/reference.h together.
#include "differential/codecs.h"

#include "differential/reference/reference.h"
#include "serialize/codec.h"

namespace serdiff::differential {

namespace optimized = serdiff::optimized;
namespace reference = serdiff::reference;

const CodecPair<model::Transaction>& transaction_codec(bool allow_witness)
{
    auto make = [](bool witness) {
        CodecPair<model::Transaction> codec;
        codec.label = witness ? "transaction(witness)" : "transaction(no witness)";
        codec.optimized_decode = [witness](auto data) { return optimized::decode_transaction(data, witness); };
        codec.reference_decode = [witness](auto data) { return reference::decode_transaction(data, witness); };
        codec.optimized_encode = [witness](const auto& tx) { return optimized::encode_transaction(tx, witness); };
        codec.reference_encode = [witness](const auto& tx) { return reference::encode_transaction(tx, witness); };
        codec.optimized_size = [witness](const auto& tx) { return optimized::size_transaction(tx, witness); };
        // Without witness the stacks are dropped; with witness a transaction with no inputs but some
        // outputs is written as `00 <count>`, which a reader takes for the marker and flag.
        codec.value_survives_round_trip = [witness](const model::Transaction& tx) {
            return witness ? !(tx.inputs.empty() && !tx.outputs.empty()) : !tx.has_witness();
        };
        return codec;
    };
    static const CodecPair<model::Transaction> with_witness = make(true), without_witness = make(false);
    return allow_witness ? with_witness : without_witness;
}

const CodecPair<model::BlockHeader>& header_codec()
{
    static const CodecPair<model::BlockHeader> codec{
        "block_header", optimized::decode_header, reference::decode_header, optimized::encode_header,
        reference::encode_header, optimized::size_header, true, {}};
    return codec;
}

const CodecPair<model::Block>& block_codec()
{
    static const CodecPair<model::Block> codec{
        "block", optimized::decode_block, reference::decode_block, optimized::encode_block, reference::encode_block,
        optimized::size_block, true,
        // A block's transactions are written with witness: the same zero-input rule applies.
        [](const model::Block& block) {
            for (const auto& tx : block.transactions)
                if (tx.inputs.empty() && !tx.outputs.empty()) return false;
            return true;
        }};
    return codec;
}

const CodecPair<model::BlockLocator>& locator_codec()
{
    static const CodecPair<model::BlockLocator> codec{
        "block_locator", optimized::decode_locator, reference::decode_locator, optimized::encode_locator,
        reference::encode_locator, optimized::size_locator, true, {}};
    return codec;
}

bool undo_value_survives_round_trip(const model::BlockUndo& undo)
{
    for (const auto& tx_undo : undo.txundo)
        for (const auto& coin : tx_undo.prevouts)
            if (coin.out.value < 0 || coin.out.value >= (int64_t{1} << 56) ||
                coin.out.script_pubkey.size() > model::kMaxScriptSize)
                return false;
    return true;
}

const CodecPair<model::BlockUndo>& block_undo_codec()
{
    // Not byte-exact (docs/format.md "Consequences for round trips"): the ignored VarInt, non-minimal
    // and oversized scripts, and tag-4/5 points off the curve all re-encode differently.
    static const CodecPair<model::BlockUndo> codec{
        "block_undo", optimized::decode_block_undo, reference::decode_block_undo, optimized::encode_block_undo,
        reference::encode_block_undo, optimized::size_block_undo, false, undo_value_survives_round_trip};
    return codec;
}

}  // namespace serdiff::differential
