// Reference file layer, written plainly: one byte per stdio call, the XOR definition, record checks in order.
#include "differential/reference/file_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/types.h>

#include "crypto/crypto.h"
#include "differential/reference/reference.h"

namespace serdiff::reference {
namespace {

std::string with_errno(const char* what, int error_number)
{
    std::string message = what;
    if (error_number != 0) message += std::string(": ") + std::strerror(error_number);
    return message;
}

// Empty when ftello fails (an unseekable FILE): the position is unknown.
std::optional<uint64_t> start_position(std::FILE* file)
{
    if (!file) throw FileError("cannot open file");
    const off_t start = ftello(file);
    if (start < 0) return std::nullopt;
    return static_cast<uint64_t>(start);
}

bool is_keyed(const ObfuscationKey& key)
{
    return std::any_of(key.begin(), key.end(), [](std::byte value) { return value != std::byte{0}; });
}

std::string hex_of(std::span<const std::byte> bytes)
{
    return model::to_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

void obfuscate(std::span<std::byte> data, uint64_t file_offset, const ObfuscationKey& key)
{
    for (size_t i = 0; i < data.size(); ++i) data[i] ^= key[(file_offset + i) % 8];
}

// ---- FileWriter ----

FileWriter::FileWriter(std::FILE* file, const ObfuscationKey& key) : m_file{file}, m_key{key}
{
    m_position = start_position(m_file);
}

FileWriter::~FileWriter()
{
    if (m_file) std::fclose(m_file);
}

uint64_t FileWriter::position() const
{
    if (!m_position) throw FileError(kPositionUnknown);
    return *m_position;
}

void FileWriter::require_writable() const
{
    if (!m_file) throw FileError("file is closed");
    if (m_failed) throw FileError("file is unusable after an earlier write error");
}

void FileWriter::write_byte(std::byte value)
{
    require_writable();
    if (!m_position && is_keyed(m_key)) {
        m_failed = true;
        throw FileError(kCannotObfuscate);
    }
    const std::byte stored = m_position ? value ^ m_key[*m_position % 8] : value;
    // glibc can accept a byte on an unbuffered stream whose write failed; the error flag tells.
    if (std::fputc(std::to_integer<int>(stored), m_file) == EOF || std::ferror(m_file)) {
        m_failed = true;
        throw FileError(with_errno("write failed", errno));
    }
    if (m_position) *m_position += 1;
}

void FileWriter::write(std::span<const std::byte> bytes)
{
    require_writable();  // an empty write after a failure fails too, as every call does
    for (std::byte value : bytes) write_byte(value);
}

void FileWriter::flush()
{
    require_writable();
    if (std::fflush(m_file) != 0 || std::ferror(m_file)) {
        m_failed = true;
        throw FileError(with_errno("flush failed", errno));
    }
}

void FileWriter::close()
{
    if (!m_file) throw FileError("file is closed");
    std::FILE* file = m_file;
    m_file = nullptr;
    const bool error_flag = std::ferror(file) != 0;  // fclose forgets an earlier failed write
    const int result = std::fclose(file);
    const int error_number = errno;
    if (m_failed) throw FileError("file is unusable after an earlier write error");
    if (result != 0 || error_flag) throw FileError(with_errno("close failed", error_number));
}

// ---- FileReader ----

FileReader::FileReader(std::FILE* file, const ObfuscationKey& key) : m_file{file}, m_key{key}
{
    m_position = start_position(m_file);
}

FileReader::~FileReader()
{
    if (m_file) std::fclose(m_file);
}

uint64_t FileReader::position() const
{
    if (!m_position) throw FileError(kPositionUnknown);
    return *m_position;
}

uint64_t FileReader::size()
{
    if (!m_position) throw FileError(kPositionUnknown);  // it could not be restored
    if (fseeko(m_file, 0, SEEK_END) != 0) throw FileError(with_errno("seek failed", errno));
    const off_t end = ftello(m_file);
    if (end < 0) throw FileError(with_errno("cannot tell file position", errno));
    seek(*m_position);
    return static_cast<uint64_t>(end);
}

void FileReader::seek(uint64_t position)
{
    if (fseeko(m_file, static_cast<off_t>(position), SEEK_SET) != 0) throw FileError(with_errno("seek failed", errno));
    m_position = position;
}

std::byte FileReader::read_raw_byte()
{
    const int value = std::fgetc(m_file);
    if (value == EOF) {
        if (std::ferror(m_file)) throw FileError(with_errno("read failed", errno));
        throw ReadError(model::errors::kEndOfData);
    }
    if (m_position) *m_position += 1;
    return static_cast<std::byte>(value);
}

std::byte FileReader::read_byte()
{
    if (!m_position) {
        if (is_keyed(m_key)) throw FileError(kCannotObfuscate);
        return read_raw_byte();
    }
    const uint64_t position = *m_position;
    return read_raw_byte() ^ m_key[position % 8];
}

void FileReader::read(std::span<std::byte> bytes)
{
    if (!m_position && is_keyed(m_key)) throw FileError(kCannotObfuscate);
    for (std::byte& value : bytes) value = read_byte();
}

void FileReader::ignore(size_t count)
{
    for (size_t i = 0; i < count; ++i) read_raw_byte();
}

// ---- records ----

namespace {

void write_u32(FileWriter& out, uint32_t value)
{
    for (int i = 0; i < 4; ++i) out.write_byte(static_cast<std::byte>((value >> (8 * i)) & 0xff));
}

uint64_t write_record_header(FileWriter& out, const NetworkMagic& magic, size_t size, uint32_t maximum)
{
    if (size == 0 || size > maximum)
        throw std::length_error("record payload must be 1.." + std::to_string(maximum) + " bytes");
    const uint64_t offset = out.position();
    out.write(magic);
    write_u32(out, static_cast<uint32_t>(size));
    return offset;
}

void write_payload(FileWriter& out, std::span<const uint8_t> payload)
{
    for (uint8_t value : payload) out.write_byte(static_cast<std::byte>(value));
}

// Reads up to `count` de-obfuscated bytes from the current position into `out`, stopping at the end of
// the file; returns how many it read. Records are read this way, field by field, in file order, one byte at
// a time into `out` sized once for them (a read error throws out of the record, which is then dropped).
size_t read_up_to(FileReader& in, uint64_t file_size, uint64_t count, std::vector<uint8_t>& out)
{
    const uint64_t left = in.position() < file_size ? file_size - in.position() : 0;
    const size_t got = static_cast<size_t>(std::min(count, left));
    const size_t start = out.size();
    out.resize(start + got);
    for (size_t index = 0; index < got; ++index) out[start + index] = std::to_integer<uint8_t>(in.read_byte());
    return got;
}

// One record at `offset` (SEMANTICS.md "Files"): magic, u32 size, the payload, then `checksum_size`
// trailing bytes. Nothing is checked against the file size in advance; a field that runs into the end
// of the file is reported where the bytes run out. Leaves payload + checksum in record.payload when the
// framing is intact (status still corrupt: the caller decides), else sets status and error.
bool read_record_framing(FileReader& in, FileRecord& record, const NetworkMagic& magic, uint32_t maximum,
                         uint32_t checksum_size)
{
    const uint64_t file_size = in.size();
    if (record.offset == file_size) {
        record.status = RecordStatus::end_of_file;
        return false;
    }
    record.status = RecordStatus::corrupt;
    if (record.offset > file_size) {
        record.error = "record offset is past the end of the file";
        return false;
    }

    // bitcoind preallocates its files with zeros: zero bytes as stored where the magic should be (as
    // many of its four as the file holds) are padding, not a record.
    in.seek(record.offset);
    bool stored_zeros = true;
    for (int i = 0; i < 4 && in.position() < file_size; ++i)
        if (in.read_raw_byte() != std::byte{0}) stored_zeros = false;
    if (stored_zeros) {
        record.status = RecordStatus::zero_padding;
        return false;
    }

    in.seek(record.offset);
    std::vector<uint8_t> header;
    if (read_up_to(in, file_size, 8, header) < 8) {
        record.error = "record header truncated: " + std::to_string(header.size()) + " of 8 bytes";
        return false;
    }
    std::array<std::byte, 4> found_magic;
    for (size_t i = 0; i < 4; ++i) found_magic[i] = std::byte{header[i]};
    if (found_magic != magic) {
        record.error = "wrong network magic: expected " + hex_of(magic) + ", found " + hex_of(found_magic);
        return false;
    }
    record.size = uint32_t{header[4]} + uint32_t{header[5]} * 0x100 + uint32_t{header[6]} * 0x10000 +
                  uint32_t{header[7]} * 0x1000000;
    if (record.size == 0) {
        record.error = "record size is zero";
        return false;
    }
    if (record.size > maximum) {
        record.error =
            "record size " + std::to_string(record.size) + " above the maximum " + std::to_string(maximum);
        return false;
    }
    const uint64_t wanted = uint64_t{record.size} + checksum_size;
    const size_t got = read_up_to(in, file_size, wanted, record.payload);
    if (got < wanted) {
        record.error = "record size " + std::to_string(record.size) +
                       (checksum_size ? " plus the 32-byte checksum" : "") + " exceeds the " +
                       std::to_string(got) + " bytes left in the file";
        record.payload.clear();
        return false;
    }
    record.next_offset = record.offset + 8 + wanted;
    return true;
}

// The payload must decode as exactly one object of its kind, with no bytes left over.
template <typename Decode>
bool decodes_whole(FileRecord& record, std::span<const uint8_t> payload, Decode decode, const char* what)
{
    const auto decoded = decode(payload);
    if (!decoded.ok) {
        record.error = std::string(what) + " does not decode: " + decoded.error;
        return false;
    }
    if (decoded.consumed != payload.size()) {
        record.error = std::to_string(payload.size() - decoded.consumed) + " trailing bytes inside the record";
        return false;
    }
    return true;
}

}  // namespace

uint64_t write_block_record(FileWriter& out, const NetworkMagic& magic, std::span<const uint8_t> block)
{
    const uint64_t offset = write_record_header(out, magic, block.size(), model::kMaxBlockSerializedSize);
    write_payload(out, block);
    return offset;
}

uint64_t write_undo_record(FileWriter& out, const NetworkMagic& magic, std::span<const uint8_t> undo,
                           const model::uint256& checksum_hash)
{
    const uint64_t offset = write_record_header(out, magic, undo.size(), kMaxUndoRecordSize);
    write_payload(out, undo);
    write_payload(out, crypto::sha256d(checksum_hash.bytes, undo).bytes);
    return offset;
}

FileRecord read_block_record(FileReader& in, uint64_t offset, const NetworkMagic& magic)
{
    FileRecord record;
    record.offset = offset;
    if (!read_record_framing(in, record, magic, model::kMaxBlockSerializedSize, 0)) return record;
    if (!decodes_whole(record, record.payload, [](std::span<const uint8_t> bytes) { return decode_block(bytes); },
                       "block"))
        return record;
    std::vector<uint8_t> header(record.payload.begin(), record.payload.begin() + 80);
    record.hash = crypto::sha256d(header);
    record.status = RecordStatus::ok;
    return record;
}

FileRecord read_undo_record(FileReader& in, uint64_t offset, const NetworkMagic& magic,
                            const model::uint256& checksum_hash)
{
    FileRecord record;
    record.offset = offset;
    if (!read_record_framing(in, record, magic, kMaxUndoRecordSize, 32)) return record;
    // The last 32 bytes read are the stored checksum; the payload is what precedes them.
    for (size_t i = 0; i < 32; ++i) record.hash.bytes[i] = record.payload[record.size + i];
    record.payload.resize(record.size);
    if (!decodes_whole(record, record.payload,
                       [](std::span<const uint8_t> bytes) { return decode_block_undo(bytes); }, "undo"))
        return record;
    std::vector<uint8_t> preimage(checksum_hash.bytes.begin(), checksum_hash.bytes.end());
    preimage.insert(preimage.end(), record.payload.begin(), record.payload.end());
    if (crypto::sha256d(preimage) != record.hash) {
        record.error = "undo checksum mismatch";
        return record;
    }
    record.status = RecordStatus::ok;
    return record;
}

std::vector<FileRecord> scan_block_file(FileReader& in, const NetworkMagic& magic)
{
    std::vector<FileRecord> records;
    for (uint64_t offset = 0;;) {
        records.push_back(read_block_record(in, offset, magic));
        FileRecord& last = records.back();
        last.payload.clear();
        // A record whose framing held (next_offset set) is skipped even when its block is bad.
        if (last.next_offset == 0) return records;
        offset = last.next_offset;
    }
}

}  // namespace serdiff::reference
