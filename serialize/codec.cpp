// Object-level facade over the optimized serializer (serialize/codec.h): encode into a vector sized
// beforehand by the SizeComputer, decode from a SpanReader, turn SerializeError into Decoded::error.
#include "serialize/codec.h"

#include <limits>
#include <stdexcept>

#include "serialize/model_formats.h"
#include "serialize/serialize.h"
#include "serialize/streams.h"

namespace serdiff::optimized {
namespace {

// One sizing pass and one allocation, then a SpanWriter (a pointer bump per field). Writing fewer bytes than
// sized is as much a SizeComputer bug as writing more, so both are reported.
template <typename T>
Bytes encode_object(const T& object)
{
    Bytes out(GetSerializeSize(object));
    SpanWriter writer(out);
    Serialize(writer, object);
    if (writer.remaining() != 0) throw std::length_error("SizeComputer result exceeds the bytes written");
    return out;
}

template <typename T, typename ReadInto>
Decoded<T> decode_object(std::span<const uint8_t> data, ReadInto read_into)
{
    Decoded<T> result;
    SpanReader reader(data);
    try {
        read_into(reader, result.value);
        result.ok = true;
        result.consumed = data.size() - reader.size();
    } catch (const SerializeError& error) {
        result.error = error.what();
        result.value = T{};
    }
    return result;
}

template <typename T>
Decoded<T> decode_described(std::span<const uint8_t> data)
{
    return decode_object<T>(data, [](SpanReader& reader, T& value) { Unserialize(reader, value); });
}

template <typename I>
constexpr VarIntMode varint_mode_for() noexcept
{
    return std::is_signed_v<I> ? VarIntMode::NonNegativeSigned : VarIntMode::Unsigned;
}

}  // namespace

Bytes encode_compactsize(uint64_t value)
{
    Bytes out;
    VectorWriter writer(out, 0);
    WriteCompactSize(writer, value);
    return out;
}

Decoded<uint64_t> decode_compactsize(std::span<const uint8_t> data, bool range_check)
{
    return decode_object<uint64_t>(
        data, [range_check](SpanReader& reader, uint64_t& value) { value = ReadCompactSize(reader, range_check); });
}

Bytes encode_varint(uint64_t value, model::IntKind kind)
{
    return model::with_int_kind(kind, [value](auto zero) {
        using I = decltype(zero);
        if (value > static_cast<uint64_t>(std::numeric_limits<I>::max()))
            throw std::out_of_range("encode_varint: value not representable in the integer kind");
        Bytes out;
        VectorWriter writer(out, 0);
        WriteVarInt<varint_mode_for<I>(), I>(writer, static_cast<I>(value));
        return out;
    });
}

Decoded<uint64_t> decode_varint(std::span<const uint8_t> data, model::IntKind kind)
{
    return model::with_int_kind(kind, [data](auto zero) {
        using I = decltype(zero);
        return decode_object<uint64_t>(data, [](SpanReader& reader, uint64_t& value) {
            value = static_cast<uint64_t>(ReadVarInt<varint_mode_for<I>(), I>(reader));
        });
    });
}

Bytes encode_transaction(const model::Transaction& tx, bool allow_witness)
{
    return encode_object(TxWithWitness{tx, allow_witness});
}

Decoded<model::Transaction> decode_transaction(std::span<const uint8_t> data, bool allow_witness)
{
    return decode_object<model::Transaction>(data, [allow_witness](SpanReader& reader, model::Transaction& tx) {
        reader >> TxWithWitness{tx, allow_witness};  // the wrapper's read, as encode_transaction uses its write
    });
}

uint64_t size_transaction(const model::Transaction& tx, bool allow_witness)
{
    return GetSerializeSize(TxWithWitness{tx, allow_witness});
}

// Every SERDIFF_OBJECT_TYPES line: its layout (serialize/model_formats.h) read, written and sized.
#define SERDIFF_DEFINE_OPTIMIZED_CODEC(name, Type, stem)                                                       \
    Bytes encode_##stem(const model::Type& value) { return encode_object(value); }                           \
    Decoded<model::Type> decode_##stem(std::span<const uint8_t> data) { return decode_described<model::Type>(data); } \
    uint64_t size_##stem(const model::Type& value) { return GetSerializeSize(value); }
SERDIFF_OBJECT_TYPES(SERDIFF_DEFINE_OPTIMIZED_CODEC)
#undef SERDIFF_DEFINE_OPTIMIZED_CODEC

const model::CodecTable& codec_table()
{
#define SERDIFF_OPTIMIZED_TABLE_ENTRY(name, Type, stem) .name = {decode_##stem, encode_##stem, size_##stem},
    static const model::CodecTable table{
        .side = "optimized",
        .encode_compact_size = encode_compactsize,
        .decode_compact_size = decode_compactsize,
        .encode_varint = encode_varint,
        .decode_varint = decode_varint,
        .transaction = {decode_transaction, encode_transaction, size_transaction},
        SERDIFF_OBJECT_TYPES(SERDIFF_OPTIMIZED_TABLE_ENTRY)};
#undef SERDIFF_OPTIMIZED_TABLE_ENTRY
    return table;
}

}  // namespace serdiff::optimized
