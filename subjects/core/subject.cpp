// The Core subject: Bitcoin Core's own serialize.h, streams.h and primitives/ behind the harness's seam
// (differential/subject.h). Every codec runs Core's code on Core's types through a DataStream; only the model
// conversion (convert.h) is serdiff's.
#include "differential/subject.h"

#include <limits>
#include <stdexcept>
#include <type_traits>

#include <compressor.h>
#include <primitives/block.h>
#include <primitives/transaction.h>
#include <serialize.h>
#include <streams.h>
#include <undo.h>
#include <util/obfuscation.h>

#include "subjects/core/convert.h"

namespace serdiff::subject {
namespace {

using core_subject::error_text;
using core_subject::from_core;
using core_subject::to_core;
using model::Bytes;
using model::Decoded;

Bytes bytes_of(const DataStream& stream)
{
    const auto* data = reinterpret_cast<const uint8_t*>(stream.data());
    return Bytes(data, data + stream.size());
}

// Decodes with Core's code from a DataStream holding `data`; `read` fills `result.value` from the stream.
template <typename T, typename Read>
Decoded<T> decode_with(std::span<const uint8_t> data, Read read)
{
    Decoded<T> result;
    DataStream stream{data};
    try {
        read(stream, result.value);
        result.ok = true;
        result.consumed = data.size() - stream.size();
    } catch (const std::exception& error) {
        result.error = error_text(error);
        result.value = T{};
    }
    return result;
}

template <typename I>
constexpr VarIntMode mode_for() noexcept
{
    return std::is_signed_v<I> ? VarIntMode::NONNEGATIVE_SIGNED : VarIntMode::DEFAULT;
}

Bytes encode_compact_size(uint64_t value)
{
    DataStream stream;
    WriteCompactSize(stream, value);
    return bytes_of(stream);
}

Decoded<uint64_t> decode_compact_size(std::span<const uint8_t> data, bool range_check)
{
    return decode_with<uint64_t>(
        data, [range_check](DataStream& s, uint64_t& value) { value = ReadCompactSize(s, range_check); });
}

Bytes encode_varint(uint64_t value, model::IntKind kind)
{
    return model::with_int_kind(kind, [value](auto zero) {
        using I = decltype(zero);
        if (value > static_cast<uint64_t>(std::numeric_limits<I>::max()))
            throw std::out_of_range("encode_varint: value not representable in the integer kind");
        DataStream stream;
        WriteVarInt<DataStream, mode_for<I>(), I>(stream, static_cast<I>(value));
        return bytes_of(stream);
    });
}

Decoded<uint64_t> decode_varint(std::span<const uint8_t> data, model::IntKind kind)
{
    return model::with_int_kind(kind, [data](auto zero) {
        using I = decltype(zero);
        return decode_with<uint64_t>(data, [](DataStream& s, uint64_t& value) {
            value = static_cast<uint64_t>(ReadVarInt<DataStream, mode_for<I>(), I>(s));
        });
    });
}

// Core's serialization of `object` into a DataStream, as Core writes a message or a block.
template <typename Object>
Bytes encode_core(const Object& object)
{
    DataStream stream;
    stream << object;
    return bytes_of(stream);
}

Decoded<model::Transaction> decode_transaction(std::span<const uint8_t> data, bool allow_witness)
{
    return decode_with<model::Transaction>(data, [allow_witness](DataStream& s, model::Transaction& tx) {
        CMutableTransaction core;
        if (allow_witness) s >> TX_WITH_WITNESS(core);
        else s >> TX_NO_WITNESS(core);
        tx = from_core(core);
    });
}
Bytes encode_transaction(const model::Transaction& tx, bool allow_witness)
{
    const CMutableTransaction core = to_core(tx);
    return allow_witness ? encode_core(TX_WITH_WITNESS(core)) : encode_core(TX_NO_WITNESS(core));
}
uint64_t size_transaction(const model::Transaction& tx, bool allow_witness)
{
    const CMutableTransaction core = to_core(tx);
    return allow_witness ? GetSerializeSize(TX_WITH_WITNESS(core)) : GetSerializeSize(TX_NO_WITNESS(core));
}

Decoded<model::BlockHeader> decode_header(std::span<const uint8_t> data)
{
    return decode_with<model::BlockHeader>(data, [](DataStream& s, model::BlockHeader& header) {
        CBlockHeader core;
        s >> core;
        header = from_core(core);
    });
}
Bytes encode_header(const model::BlockHeader& header) { return encode_core(to_core(header)); }
uint64_t size_header(const model::BlockHeader& header) { return GetSerializeSize(to_core(header)); }

// Blocks always carry witness data (TX_WITH_WITNESS), as Core reads and writes them on disk and the network.
Decoded<model::Block> decode_block(std::span<const uint8_t> data)
{
    return decode_with<model::Block>(data, [](DataStream& s, model::Block& block) {
        CBlock core;
        s >> TX_WITH_WITNESS(core);
        block = from_core(core);
    });
}
Bytes encode_block(const model::Block& block) { return encode_core(TX_WITH_WITNESS(to_core(block))); }
uint64_t size_block(const model::Block& block) { return GetSerializeSize(TX_WITH_WITNESS(to_core(block))); }

// CBlockLocator reads its version into a local and drops it (divergences()).
CBlockLocator locator_to_core(const model::BlockLocator& locator)
{
    std::vector<uint256> have;
    for (const model::uint256& hash : locator.have) have.push_back(to_core(hash));
    return CBlockLocator(std::move(have));
}
Decoded<model::BlockLocator> decode_locator(std::span<const uint8_t> data)
{
    return decode_with<model::BlockLocator>(data, [](DataStream& s, model::BlockLocator& locator) {
        CBlockLocator core;
        s >> core;
        locator.version = CBlockLocator::DUMMY_VERSION;
        for (const uint256& hash : core.vHave) locator.have.push_back(from_core(hash));
    });
}
Bytes encode_locator(const model::BlockLocator& locator) { return encode_core(locator_to_core(locator)); }
uint64_t size_locator(const model::BlockLocator& locator) { return GetSerializeSize(locator_to_core(locator)); }

Decoded<model::BlockUndo> decode_block_undo(std::span<const uint8_t> data)
{
    return decode_with<model::BlockUndo>(data, [](DataStream& s, model::BlockUndo& undo) {
        CBlockUndo core;
        s >> core;
        undo = from_core(core);
    });
}
Bytes encode_block_undo(const model::BlockUndo& undo) { return encode_core(to_core(undo)); }
uint64_t size_block_undo(const model::BlockUndo& undo) { return GetSerializeSize(to_core(undo)); }

}  // namespace

const char* name() { return "core"; }

const model::CodecTable& codec_table()
{
#define SERDIFF_CORE_TABLE_ENTRY(name, Type, stem) .name = {decode_##stem, encode_##stem, size_##stem},
    static const model::CodecTable table{
        .side = "core",
        .encode_compact_size = encode_compact_size,
        .decode_compact_size = decode_compact_size,
        .encode_varint = encode_varint,
        .decode_varint = decode_varint,
        .transaction = {decode_transaction, encode_transaction, size_transaction},
        SERDIFF_OBJECT_TYPES(SERDIFF_CORE_TABLE_ENTRY)};
#undef SERDIFF_CORE_TABLE_ENTRY
    return table;
}

void obfuscate(std::span<std::byte> bytes, uint64_t offset, const std::array<std::byte, 8>& key)
{
    const Obfuscation obfuscation{std::span<const std::byte, Obfuscation::KEY_SIZE>(key)};
    obfuscation(bytes, static_cast<size_t>(offset));
}

uint64_t compress_amount(uint64_t amount) { return CompressAmount(amount); }
uint64_t decompress_amount(uint64_t compressed) { return DecompressAmount(compressed); }

Bytes write_compressed_amount(int64_t amount)
{
    DataStream stream;
    stream << Using<AmountCompression>(amount);
    return bytes_of(stream);
}

Decoded<int64_t> read_compressed_amount(std::span<const uint8_t> data)
{
    return decode_with<int64_t>(data, [](DataStream& s, int64_t& amount) { s >> Using<AmountCompression>(amount); });
}

Bytes write_compressed_script(const model::Script& script)
{
    DataStream stream;
    stream << Using<ScriptCompression>(to_core(script));
    return bytes_of(stream);
}

Decoded<bool> read_compressed_script(std::span<const uint8_t> data, model::Script& script)
{
    CScript core = to_core(script);
    Decoded<bool> result = decode_with<bool>(data, [&core](DataStream& s, bool& read) {
        s >> Using<ScriptCompression>(core);
        read = true;
    });
    script = from_core(core);
    return result;
}

const Divergences& divergences()
{
    static const Divergences core{.locator_version_written = CBlockLocator::DUMMY_VERSION,
                                  .compressed_script_read_keeps_old_bytes = true,
                                  .negative_varint_written = true};
    return core;
}

}  // namespace serdiff::subject
