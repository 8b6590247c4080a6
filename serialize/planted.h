// Planted bugs for proving the detectors work: each is compiled in only when a test build defines
// SERDIFF_PLANTED_BUG_<NAME> (CMake: -DSERDIFF_PLANTED_BUG=<name>); normal builds define none.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

namespace serdiff::optimized::planted {

#ifdef SERDIFF_PLANTED_BUG_WITNESS_FIRST_INPUT_ONLY
inline constexpr bool witness_first_input_only = true;  // witness form decided from input 0 only
#else
inline constexpr bool witness_first_input_only = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_ONE_BYTE_WRITE_KEY_OFFSET
inline constexpr bool one_byte_write_key_offset = true;  // OPTIMIZATIONS.md row 1: AutoFile::write_byte XORs with the key byte one position ahead
#else
inline constexpr bool one_byte_write_key_offset = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_VECTOR_WRITER_BYTE_NO_ADVANCE
inline constexpr bool vector_writer_byte_no_advance = true;  // OPTIMIZATIONS.md row 1: VectorWriter::write_byte overwriting inside the vector does not advance
#else
inline constexpr bool vector_writer_byte_no_advance = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_SIZE_COMPUTER_CUSTOM_WIDTH
inline constexpr bool size_computer_custom_width = true;  // OPTIMIZATIONS.md row 2: SizeComputer adds the C++ type's width for a CustomUintFormatter field
#else
inline constexpr bool size_computer_custom_width = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_COMPACT_SIZE_EDGE_WIDTH
inline constexpr bool compact_size_edge_width = true;  // OPTIMIZATIONS.md row 3: CompactSize 0xffff written in the 5-byte form
#else
inline constexpr bool compact_size_edge_width = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_VARINT_LENGTH_OFF_BY_ONE
inline constexpr bool varint_length_off_by_one = true;  // OPTIMIZATIONS.md row 4: VarInt length uses > instead of >= at each 7-bit group threshold
#else
inline constexpr bool varint_length_off_by_one = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_COMPACT_SIZE_FAST_PATH_SKIPS_CHECKS
inline constexpr bool compact_size_fast_path_skips_checks = true;  // OPTIMIZATIONS.md row 5: the 0xfe form returns before its canonical and range checks
#else
inline constexpr bool compact_size_fast_path_skips_checks = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_VECTOR_WRITER_MIDDLE_INSERTS
inline constexpr bool vector_writer_middle_inserts = true;  // OPTIMIZATIONS.md row 6: VectorWriter inserts instead of overwriting inside the vector
#else
inline constexpr bool vector_writer_middle_inserts = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_MAP_DUPLICATE_KEY_LAST_WINS
inline constexpr bool map_duplicate_key_last_wins = true;  // OPTIMIZATIONS.md row 7: map deserialization keeps the last of duplicate keys
#else
inline constexpr bool map_duplicate_key_last_wins = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_BYTE_VECTOR_CHUNK_OFFSET
inline constexpr bool byte_vector_chunk_offset = true;  // OPTIMIZATIONS.md row 8: chunks after the first 5,000,000 bytes are read one byte early
#else
inline constexpr bool byte_vector_chunk_offset = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_BUFFERED_READER_DIRECT_READ_SKIPS_BUFFER
inline constexpr bool buffered_reader_direct_read_skips_buffer = true;  // OPTIMIZATIONS.md row 9: a large read goes to the file before draining the buffer
#else
inline constexpr bool buffered_reader_direct_read_skips_buffer = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_BUFFERED_WRITER_FLUSH_KEY_OFFSET
inline constexpr bool buffered_writer_flush_key_offset = true;  // OPTIMIZATIONS.md row 10: each flushed buffer is XORed from key phase 0
#else
inline constexpr bool buffered_writer_flush_key_offset = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_BLOCK_RECORD_SIZE_TRUSTED
inline constexpr bool block_record_size_trusted = true;  // OPTIMIZATIONS.md row 11: the record size is not checked against the bytes left in the file
#else
inline constexpr bool block_record_size_trusted = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_XOR_TAIL_KEY_PHASE
inline constexpr bool xor_tail_key_phase = true;  // OPTIMIZATIONS.md row 12: the batched XOR's tail uses the unrotated key
#else
inline constexpr bool xor_tail_key_phase = false;
#endif

// ---- Sanitizer-class defects: each proves one CI job catches its class (ci/planted.sh, docs/ci.md). ----

#ifdef SERDIFF_PLANTED_BUG_P2PKH_SCRIPT_ONE_SHORT
inline constexpr bool p2pkh_script_one_short = true;  // heap overflow (ASan): DecompressScript sizes P2PKH 24, writes 25
#else
inline constexpr bool p2pkh_script_one_short = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_SPAN_READER_DANGLING_COPY
inline constexpr bool span_reader_dangling_copy = true;  // use after free (ASan): SpanReader views a freed copy
#else
inline constexpr bool span_reader_dangling_copy = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_BYTE_PAYLOAD_SCRATCH_LEAK
inline constexpr bool byte_payload_scratch_leak = true;  // leak (LSan): a byte payload's scratch buffer leaks on "end of data"
#else
inline constexpr bool byte_payload_scratch_leak = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_UNDO_HEIGHT_CODE_SIGNED
inline constexpr bool undo_height_code_signed = true;  // signed overflow (UBSan): undo code height * 2 computed in int
#else
inline constexpr bool undo_height_code_signed = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_VARINT_LIMIT_SHIFT
inline constexpr bool varint_limit_shift = true;  // out-of-range shift (UBSan): VarInt limit as (1 << bits) - 1, bits = 64 for u64
#else
inline constexpr bool varint_limit_shift = false;
#endif

#ifdef SERDIFF_PLANTED_BUG_COMPACT_SIZE_SKIPPED_VALUE
inline constexpr bool compact_size_skipped_value = true;  // uninitialized read (MSan): the 0xff form skips its 8 bytes unread
#else
inline constexpr bool compact_size_skipped_value = false;
#endif

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
