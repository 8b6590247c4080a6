// Target obfuscation: the subject's batched XOR (subject::obfuscate) vs the byte-wise definition for any key, offset,
// length and buffer alignment.
#include <algorithm>
#include <cstddef>

#include "differential/compare.h"
#include "differential/program_input.h"
#include "differential/reference/file_io.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"

using namespace serdiff;

namespace {
inline constexpr size_t kMaxObfuscatedBytes = 4096 + 64;  // several 32-byte batches plus every tail length
}  // namespace

// Input: key (8 bytes), offset (a number: edge values, small, or any u64), alignment byte (0..7 bytes into
// an 8-aligned buffer), length (a number folded into 0..kMaxObfuscatedBytes), payload (salt + 32 bytes).
SERDIFF_FUZZ_TARGET(obfuscation, .max_len = 128)
{
    differential::ProgramInput in(input);
    std::array<std::byte, 8> key;
    for (auto& value : key) value = std::byte{in.byte()};
    const uint64_t offset = in.number();
    const size_t alignment = in.byte() % 8;
    const size_t length = static_cast<size_t>(in.number_at_most(kMaxObfuscatedBytes));
    model::Bytes expected = in.payload(length);  // the plain bytes, obfuscated in place by the reference below

    alignas(8) static std::byte buffer[kMaxObfuscatedBytes + 8];
    std::byte* const data = buffer + alignment;
    std::copy(expected.begin(), expected.end(), reinterpret_cast<uint8_t*>(data));
    subject::obfuscate(std::span(data, length), offset, key);

    reference::obfuscate(std::as_writable_bytes(std::span(expected)), offset, key);
    const auto* obfuscated = reinterpret_cast<const uint8_t*>(data);
    differential::compare_bytes(
        [&] {
            return "obfuscation (offset " + std::to_string(offset) + ", alignment " + std::to_string(alignment) +
                   ", length " + std::to_string(length) + ")";
        },
        std::span(obfuscated, length), expected, input);
}
