// Operation programs against the optimized and reference file layers (targets buffered_writer,
// buffered_reader, block_store); byte formats in docs/targets.md ("Program formats").
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "differential/program_input.h"

namespace serdiff::differential {

// Named bounds on the file programs.
inline constexpr size_t kMaxFileOperations = 64;
inline constexpr size_t kMaxFileBufferSize = 32;     // BufferedWriter/BufferedReader buffers: 1..32 bytes
inline constexpr size_t kMaxFileProgramBytes = 1 << 16;
inline constexpr size_t kMaxRecordOperations = 8;
inline constexpr size_t kMaxRecordFileEdits = 4;
inline constexpr size_t kMaxRawRecordPayload = 4096;
inline constexpr size_t kMaxRecordGeneratedBytes = 16 * 1024;  // script/witness bytes of generated records
inline constexpr size_t kMaxBufferedFileBuffer = 64;              // buffered_file's ring buffer: 1..64 bytes
inline constexpr size_t kMaxBufferedFileBytes = 4096;             // buffered_file's file

// A file program's obfuscation key: its next 8 bytes.
inline std::array<std::byte, 8> read_file_key(ProgramInput& in)
{
    std::array<std::byte, 8> key;
    for (auto& value : key) value = std::byte{in.byte()};
    return key;
}

// The buffer byte of buffered_writer/buffered_reader: 1 + b % 32, or for b ≥ 0xf0 a request for a 0-byte buffer,
// which the BufferedWriter/BufferedReader must treat as 1. Returns {what is asked for, what acts}.
inline std::pair<size_t, size_t> read_buffer_size(ProgramInput& in)
{
    const uint8_t buffer_byte = in.byte();
    const size_t request = buffer_byte >= 0xf0 ? 0 : 1 + buffer_byte % kMaxFileBufferSize;
    return {request, std::max<size_t>(request, 1)};
}

// A buffer byte that (besides acting as 1 + b % 32 = 16 for the lengths, as before) asks buffered_reader for one more
// comparison with a BufferedReader built with its default buffer size (the constructor without a size), and
// buffered_writer with a BufferedWriter so built. No seed before it had this buffer byte. Core's wrappers
// (subjects/core/subject_streams.h) take a size only: there the comparison is skipped.
inline constexpr uint8_t kDefaultBufferByte = 0xef;

// The start byte of buffered_writer/buffered_reader (start offset b % 24) that also turns on the unseekable mode: after
// the usual comparison the program runs again on a FILE* that cannot tell its position (differential/fault_file.h,
// Fault::unseekable), where the AutoFile's position is unknown (docs/file-io.md). No seed before the mode had it.
inline constexpr uint8_t kUnseekableStartByte = 0xef;

// The start byte of buffered_reader (start offset b % 24 = 22) that also turns on the read-fault mode: the program runs
// again on a FILE whose reads fail with EIO from an offset on (differential/fault_file.h, Fault::io_error; docs/targets.md).
// No seed before the mode had it.
inline constexpr uint8_t kReadFaultStartByte = 0xee;

// Read-fault mode: whether an error's what() says a read failed (serdiff's and the reference's "read failed: ...",
// Core's "AutoFile::read: fread failed", "AutoFile::ignore: fread failed").
inline bool says_read_failed(std::string_view text)
{
    return text.find("read failed") != std::string_view::npos;
}

// Unseekable mode: whether an error's what() is a position-unknown one. Core's texts ("AutoFile::tell: position
// unknown", "AutoFile::read: position unknown", "AutoFile::write_buffer: obfuscation position unknown"), serdiff's
// and the reference's (reference::kPositionUnknown, kCannotObfuscate) all say so.
inline bool says_position_unknown(std::string_view what) { return what.find("position unknown") != std::string_view::npos; }

// The what() of the exception a call throws (only exceptions of type Caught are caught: others propagate and end
// the run as a crash), or "(no error)" if it returns.
template <typename Caught = std::exception, typename Call>
std::string error_of(Call&& call)
{
    try {
        call();
    } catch (const Caught& error) {
        return error.what();
    }
    return "(no error)";
}

// Span/ignore length bytes of the buffered_writer and buffered_reader programs (docs/targets.md): t < 8 an
// edge of the buffer size; t ≥ kFirstLargeLengthByte one of kLargeLengths, around the 4096-byte chunks in
// which optimized::AutoFile obfuscates a keyed write and skips an ignore(); else t − 8.
inline constexpr uint8_t kFirstLargeLengthByte = 0xf8;
inline constexpr size_t kLargeLengths[8] = {4095, 4096, 4097, 8191, 8192, 8193, 12289, 20000};

// The length a span/ignore length byte t selects with a buffer of `buffer` (≥ 1) bytes (the rule above).
constexpr size_t buffer_relative_length(uint8_t t, size_t buffer)
{
    if (t < 8) {
        const size_t edges[8] = {0, 1, buffer - 1, buffer, buffer + 1, 2 * buffer, 2 * buffer + 1, 3 * buffer + 3};
        return edges[t];
    }
    if (t >= kFirstLargeLengthByte) return kLargeLengths[t - kFirstLargeLengthByte];
    return t - 8u;
}

// Writes bytes, single bytes, CompactSizes and u32s, with flushes, through BufferedWriter, AutoFile and the
// reference FileWriter; compares every position and the files after close() or after the destructors.
void check_buffered_writer_program(std::span<const uint8_t> input);

// Reads bytes, single bytes, spans and skips from one obfuscated file through BufferedReader, AutoFile and
// the reference FileReader; compares every value and position and the error that ends the program.
void check_buffered_reader_program(std::span<const uint8_t> input);

// Reads one obfuscated file through the subject's BufferedFile (Core's rewindable buffer of LoadExternalBlockFile) and
// the reference model: reads, operator>>, CompactSizes, byte searches, rewinds, limits and skips, each value,
// position and error compared, then eof() and how far the file itself was read.
void check_buffered_file_program(std::span<const uint8_t> input);

// Writes block and undo records on both sides (compares the files), damages the file (flips, truncation,
// stored zeros, overwrites), then compares scan_block_file and every read_block_record/read_undo_record.
void check_block_store_program(std::span<const uint8_t> input);

}  // namespace serdiff::differential
