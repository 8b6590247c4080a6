// The reference bit streams: one bit at a time into a vector of bits, packed most significant bit first, as
// docs/format.md "Bit streams" describes Core's BitStreamWriter/BitStreamReader and Golomb-Rice coding.
#pragma once

#include <cstdint>
#include <span>

#include "model/bits.h"

namespace serdiff::reference {

// Runs the write operations in order; the partial last byte is padded with zero bits, at an alignment and at the
// end (also after a refused operation: Core's writer flushes in its destructor).
model::BitWriteResult bit_write(std::span<const model::BitOp> ops);

// Runs the read operations in order over `bytes`; stops at the first bad bit count or at the end of the bytes.
model::BitReadResult bit_read(std::span<const uint8_t> bytes, std::span<const model::BitOp> ops);

}  // namespace serdiff::reference
