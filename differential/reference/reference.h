// The reference codec: the format written as plainly as possible, byte at a time, from SEMANTICS.md.
#pragma once

#include <cstdint>
#include <span>

#include "differential/reference/primitives.h"
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

Bytes encode_header(const model::BlockHeader& header);
Decoded<model::BlockHeader> decode_header(std::span<const uint8_t> data);

Bytes encode_block(const model::Block& block);
Decoded<model::Block> decode_block(std::span<const uint8_t> data);

Bytes encode_locator(const model::BlockLocator& locator);
Decoded<model::BlockLocator> decode_locator(std::span<const uint8_t> data);

Bytes encode_block_undo(const model::BlockUndo& undo);
Decoded<model::BlockUndo> decode_block_undo(std::span<const uint8_t> data);

// Stream-level forms of the codec above (for file records and stream programs); reads throw ReadError.
void write_transaction(Writer& writer, const model::Transaction& tx, bool allow_witness);
model::Transaction read_transaction(Reader& reader, bool allow_witness);
void write_header(Writer& writer, const model::BlockHeader& header);
model::BlockHeader read_header(Reader& reader);
void write_block(Writer& writer, const model::Block& block);
model::Block read_block(Reader& reader);
void write_locator(Writer& writer, const model::BlockLocator& locator);
model::BlockLocator read_locator(Reader& reader);
void write_block_undo(Writer& writer, const model::BlockUndo& undo);
model::BlockUndo read_block_undo(Reader& reader);

// Bitcoin Core's CompressAmount/DecompressAmount (u64, wrapping), as docs/format.md states them.
uint64_t compress_amount(uint64_t amount);
uint64_t decompress_amount(uint64_t compressed);
// Undo-data script compression: the 21/33-byte special form or VarInt(size + 6) and the bytes.
void write_compressed_script(Writer& writer, const Bytes& script);
Bytes read_compressed_script(Reader& reader);

}  // namespace serdiff::reference
