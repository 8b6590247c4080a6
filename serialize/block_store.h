// Optimized block and undo files: record framing over AutoFile/BufferedWriter, whole-record reads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "crypto/crypto.h"
#include "model/file_record.h"
#include "model/model.h"
#include "serialize/file.h"
#include "serialize/model_formats.h"
#include "serialize/serialize.h"

namespace serdiff::optimized {

using NetworkMagic = std::array<std::byte, 4>;

// Bitcoin Core has no size limit for undo records; MAX_SIZE, the serializer's own bound, caps the
// allocation a corrupt size field can cause.
inline constexpr uint32_t kMaxUndoRecordSize = static_cast<uint32_t>(model::kMaxSize);

namespace block_store_detail {
inline std::array<std::byte, 8> record_header(const NetworkMagic& magic, size_t size, uint32_t maximum)
{
    if (size == 0 || size > maximum)
        throw std::length_error("record payload must be 1.." + std::to_string(maximum) + " bytes");
    std::array<std::byte, 8> header;
    for (size_t i = 0; i < 4; ++i) header[i] = magic[i];
    for (size_t i = 0; i < 4; ++i) header[4 + i] = static_cast<std::byte>((size >> (8 * i)) & 0xff);
    return header;
}
inline std::span<const std::byte> as_bytes(std::span<const uint8_t> bytes) { return std::as_bytes(bytes); }
}  // namespace block_store_detail

// Record framing (SEMANTICS.md "Files"): magic, u32 little-endian payload size, payload, and for undo
// records a 32-byte checksum sha256d(checksum_hash || payload); Bitcoin Core passes the PARENT
// block's hash as checksum_hash. `out` is a BufferedWriter or an AutoFile. Returns the record offset.
template <typename Writer>
uint64_t write_block_record(Writer& out, const NetworkMagic& magic, std::span<const uint8_t> block)
{
    const auto header = block_store_detail::record_header(magic, block.size(), model::kMaxBlockSerializedSize);
    const uint64_t offset = out.position();
    out.write(header);
    out.write(block_store_detail::as_bytes(block));
    return offset;
}

// The same record from a block object, serialized straight into the writer with no intermediate
// vector (what Bitcoin Core's WriteBlock does): the SizeComputer gives the size field.
template <typename Writer>
uint64_t write_block_record(Writer& out, const NetworkMagic& magic, const model::Block& block)
{
    const auto header =
        block_store_detail::record_header(magic, GetSerializeSize(block), model::kMaxBlockSerializedSize);
    const uint64_t offset = out.position();
    out.write(header);
    Serialize(out, block);
    return offset;
}

template <typename Writer>
uint64_t write_undo_record(Writer& out, const NetworkMagic& magic, std::span<const uint8_t> undo,
                           const model::uint256& checksum_hash)
{
    const auto header = block_store_detail::record_header(magic, undo.size(), kMaxUndoRecordSize);
    const model::uint256 checksum = crypto::sha256d(checksum_hash.bytes, undo);
    const uint64_t offset = out.position();
    out.write(header);
    out.write(block_store_detail::as_bytes(undo));
    out.write(std::as_bytes(std::span{checksum.bytes}));
    return offset;
}

// The result shape both implementations return (model/file_record.h), compared with ==.
using model::FileRecord;
using model::RecordStatus;

// OPTIMIZATIONS.md row 11 (whole-block read): the size field is checked against the file before
// allocating, the payload is read in one call, de-obfuscated once and decoded from memory.
FileRecord read_block_record(AutoFile& in, uint64_t offset, const NetworkMagic& magic);
FileRecord read_undo_record(AutoFile& in, uint64_t offset, const NetworkMagic& magic,
                            const model::uint256& checksum_hash);
// Every block record from offset 0 until the end, zero padding, or a corrupt record that cannot be
// skipped; payloads are dropped. The last entry is the one that ended the scan.
std::vector<FileRecord> scan_block_file(AutoFile& in, const NetworkMagic& magic);

}  // namespace serdiff::optimized
