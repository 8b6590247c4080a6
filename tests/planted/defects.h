// Test-only defect helpers for the planted bugs (tests/planted/bugs.tsv): code that is wrong on purpose,
// reached from a SERDIFF_PLANTED(name) hook in serialize/ only when a build plants that bug.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

namespace serdiff::optimized::planted {

// span_reader_dangling_copy: returns a view of a copy that is freed on return (the dangling-view bug).
inline std::span<const uint8_t> freed_copy(std::span<const uint8_t> data)
{
    if (data.empty()) return data;
    const auto copy = std::make_unique<uint8_t[]>(data.size());
    std::memcpy(copy.get(), data.data(), data.size());
    return std::span<const uint8_t>(copy.get(), data.size());
}

// byte_payload_scratch_leak: reads through a raw scratch buffer that only the success path frees.
template <typename Stream>
void read_through_scratch(Stream& s, void* destination, size_t size)
{
    auto* scratch = new std::byte[size];
    s.read(std::span<std::byte>(scratch, size));
    std::memcpy(destination, scratch, size);
    delete[] scratch;
}

// undo_height_code_signed: the undo code as Bitcoin Core computed it when heights were int.
inline uint32_t signed_height_code(uint32_t height, bool coinbase)
{
    return static_cast<uint32_t>(static_cast<int32_t>(height) * 2 + (coinbase ? 1 : 0));
}

// varint_limit_shift: a width's largest value as (1 << bits) - 1, undefined for bits == 64.
inline uint64_t low_bits_mask(unsigned bits) { return (uint64_t{1} << bits) - 1; }

// compact_size_skipped_value: consumes the value's 8 bytes with ignore() instead of reading them, so the
// value returned is never written.
template <typename Stream>
uint64_t skip_instead_of_reading(Stream& s)
{
    std::array<std::byte, 8> bytes;
    s.ignore(bytes.size());
    return std::bit_cast<uint64_t>(bytes);
}

}  // namespace serdiff::optimized::planted
