// Optimized block and undo record reading: one header read, one payload read, decode from memory.
#include "serialize/block_store.h"

#include <algorithm>

#include "serialize/codec.h"
#include "serialize/planted.h"

namespace serdiff::optimized {
namespace {

std::string hex_of(std::span<const std::byte> bytes)
{
    return model::to_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// Checks the framing at record.offset and reads the payload plus `trailer_size` bytes into
// record.payload; false (status and error set) when the record cannot be read.
bool read_framed(AutoFile& in, FileRecord& record, const NetworkMagic& magic, uint32_t maximum, uint32_t trailer_size)
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

    std::array<std::byte, 8> header{};
    const size_t header_size = static_cast<size_t>(std::min<uint64_t>(left, header.size()));
    in.read(std::span{header}.first(header_size));
    // Preallocated space holds zeros as stored, i.e. before de-obfuscation.
    std::array<std::byte, 4> stored_magic{};
    std::copy_n(header.begin(), 4, stored_magic.begin());
    obfuscate(stored_magic, record.offset, in.key());
    if (std::all_of(stored_magic.begin(), stored_magic.begin() + std::min<size_t>(header_size, 4),
                    [](std::byte value) { return value == std::byte{0}; })) {
        record.status = RecordStatus::zero_padding;
        return false;
    }
    record.status = RecordStatus::corrupt;
    if (header_size < 8) {
        record.error = "record header truncated: " + std::to_string(header_size) + " of 8 bytes";
        return false;
    }
    const std::span<const std::byte> found_magic = std::span{header}.first(4);
    if (!std::equal(found_magic.begin(), found_magic.end(), magic.begin())) {
        record.error = "wrong network magic: expected " + hex_of(magic) + ", found " + hex_of(found_magic);
        return false;
    }
    const uint32_t size = std::to_integer<uint32_t>(header[4]) | std::to_integer<uint32_t>(header[5]) << 8 |
                          std::to_integer<uint32_t>(header[6]) << 16 | std::to_integer<uint32_t>(header[7]) << 24;
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
    if (!SERDIFF_PLANTED(block_record_size_trusted) && uint64_t{size} + trailer_size > payload_left) {
        record.error = "record size " + std::to_string(size) + (trailer_size ? " plus the 32-byte checksum" : "") +
                       " exceeds the " + std::to_string(payload_left) + " bytes left in the file";
        return false;
    }
    record.payload.resize(size_t{size} + trailer_size);
    in.read(std::as_writable_bytes(std::span{record.payload}));
    record.next_offset = record.offset + 8 + size + trailer_size;
    return true;
}

}  // namespace

FileRecord read_block_record(AutoFile& in, uint64_t offset, const NetworkMagic& magic)
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

FileRecord read_undo_record(AutoFile& in, uint64_t offset, const NetworkMagic& magic,
                            const model::uint256& checksum_hash)
{
    FileRecord record;
    record.offset = offset;
    if (!read_framed(in, record, magic, kMaxUndoRecordSize, 32)) return record;
    std::copy_n(record.payload.end() - 32, 32, record.hash.bytes.begin());
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

std::vector<FileRecord> scan_block_file(AutoFile& in, const NetworkMagic& magic)
{
    std::vector<FileRecord> records;
    uint64_t offset = 0;
    while (true) {
        FileRecord record = read_block_record(in, offset, magic);
        record.payload = {};
        const bool resumable = record.status == RecordStatus::ok ||
                               (record.status == RecordStatus::corrupt && record.next_offset != 0);
        records.push_back(std::move(record));
        if (!resumable) return records;
        offset = records.back().next_offset;
    }
}

}  // namespace serdiff::optimized
