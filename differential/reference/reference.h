// The reference codec: the format written as plainly as possible, byte at a time, from SEMANTICS.md.
#pragma once

#include <cstdint>
#include <span>

#include "differential/reference/primitives.h"
#include "model/codec_table.h"
#include "model/decoded.h"
#include "model/model.h"

namespace serdiff::reference {

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

// decode_<stem> and encode_<stem> for every SERDIFF_OBJECT_TYPES line.
#define SERDIFF_DECLARE_REFERENCE_CODEC(name, Type, stem)          \
    Bytes encode_##stem(const model::Type& value);                 \
    Decoded<model::Type> decode_##stem(std::span<const uint8_t> data);
SERDIFF_OBJECT_TYPES(SERDIFF_DECLARE_REFERENCE_CODEC)
#undef SERDIFF_DECLARE_REFERENCE_CODEC

// This side's codecs as one table (model/codec_table.h).
const model::CodecTable& codec_table();

// Stream-level forms of the codec above (for file records and stream programs); a failed read is recorded in
// the Reader (Reader::error(): the first error wins) and the value returned is then meaningless.
void write_transaction(Writer& writer, const model::Transaction& tx, bool allow_witness);
model::Transaction read_transaction(Reader& reader, bool allow_witness);
#define SERDIFF_DECLARE_REFERENCE_STREAM(name, Type, stem) \
    void write_##stem(Writer& writer, const model::Type& value); \
    model::Type read_##stem(Reader& reader);
SERDIFF_OBJECT_TYPES(SERDIFF_DECLARE_REFERENCE_STREAM)
#undef SERDIFF_DECLARE_REFERENCE_STREAM

// Bitcoin Core's CompressAmount/DecompressAmount (u64, wrapping), as docs/format.md states them.
uint64_t compress_amount(uint64_t amount);
uint64_t decompress_amount(uint64_t compressed);
// Core's GetSpecialScriptSize: the payload bytes after special-script tag `tag` (20 for 0 and 1, 32 for 2 to 5), 0
// for any other value (not a special form).
uint32_t special_script_size(uint32_t tag);
// Undo-data script compression: the 21/33-byte special form or VarInt(size + 6) and the bytes.
void write_compressed_script(Writer& writer, std::span<const uint8_t> script);
Bytes read_compressed_script(Reader& reader);

}  // namespace serdiff::reference
