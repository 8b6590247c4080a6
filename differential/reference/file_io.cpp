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

uint64_t start_position(std::FILE*& file)
{
    if (!file) throw FileError("cannot open file");
    const off_t start = ftello(file);
    if (start < 0) {
        const int error_number = errno;
        std::fclose(file);
        file = nullptr;
        throw FileError(with_errno("cannot tell file position", error_number));
    }
    return static_cast<uint64_t>(start);
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

void FileWriter::require_writable() const
{
    if (!m_file) throw FileError("file is closed");
    if (m_failed) throw FileError("file is unusable after an earlier write error");
}

void FileWriter::write_byte(std::byte value)
{
    require_writable();
    const std::byte stored = value ^ m_key[m_position % 8];
    // glibc can accept a byte on an unbuffered stream whose write failed; the error flag tells.
    if (std::fputc(std::to_integer<int>(stored), m_file) == EOF || std::ferror(m_file)) {
        m_failed = true;
        throw FileError(with_errno("write failed", errno));
    }
    m_position += 1;
}

void FileWriter::write(std::span<const std::byte> bytes)
{
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

uint64_t FileReader::size()
{
    if (fseeko(m_file, 0, SEEK_END) != 0) throw FileError(with_errno("seek failed", errno));
    const off_t end = ftello(m_file);
    if (end < 0) throw FileError(with_errno("cannot tell file position", errno));
    seek(m_position);
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
    m_position += 1;
    return static_cast<std::byte>(value);
}

std::byte FileReader::read_byte()
{
    const uint64_t position = m_position;
    return read_raw_byte() ^ m_key[position % 8];
}

void FileReader::read(std::span<std::byte> bytes)
{
    for (std::byte& value : bytes) value = read_byte();
}

void FileReader::ignore(size_t count)
{
    for (size_t i = 0; i < count; ++i) read_byte();
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

// Checks the framing at record.offset and reads the payload plus `trailer_size` bytes into
// record.payload; false (status and error set) when the record cannot be read.
bool read_framed(FileReader& in, FileRecord& record, const NetworkMagic& magic, uint32_t maximum,
                 uint32_t trailer_size)
{
    const uint64_t file_size = in.size();
    if (record.offset >= file_size) {
        record.status = RecordStatus::end_of_file;
        if (record.offset > file_size) {
            record.status = RecordStatus::corrupt;
            record.error = "record offset is past the end of the file";
        }
        return false;
    }
    in.seek(record.offset);
    const uint64_t left = file_size - record.offset;

    std::vector<std::byte> header;
    while (header.size() < 8 && header.size() < left) header.push_back(in.read_raw_byte());
    bool magic_all_zero = true;
    for (size_t i = 0; i < 4 && i < header.size(); ++i)
        if (header[i] != std::byte{0}) magic_all_zero = false;
    if (magic_all_zero) {
        record.status = RecordStatus::zero_padding;
        return false;
    }
    record.status = RecordStatus::corrupt;
    if (header.size() < 8) {
        record.error = "record header truncated: " + std::to_string(header.size()) + " of 8 bytes";
        return false;
    }
    obfuscate(header, record.offset, in.key());
    const std::span<const std::byte> found_magic{header.data(), 4};
    if (!std::equal(found_magic.begin(), found_magic.end(), magic.begin())) {
        record.error = "wrong network magic: expected " + hex_of(magic) + ", found " + hex_of(found_magic);
        return false;
    }
    uint32_t size = 0;
    for (int i = 3; i >= 0; --i) size = (size << 8) | std::to_integer<uint32_t>(header[4 + i]);
    record.size = size;
    if (size == 0) {
        record.error = "record size is zero";
        return false;
    }
    if (size > maximum) {
        record.error = "record size " + std::to_string(size) + " above the maximum " + std::to_string(maximum);
        return false;
    }
    const uint64_t payload_left = left - 8;
    if (uint64_t{size} + trailer_size > payload_left) {
        record.error = "record size " + std::to_string(size) +
                       (trailer_size ? " plus the 32-byte checksum" : "") + " exceeds the " +
                       std::to_string(payload_left) + " bytes left in the file";
        return false;
    }
    for (uint64_t i = 0; i < uint64_t{size} + trailer_size; ++i)
        record.payload.push_back(std::to_integer<uint8_t>(in.read_byte()));
    record.next_offset = record.offset + 8 + size + trailer_size;
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
    if (!read_framed(in, record, magic, model::kMaxBlockSerializedSize, 0)) return record;
    const auto decoded = decode_block(record.payload);
    if (!decoded.ok) {
        record.error = "block does not decode: " + decoded.error;
        return record;
    }
    if (decoded.consumed != record.payload.size()) {
        record.error = std::to_string(record.payload.size() - decoded.consumed) + " trailing bytes inside the record";
        return record;
    }
    record.hash = crypto::sha256d(std::span{record.payload}.first(80));
    record.status = RecordStatus::ok;
    return record;
}

FileRecord read_undo_record(FileReader& in, uint64_t offset, const NetworkMagic& magic,
                            const model::uint256& checksum_hash)
{
    FileRecord record;
    record.offset = offset;
    if (!read_framed(in, record, magic, kMaxUndoRecordSize, 32)) return record;
    for (size_t i = 0; i < 32; ++i) record.hash.bytes[i] = record.payload[record.size + i];
    record.payload.resize(record.size);
    const auto decoded = decode_block_undo(record.payload);
    if (!decoded.ok) {
        record.error = "undo does not decode: " + decoded.error;
        return record;
    }
    if (decoded.consumed != record.payload.size()) {
        record.error = std::to_string(record.payload.size() - decoded.consumed) + " trailing bytes inside the record";
        return record;
    }
    if (crypto::sha256d(checksum_hash.bytes, record.payload) != record.hash) {
        record.error = "undo checksum mismatch";
        return record;
    }
    record.status = RecordStatus::ok;
    return record;
}

std::vector<FileRecord> scan_block_file(FileReader& in, const NetworkMagic& magic)
{
    std::vector<FileRecord> records;
    uint64_t offset = 0;
    while (true) {
        FileRecord record = read_block_record(in, offset, magic);
        record.payload.clear();
        records.push_back(record);
        const bool resumable = record.status == RecordStatus::ok ||
                               (record.status == RecordStatus::corrupt && record.next_offset != 0);
        if (!resumable) return records;
        offset = record.next_offset;
    }
}

}  // namespace serdiff::reference
