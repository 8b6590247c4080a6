// The object types both implementations encode and decode, listed once, and the table of function pointers
// through which every tool reaches one side's codecs (fuzz targets, `serdiff inspect`, unit tests, the Python
// module). Each side fills in its own table (optimized::codec_table() in serialize/codec.cpp,
// reference::codec_table() in differential/reference/reference.cpp), so the two stay independent.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "model/decoded.h"
#include "model/model.h"

namespace serdiff::model {

// The object types without parameters, one line each, giving the name, the model type and the stem:
//   name  — what every tool calls the type: its fuzz target, its `serdiff inspect` TYPE, its table field;
//   stem  — the facade functions' suffix: decode_<stem>, encode_<stem> (both sides), size_<stem> (optimized).
// Adding a type here declares and defines both facades, builds its table entries, its codec pair, its fuzz
// target and its CLI TYPE (docs/adding-a-type.md).
#define SERDIFF_OBJECT_TYPES(X)             \
    X(block_header, BlockHeader, header)    \
    X(block, Block, block)                  \
    X(block_locator, BlockLocator, locator) \
    X(block_undo, BlockUndo, block_undo)

// One side's codec for one object type. `Param...` are the type's decoding parameters (a transaction's
// allow-witness flag). `size` is the SizeComputer: the optimized side has one, the reference does not.
template <typename T, typename... Param>
struct ObjectCodec {
    Decoded<T> (*decode)(std::span<const uint8_t>, Param...) = nullptr;
    Bytes (*encode)(const T&, Param...) = nullptr;
    uint64_t (*size)(const T&, Param...) = nullptr;
};

struct CodecTable {
    const char* side;  // "optimized" or "reference"
    // CompactSize: decoding with or without the MAX_SIZE range check.
    Bytes (*encode_compact_size)(uint64_t);
    Decoded<uint64_t> (*decode_compact_size)(std::span<const uint8_t>, bool range_check);
    // VarInt into an integer of `kind` (signed kinds: the non-negative signed mode).
    Bytes (*encode_varint)(uint64_t, IntKind);
    Decoded<uint64_t> (*decode_varint)(std::span<const uint8_t>, IntKind);
    ObjectCodec<Transaction, bool> transaction;  // bool: allow witness
#define SERDIFF_CODEC_TABLE_FIELD(name, Type, stem) ObjectCodec<Type> name;
    SERDIFF_OBJECT_TYPES(SERDIFF_CODEC_TABLE_FIELD)
#undef SERDIFF_CODEC_TABLE_FIELD
};

// Every type name, in table order: the integer codecs, the transaction, then SERDIFF_OBJECT_TYPES.
#define SERDIFF_OBJECT_TYPE_NAME(name, Type, stem) #name,
inline constexpr std::string_view kTypeNames[] = {"compact_size", "varint", "transaction",
                                                  SERDIFF_OBJECT_TYPES(SERDIFF_OBJECT_TYPE_NAME)};
#undef SERDIFF_OBJECT_TYPE_NAME

}  // namespace serdiff::model
