// The reference BufferedFile: Core's rewindable read buffer over a file (streams.h BufferedFile, which
// LoadExternalBlockFile reads -reindex and -loadblock files with), as positions only. The rules are
// docs/format.md "BufferedFile": the bytes come straight from the file's plain (de-obfuscated) bytes; the buffer is
// a count of how far the source has been read, filled one refill at a time as the rules say, since that decides how
// far back set_position can go and when eof() holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "model/model.h"

namespace serdiff::reference {

class BufferedFileModel {
public:
    // Throws ReadError(kRewindNotBelowBuffer) unless rewind < buffer_size (which must be ≥ 1). `plain` is viewed, not
    // copied: it must outlive the model.
    BufferedFileModel(std::span<const uint8_t> plain, uint64_t buffer_size, uint64_t rewind);

    // The position of the next byte read (0 at the start, whatever the file's own position was).
    uint64_t position() const { return m_read; }
    // How many bytes the refills have read from the file.
    uint64_t source_position() const { return m_source; }
    // True when every byte read from the file has been returned and the last refill came up short.
    bool eof() const { return m_read == m_source && m_file_end_seen; }

    // `count` bytes. Past the limit: throws ReadError(kPastReadLimit) having read nothing (an empty read never
    // throws). At the end of the file: throws ReadError(kEndOfData) having consumed what was left.
    model::Bytes read(size_t count);
    // Moves ahead to `target` (≥ position()), as a read of the bytes between (none: nothing checked).
    void skip_to(uint64_t target);
    // To `target` if the buffer still holds it or it is the next byte to read, and true; else as far as it can go
    // that way (the oldest byte buffered, or the next to read) and false.
    bool set_position(uint64_t target);
    // Reads may not go past `limit` (none: no limit). False, and nothing changed, for a limit behind the position.
    bool set_limit(std::optional<uint64_t> limit);
    // Moves to the next byte equal to `value` (the position itself included), refilling as it goes; the limit does not
    // bound it. At the end of the file: throws ReadError(kEndOfData) positioned at the end.
    void find_byte(uint8_t value);

private:
    // One refill: at most to the end of the ring buffer, and never over the `rewind` bytes kept behind the position.
    void fill();
    // The next byte, refilling first when every byte read from the file was returned.
    uint8_t next_byte();

    std::span<const uint8_t> m_plain;
    uint64_t m_buffer_size, m_rewind;
    uint64_t m_read = 0, m_source = 0;
    uint64_t m_limit = UINT64_MAX;
    bool m_file_end_seen = false;
};

}  // namespace serdiff::reference
