// The reference BufferedFile (buffered_file.h): one byte at a time, positions only.
#include "differential/reference/buffered_file.h"

#include <algorithm>

#include "differential/reference/primitives.h"

namespace serdiff::reference {

BufferedFileModel::BufferedFileModel(std::span<const uint8_t> plain, uint64_t buffer_size, uint64_t rewind)
    : m_plain(plain), m_buffer_size(buffer_size), m_rewind(rewind)
{
    if (rewind >= buffer_size) throw ReadError(model::errors::kRewindNotBelowBuffer);
}

void BufferedFileModel::fill()
{
    // Called only with every byte read from the file returned (m_read == m_source): the room is the buffer less the
    // bytes kept for a rewind, and a refill stops at the end of the ring buffer.
    const uint64_t room = std::min(m_buffer_size - m_source % m_buffer_size, m_buffer_size - m_rewind);
    const uint64_t left = m_source < m_plain.size() ? m_plain.size() - m_source : 0;
    const uint64_t got = std::min(room, left);
    if (got < room) m_file_end_seen = true;  // a short read of the file: stdio's end-of-file flag is set
    if (got == 0) throw ReadError(model::errors::kEndOfData);
    m_source += got;
}

uint8_t BufferedFileModel::next_byte()
{
    if (m_read == m_source) fill();
    return m_plain[m_read++];
}

model::Bytes BufferedFileModel::read(size_t count)
{
    // An empty read checks nothing (a position moved past the limit by set_position stays readable for 0 bytes).
    if (count > 0 && m_read + count > m_limit) throw ReadError(model::errors::kPastReadLimit);
    model::Bytes out;
    for (size_t i = 0; i < count; ++i) out.push_back(next_byte());
    return out;
}

void BufferedFileModel::skip_to(uint64_t target)
{
    if (m_read < target && target > m_limit) throw ReadError(model::errors::kPastReadLimit);
    while (m_read < target) next_byte();
}

bool BufferedFileModel::set_position(uint64_t target)
{
    if (target + m_buffer_size < m_source) {
        m_read = m_source - m_buffer_size;
        return false;
    }
    if (target > m_source) {
        m_read = m_source;
        return false;
    }
    m_read = target;
    return true;
}

bool BufferedFileModel::set_limit(std::optional<uint64_t> limit)
{
    const uint64_t value = limit.value_or(UINT64_MAX);
    if (value < m_read) return false;
    m_limit = value;
    return true;
}

void BufferedFileModel::find_byte(uint8_t value)
{
    while (true) {
        if (m_read == m_source) fill();
        if (m_plain[m_read] == value) return;
        ++m_read;
    }
}

}  // namespace serdiff::reference
