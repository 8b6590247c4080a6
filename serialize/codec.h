// Object-level facade over the optimized serializer: what tests, the CLI and fuzz targets call.
#pragma once

#include <cstdint>
#include <span>

#include "model/codec_table.h"
#include "model/decoded.h"
#include "model/model.h"

namespace serdiff::optimized {

using model::Bytes;
using model::Decoded;

Bytes encode_compactsize(uint64_t value);
Decoded<uint64_t> decode_compactsize(std::span<const uint8_t> data, bool range_check = true);

// VarInt into an integer of `kind`; signed kinds use the non-negative-signed mode.
// encode_varint requires a value representable in `kind` (non-negative for signed kinds).
Bytes encode_varint(uint64_t value, model::IntKind kind);
Decoded<uint64_t> decode_varint(std::span<const uint8_t> data, model::IntKind kind);

Bytes encode_transaction(const model::Transaction& tx, bool allow_witness);
Decoded<model::Transaction> decode_transaction(std::span<const uint8_t> data, bool allow_witness);
uint64_t size_transaction(const model::Transaction& tx, bool allow_witness);  // SizeComputer

// decode_<stem>, encode_<stem> and size_<stem> (the SizeComputer) for every SERDIFF_OBJECT_TYPES line.
#define SERDIFF_DECLARE_OPTIMIZED_CODEC(name, Type, stem)                    \
    Bytes encode_##stem(const model::Type& value);                         \
    Decoded<model::Type> decode_##stem(std::span<const uint8_t> data);     \
    uint64_t size_##stem(const model::Type& value);
SERDIFF_OBJECT_TYPES(SERDIFF_DECLARE_OPTIMIZED_CODEC)
#undef SERDIFF_DECLARE_OPTIMIZED_CODEC

// This side's codecs as one table (model/codec_table.h).
const model::CodecTable& codec_table();

}  // namespace serdiff::optimized
