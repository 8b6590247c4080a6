// Optimized file streams: AutoFile (a FILE* with an obfuscation key), BufferedReader, BufferedWriter.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <vector>

#include "model/model.h"
#include "serialize/obfuscation.h"
#include "serialize/planted.h"
#include "serialize/stream.h"

namespace serdiff::optimized {

// An I/O failure of the underlying FILE* (failed or short fwrite, fflush, fclose, fread error, seek),
// or a write/flush/close after such a failure. Running out of data is SerializeError("end of data").
struct FileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace file_detail {
inline std::string describe(const char* what, int error_number)
{
    std::string message = what;
    if (error_number != 0) message += std::string(": ") + std::strerror(error_number);
    return message;
}
inline constexpr const char* kFailedEarlier = "file is unusable after an earlier write error";
// An unseekable FILE (a pipe, a cookie FILE whose seek fails): ftello cannot tell where it is.
inline constexpr const char* kPositionUnknown = "file position unknown";
inline constexpr const char* kCannotObfuscate = "cannot obfuscate: file position unknown";
}  // namespace file_detail

// Owns a FILE* (closed by close() or the destructor) and tracks the absolute position that the
// obfuscation key is applied at. A write that fails leaves the file failed: every later write, flush
// or close throws, so nothing after the fault can be reported as written.
// Position unknown (ftello failed at the start: an unseekable FILE), as Bitcoin Core's AutoFile: plain
// (zero-key) reads, writes and skips work; position() and size() throw; a keyed read throws and a keyed
// write of at least one byte is refused (a write error: the file is failed), until a seek succeeds.
class AutoFile {
public:
    // `file` may be null only to report the open failure here. The start position comes from ftello,
    // so a caller can position the file anywhere before handing it over.
    AutoFile(std::FILE* file, const ObfuscationKey& key) : m_file{file}, m_key{key}, m_keyed{!is_zero_key(key)}
    {
        if (!m_file) throw FileError("cannot open file");
        const off_t start = ftello(m_file);
        if (start >= 0) m_position = static_cast<uint64_t>(start);
    }
    AutoFile(const AutoFile&) = delete;
    AutoFile& operator=(const AutoFile&) = delete;
    // Closing here cannot report an error; call close() to learn whether buffered bytes reached the OS.
    ~AutoFile()
    {
        if (m_file) std::fclose(m_file);
    }

    bool is_open() const { return m_file != nullptr; }
    bool position_known() const { return m_position.has_value(); }
    uint64_t position() const
    {
        if (!m_position) throw FileError(file_detail::kPositionUnknown);
        return *m_position;
    }
    const ObfuscationKey& key() const { return m_key; }
    // Whether a read met the end of the file (stdio's end-of-file flag: set by a read that came up short).
    bool at_end() const { return m_file != nullptr && std::feof(m_file) != 0; }

    void seek(uint64_t position)
    {
        require_open();
        if (fseeko(m_file, static_cast<off_t>(position), SEEK_SET) != 0)
            throw FileError(file_detail::describe("seek failed", errno));
        m_position = position;
    }

    // Total size of the file; the position is left unchanged.
    uint64_t size()
    {
        require_open();
        if (!m_position) throw FileError(file_detail::kPositionUnknown);  // it could not be restored
        if (fseeko(m_file, 0, SEEK_END) != 0) throw FileError(file_detail::describe("seek failed", errno));
        const off_t end = ftello(m_file);
        if (end < 0) throw FileError(file_detail::describe("cannot tell file position", errno));
        seek(*m_position);
        return static_cast<uint64_t>(end);
    }

    // Reads up to destination.size() bytes, de-obfuscated; returns how many (fewer only at end of file).
    // Keyed with the position unknown: throws before reading (even for 0 bytes, as Core's AutoFile::read).
    size_t read_some(std::span<std::byte> destination)
    {
        require_open();
        if (m_keyed && !m_position) throw FileError(file_detail::kCannotObfuscate);
        const size_t got = std::fread(destination.data(), 1, destination.size(), m_file);
        if (got < destination.size() && std::ferror(m_file)) throw FileError(file_detail::describe("read failed", errno));
        if (m_position) {
            obfuscate(destination.first(got), *m_position, m_key);
            *m_position += got;
        }
        return got;
    }

    void read(std::span<std::byte> destination)
    {
        if (read_some(destination) != destination.size()) throw SerializeError(model::errors::kEndOfData);
    }

    std::byte read_byte()
    {
        std::byte value;
        read(std::span{&value, 1});
        return value;
    }

    // Skipped bytes are not de-obfuscated, so a skip works with the position unknown (as Core's).
    void ignore(size_t count)
    {
        require_open();
        std::byte scratch[4096];
        while (count > 0) {
            const size_t step = std::min(count, sizeof scratch);
            const size_t got = std::fread(scratch, 1, step, m_file);
            if (got < step && std::ferror(m_file)) throw FileError(file_detail::describe("read failed", errno));
            if (m_position) *m_position += got;
            if (got != step) throw SerializeError(model::errors::kEndOfData);
            count -= step;
        }
    }

    void write(std::span<const std::byte> source)
    {
        require_writable();
        if (is_zero_key(m_key)) return write_obfuscated(source);
        std::byte scratch[4096];
        while (!source.empty()) {
            require_key_position();
            const size_t step = std::min(source.size(), sizeof scratch);
            std::memcpy(scratch, source.data(), step);
            obfuscate(std::span{scratch, step}, *m_position, m_key);
            write_obfuscated(std::span{scratch, step});
            source = source.subspan(step);
        }
    }

    // OPTIMIZATIONS.md row 1 (one-byte write fast path): no scratch buffer, the key byte at the position.
    void write_byte(std::byte value)
    {
        require_writable();
        if (m_keyed) {
            require_key_position();
            value ^= m_key[(*m_position + (SERDIFF_PLANTED(one_byte_write_key_offset) ? 1 : 0)) % 8];
        }
        if (std::fputc(std::to_integer<int>(value), m_file) == EOF || std::ferror(m_file)) fail("write failed", errno);
        if (m_position) ++*m_position;
    }

    // Writes bytes that the caller already obfuscated for position() (BufferedWriter's batched XOR).
    void write_obfuscated(std::span<const std::byte> source)
    {
        require_writable();
        if (source.empty()) return;
        // glibc's fwrite on an unbuffered stream can return the full count although the write failed;
        // only the stream's error flag tells (docs/file-io.md, "What the fault matrix found").
        const size_t written = std::fwrite(source.data(), 1, source.size(), m_file);
        if (written != source.size() || std::ferror(m_file)) fail("write failed", errno);
        if (m_position) *m_position += source.size();
    }

    // A keyed file whose position is unknown cannot obfuscate: a write is refused, and the file failed (what a
    // BufferedWriter holds is lost). Returns at once for a zero key or a known position.
    void require_key_position()
    {
        if (m_keyed && !m_position) fail(file_detail::kCannotObfuscate, 0);
    }

    // Hands every byte written so far to the OS (fflush).
    void flush()
    {
        require_writable();
        if (std::fflush(m_file) != 0 || std::ferror(m_file)) fail("flush failed", errno);
    }

    // Closes the file; throws when the close (its final flush) fails or an earlier write failed.
    void close()
    {
        require_open();
        std::FILE* file = m_file;
        m_file = nullptr;
        // fclose returns 0 after an earlier failed write whose bytes it already dropped.
        const bool error_flag = std::ferror(file) != 0;
        const int result = std::fclose(file);
        const int error_number = errno;
        if (m_failed) throw FileError(file_detail::kFailedEarlier);
        if (result != 0 || error_flag) throw FileError(file_detail::describe("close failed", error_number));
    }

private:
    void require_open() const
    {
        if (!m_file) throw FileError("file is closed");
    }
    void require_writable() const
    {
        require_open();
        if (m_failed) throw FileError(file_detail::kFailedEarlier);
    }
    [[noreturn]] void fail(const char* what, int error_number)
    {
        m_failed = true;
        throw FileError(file_detail::describe(what, error_number));
    }

    std::FILE* m_file;
    ObfuscationKey m_key;
    bool m_keyed;                        // the key is not all zero
    std::optional<uint64_t> m_position;  // empty: ftello failed at the start and no seek succeeded since
    bool m_failed = false;
};

// Reads through a buffer refilled from an AutoFile. Do not read the AutoFile directly meanwhile.
class BufferedReader {
public:
    static constexpr size_t kDefaultBufferSize = SERDIFF_PLANTED(buffered_reader_default_size_short) ? 16 * 1023 : 16 * 1024;

    explicit BufferedReader(AutoFile& file, size_t buffer_size = kDefaultBufferSize)
        : m_file{file}, m_buffer(std::max<size_t>(buffer_size, 1))
    {
    }

    // The position of the next byte this reader returns (the file is ahead by what is buffered).
    uint64_t position() const { return m_file.position() - (m_end - m_next); }

    // OPTIMIZATIONS.md row 9 (BufferedReader): drain the buffer, read large destinations straight into
    // place (AutoFile de-obfuscates at its own position), refill for small ones.
    void read(std::span<std::byte> destination)
    {
        while (!destination.empty()) {
            if constexpr (SERDIFF_PLANTED(buffered_reader_direct_read_skips_buffer)) if (destination.size() >= m_buffer.size()) { m_next = m_end; return m_file.read(destination); }
            if (m_next == m_end) {
                if (destination.size() >= m_buffer.size()) return m_file.read(destination);
                refill();
            }
            const size_t step = std::min(destination.size(), m_end - m_next);
            std::memcpy(destination.data(), m_buffer.data() + m_next, step);
            m_next += step;
            destination = destination.subspan(step);
        }
    }

    std::byte read_byte()
    {
        if (m_next == m_end) refill();
        return m_buffer[m_next++];
    }

    void ignore(size_t count)
    {
        while (count > 0) {
            if (m_next == m_end) refill();
            const size_t step = std::min(count, m_end - m_next);
            m_next += step;
            count -= step;
        }
    }

private:
    void refill()
    {
        m_next = 0;
        m_end = m_file.read_some(m_buffer);
        if (m_end == 0) throw SerializeError(model::errors::kEndOfData);
    }

    AutoFile& m_file;
    std::vector<std::byte> m_buffer;
    size_t m_next = 0;
    size_t m_end = 0;
};

// Collects writes in a buffer and writes it obfuscated in one batch. Do not write the AutoFile
// directly meanwhile. After any error every call throws, and nothing later is written.
class BufferedWriter {
public:
    static constexpr size_t kDefaultBufferSize = 1024 * 1024;

    explicit BufferedWriter(AutoFile& file, size_t buffer_size = kDefaultBufferSize)
        : m_file{file}, m_buffer(std::max<size_t>(buffer_size, 1))
    {
    }
    BufferedWriter(const BufferedWriter&) = delete;
    BufferedWriter& operator=(const BufferedWriter&) = delete;
    // Writes what is buffered when no error happened; a failure here is swallowed (a destructor cannot
    // report it), so callers who need to know call flush() or close() first.
    ~BufferedWriter()
    {
        if (m_failed || m_used == 0 || !m_file.is_open()) return;
        try {
            write_buffer();
        } catch (const std::exception&) {
        }
    }

    // The position the next byte will have in the file.
    uint64_t position() const { return m_file.position() + m_used; }

    void write(std::span<const std::byte> source)
    {
        require_usable();
        if (source.empty()) return;
        while (source.size() > m_buffer.size() - m_used) {
            const size_t step = m_buffer.size() - m_used;
            std::memcpy(m_buffer.data() + m_used, source.data(), step);
            m_used += step;
            source = source.subspan(step);
            write_buffer();
        }
        std::memcpy(m_buffer.data() + m_used, source.data(), source.size());
        m_used += source.size();
    }

    // OPTIMIZATIONS.md row 1 (one-byte write fast path): store the byte, no span machinery.
    void write_byte(std::byte value)
    {
        require_usable();
        if (m_used == m_buffer.size()) write_buffer();
        m_buffer[m_used++] = value;
    }

    // Returns only when every byte written so far has reached the OS.
    void flush()
    {
        require_usable();
        write_buffer();
        guarded([&] { m_file.flush(); });
    }

    // Flushes, then closes the file; throws if any byte did not reach the file.
    void close()
    {
        require_usable();
        write_buffer();
        guarded([&] { m_file.close(); });
    }

private:
    void require_usable() const
    {
        if (m_failed) throw FileError(file_detail::kFailedEarlier);
    }

    template <typename Action>
    void guarded(Action action)
    {
        try {
            action();
        } catch (...) {
            m_failed = true;
            throw;
        }
    }

    // OPTIMIZATIONS.md row 10 (BufferedWriter): XOR the whole buffer once at its file offset, write once.
    void write_buffer()
    {
        if (m_used == 0) return;
        const std::span<std::byte> pending{m_buffer.data(), m_used};
        // Position unknown: a zero key writes the bytes as they are, a key is refused (the buffer is lost: failed).
        guarded([&] { m_file.require_key_position(); });
        if (m_file.position_known())
            obfuscate(pending, SERDIFF_PLANTED(buffered_writer_flush_key_offset) ? 0 : m_file.position(), m_file.key());
        // The buffer now holds obfuscated bytes: after a failure it must never be written again.
        guarded([&] { m_file.write_obfuscated(pending); });
        m_used = 0;
    }

    AutoFile& m_file;
    std::vector<std::byte> m_buffer;
    size_t m_used = 0;
    bool m_failed = false;
};

// A rewindable read buffer over an AutoFile (Bitcoin Core's BufferedFile, with which LoadExternalBlockFile reads
// -reindex and -loadblock files; rules in docs/format.md "BufferedFile"). A ring buffer of `buffer_size` bytes holds
// the last bytes read from the file, so set_position can go back as far as it holds; a refill never overwrites the
// `rewind` bytes behind the position. Positions count from 0 at construction. Do not read the AutoFile meanwhile.
class BufferedFile {
public:
    BufferedFile(AutoFile& file, uint64_t buffer_size, uint64_t rewind)
        : m_file{file}, m_rewind{rewind}, m_buffer(static_cast<size_t>(buffer_size))
    {
        if (rewind >= buffer_size) throw SerializeError(model::errors::kRewindNotBelowBuffer);
    }
    BufferedFile(const BufferedFile&) = delete;
    BufferedFile& operator=(const BufferedFile&) = delete;

    uint64_t position() const { return m_read; }
    bool eof() const { return m_read == m_source && m_file.at_end(); }

    // Past the limit nothing is read; at the end of the file what was left is consumed before the error.
    void read(std::span<std::byte> destination)
    {
        if (destination.empty()) return;
        require_within_limit(destination.size());
        while (!destination.empty()) {
            const std::span<const std::byte> available = next_run(destination.size());
            std::memcpy(destination.data(), available.data(), available.size());
            m_read += available.size();
            destination = destination.subspan(available.size());
        }
    }

    std::byte read_byte()
    {
        require_within_limit(1);
        const std::byte value = next_run(1)[0];
        ++m_read;
        return value;
    }

    template <typename T>
    BufferedFile& operator>>(T&& value)
    {
        Unserialize(*this, value);
        return *this;
    }

    // Moves ahead to `target` (at least position()), reading the bytes between.
    void skip_to(uint64_t target)
    {
        if (target <= m_read) return;
        require_within_limit(target - m_read);
        while (m_read < target) m_read += next_run(target - m_read).size();
    }

    void ignore(size_t count) { skip_to(m_read + count); }

    // To `target` if the buffer holds it (or it is the next byte of the file): true. Otherwise as near as it can go
    // (the oldest byte held, or the next byte of the file) and false.
    bool set_position(uint64_t target)
    {
        if (target + m_buffer.size() < m_source) {
            m_read = m_source - m_buffer.size();
            return false;
        }
        if (target > m_source) {
            m_read = m_source;
            return false;
        }
        m_read = target;
        return true;
    }

    // Reads may not go past `limit` (none: no limit); false, and the limit unchanged, for one behind the position.
    bool set_limit(std::optional<uint64_t> limit = std::nullopt)
    {
        const uint64_t value = limit.value_or(std::numeric_limits<uint64_t>::max());
        if (value < m_read) return false;
        m_limit = value;
        return true;
    }

    // Moves to the next byte equal to `value` (the one at the position included); the limit does not bound it.
    // memchr over each contiguous run of the ring buffer (Core's FindByte uses std::find the same way).
    void find_byte(std::byte value)
    {
        while (true) {
            const std::span<const std::byte> run = next_run(std::numeric_limits<size_t>::max());
            const void* found = std::memchr(run.data(), std::to_integer<int>(value), run.size());
            if (found != nullptr) {
                m_read += static_cast<const std::byte*>(found) - run.data();
                return;
            }
            m_read += run.size();
        }
    }

private:
    void require_within_limit(size_t count) const
    {
        if (m_read + count > m_limit) throw SerializeError(model::errors::kPastReadLimit);
    }

    // The buffered bytes from the position on, contiguous in the ring and at most `wanted` (≥ 1); refills first when
    // every byte read from the file was returned. Does not move the position.
    std::span<const std::byte> next_run(size_t wanted)
    {
        if (m_read == m_source) fill();
        const size_t offset = static_cast<size_t>(m_read % m_buffer.size());
        const size_t run = std::min<uint64_t>({wanted, m_buffer.size() - offset, m_source - m_read});
        return {m_buffer.data() + offset, run};
    }

    // One refill (only when every byte read was returned): up to the end of the ring, never over the rewind bytes.
    void fill()
    {
        const size_t offset = static_cast<size_t>(m_source % m_buffer.size());
        const size_t kept = SERDIFF_PLANTED(buffered_file_rewind_ignored) ? 0 : static_cast<size_t>(m_rewind);
        const size_t room = std::min<size_t>(m_buffer.size() - offset, m_buffer.size() - kept);
        const size_t got = m_file.read_some(std::span{m_buffer}.subspan(offset, room));
        if (got == 0) throw SerializeError(model::errors::kEndOfData);
        m_source += got;
    }

    AutoFile& m_file;
    uint64_t m_rewind;
    std::vector<std::byte> m_buffer;
    uint64_t m_read = 0;    // the position: bytes returned (or skipped) so far
    uint64_t m_source = 0;  // bytes read from the file so far
    uint64_t m_limit = std::numeric_limits<uint64_t>::max();
};

static_assert(WriteStream<AutoFile> && ReadStream<AutoFile>);
static_assert(WriteStream<BufferedWriter> && ReadStream<BufferedReader>);

}  // namespace serdiff::optimized
