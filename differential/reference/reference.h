// The reference codec: the format written as plainly as possible, byte at a time, from SEMANTICS.md.
#pragma once

#include <cstdint>
#include <span>

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

}  // namespace serdiff::reference
