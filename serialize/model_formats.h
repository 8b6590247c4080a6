// Layouts of the model types (model/model.h) for the optimized serializer: one description per type
// serves reading, writing and sizing; the transaction carries the allow-witness parameter.
#pragma once

#include <cstdint>

#include "model/model.h"
#include "serialize/compression.h"
#include "serialize/planted.h"
#include "serialize/serialize.h"

namespace serdiff::optimized {

SERDIFF_LAYOUT(model::uint256, obj) { READWRITE(obj.bytes); }
SERDIFF_LAYOUT(model::OutPoint, obj) { READWRITE(obj.hash, obj.n); }
// The witness is not part of the input's own bytes: the transaction writes it after all outputs.
SERDIFF_LAYOUT(model::TxIn, obj) { READWRITE(obj.prevout, obj.script_sig, obj.sequence); }
SERDIFF_LAYOUT(model::TxOut, obj) { READWRITE(obj.value, obj.script_pubkey); }
SERDIFF_LAYOUT(model::WitnessStack, obj) { READWRITE(obj.stack); }
SERDIFF_LAYOUT(model::BlockHeader, obj)
{
    READWRITE(obj.version, obj.prev_block, obj.merkle_root, obj.time, obj.bits, obj.nonce);
}
SERDIFF_LAYOUT(model::BlockLocator, obj) { READWRITE(obj.version, obj.have); }
SERDIFF_LAYOUT(model::Coin, obj) { READWRITE(Using<CoinUndoFormatter>(obj)); }
SERDIFF_LAYOUT(model::TxUndo, obj) { READWRITE(obj.prevouts); }
SERDIFF_LAYOUT(model::BlockUndo, obj) { READWRITE(obj.txundo); }

// Marker and flag written before the inputs of a transaction that carries witness data.
inline constexpr uint8_t kWitnessFlag = 1;

template <WriteStream S>
void SerializeTransaction(S& s, const model::Transaction& tx, bool allow_witness)
{
    const bool with_witness =
        allow_witness && (SERDIFF_PLANTED(witness_first_input_only)
                              ? !tx.inputs.empty() && !tx.inputs.front().witness.stack.empty()
                              : tx.has_witness());
    Serialize(s, tx.version);
    if (with_witness) {
        s.write_byte(std::byte{0});  // an empty input vector, which a witness reader takes as the marker
        s.write_byte(std::byte{kWitnessFlag});
    }
    Serialize(s, tx.inputs);
    Serialize(s, tx.outputs);
    if (with_witness) {
        for (const auto& input : tx.inputs) Serialize(s, input.witness);
    }
    Serialize(s, tx.lock_time);
}

// Bitcoin Core's order exactly (docs/format.md "Transaction"): the flag byte is only read when the first
// input vector came out empty.
template <ReadStream S>
void UnserializeTransaction(S& s, model::Transaction& tx, bool allow_witness)
{
    Unserialize(s, tx.version);
    tx.outputs.clear();
    Unserialize(s, tx.inputs);
    uint8_t flags = 0;
    if (tx.inputs.empty() && allow_witness) {
        Unserialize(s, flags);
        if (flags != 0) {
            Unserialize(s, tx.inputs);
            Unserialize(s, tx.outputs);
        }
    } else {
        Unserialize(s, tx.outputs);
    }
    if ((flags & kWitnessFlag) && allow_witness) {
        flags ^= kWitnessFlag;
        for (auto& input : tx.inputs) Unserialize(s, input.witness);
        if (!tx.has_witness()) throw_serialize_error(model::errors::kSuperfluousWitness);
    }
    if (flags != 0) throw_serialize_error(model::errors::kUnknownOptionalData);
    Unserialize(s, tx.lock_time);
}

// A transaction with its allow-witness parameter: `stream << TxWithWitness{tx, true}`.
template <typename Tx>
struct TxWithWitness {
    Tx& tx;
    bool allow_witness;
};
template <typename Tx>
TxWithWitness(Tx&, bool) -> TxWithWitness<Tx>;

template <WriteStream S, typename Tx>
void Serialize(S& s, const TxWithWitness<Tx>& wrapped)
{
    SerializeTransaction(s, wrapped.tx, wrapped.allow_witness);
}
template <ReadStream S>
void Unserialize(S& s, const TxWithWitness<model::Transaction>& wrapped)
{
    UnserializeTransaction(s, wrapped.tx, wrapped.allow_witness);
}

// The transaction with a fixed allow-witness choice, for containers (blocks always allow witness).
template <bool AllowWitness>
struct TransactionFormatter {
    template <WriteStream S>
    static void Ser(S& s, const model::Transaction& tx)
    {
        SerializeTransaction(s, tx, AllowWitness);
    }
    template <ReadStream S>
    static void Unser(S& s, model::Transaction& tx)
    {
        UnserializeTransaction(s, tx, AllowWitness);
    }
};

SERDIFF_LAYOUT(model::Block, obj)
{
    READWRITE(obj.header, Using<VectorFormatter<TransactionFormatter<true>>>(obj.transactions));
}

}  // namespace serdiff::optimized
