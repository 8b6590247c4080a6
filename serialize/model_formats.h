// Layouts of the model types (model/model.h) for the optimized serializer: one description per type
// serves reading, writing and sizing; the transaction carries the allow-witness parameter.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

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
// A witness stack: CompactSize count, then each item as a byte vector. The stack keeps its items in wire
// form, so the writer writes them in one piece and the sizer adds the size the stack keeps (no item
// visited); the reader reads each item straight into the stack's one buffer.
struct WitnessStackFormatter {
    template <WriteStream S>
    static void Ser(S& s, const model::WitnessStack& witness)
    {
        if constexpr (SizeOnlyStream<S>) {
            s.add(witness.serialized_size());
        } else {
            WriteCompactSize(s, witness.size());
            if (!witness.empty()) s.write(std::as_bytes(witness.encoded_items()));
        }
    }
    // The bytes the first `count` items of `data` (each a CompactSize length, then the item) take, counting
    // only items that are wholly in `data`: a hint for sizing the buffer once, at most data.size().
    static size_t item_bytes_ahead(std::span<const uint8_t> data, size_t count)
    {
        size_t total = 0;
        for (size_t i = 0; i < count && !data.empty(); ++i) {
            const uint8_t first = data[0];
            const size_t prefix = first < 0xfd ? 1 : first == 0xfd ? 3 : first == 0xfe ? 5 : 9;
            if (prefix > data.size()) break;
            uint64_t size = first;
            if (prefix > 1) {
                size = 0;
                for (size_t b = prefix - 1; b >= 1; --b) size = size << 8 | data[b];
            }
            if (size > data.size() - prefix) break;
            total += prefix + size;
            data = data.subspan(prefix + size);
        }
        return total;
    }

    template <ReadStream S>
    static void Unser(S& s, model::WitnessStack& witness)
    {
        witness.clear();
        const size_t count = ReadCompactSize(s);
        // Neither the claimed count nor a claimed length is trusted: an item over one chunk is read in
        // chunks (row 8). From memory (SpanReader), the lengths are read ahead so the buffer is allocated
        // once, never beyond the bytes left in the input.
        if constexpr (requires { s.unread(); }) witness.reserve(item_bytes_ahead(s.unread(), count));
        for (size_t i = 0; i < count; ++i) {
            const size_t size = ReadCompactSize(s);
            if (size <= kMaxVectorAllocate) {
                detail::fail_early_if_short(s, size);  // before append() grows and zeroes the buffer
                const std::span<uint8_t> item = witness.append(size);
                if (size != 0) s.read(std::as_writable_bytes(item));
            } else {
                model::Bytes item;
                detail::read_byte_payload(s, item, size);
                witness.push_back(item);
            }
        }
    }
};
SERDIFF_LAYOUT(model::WitnessStack, obj) { READWRITE(Using<WitnessStackFormatter>(obj)); }
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

// The SizeComputer's transaction: one pass over the inputs and outputs adding fixed widths and lengths
// (OPTIMIZATIONS.md row 2), each witness stack's size taken from the stack; whether the witness form is
// used is found in the same pass. The loops add only what varies per element: a script's length (its
// CompactSize is one byte below 0xfd: the wider forms are a branch that is almost never taken) and a
// stack's items in wire form; the fixed widths, and the first byte of every CompactSize, are added once per
// vector. A stack has items exactly when its wire form is non-empty (each item has a length prefix), so
// the sum of those sizes also tells whether any input has a witness.
[[gnu::always_inline]] inline size_t SerializedTransactionSize(const model::Transaction& tx, bool allow_witness)
{
    constexpr size_t kOutPoint = 32 + 4, kSequence = 4, kValue = 8, kVersion = 4, kLockTime = 4;
    const size_t inputs = tx.inputs.size(), outputs = tx.outputs.size();
    size_t size = kVersion + GetSizeOfCompactSize(inputs) + GetSizeOfCompactSize(outputs) + kLockTime +
                  inputs * (kOutPoint + 1 + kSequence) + outputs * (kValue + 1);
    size_t witness_bytes = 0;  // every stack's items in wire form, and the item counts' CompactSizes past 1 byte
    for (const model::TxIn& input : tx.inputs) {
        const size_t script = input.script_sig.size();
        size += script;
        if (script >= 0xfd) [[unlikely]] size += SERDIFF_PLANTED(size_sum_script_three_byte_form) ? 2 : GetSizeOfCompactSize(script) - 1;
        witness_bytes += input.witness.encoded_items().size();
        if (input.witness.size() >= 0xfd) [[unlikely]] witness_bytes += GetSizeOfCompactSize(input.witness.size()) - 1;
    }
    for (const model::TxOut& output : tx.outputs) {
        const size_t script = output.script_pubkey.size();
        size += script;
        if (script >= 0xfd) [[unlikely]] size += SERDIFF_PLANTED(size_sum_script_three_byte_form) ? 2 : GetSizeOfCompactSize(script) - 1;
    }
    const bool with_witness =
        allow_witness && (SERDIFF_PLANTED(witness_first_input_only)
                              ? !tx.inputs.empty() && !tx.inputs.front().witness.empty()
                              : witness_bytes != 0);
    if (with_witness) size += 2 + inputs + witness_bytes;  // marker, flag, then every input's stack (count, items)
    return size;
}

// The SizeComputer's overload: small, and inlined where it is called.
[[gnu::always_inline]] inline void SerializeTransaction(SizeComputer& s, const model::Transaction& tx, bool allow_witness)
{
    s.add(SerializedTransactionSize(tx, allow_witness));
}

template <WriteStream S>
    requires(!SizeOnlyStream<S>)
void SerializeTransaction(S& s, const model::Transaction& tx, bool allow_witness)
{
    const bool with_witness =
        allow_witness && (SERDIFF_PLANTED(witness_first_input_only)
                              ? !tx.inputs.empty() && !tx.inputs.front().witness.empty()
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
    [[gnu::always_inline]] static void Ser(S& s, const model::Transaction& tx)  // the SizeComputer's inlines whole
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

// A script: CompactSize length, then its bytes, read in one piece up to 5,000,000 bytes (row 8), as every
// byte vector is.
template <WriteStream S>
[[gnu::always_inline]] inline void Serialize(S& s, const model::Script& script)
{
    detail::write_byte_payload(s, script.data(), script.size());
}
template <ReadStream S>
void Unserialize(S& s, model::Script& script)
{
    detail::read_byte_payload(s, script, ReadCompactSize(s));
}

}  // namespace serdiff::optimized
