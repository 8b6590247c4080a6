// Bitcoin Core's streams and formatters as the stream programs name them (subjects/serdiff/subject_streams.h
// has the same shape). Core's own classes wherever Core has them; a thin wrapper only where the harness needs a
// position Core does not expose (it counts the bytes passed through to Core's stream) or Core lacks an operation
// the programs run (BufferedReader has no ignore(): the wrapper reads and drops). docs/core.md "The seam".
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ios>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <prevector.h>
#include <serialize.h>
#include <streams.h>
#if SERDIFF_CORE_HAS_OBFUSCATION
#include <util/obfuscation.h>
#endif

#include "subjects/core/convert.h"

#if SERDIFF_CORE_HAS_OWN_SPAN
// Core's own Span (span.h before the v29 cycle) views memory it does not own, as std::span does: marked as such, an
// rvalue Span<std::byte> (serialize.h's ser_readdata*: AsWritableBytes(Span{&obj, 1})) converts to the std::span the
// seam's wrappers take.
template <typename T>
inline constexpr bool std::ranges::enable_borrowed_range<::Span<T>> = true;
#endif

namespace serdiff::subject {

// The byte span serialize.h's Serialize/Unserialize overloads take: Core's own Span in a tree that has one.
#if SERDIFF_CORE_HAS_OWN_SPAN
template <typename T>
using Span = ::Span<T>;
#else
template <typename T>
using Span = std::span<T>;
#endif

template <size_t N, typename T>
using prevector = ::prevector<static_cast<unsigned int>(N), T>;
// Core's prevector takes ranges it can measure (last - first), resizes without a fill value, has no
// initializer-list constructor and returns nothing from emplace_back and a range insert: the prevector target
// drives only what Core has.
inline constexpr bool kPrevectorTakesSinglePassRanges = false;
inline constexpr bool kPrevectorResizeTakesValue = false;
inline constexpr bool kPrevectorEmplaceBackReturnsReference = false;
// Whether push_back/insert may be given one of the prevector's own elements (std::vector allows it).
// Core's may not: it grows or shifts its storage first and reads the argument after (heap-use-after-free when it
// grows; docs/core.md "Findings").
inline constexpr bool kPrevectorTakesOwnElements = false;
inline constexpr bool kPrevectorTakesInitializerList = false;
// The capacity push_back, emplace_back or insert leaves when `needed` elements no longer fit `capacity`: Core grows
// to 1.5 times the new size (prevector.h: change_capacity(new_size + (new_size >> 1))). What a prevector allocates is
// what Core's memory accounting counts (memusage::DynamicUsage of a CScript), so the prevector target holds it.
constexpr size_t prevector_grown_capacity(size_t /*capacity*/, size_t needed) { return needed + (needed >> 1); }
// Inline ("direct") storage: Core's is_direct() is private; a direct prevector owns no heap memory.
template <typename Prevector>
bool prevector_is_inline(const Prevector& vector)
{
    return vector.allocated_memory() == 0;
}
using ::ReadCompactSize;
using ::Serialize;
using ::SizeComputer;
#if SERDIFF_CORE_SPAN_READER_IGNORE_CHECKED
using ::SpanReader;
#else
// A tree whose SpanReader::ignore(n) does not check n (before the v31 cycle; subjects/core/probe.cmake probes for
// the check): past the end it is undefined (m_data.subspan(n) with n > size(), seen as size() wrapping around), so
// nothing could be compared after it. The seam refuses such a skip itself, in Core's words with a note added: the
// seam maps it as Core's end of data, and a comparison of raw texts with a tree that checks (HEAD vs BASE) still
// tells them apart (docs/divergences.md, per Core version). Every other call is Core's own.
class SpanReader : public ::SpanReader {
public:
    using ::SpanReader::SpanReader;
    void ignore(size_t n)
    {
        if (n > size())
            throw std::ios_base::failure("SpanReader::ignore(): end of data (refused by serdiff's seam: this Core "
                                         "tree does not check)");
        ::SpanReader::ignore(n);
    }
    template <typename T>
    SpanReader& operator>>(T&& obj)
    {
        ::Unserialize(*this, obj);
        return *this;
    }
};
#endif
using ::Unserialize;
using ::WriteCompactSize;
template <int Width, bool BigEndian>
using CustomUintFormatter = ::CustomUintFormatter<Width, BigEndian>;
template <typename Formatter, typename T>
auto Using(T&& value)
{
    return ::Using<Formatter>(std::forward<T>(value));
}

enum class VarIntMode { Unsigned, NonNegativeSigned };
template <VarIntMode Mode>
inline constexpr ::VarIntMode kCoreMode = Mode == VarIntMode::Unsigned ? ::VarIntMode::DEFAULT : ::VarIntMode::NONNEGATIVE_SIGNED;
// Core's VARINT(obj, mode) is Using<VarIntFormatter<mode>>(obj).
template <VarIntMode Mode>
using VarIntFormatter = ::VarIntFormatter<kCoreMode<Mode>>;
template <VarIntMode Mode, typename I, typename S>
void WriteVarInt(S& s, I value)
{
    ::WriteVarInt<S, kCoreMode<Mode>, I>(s, value);
}
template <VarIntMode Mode, typename I, typename S>
I ReadVarInt(S& s)
{
    return ::ReadVarInt<S, kCoreMode<Mode>, I>(s);
}
template <VarIntMode Mode, typename I>
size_t GetSizeOfVarInt(I value)
{
    return ::GetSizeOfVarInt<kCoreMode<Mode>, I>(value);
}

using ReadError = std::ios_base::failure;
inline std::string read_error_text(const ReadError& error) { return core_subject::error_text(error); }
// Core's CustomUintFormatter throws ios_base::failure("CustomUintFormatter value out of range").
using CustomWidthRefusal = std::ios_base::failure;
// Core's WriteVarInt has no refusal of a negative value in non-negative signed mode (divergence
// negative_varint_written): no text to compare.
inline constexpr std::string_view kNegativeVarIntRefusal = "";
// Core's Unserialize(std::string) resizes to the claimed length (up to MAX_SIZE) before reading: docs/core.md.
inline constexpr bool kStringReadAllocatesClaimedLength = true;
// Core serializes std::array of bytes only (its serialize.h).
inline constexpr bool kSerializesArraysOfAnyElement = false;
// Core reads a pointer only into a type with a deserializing constructor (its CTransaction), none of the programs'.
inline constexpr bool kReadsPointersOfAnyType = false;

// Core writes big-endian integers through CustomUintFormatter<bytes, true> (ser_writedata32be for 32 bits).
template <typename S, std::unsigned_integral I>
void write_big_endian(S& s, I value)
{
    if constexpr (sizeof(I) == 4) ser_writedata32be(s, value);
    else ::Serialize(s, ::Using<::CustomUintFormatter<sizeof(I), true>>(value));
}
template <std::unsigned_integral I, typename S>
I read_big_endian(S& s)
{
    if constexpr (sizeof(I) == 4) return ser_readdata32be(s);
    I value = 0;
    ::Unserialize(s, ::Using<::CustomUintFormatter<sizeof(I), true>>(value));
    return value;
}

// Core's named integer writers and readers (serialize.h); it has no 16- or 64-bit big-endian ones, which its
// CustomUintFormatter stands in for (as above).
using ::ser_readdata16;
using ::ser_readdata32;
using ::ser_readdata32be;
using ::ser_readdata64;
using ::ser_readdata8;
using ::ser_writedata16;
using ::ser_writedata32;
using ::ser_writedata32be;
using ::ser_writedata64;
using ::ser_writedata8;
template <typename S>
void ser_writedata16be(S& s, uint16_t value)
{
    write_big_endian(s, value);
}
template <typename S>
void ser_writedata64be(S& s, uint64_t value)
{
    write_big_endian(s, value);
}
template <typename S>
uint16_t ser_readdata16be(S& s)
{
    return read_big_endian<uint16_t>(s);
}
template <typename S>
uint64_t ser_readdata64be(S& s)
{
    return read_big_endian<uint64_t>(s);
}
// Core's COMPACTSIZE(obj) is Using<CompactSizeFormatter<true>>(obj).
template <bool RangeCheck>
using CompactSizeFormatter = ::CompactSizeFormatter<RangeCheck>;

template <size_t Limit, typename Text>
auto LimitedString(Text&& text)
{
    return ::Using<LimitedStringFormatter<Limit>>(std::forward<Text>(text));
}

// Core serializes std::array only of bytes: an integer array is its elements one after another.
template <typename S, typename T, size_t N>
void serialize_integer_array(S& s, const std::array<T, N>& array)
{
    for (const T& value : array) ::Serialize(s, value);
}
template <typename S, typename T, size_t N>
void unserialize_integer_array(S& s, std::array<T, N>& array)
{
    for (T& value : array) ::Unserialize(s, value);
}

// Core's DataStream. Its read position is the bytes it no longer holds unread: m_read_pos itself goes back to 0
// when a read empties the stream (Core then clears the vector).
class DataStream : public ::DataStream {
public:
    DataStream() = default;
    explicit DataStream(std::span<const uint8_t> data) : ::DataStream(data), m_initial(data.size()) {}
    size_t read_position() const { return m_initial - size(); }
    // The bytes the stream still holds, read ones included (its memory; GetMemoryUsage counts them): a read or
    // ignore() that consumes the last byte empties it ("reset to empty state", streams.h DataStream::read).
    size_t held() const { return vch.size(); }

private:
    size_t m_initial = 0;
};
inline std::span<const uint8_t> written(const DataStream& stream)
{
    return {reinterpret_cast<const uint8_t*>(stream.data()), stream.size()};
}
inline size_t read_position(const DataStream& stream) { return stream.read_position(); }

// Core's VectorWriter and SpanWriter keep their position private: these count what passes through to them.
// operator<< is Core's own (it serializes into the inner writer directly); the position moves by what Core's
// SizeComputer says the object takes, and the bytes themselves are compared in full after the pass.
template <typename Inner>
class CountingWriter {
public:
    void write(std::span<const std::byte> bytes)
    {
        m_inner.write(bytes);
        m_position += bytes.size();
    }
    template <typename T>
    CountingWriter& operator<<(const T& obj)
    {
        const size_t size = GetSerializeSize(obj);
        m_inner << obj;
        m_position += size;
        return *this;
    }
    size_t position() const { return m_position; }

protected:
    template <typename... Args>
    explicit CountingWriter(size_t position, Args&&... args) : m_inner(std::forward<Args>(args)...), m_position(position)
    {
    }

private:
    Inner m_inner;
    size_t m_position;
};

class VectorWriter : public CountingWriter<::VectorWriter> {
public:
    VectorWriter(std::vector<uint8_t>& target, size_t position) : CountingWriter(position, target, position) {}
};

#if SERDIFF_CORE_HAS_SPAN_WRITER
inline constexpr bool kHasSpanWriter = true;
class SpanWriter : public CountingWriter<::SpanWriter> {
public:
    explicit SpanWriter(std::span<uint8_t> target) : CountingWriter(0, std::as_writable_bytes(target)) {}
};
#else
// A tree without SpanWriter (streams.h gained it in the v31 cycle; subjects/core/probe.cmake probes for it): the
// programs skip their SpanWriter checks (kHasSpanWriter). The stand-in only lets them compile; constructing it stops.
inline constexpr bool kHasSpanWriter = false;
class NoSpanWriter {
public:
    explicit NoSpanWriter(std::span<std::byte>)
    {
        std::fputs("serdiff: this Core tree has no SpanWriter; a check that needs it ran anyway\n", stderr);
        std::abort();
    }
    void write(std::span<const std::byte>) {}
    template <typename T>
    NoSpanWriter& operator<<(const T& obj)
    {
        ::Serialize(*this, obj);
        return *this;
    }
};
class SpanWriter : public CountingWriter<NoSpanWriter> {
public:
    explicit SpanWriter(std::span<uint8_t> target) : CountingWriter(0, std::as_writable_bytes(target)) {}
};
#endif

// Core's file-error contract, as its callers rely on it (src/node/blockstorage.cpp; docs/core.md "buffered_writer
// on Core"): a failed write throws and latches nothing (a caller stops at the exception); the caller flushes or
// destroys the BufferedWriter, then fclose()s the AutoFile and checks the result (~AutoFile closes, but only asserts
// that a written file was closed before); an AutoFile over a null FILE* is a null AutoFile whose calls throw; a
// BufferedWriter is not used once its file is closed (its destructor would flush into it); its error messages are
// Core's own ("AutoFile::write: write failed", no errno). A 0-byte BufferedWriter drops every write (a finding).
inline constexpr bool kFileErrorsLatch = false;
inline constexpr bool kFileDestructorsClose = false;
inline constexpr bool kAutoFileRefusesNullFile = false;
inline constexpr bool kBufferedWriterUsableAfterClose = false;
// fclose() of a closed AutoFile returns 0 (nothing to close): a second close succeeds.
inline constexpr bool kSecondCloseFails = false;
// BufferedWriter::flush() hands its buffer to the AutoFile (stdio may hold it): only Commit()/fclose() reach the file.
inline constexpr bool kBufferedWriterFlushReachesFile = false;
inline constexpr bool kFileErrorsWordedAsReference = false;
inline constexpr bool kBufferedWriterTakesZeroSize = false;

// The BufferedWriter's writes that reached a closed AutoFile: its destructor retries a flush that failed (the
// buffer still pending, already obfuscated in place by the failed write_buffer) after the caller closed the file.
// Core would throw from that noexcept destructor (std::terminate); the wrapper counts the write and drops it, and
// the buffered_writer program checks that it happens only after a failed flush.
inline size_t& buffered_writes_after_close()
{
    static size_t count = 0;
    return count;
}

#if !SERDIFF_CORE_HAS_BUFFERED_FILES
// For the stand-ins of a tree without BufferedReader/BufferedWriter (below).
[[noreturn]] inline void no_buffered_files()
{
    std::fputs("serdiff: this Core tree has no BufferedReader/BufferedWriter; a check that needs them ran anyway\n",
               stderr);
    std::abort();
}
#endif

#if !SERDIFF_CORE_HAS_OBFUSCATION
// A tree before Obfuscation (util/obfuscation.h, the 30.x cycle) keys AutoFile with a byte vector and XORs, needing a
// known position, whenever the vector is not empty, even all zeros; Obfuscation (and the reference) take an all-zero
// key as none. The seam gives such a tree no key for the zero key (docs/divergences.md, per Core version).
inline std::vector<std::byte> key_vector(const std::array<std::byte, 8>& key)
{
    if (std::all_of(key.begin(), key.end(), [](std::byte b) { return b == std::byte{0}; })) return {};
    return {key.begin(), key.end()};
}
#endif

// Core's AutoFile with the key as an Obfuscation (a key vector before it); position() is Core's tell(), close() its
// fclose().
class AutoFile : public ::AutoFile {
public:
    AutoFile(std::FILE* file, const std::array<std::byte, 8>& key)
#if SERDIFF_CORE_HAS_OBFUSCATION
        : ::AutoFile(file, Obfuscation{std::span<const std::byte, Obfuscation::KEY_SIZE>(key)})
#else
        : ::AutoFile(file, key_vector(key))
#endif
    {
    }
    uint64_t position() { return static_cast<uint64_t>(tell()); }
    // serdiff's seek(position) is Core's seek from the start of the file (SEEK_SET); size() is Core's own.
    void seek(uint64_t position) { ::AutoFile::seek(static_cast<int64_t>(position), SEEK_SET); }
    // Core's seek relative to the position (SEEK_CUR): buffered_reader's seek check steps back and forth with it.
    void seek_relative(int64_t delta) { ::AutoFile::seek(delta, SEEK_CUR); }
    void close()
    {
        if (fclose() != 0) throw std::ios_base::failure("AutoFile::fclose failed");
    }
    void close_file() { close(); }
    // Core's AutoFile has no flush: its Commit() (FileCommit: support.cpp's is fflush, Core's own adds fsync) is
    // what its callers use to make written bytes reach the file. Commit() on a closed AutoFile hands FileCommit a
    // null FILE* (fflush(nullptr) flushes every stream and succeeds; Core's FileCommit then calls fileno(nullptr)):
    // a caller error Core does not check, so the wrapper refuses it as every other call on a closed file fails.
    void flush()
    {
        if (IsNull()) throw std::ios_base::failure("AutoFile::Commit: file handle is nullptr");
        if (!Commit()) throw std::ios_base::failure("AutoFile::Commit failed");
    }
#if SERDIFF_CORE_HAS_BUFFERED_FILES
    // What Core's BufferedWriter<AutoFile> calls to flush (this hides ::AutoFile::write_buffer for it only; Core's
    // own write() still calls Core's): Core's, unless the file is already closed (above).
    void write_buffer(std::span<std::byte> bytes)
    {
        if (IsNull()) {
            ++buffered_writes_after_close();
            return;
        }
        ::AutoFile::write_buffer(bytes);
    }
#else
    // AutoFile::size() came with BufferedReader; only buffered_reader (absent on such a tree) asks for it.
    int64_t size() { no_buffered_files(); }
#endif
};

// Where the AutoFile's position is unknown (an unseekable FILE: Core's tell() throws), so is the wrappers' (their
// position() throws what tell() does). Over a null AutoFile (a file that could not be opened) the constructor still
// throws tell()'s error, as the buffered_writer program's open-failure check expects.
inline std::optional<uint64_t> known_position(AutoFile& file)
{
    if (file.IsNull()) return file.position();
    try {
        return file.position();
    } catch (const std::ios_base::failure&) {
        return std::nullopt;
    }
}
inline uint64_t position_from(const std::optional<uint64_t>& start, uint64_t count)
{
    if (!start) throw std::ios_base::failure("AutoFile::tell: position unknown");
    return *start + count;
}

// Core's BufferedFile (every tree the subject builds has it) under the names serdiff's has: the buffered_file
// program calls these. `>>` is Core's own operator>> (Unserialize on the BufferedFile itself).
class BufferedFile {
public:
    BufferedFile(AutoFile& file, uint64_t buffer_size, uint64_t rewind) : m_inner(file, buffer_size, rewind) {}
    uint64_t position() const { return m_inner.GetPos(); }
    bool eof() const { return m_inner.eof(); }
    void read(std::span<std::byte> destination) { m_inner.read(destination); }
    template <typename T>
    BufferedFile& operator>>(T&& value)
    {
        m_inner >> std::forward<T>(value);
        return *this;
    }
    // ReadCompactSize on Core's BufferedFile itself (not through this wrapper's read).
    uint64_t read_compact_size() { return ::ReadCompactSize(m_inner); }
    void skip_to(uint64_t target) { m_inner.SkipTo(target); }
    bool set_position(uint64_t target) { return m_inner.SetPos(target); }
    bool set_limit(std::optional<uint64_t> limit) { return limit ? m_inner.SetLimit(*limit) : m_inner.SetLimit(); }
    void find_byte(std::byte value) { m_inner.FindByte(value); }

private:
    ::BufferedFile m_inner;
};

#if SERDIFF_CORE_HAS_BUFFERED_FILES
inline constexpr bool kHasBufferedFiles = true;
// Core's BufferedWriter on that AutoFile. close() is what Core's callers do: flush (the destructor's work), then
// fclose(); close_file() only the fclose(), for a caller that stops at an error.
class BufferedWriter {
public:
    BufferedWriter(AutoFile& file, size_t size) : m_file(file), m_start(known_position(file)), m_inner(file, size) {}
    void write(std::span<const std::byte> bytes)
    {
        m_inner.write(bytes);
        m_written += bytes.size();
    }
    void flush() { m_inner.flush(); }
    uint64_t position() const { return position_from(m_start, m_written); }
    void close()
    {
        m_inner.flush();
        m_file.close();
    }
    void close_file() { m_file.close(); }

private:
    AutoFile& m_file;
    std::optional<uint64_t> m_start;
    ::BufferedWriter<AutoFile> m_inner;
    uint64_t m_written = 0;
};

class BufferedReader {
public:
    BufferedReader(AutoFile& file, size_t size) : m_start(known_position(file)), m_inner(std::move(file), size) {}
    void read(std::span<std::byte> destination)
    {
        m_inner.read(destination);
        m_read += destination.size();
    }
    void ignore(size_t count)
    {
        std::array<std::byte, 4096> scratch;
        while (count > 0) {
            const size_t now = std::min(count, scratch.size());
            read(std::span(scratch).first(now));
            count -= now;
        }
    }
    uint64_t position() const { return position_from(m_start, m_read); }

private:
    std::optional<uint64_t> m_start;
    ::BufferedReader<::AutoFile> m_inner;
    uint64_t m_read = 0;
};
#else
// A tree without BufferedReader/BufferedWriter (streams.h gained them in the 30.x cycle; probe.cmake): the targets
// buffered_reader and buffered_writer are absent and primitive_stream skips its buffered checks (kHasBufferedFiles).
// These stand-ins only let the programs compile; constructing one stops.
inline constexpr bool kHasBufferedFiles = false;
class BufferedWriter {
public:
    BufferedWriter(AutoFile&, size_t) { no_buffered_files(); }
    void write(std::span<const std::byte>) {}
    void flush() {}
    uint64_t position() const { return 0; }
    void close() {}
    void close_file() {}
};
class BufferedReader {
public:
    BufferedReader(AutoFile&, size_t) { no_buffered_files(); }
    void read(std::span<std::byte>) {}
    void ignore(size_t) {}
    uint64_t position() const { return 0; }
};
#endif

}  // namespace serdiff::subject
