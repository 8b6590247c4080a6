// Reference file layer: byte-at-a-time obfuscation, unbuffered reader/writer, block and undo records.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "differential/reference/primitives.h"
#include "model/file_record.h"
#include "model/model.h"

namespace serdiff::reference {

using ObfuscationKey = std::array<std::byte, 8>;
using NetworkMagic = std::array<std::byte, 4>;

// The definition: the byte at absolute file position p is XORed with key[p % 8].
void obfuscate(std::span<std::byte> data, uint64_t file_offset, const ObfuscationKey& key);

// An I/O failure (write, flush, close, read error, seek) or use after a failed write. Reading past the
// end of the file throws ReadError("end of data") (the memory Reader records that error instead).
struct FileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The position of an unseekable FILE (ftello fails at the start: a pipe, a cookie FILE whose seek fails) is
// unknown, as in Bitcoin Core's AutoFile (src/streams.cpp): position() and size() throw FileError(kPositionUnknown);
// bytes under a non-zero key cannot be obfuscated: a read throws FileError(kCannotObfuscate), a written byte is
// refused the same way (a write error); zero-key reads, writes and skips work.
inline constexpr const char* kPositionUnknown = "file position unknown";
inline constexpr const char* kCannotObfuscate = "cannot obfuscate: file position unknown";

// Writes one byte at a time with fputc; owns the FILE*. After a failed write every later call throws.
class FileWriter {
public:
    FileWriter(std::FILE* file, const ObfuscationKey& key);  // start position from ftello (may be unknown)
    FileWriter(const FileWriter&) = delete;
    FileWriter& operator=(const FileWriter&) = delete;
    ~FileWriter();  // fclose if still open; cannot report errors (close() does)

    uint64_t position() const;
    void write(std::span<const std::byte> bytes);
    void write_byte(std::byte value);
    void flush();
    void close();

private:
    void require_writable() const;
    std::FILE* m_file;
    ObfuscationKey m_key;
    std::optional<uint64_t> m_position;
    bool m_failed = false;
};

// Reads one byte at a time with fgetc; owns the FILE*.
class FileReader {
public:
    FileReader(std::FILE* file, const ObfuscationKey& key);  // start position from ftello (may be unknown)
    FileReader(const FileReader&) = delete;
    FileReader& operator=(const FileReader&) = delete;
    ~FileReader();

    uint64_t position() const;
    const ObfuscationKey& key() const { return m_key; }
    uint64_t size();  // total file size; position unchanged
    void seek(uint64_t position);
    std::byte read_byte();  // throws ReadError("end of data") at the end of the file
    void read(std::span<std::byte> bytes);  // position unknown and keyed: throws, even for 0 bytes (as Core's)
    void ignore(size_t count);  // raw bytes: works with the position unknown
    std::byte read_raw_byte();  // without de-obfuscation (to recognise preallocated zero bytes)

private:
    std::FILE* m_file;
    ObfuscationKey m_key;
    std::optional<uint64_t> m_position;
};

// Record framing (SEMANTICS.md "Files"): magic, u32 little-endian payload size, payload, and for undo
// records a 32-byte checksum sha256d(checksum_hash || payload). Bitcoin Core passes the PARENT block's
// hash as checksum_hash. Each returns the offset of the record's magic.
inline constexpr uint32_t kMaxUndoRecordSize = static_cast<uint32_t>(model::kMaxSize);
uint64_t write_block_record(FileWriter& out, const NetworkMagic& magic, std::span<const uint8_t> block);
uint64_t write_undo_record(FileWriter& out, const NetworkMagic& magic, std::span<const uint8_t> undo,
                           const model::uint256& checksum_hash);

// The result shape both implementations return (model/file_record.h), compared with ==.
using model::FileRecord;
using model::RecordStatus;

FileRecord read_block_record(FileReader& in, uint64_t offset, const NetworkMagic& magic);
FileRecord read_undo_record(FileReader& in, uint64_t offset, const NetworkMagic& magic,
                            const model::uint256& checksum_hash);
// Every block record from offset 0 until the end, zero padding, or a corrupt record that cannot be
// skipped; payloads are dropped. The last entry is the one that ended the scan.
std::vector<FileRecord> scan_block_file(FileReader& in, const NetworkMagic& magic);

}  // namespace serdiff::reference
