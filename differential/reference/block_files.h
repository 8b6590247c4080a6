// Reference model of Bitcoin Core's block storage (node/blockstorage.cpp over flatfile.cpp): the blocks directory's
// blk/rev files held in memory, written and read as docs/file-io.md ("Core's block files") states the rules. The
// Core subject's block_store target (subjects/core/block_store.cpp) compares a real BlockManager with it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "differential/reference/file_io.h"
#include "model/model.h"

namespace serdiff::reference::block_files {

struct Options {
    ObfuscationKey key{};      // xor.dat
    NetworkMagic magic{};      // the chain's message start
    uint32_t block_chunk = 0;  // blk files grow by whole chunks of zeros (Core: 16 MiB, -fastprune 16 KiB)
    uint32_t undo_chunk = 0;   // rev files likewise (1 MiB)
    uint32_t max_file = 0;     // a block goes to the next file when size + record >= this (128 MiB, -fastprune 64 KiB)
};

// FlatFilePos: a file number and an offset in it.
struct Position {
    int file = -1;
    uint32_t offset = 0;
    bool operator==(const Position&) const = default;
};

// ReadRawBlock's outcome: the bytes, or an I/O error (every failure but one) or a bad part range.
enum class RawError { none, io, bad_part_range };
struct RawRead {
    RawError error = RawError::none;
    Bytes data;
    uint32_t size_field = 0;  // the record's size field, once read (what Core allocates before reading)
};

class BlockFiles {
public:
    explicit BlockFiles(const Options& options);

    // WriteBlock of a block serialized as `block`, at `height`: the position of its bytes (after the 8-byte header).
    Position write_block(std::span<const uint8_t> block, uint32_t height);
    // WriteBlockUndo of `undo` for a block at `height` stored in file `block_file` (a file written to already) whose
    // parent has hash `parent`: the position of the undo bytes.
    Position write_undo(std::span<const uint8_t> undo, const model::uint256& parent, int block_file, uint32_t height);

    // ReadRawBlock at `position`, optionally only `part` (offset, size) of the block.
    RawRead read_raw(Position position, std::optional<std::pair<uint64_t, uint64_t>> part = std::nullopt) const;
    // ReadBlockUndo at `position` with the parent's hash: the undo bytes read and checked, or nothing (false).
    std::optional<Bytes> read_undo(Position position, const model::uint256& parent) const;

    // Every file of the directory as stored ("blk00000.dat" -> bytes), xor.dat aside.
    const std::map<std::string, Bytes>& files() const { return m_files; }
    // A file's bytes, to damage them as a bad disk would (created empty if absent).
    Bytes& file(const std::string& name)
    {
        m_plain.erase(name);
        return m_files[name];
    }

    static std::string block_file_name(int file);
    static std::string undo_file_name(int file);

private:
    struct FileInfo {
        uint32_t blocks = 0, size = 0, undo_size = 0, height_first = 0, height_last = 0;
    };
    void store(const std::string& name, uint64_t offset, std::span<const uint8_t> data);
    void allocate(const std::string& name, uint64_t offset, uint64_t add, uint32_t chunk);
    void flush(const std::string& name, std::optional<uint32_t> truncate_to);
    void flush_undo(int file, bool finalize);
    // A file's bytes de-obfuscated (kept until the file changes), or null when there is no such file.
    const Bytes* plain(const std::string& name) const;

    Options m_options;
    std::map<std::string, Bytes> m_files;
    mutable std::map<std::string, Bytes> m_plain;
    std::vector<FileInfo> m_info;
    int m_cursor_file = 0;        // the NORMAL cursor: the file blocks go to
    uint32_t m_cursor_undo_height = 0;
};

// Regtest's proof-of-work check of a block hash against its nBits (pow.cpp CheckProofOfWorkImpl): the compact target
// decoded (negative, zero, overflowing or above `pow_limit` fails), then hash <= target, both as 256-bit numbers
// (little-endian bytes, as Core's uint256).
bool check_proof_of_work(const model::uint256& hash, uint32_t bits, const model::uint256& pow_limit);

}  // namespace serdiff::reference::block_files
