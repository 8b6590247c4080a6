// Bit-stream programs (Bitcoin Core's BitStreamWriter/BitStreamReader of streams.h and the Golomb-Rice coding of
// util/golombrice.h, which BIP 158 block filters use): the operations the bit_stream target runs on a subject and on
// the reference, and what each run returns. docs/format.md "Bit streams" gives the rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/model.h"

namespace serdiff::model {

struct BitOp {
    enum class Kind : uint8_t {
        kBits,        // write: the `nbits` low bits of `value`, most significant first; read: `nbits` bits
        kGolombRice,  // write: Golomb-Rice code of `value` with parameter `rice_parameter`; read: one such code
        kAlign,       // write: Flush() (pad the partial byte with zero bits); read: a new reader on the same stream
    };
    Kind kind = Kind::kBits;
    int nbits = 0;             // kBits: Core accepts 0..64 and throws std::out_of_range for any other count
    uint64_t value = 0;        // kBits and kGolombRice writes
    uint8_t rice_parameter = 0;  // kGolombRice: 0..63 (the harness never asks for more: x >> 64 is undefined)
};

// The longest unary quotient (value >> rice_parameter) the harness asks a writer for: Core writes the quotient as
// that many one bits, so an unbounded quotient is unbounded work (BIP 158's values keep it small).
inline constexpr uint64_t kMaxRiceQuotient = 4096;

struct BitWriteResult {
    Bytes bytes;                        // every byte written, the writer's last partial byte flushed at its end
    std::optional<size_t> refused_at;   // the operation that threw std::out_of_range (a bad bit count); none ran after
    bool operator==(const BitWriteResult&) const = default;
};

struct BitReadResult {
    std::vector<uint64_t> values;       // one per operation that read (kBits, kGolombRice), in order
    std::optional<size_t> stopped_at;   // the operation that threw; none ran after
    bool out_of_range = false;          // that throw was a bad bit count; otherwise the stream's end of data
    bool operator==(const BitReadResult&) const = default;
};

}  // namespace serdiff::model
