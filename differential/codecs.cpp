// The CodecPair table: each type's entries of the subject's codec table (differential/subject.h) and
// reference::codec_table() paired, with the round-trip rules docs/format.md states for it. Compiled once per
// subject.
#include "differential/codecs.h"

#include <string_view>

#include "differential/compare.h"
#include "differential/reference/reference.h"
#include "differential/subject.h"

namespace serdiff::differential {
namespace {

// Mismatch reports name the side under test after the subject: serdiff's is "optimized" (its serializer's name
// throughout), another subject's is its name ("core"). Set when the binary starts; every binary links this file.
const bool kSubjectSideNamed = [] {
    if (std::string_view(subject::name()) != "serdiff") set_subject_side(subject::name());
    return true;
}();

// When set for a type, decides for a value whether decoding its encoding must give the value back.
template <typename T>
struct RoundTripRules {
    bool byte_exact = true;  // decode-then-encode reproduces the consumed bytes exactly
    std::function<bool(const T&)> value_survives;
};

// A transaction with no inputs but some outputs is written with witness as `00 <count>`, which a reader
// takes for the marker and flag.
bool survives_with_witness(const model::Transaction& tx) { return !(tx.inputs.empty() && !tx.outputs.empty()); }

// By default a type round-trips byte for byte and every value survives; the overloads below say otherwise.
template <typename T>
RoundTripRules<T> rules(const T*)
{
    return {};
}
RoundTripRules<model::Block> rules(const model::Block*)
{
    // A block's transactions are written with witness: the same zero-input rule applies.
    return {true, [](const model::Block& block) {
                for (const auto& tx : block.transactions)
                    if (!survives_with_witness(tx)) return false;
                return true;
            }};
}
RoundTripRules<model::BlockUndo> rules(const model::BlockUndo*)
{
    // Not byte-exact (docs/format.md "Consequences for round trips"): the ignored VarInt, non-minimal
    // and oversized scripts, and tag-4/5 points off the curve all re-encode differently.
    return {false, undo_value_survives_round_trip};
}

template <typename T>
CodecPair<T> pair_of(std::string label, const model::ObjectCodec<T>& optimized, const model::ObjectCodec<T>& reference)
{
    const RoundTripRules<T> round_trip = rules(static_cast<const T*>(nullptr));
    return {std::move(label), optimized.decode,      reference.decode,        optimized.encode,
            reference.encode, optimized.size,        round_trip.byte_exact,   round_trip.value_survives};
}

// A subject that drops a locator's version (Bitcoin Core writes CBlockLocator::DUMMY_VERSION whatever it read;
// docs/divergences.md) is compared against the reference with that version in place of the one read or given:
// the hashes, accept/reject, consumed bytes and every other byte are still compared.
CodecPair<model::BlockLocator> pair_of(std::string label, const model::ObjectCodec<model::BlockLocator>& optimized,
                                       const model::ObjectCodec<model::BlockLocator>& reference)
{
    CodecPair<model::BlockLocator> codec{std::move(label), optimized.decode, reference.decode, optimized.encode,
                                         reference.encode,     optimized.size,   true,             {}};
    const std::optional<int32_t> written = subject::divergences().locator_version_written;
    if (!written) return codec;
    const int32_t version = *written;
    codec.reference_decode = [decode = reference.decode, version](std::span<const uint8_t> data) {
        model::Decoded<model::BlockLocator> decoded = decode(data);
        if (decoded.ok) decoded.value.version = version;
        return decoded;
    };
    codec.reference_encode = [encode = reference.encode, version](const model::BlockLocator& locator) {
        model::BlockLocator kept = locator;
        kept.version = version;
        return encode(kept);
    };
    codec.round_trip_byte_exact = false;
    codec.value_survives_round_trip = [version](const model::BlockLocator& locator) { return locator.version == version; };
    return codec;
}

}  // namespace

const CodecPair<model::Transaction>& transaction_codec(bool allow_witness)
{
    auto make = [](bool witness) {
        const auto& optimized = subject::codec_table().transaction;
        const auto& reference = reference::codec_table().transaction;
        CodecPair<model::Transaction> codec;
        codec.label = witness ? "transaction(witness)" : "transaction(no witness)";
        codec.optimized_decode = [=](auto data) { return optimized.decode(data, witness); };
        codec.reference_decode = [=](auto data) { return reference.decode(data, witness); };
        codec.optimized_encode = [=](const auto& tx) { return optimized.encode(tx, witness); };
        codec.reference_encode = [=](const auto& tx) { return reference.encode(tx, witness); };
        codec.optimized_size = [=](const auto& tx) { return optimized.size(tx, witness); };
        // Without witness the stacks are dropped.
        codec.value_survives_round_trip = [witness](const model::Transaction& tx) {
            return witness ? survives_with_witness(tx) : !tx.has_witness();
        };
        return codec;
    };
    static const CodecPair<model::Transaction> with_witness = make(true), without_witness = make(false);
    return allow_witness ? with_witness : without_witness;
}

#define SERDIFF_DEFINE_CODEC_PAIR(name, Type, stem)                                                             \
    const CodecPair<model::Type>& name##_codec()                                                                \
    {                                                                                                            \
        static const CodecPair<model::Type> codec =                                                              \
            pair_of(#name, subject::codec_table().name, reference::codec_table().name);               \
        return codec;                                                                                            \
    }
SERDIFF_OBJECT_TYPES(SERDIFF_DEFINE_CODEC_PAIR)
#undef SERDIFF_DEFINE_CODEC_PAIR

bool undo_value_survives_round_trip(const model::BlockUndo& undo)
{
    for (const auto& tx_undo : undo.txundo)
        for (const auto& coin : tx_undo.prevouts)
            if (coin.out.value < 0 || coin.out.value >= (int64_t{1} << 56) ||
                coin.out.script_pubkey.size() > model::kMaxScriptSize)
                return false;
    return true;
}

}  // namespace serdiff::differential
