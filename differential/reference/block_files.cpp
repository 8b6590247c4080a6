// Reference model of Core's block storage, written from node/blockstorage.cpp's rules (docs/file-io.md "Core's block
// files") one step at a time: no buffering, every byte obfuscated by its absolute offset.
#include "differential/reference/block_files.h"

#include <algorithm>
#include <cstdio>

#include "crypto/crypto.h"
#include "differential/reference/reference.h"

namespace serdiff::reference::block_files {

namespace {
constexpr uint32_t kHeaderBytes = 8;                     // magic + u32 size (STORAGE_HEADER_BYTES)
constexpr uint32_t kUndoOverhead = kHeaderBytes + 32;    // header + checksum (UNDO_DATA_DISK_OVERHEAD)

uint8_t key_byte(const ObfuscationKey& key, uint64_t offset) { return static_cast<uint8_t>(key[offset % key.size()]); }

// The plain header: magic, then the size little-endian.
Bytes header(const NetworkMagic& magic, uint32_t size)
{
    Bytes out;
    for (std::byte b : magic) out.push_back(static_cast<uint8_t>(b));
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(size >> (8 * i)));
    return out;
}
}  // namespace

std::string BlockFiles::block_file_name(int file)
{
    char name[32];
    std::snprintf(name, sizeof(name), "blk%05u.dat", static_cast<unsigned>(file));
    return name;
}

std::string BlockFiles::undo_file_name(int file)
{
    char name[32];
    std::snprintf(name, sizeof(name), "rev%05u.dat", static_cast<unsigned>(file));
    return name;
}

BlockFiles::BlockFiles(const Options& options) : m_options(options) {}

// Bytes written at `offset` (obfuscated there); a file shorter than offset is first extended with zeros.
void BlockFiles::store(const std::string& name, uint64_t offset, std::span<const uint8_t> data)
{
    Bytes& bytes = file(name);
    if (bytes.size() < offset + data.size()) bytes.resize(offset + data.size(), 0);
    for (size_t i = 0; i < data.size(); ++i) bytes[offset + i] = data[i] ^ key_byte(m_options.key, offset + i);
}

// FlatFileSeq::Allocate: when offset + add reaches past the chunks that hold offset, the file is extended with plain
// zeros to the end of the last chunk needed (the file is opened, and so created, only then).
void BlockFiles::allocate(const std::string& name, uint64_t offset, uint64_t add, uint32_t chunk)
{
    const uint64_t old_chunks = (offset + chunk - 1) / chunk, new_chunks = (offset + add + chunk - 1) / chunk;
    if (new_chunks <= old_chunks) return;
    Bytes& bytes = file(name);
    if (bytes.size() < new_chunks * chunk) bytes.resize(new_chunks * chunk, 0);
}

// FlatFileSeq::Flush: opens the file (creating it empty if absent), truncates it when finalizing.
void BlockFiles::flush(const std::string& name, std::optional<uint32_t> truncate_to)
{
    Bytes& bytes = file(name);
    if (truncate_to) bytes.resize(*truncate_to, 0);
}

void BlockFiles::flush_undo(int file, bool finalize)
{
    flush(undo_file_name(file), finalize ? std::optional<uint32_t>(m_info[file].undo_size) : std::nullopt);
}

Position BlockFiles::write_block(std::span<const uint8_t> block, uint32_t height)
{
    // FindNextBlockPos.
    const uint32_t add = static_cast<uint32_t>(block.size()) + kHeaderBytes;
    const uint32_t max_file = add >= m_options.max_file ? add + 1 : m_options.max_file;
    const int last = m_cursor_file;
    int file = last;
    if (m_info.size() <= static_cast<size_t>(file)) m_info.resize(file + 1);
    bool finalize_undo = false;
    while (static_cast<uint64_t>(m_info[file].size) + add >= max_file) {
        finalize_undo = m_info[file].height_last == m_cursor_undo_height;
        file = m_cursor_file + 1;
        m_cursor_file = file;
        m_cursor_undo_height = 0;
        if (m_info.size() <= static_cast<size_t>(file)) m_info.resize(file + 1);
    }
    const uint32_t record = m_info[file].size;
    if (file != last) {
        // FlushBlockFile(last, finalize, finalize_undo): the old block file cut to its size; its undo file cut too
        // when the undo writes kept up with its blocks.
        flush(block_file_name(last), m_info[last].size);
        if (finalize_undo) flush_undo(last, true);
        m_cursor_file = file;
        m_cursor_undo_height = 0;
    }
    FileInfo& info = m_info[file];
    if (info.blocks == 0 || info.height_first > height) info.height_first = height;
    ++info.blocks;
    if (height > info.height_last) info.height_last = height;
    info.size += add;
    allocate(block_file_name(file), record, add, m_options.block_chunk);
    // WriteBlock: the header and the block, obfuscated at their offsets.
    Bytes record_bytes = header(m_options.magic, static_cast<uint32_t>(block.size()));
    record_bytes.insert(record_bytes.end(), block.begin(), block.end());
    store(block_file_name(file), record, record_bytes);
    return {file, record + kHeaderBytes};
}

Position BlockFiles::write_undo(std::span<const uint8_t> undo, const model::uint256& parent, int block_file,
                                uint32_t height)
{
    // FindUndoPos.
    FileInfo& info = m_info.at(static_cast<size_t>(block_file));
    const uint32_t record = info.undo_size;
    const uint32_t add = static_cast<uint32_t>(undo.size()) + kUndoOverhead;
    info.undo_size += add;
    allocate(undo_file_name(block_file), record, add, m_options.undo_chunk);
    // The header, the undo bytes, and sha256d(parent hash || undo bytes).
    Bytes record_bytes = header(m_options.magic, static_cast<uint32_t>(undo.size()));
    record_bytes.insert(record_bytes.end(), undo.begin(), undo.end());
    const model::uint256 checksum = crypto::sha256d(parent.bytes, undo);
    record_bytes.insert(record_bytes.end(), checksum.bytes.begin(), checksum.bytes.end());
    store(undo_file_name(block_file), record, record_bytes);
    // An undo file of an earlier block file is finished with its last block's undo data.
    if (block_file < m_cursor_file && height == info.height_last) flush_undo(block_file, true);
    else if (block_file == m_cursor_file && height > m_cursor_undo_height) m_cursor_undo_height = height;
    return {block_file, record + kHeaderBytes};
}

RawRead BlockFiles::read_raw(Position position, std::optional<std::pair<uint64_t, uint64_t>> part) const
{
    RawRead out;
    out.error = RawError::io;
    if (position.file < 0 || position.offset < kHeaderBytes) return out;
    const Bytes* bytes = plain(block_file_name(position.file));
    if (bytes == nullptr) return out;
    uint64_t at = position.offset - kHeaderBytes;
    auto take = [&](uint64_t offset, uint64_t count, Bytes& into) {
        if (offset > bytes->size() || count > bytes->size() - offset) return false;
        into.assign(bytes->begin() + static_cast<std::ptrdiff_t>(offset), bytes->begin() + static_cast<std::ptrdiff_t>(offset + count));
        return true;
    };
    Bytes head;
    if (!take(at, kHeaderBytes, head)) return out;
    for (size_t i = 0; i < 4; ++i)
        if (head[i] != static_cast<uint8_t>(m_options.magic[i])) return out;
    uint32_t size = 0;
    for (int i = 0; i < 4; ++i) size |= static_cast<uint32_t>(head[4 + i]) << (8 * i);
    if (size > model::kMaxSize) return out;
    out.size_field = size;
    at += kHeaderBytes;
    uint64_t count = size;
    if (part) {
        const auto [offset, length] = *part;
        const uint64_t end = offset > UINT64_MAX - length ? UINT64_MAX : offset + length;
        if (length == 0 || end > size) {
            out.error = RawError::bad_part_range;
            return out;
        }
        at += offset;
        count = length;
    }
    if (!take(at, count, out.data)) {
        out.data.clear();
        return out;
    }
    out.error = RawError::none;
    return out;
}

const Bytes* BlockFiles::plain(const std::string& name) const
{
    const auto found = m_files.find(name);
    if (found == m_files.end()) return nullptr;
    auto [cached, added] = m_plain.try_emplace(name);
    if (added) {
        cached->second = found->second;
        for (size_t i = 0; i < cached->second.size(); ++i) cached->second[i] ^= key_byte(m_options.key, i);
    }
    return &cached->second;
}

std::optional<Bytes> BlockFiles::read_undo(Position position, const model::uint256& parent) const
{
    if (position.file < 0) return std::nullopt;
    const Bytes* bytes = plain(undo_file_name(position.file));
    if (bytes == nullptr || position.offset > bytes->size()) return std::nullopt;
    const std::span<const uint8_t> rest = std::span<const uint8_t>(*bytes).subspan(position.offset);
    const auto decoded = decode_block_undo(rest);
    if (!decoded.ok || rest.size() - decoded.consumed < 32) return std::nullopt;
    const std::span<const uint8_t> undo = rest.first(decoded.consumed);
    const model::uint256 checksum = crypto::sha256d(parent.bytes, undo);
    if (!std::equal(checksum.bytes.begin(), checksum.bytes.end(), rest.begin() + static_cast<std::ptrdiff_t>(decoded.consumed)))
        return std::nullopt;
    return Bytes(undo.begin(), undo.end());
}

bool check_proof_of_work(const model::uint256& hash, uint32_t bits, const model::uint256& pow_limit)
{
    // arith_uint256::SetCompact.
    const uint32_t size = bits >> 24;
    uint32_t word = bits & 0x007fffff;
    std::array<uint8_t, 32> target{};  // little-endian
    if (size <= 3) {
        word >>= 8 * (3 - size);
        for (uint32_t i = 0; i < 3; ++i) target[i] = static_cast<uint8_t>(word >> (8 * i));
    } else {
        for (uint32_t i = 0; i < 3; ++i)
            if (size - 3 + i < 32) target[size - 3 + i] = static_cast<uint8_t>(word >> (8 * i));
    }
    const bool negative = word != 0 && (bits & 0x00800000) != 0;
    const bool overflow = word != 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
    // Little-endian 256-bit comparison: -1, 0, 1.
    auto compare = [](const std::array<uint8_t, 32>& a, const std::array<uint8_t, 32>& b) {
        for (int i = 31; i >= 0; --i)
            if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
        return 0;
    };
    const bool zero = std::all_of(target.begin(), target.end(), [](uint8_t b) { return b == 0; });
    if (negative || zero || overflow || compare(target, pow_limit.bytes) > 0) return false;
    return compare(hash.bytes, target) <= 0;
}

}  // namespace serdiff::reference::block_files
