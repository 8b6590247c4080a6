// The optimized serializer core: integers, CompactSize, VarInt, formatters, containers, SizeComputer, and
// the Layout mechanism through which one description of a type serves reading, writing and sizing.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/model.h"
#include "serialize/planted.h"
#include "serialize/prevector.h"
#include "serialize/stream.h"

namespace serdiff::optimized {

inline constexpr uint64_t kMaxSize = model::kMaxSize;
inline constexpr size_t kMaxVectorAllocate = model::kMaxVectorAllocate;

// Out of line and cold, so the hot paths that can fail stay a compare and a branch.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_serialize_error(const char* message)
{
    throw SerializeError(message);
}

// ---------------------------------------------------------------------------------------------
// SizeComputer: a writer that only counts.

class SizeComputer {
public:
    template <size_t Extent>
    void write(std::span<const std::byte, Extent> bytes) noexcept
    {
        size_ += bytes.size();
    }
    // OPTIMIZATIONS.md row 1: one-byte write fast path (here: a plain increment).
    void write_byte(std::byte) noexcept { ++size_; }
    // OPTIMIZATIONS.md row 2: fixed-width fields add their width arithmetically.
    void add(size_t bytes) noexcept { size_ += bytes; }
    size_t size() const noexcept { return size_; }

private:
    size_t size_ = 0;
};

template <typename S>
concept SizeOnlyStream = std::same_as<S, SizeComputer>;

// ---------------------------------------------------------------------------------------------
// Byte order.

enum class ByteOrder { Little, Big };

template <std::unsigned_integral U>
constexpr U swap_bytes(U value) noexcept
{
    if constexpr (sizeof(U) == 1) return value;
    else if constexpr (sizeof(U) == 2) return static_cast<U>(__builtin_bswap16(value));
    else if constexpr (sizeof(U) == 4) return static_cast<U>(__builtin_bswap32(value));
    else return static_cast<U>(__builtin_bswap64(value));
}

// Converts between host order and `Order`; the conversion is its own inverse.
template <ByteOrder Order, std::unsigned_integral U>
constexpr U convert_byte_order(U value) noexcept
{
    constexpr bool host_matches = (Order == ByteOrder::Little) == (std::endian::native == std::endian::little);
    if constexpr (host_matches) return value;
    else return swap_bytes(value);
}

// ---------------------------------------------------------------------------------------------
// Fixed-width integers.

template <typename I>
concept SerializableInteger = std::integral<I> && !std::same_as<std::remove_cv_t<I>, bool>;

// OPTIMIZATIONS.md row 2: one `if constexpr` template serves every integer width and byte order on write;
// the SizeComputer only adds the width, and one byte takes the write_byte path (row 1).
template <ByteOrder Order, SerializableInteger I, WriteStream S>
inline void write_integer(S& s, I value)
{
    if constexpr (SizeOnlyStream<S>) {
        s.add(sizeof(I));
    } else if constexpr (sizeof(I) == 1) {
        s.write_byte(static_cast<std::byte>(static_cast<uint8_t>(value)));
    } else {
        using U = std::make_unsigned_t<I>;
        const U ordered = convert_byte_order<Order>(static_cast<U>(value));
        const auto bytes = std::bit_cast<std::array<std::byte, sizeof(I)>>(ordered);
        s.write(std::span<const std::byte, sizeof(I)>(bytes));
    }
}

// OPTIMIZATIONS.md row 2: the matching read template, one for every width and byte order.
template <SerializableInteger I, ByteOrder Order, ReadStream S>
inline I read_integer(S& s)
{
    if constexpr (sizeof(I) == 1) {
        return static_cast<I>(static_cast<uint8_t>(s.read_byte()));
    } else {
        using U = std::make_unsigned_t<I>;
        std::array<std::byte, sizeof(I)> bytes;
        s.read(std::span<std::byte, sizeof(I)>(bytes));
        return static_cast<I>(convert_byte_order<Order>(std::bit_cast<U>(bytes)));
    }
}

// Named stream-level entry points (Bitcoin Core's names), for tests and fuzz targets.
template <WriteStream S> inline void ser_writedata8(S& s, uint8_t v) { write_integer<ByteOrder::Little>(s, v); }
template <WriteStream S> inline void ser_writedata16(S& s, uint16_t v) { write_integer<ByteOrder::Little>(s, v); }
template <WriteStream S> inline void ser_writedata32(S& s, uint32_t v) { write_integer<ByteOrder::Little>(s, v); }
template <WriteStream S> inline void ser_writedata64(S& s, uint64_t v) { write_integer<ByteOrder::Little>(s, v); }
template <WriteStream S> inline void ser_writedata16be(S& s, uint16_t v) { write_integer<ByteOrder::Big>(s, v); }
template <WriteStream S> inline void ser_writedata32be(S& s, uint32_t v) { write_integer<ByteOrder::Big>(s, v); }
template <WriteStream S> inline void ser_writedata64be(S& s, uint64_t v) { write_integer<ByteOrder::Big>(s, v); }
template <ReadStream S> inline uint8_t ser_readdata8(S& s) { return read_integer<uint8_t, ByteOrder::Little>(s); }
template <ReadStream S> inline uint16_t ser_readdata16(S& s) { return read_integer<uint16_t, ByteOrder::Little>(s); }
template <ReadStream S> inline uint32_t ser_readdata32(S& s) { return read_integer<uint32_t, ByteOrder::Little>(s); }
template <ReadStream S> inline uint64_t ser_readdata64(S& s) { return read_integer<uint64_t, ByteOrder::Little>(s); }
template <ReadStream S> inline uint16_t ser_readdata16be(S& s) { return read_integer<uint16_t, ByteOrder::Big>(s); }
template <ReadStream S> inline uint32_t ser_readdata32be(S& s) { return read_integer<uint32_t, ByteOrder::Big>(s); }
template <ReadStream S> inline uint64_t ser_readdata64be(S& s) { return read_integer<uint64_t, ByteOrder::Big>(s); }

// ---------------------------------------------------------------------------------------------
// CompactSize.

constexpr size_t GetSizeOfCompactSize(uint64_t value) noexcept
{
    return value < 0xfd ? 1 : value <= 0xffff ? 3 : value <= 0xffffffff ? 5 : 9;
}

namespace detail {

// OPTIMIZATIONS.md row 3: encode the 3/5/9 bytes into one small buffer and write once. Kept out of line so
// the one-byte case stays inline at every call site.
template <WriteStream S>
[[gnu::noinline]] void write_compact_size_long(S& s, uint64_t value)
{
    // Each form is one write of a constant length: a runtime length would make the copy a call into memcpy,
    // which costs more than these few bytes (bench: CompactSizeEncode).
    std::array<std::byte, 9> buffer;
    if (value <= 0xffff - (SERDIFF_PLANTED(compact_size_edge_width) ? 1 : 0)) {
        buffer[0] = std::byte{0xfd};
        const uint16_t le = convert_byte_order<ByteOrder::Little>(static_cast<uint16_t>(value));
        std::memcpy(&buffer[1], &le, sizeof le);
        s.write(std::span<const std::byte, 3>(buffer.data(), 3));
    } else if (value <= 0xffffffff) {
        buffer[0] = std::byte{0xfe};
        const uint32_t le = convert_byte_order<ByteOrder::Little>(static_cast<uint32_t>(value));
        std::memcpy(&buffer[1], &le, sizeof le);
        s.write(std::span<const std::byte, 5>(buffer.data(), 5));
    } else {
        buffer[0] = std::byte{0xff};
        const uint64_t le = convert_byte_order<ByteOrder::Little>(value);
        std::memcpy(&buffer[1], &le, sizeof le);
        s.write(std::span<const std::byte, 9>(buffer.data(), 9));
    }
}

}  // namespace detail

template <WriteStream S>
inline void WriteCompactSize(S& s, uint64_t value)
{
    if constexpr (SizeOnlyStream<S>) {
        s.add(GetSizeOfCompactSize(value));  // OPTIMIZATIONS.md row 2: size by arithmetic
    } else if (value < 0xfd) [[likely]] {
        s.write_byte(static_cast<std::byte>(value));  // OPTIMIZATIONS.md row 1: one-byte fast path
    } else {
        detail::write_compact_size_long(s, value);  // OPTIMIZATIONS.md row 3
    }
}

template <ReadStream S>
inline uint64_t ReadCompactSize(S& s, bool range_check = true)
{
    const uint8_t first = static_cast<uint8_t>(s.read_byte());
    // OPTIMIZATIONS.md row 5: ReadCompactSize fast path. A one-byte value is canonical and below kMaxSize
    // by construction, so both checks hold without being evaluated; every longer form is checked below.
    if (first < 0xfd) [[likely]]
        return first;
    uint64_t value;
    if (first == 0xfd) {
        value = read_integer<uint16_t, ByteOrder::Little>(s);
        if (value < 0xfd) throw_serialize_error(model::errors::kNonCanonical);
    } else if (first == 0xfe) {
        value = read_integer<uint32_t, ByteOrder::Little>(s);
        if constexpr (SERDIFF_PLANTED(compact_size_fast_path_skips_checks)) return value;
        if (value < 0x10000) throw_serialize_error(model::errors::kNonCanonical);
    } else {
        value = SERDIFF_PLANTED(compact_size_skipped_value) ? planted::skip_instead_of_reading(s) : read_integer<uint64_t, ByteOrder::Little>(s);
        if (value < 0x100000000) throw_serialize_error(model::errors::kNonCanonical);
    }
    if (range_check && value > kMaxSize) throw_serialize_error(model::errors::kSizeTooLarge);
    return value;
}

// ---------------------------------------------------------------------------------------------
// VarInt (MSB base-128 with the "minus one" per continuation group).

enum class VarIntMode { Unsigned, NonNegativeSigned };

template <VarIntMode Mode, typename I>
concept VarIntInteger = SerializableInteger<I> &&
                        (Mode == VarIntMode::Unsigned ? std::unsigned_integral<I> : std::signed_integral<I>);

// kVarIntLengthThresholds[k] is the smallest value that needs k + 2 bytes.
inline constexpr std::array<uint64_t, 9> kVarIntLengthThresholds = [] {
    std::array<uint64_t, 9> thresholds{};
    uint64_t smallest = 0;
    for (auto& threshold : thresholds) {
        smallest = (smallest + 1) << 7;
        threshold = smallest;
    }
    return thresholds;
}();

constexpr size_t varint_length(uint64_t value) noexcept
{
    size_t length = 1;
    for (uint64_t threshold : kVarIntLengthThresholds)
        length += SERDIFF_PLANTED(varint_length_off_by_one) ? value > threshold : value >= threshold;
    return length;
}

template <VarIntMode Mode = VarIntMode::Unsigned, typename I>
    requires VarIntInteger<Mode, I>
constexpr size_t GetSizeOfVarInt(I value)
{
    return varint_length(static_cast<uint64_t>(value));
}

template <VarIntMode Mode, typename I, WriteStream S>
    requires VarIntInteger<Mode, I>
inline void WriteVarInt(S& s, I value)
{
    if constexpr (Mode == VarIntMode::NonNegativeSigned) {
        if (value < 0) throw std::invalid_argument("WriteVarInt: negative value in non-negative signed mode");
    }
    uint64_t remaining = static_cast<uint64_t>(value);
    // OPTIMIZATIONS.md row 4: compute the encoded length first, fill the bytes back to front, write once.
    const size_t length = varint_length(remaining);
    if constexpr (SizeOnlyStream<S>) {
        s.add(length);
    } else if (length == 1) {
        s.write_byte(static_cast<std::byte>(remaining));  // OPTIMIZATIONS.md row 1
    } else {
        std::array<std::byte, 10> buffer;
        buffer[length - 1] = static_cast<std::byte>(remaining & 0x7f);
        // Counts down without wrapping the index (-fsanitize=integer in the asan-ubsan CI job).
        for (size_t i = length - 1; i > 0; --i) {
            remaining = (remaining >> 7) - 1;
            buffer[i - 1] = static_cast<std::byte>((remaining & 0x7f) | 0x80);
        }
        s.write(std::span<const std::byte>(buffer.data(), length));
    }
}

template <VarIntMode Mode, typename I, ReadStream S>
    requires VarIntInteger<Mode, I>
inline I ReadVarInt(S& s)
{
    constexpr I kMax = std::numeric_limits<I>::max();
    I value = 0;
    while (true) {
        const uint8_t byte = static_cast<uint8_t>(s.read_byte());
        if constexpr (SERDIFF_PLANTED(varint_limit_shift)) if (static_cast<uint64_t>(value) > (planted::low_bits_mask(8 * sizeof(I)) >> 7)) throw_serialize_error(model::errors::kSizeTooLarge);
        if (value > (kMax >> 7)) throw_serialize_error(model::errors::kSizeTooLarge);
        value = static_cast<I>((value << 7) | (byte & 0x7f));
        if ((byte & 0x80) == 0) return value;
        if (value == kMax) throw_serialize_error(model::errors::kSizeTooLarge);
        ++value;
    }
}

// ---------------------------------------------------------------------------------------------
// Layout: one description of a type's fields, used by reading, writing and sizing.
//
//   SERDIFF_LAYOUT(model::OutPoint, obj) { READWRITE(obj.hash, obj.n); }
//
// `obj` is const when writing or sizing, mutable when reading; a body that must differ by direction
// tests `Action::kReading` with `if constexpr`.

template <typename T>
struct Layout {
    static constexpr bool kDescribed = false;
};

template <typename T>
concept Described = Layout<std::remove_cv_t<T>>::kDescribed;

#define SERDIFF_LAYOUT(Type, obj)                                               \
    template <>                                                                 \
    struct Layout<Type> {                                                       \
        static constexpr bool kDescribed = true;                                \
        template <typename Obj, typename Action>                                \
        static void ops(Obj& obj, const Action& serialize_action);              \
    };                                                                          \
    template <typename Obj, typename Action>                                    \
    void Layout<Type>::ops(Obj& obj, const Action& serialize_action)

#define READWRITE(...) serialize_action(__VA_ARGS__)

// ---------------------------------------------------------------------------------------------
// Formatter wrappers: Using<Formatter>(object) serializes `object` through Formatter::Ser/Unser.

template <typename Formatter, typename Ref>
class Wrapper {
    static_assert(std::is_lvalue_reference_v<Ref>, "a wrapper refers to an object owned elsewhere");

public:
    explicit Wrapper(Ref target) : object(target) {}
    Ref object;
};

template <typename Formatter, typename T>
Wrapper<Formatter, T&> Using(T&& object)
{
    return Wrapper<Formatter, T&>(object);
}

// Element types stored and streamed as raw bytes.
template <typename T>
concept ByteLike = std::same_as<T, uint8_t> || std::same_as<T, int8_t> || std::same_as<T, char> ||
                   std::same_as<T, std::byte>;

// ---------------------------------------------------------------------------------------------
// Serialize / Unserialize: scalars.

template <WriteStream S, std::integral I>
inline void Serialize(S& s, I value)
{
    if constexpr (std::same_as<I, bool>) s.write_byte(value ? std::byte{1} : std::byte{0});
    else write_integer<ByteOrder::Little>(s, value);
}

// bool maps any non-zero byte to true (SEMANTICS.md), so 0x02 does not round-trip byte-exact.
template <ReadStream S, std::integral I>
inline void Unserialize(S& s, I& value)
{
    if constexpr (std::same_as<I, bool>) value = s.read_byte() != std::byte{0};
    else value = read_integer<I, ByteOrder::Little>(s);
}

// Declarations first, so containers of containers find each other whatever the stream's namespace.
template <WriteStream S, typename T, size_t Extent>
    requires ByteLike<std::remove_const_t<T>>
void Serialize(S& s, std::span<T, Extent> bytes);
template <ReadStream S, typename T, size_t Extent>
    requires ByteLike<T>
void Unserialize(S& s, std::span<T, Extent> bytes);
template <WriteStream S>
void Serialize(S& s, const std::string& text);
template <ReadStream S>
void Unserialize(S& s, std::string& text);
template <WriteStream S, typename T, typename Alloc>
void Serialize(S& s, const std::vector<T, Alloc>& items);
template <ReadStream S, typename T, typename Alloc>
void Unserialize(S& s, std::vector<T, Alloc>& items);
template <WriteStream S, size_t N, typename T>
void Serialize(S& s, const prevector<N, T>& items);
template <ReadStream S, size_t N, typename T>
void Unserialize(S& s, prevector<N, T>& items);
template <WriteStream S, typename T, size_t N>
void Serialize(S& s, const std::array<T, N>& items);
template <ReadStream S, typename T, size_t N>
void Unserialize(S& s, std::array<T, N>& items);
template <WriteStream S, typename K, typename V>
void Serialize(S& s, const std::pair<K, V>& item);
template <ReadStream S, typename K, typename V>
void Unserialize(S& s, std::pair<K, V>& item);
template <WriteStream S, typename K, typename V, typename Compare, typename Alloc>
void Serialize(S& s, const std::map<K, V, Compare, Alloc>& items);
template <ReadStream S, typename K, typename V, typename Compare, typename Alloc>
void Unserialize(S& s, std::map<K, V, Compare, Alloc>& items);
template <WriteStream S, typename K, typename Compare, typename Alloc>
void Serialize(S& s, const std::set<K, Compare, Alloc>& items);
template <ReadStream S, typename K, typename Compare, typename Alloc>
void Unserialize(S& s, std::set<K, Compare, Alloc>& items);
template <WriteStream S, typename T, typename Deleter>
void Serialize(S& s, const std::unique_ptr<T, Deleter>& pointer);
template <ReadStream S, typename T>
void Unserialize(S& s, std::unique_ptr<T>& pointer);
template <WriteStream S, typename T>
void Serialize(S& s, const std::shared_ptr<T>& pointer);
template <ReadStream S, typename T>
void Unserialize(S& s, std::shared_ptr<T>& pointer);
template <WriteStream S, typename Formatter, typename Ref>
void Serialize(S& s, const Wrapper<Formatter, Ref>& wrapper);
template <ReadStream S, typename Formatter, typename Ref>
void Unserialize(S& s, const Wrapper<Formatter, Ref>& wrapper);
template <WriteStream S, Described T>
void Serialize(S& s, const T& object);
template <ReadStream S, Described T>
void Unserialize(S& s, T& object);

// ---------------------------------------------------------------------------------------------
// Formatters.

// Plain Serialize/Unserialize of the element, for VectorFormatter<DefaultFormatter>.
struct DefaultFormatter {
    template <WriteStream S, typename T>
    static void Ser(S& s, const T& value)
    {
        Serialize(s, value);
    }
    template <ReadStream S, typename T>
    static void Unser(S& s, T& value)
    {
        Unserialize(s, value);
    }
};

template <VarIntMode Mode = VarIntMode::Unsigned>
struct VarIntFormatter {
    template <WriteStream S, typename I>
    static void Ser(S& s, I value)
    {
        WriteVarInt<Mode, std::remove_cv_t<I>>(s, value);
    }
    template <ReadStream S, typename I>
    static void Unser(S& s, I& value)
    {
        value = ReadVarInt<Mode, I>(s);
    }
};

template <bool RangeCheck = true>
struct CompactSizeFormatter {
    template <WriteStream S, std::unsigned_integral I>
    static void Ser(S& s, I value)
    {
        WriteCompactSize(s, value);
    }
    template <ReadStream S, std::unsigned_integral I>
    static void Unser(S& s, I& value)
    {
        const uint64_t read = ReadCompactSize(s, RangeCheck);
        if (std::cmp_greater(read, std::numeric_limits<I>::max())) throw_serialize_error(model::errors::kSizeTooLarge);
        value = static_cast<I>(read);
    }
};

// Unsigned integers of 1..8 bytes in either byte order (e.g. 6-byte little-endian, 2-byte big-endian).
template <int Bytes, bool BigEndian = false>
struct CustomUintFormatter {
    static_assert(Bytes > 0 && Bytes <= 8, "1..8 bytes");
    static constexpr uint64_t kMax = Bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * Bytes)) - 1;
    static constexpr ByteOrder kOrder = BigEndian ? ByteOrder::Big : ByteOrder::Little;
    // Within the 8-byte image of the value in kOrder, where the Bytes significant bytes sit.
    static constexpr size_t kOffset = BigEndian ? 8 - Bytes : 0;

    template <WriteStream S, std::integral I>
    static void Ser(S& s, I value)
    {
        if (std::cmp_less(value, 0) || std::cmp_greater(value, kMax))
            throw std::out_of_range("CustomUintFormatter: value does not fit the width");
        const uint64_t widened = static_cast<uint64_t>(value);
        if constexpr (SizeOnlyStream<S>) {
            s.add(SERDIFF_PLANTED(size_computer_custom_width) ? sizeof(I) : Bytes);  // OPTIMIZATIONS.md row 2: width added without byte-order work
        } else if constexpr (Bytes == 1) {
            s.write_byte(static_cast<std::byte>(widened));  // OPTIMIZATIONS.md row 1
        } else {
            const auto image = std::bit_cast<std::array<std::byte, 8>>(convert_byte_order<kOrder>(widened));
            s.write(std::span<const std::byte, Bytes>(image.data() + kOffset, Bytes));
        }
    }
    template <ReadStream S, std::integral I>
    static void Unser(S& s, I& value)
    {
        static_assert(std::cmp_greater_equal(std::numeric_limits<I>::max(), kMax), "target type too small");
        std::array<std::byte, 8> image{};
        s.read(std::span<std::byte, Bytes>(image.data() + kOffset, Bytes));
        value = static_cast<I>(convert_byte_order<kOrder>(std::bit_cast<uint64_t>(image)));
    }
};

template <int Bytes>
using BigEndianFormatter = CustomUintFormatter<Bytes, true>;

// CompactSize count, then each element through ElementFormatter; reads grow in bounded steps.
template <typename ElementFormatter>
struct VectorFormatter {
    template <WriteStream S, typename V>
    static void Ser(S& s, const V& items)
    {
        WriteCompactSize(s, items.size());
        for (const auto& item : items) ElementFormatter::Ser(s, item);
    }
    template <ReadStream S, typename V>
    static void Unser(S& s, V& items)
    {
        using Element = typename V::value_type;
        items.clear();
        const size_t count = ReadCompactSize(s);
        // A claimed count is not trusted: capacity grows by at most kMaxVectorAllocate bytes ahead of
        // the elements actually read. A memory stream (unread()) also caps each step at the bytes it still
        // holds: every element takes at least one byte, so a count past the input cannot all be read, and a
        // fuzzer's claimed counts no longer reserve up to 5,000,000 bytes per vector (the reads, and so the
        // results and errors, are the same).
        size_t step = std::max<size_t>(1, kMaxVectorAllocate / sizeof(Element));
        if constexpr (requires { s.unread(); }) step = std::min(step, std::max<size_t>(1, s.unread().size()));
        size_t allocated = 0;
        while (allocated < count) {
            allocated = std::min(count, allocated + step);
            items.reserve(allocated);
            while (items.size() < allocated) {
                items.emplace_back();
                ElementFormatter::Unser(s, items.back());
            }
        }
    }
};

namespace detail {

// A memory stream knows the bytes it holds (unread()): a read of `count` bytes it cannot fill fails here, with
// the same error and the position unchanged, as that read would, but before the caller allocates for it (a
// fuzzer's claimed lengths would otherwise allocate and zero up to 5,000,000 bytes per input). A file stream
// allocates first, as Core's does.
template <ReadStream S>
void fail_early_if_short(S& s, size_t count)
{
    if constexpr (requires { s.unread(); }) {
        if (count > s.unread().size()) throw_serialize_error(model::errors::kEndOfData);
    }
}

// OPTIMIZATIONS.md row 8: byte containers read in one piece when `size` fits one 5,000,000-byte chunk,
// else in exact chunk-sized growth steps, so memory stays within one chunk of the bytes actually read.
template <ReadStream S, typename Container>
void read_byte_payload(S& s, Container& items, size_t size)
{
    using Element = typename Container::value_type;
    static_assert(sizeof(Element) == 1);
    auto resize_for_read = [&items](size_t count) {
        if constexpr (requires { items.resize_uninitialized(count); }) items.resize_uninitialized(count);
        else items.resize(count);
    };
    if constexpr (SERDIFF_PLANTED(byte_payload_scratch_leak)) {
        if (size != 0 && size <= kMaxVectorAllocate) {
            resize_for_read(size);
            return planted::read_through_scratch(s, items.data(), size);
        }
    }
    fail_early_if_short(s, std::min(size, kMaxVectorAllocate));  // the first read: the payload or its first chunk
    if (size <= kMaxVectorAllocate) {
        // As Core's vector and prevector reads (docs/format.md "What a failed read leaves"): nothing the container
        // held survives, so a file read that fails part-way leaves what the file delivered, then zeros. Core's string
        // read keeps what the string held up to the new size, and so does this one.
        if constexpr (!std::is_same_v<Container, std::string>) items.clear();
        resize_for_read(size);
        if (size != 0) s.read(std::as_writable_bytes(std::span<Element>(items.data(), size)));
        return;
    }
    items.clear();
    for (size_t filled = 0; filled < size;) {
        const size_t chunk = std::min(size - filled, kMaxVectorAllocate);
        items.reserve(filled + chunk);
        resize_for_read(filled + chunk);
        s.read(std::as_writable_bytes(std::span<Element>(items.data() + filled - (SERDIFF_PLANTED(byte_vector_chunk_offset) && filled ? 1 : 0), chunk)));
        filled += chunk;
    }
}

template <WriteStream S, typename Element>
void write_byte_payload(S& s, const Element* data, size_t size)
{
    if constexpr (SizeOnlyStream<S>) {
        if (SERDIFF_PLANTED(size_computer_payload_three_byte_form)) {
            s.add((size < 0xfd ? 1 : 3) + size * sizeof(Element));
            return;
        }
    }
    WriteCompactSize(s, size);
    if (size != 0) s.write(std::as_bytes(std::span<const Element>(data, size)));
}

}  // namespace detail

// A string read that rejects lengths above Limit before allocating.
template <size_t Limit>
struct LimitedStringFormatter {
    template <WriteStream S>
    static void Ser(S& s, const std::string& text)
    {
        detail::write_byte_payload(s, text.data(), text.size());
    }
    template <ReadStream S>
    static void Unser(S& s, std::string& text)
    {
        const size_t size = ReadCompactSize(s);
        if (size > Limit) throw_serialize_error(model::errors::kStringLimit);
        detail::read_byte_payload(s, text, size);
    }
};

template <size_t Limit, typename Text>
auto LimitedString(Text&& text)
{
    return Using<LimitedStringFormatter<Limit>>(std::forward<Text>(text));
}

// ---------------------------------------------------------------------------------------------
// Serialize / Unserialize: containers and wrappers.

// Raw bytes, no length prefix.
template <WriteStream S, typename T, size_t Extent>
    requires ByteLike<std::remove_const_t<T>>
void Serialize(S& s, std::span<T, Extent> bytes)
{
    if (!bytes.empty()) s.write(std::as_bytes(bytes));
}
template <ReadStream S, typename T, size_t Extent>
    requires ByteLike<T>
void Unserialize(S& s, std::span<T, Extent> bytes)
{
    if (!bytes.empty()) s.read(std::as_writable_bytes(bytes));
}

template <WriteStream S>
void Serialize(S& s, const std::string& text)
{
    detail::write_byte_payload(s, text.data(), text.size());
}
template <ReadStream S>
void Unserialize(S& s, std::string& text)
{
    detail::read_byte_payload(s, text, ReadCompactSize(s));
}

template <WriteStream S, typename T, typename Alloc>
void Serialize(S& s, const std::vector<T, Alloc>& items)
{
    if constexpr (ByteLike<T>) detail::write_byte_payload(s, items.data(), items.size());
    else VectorFormatter<DefaultFormatter>::Ser(s, items);
}
template <ReadStream S, typename T, typename Alloc>
void Unserialize(S& s, std::vector<T, Alloc>& items)
{
    if constexpr (ByteLike<T>) detail::read_byte_payload(s, items, ReadCompactSize(s));
    else VectorFormatter<DefaultFormatter>::Unser(s, items);
}

template <WriteStream S, size_t N, typename T>
void Serialize(S& s, const prevector<N, T>& items)
{
    if constexpr (ByteLike<T>) detail::write_byte_payload(s, items.data(), items.size());
    else VectorFormatter<DefaultFormatter>::Ser(s, items);
}
template <ReadStream S, size_t N, typename T>
void Unserialize(S& s, prevector<N, T>& items)
{
    if constexpr (ByteLike<T>) detail::read_byte_payload(s, items, ReadCompactSize(s));
    else VectorFormatter<DefaultFormatter>::Unser(s, items);
}

// Fixed arrays: the elements only, no count.
template <WriteStream S, typename T, size_t N>
void Serialize(S& s, const std::array<T, N>& items)
{
    if constexpr (ByteLike<T> && N > 0) {
        s.write(std::as_bytes(std::span<const T, N>(items)));
    } else {
        for (const auto& item : items) Serialize(s, item);
    }
}
template <ReadStream S, typename T, size_t N>
void Unserialize(S& s, std::array<T, N>& items)
{
    if constexpr (ByteLike<T> && N > 0) {
        s.read(std::as_writable_bytes(std::span<T, N>(items)));
    } else {
        for (auto& item : items) Unserialize(s, item);
    }
}

template <WriteStream S, typename K, typename V>
void Serialize(S& s, const std::pair<K, V>& item)
{
    Serialize(s, item.first);
    Serialize(s, item.second);
}
template <ReadStream S, typename K, typename V>
void Unserialize(S& s, std::pair<K, V>& item)
{
    Unserialize(s, item.first);
    Unserialize(s, item.second);
}

template <WriteStream S, typename K, typename V, typename Compare, typename Alloc>
void Serialize(S& s, const std::map<K, V, Compare, Alloc>& items)
{
    WriteCompactSize(s, items.size());
    for (const auto& item : items) Serialize(s, item);
}
template <ReadStream S, typename K, typename V, typename Compare, typename Alloc>
void Unserialize(S& s, std::map<K, V, Compare, Alloc>& items)
{
    items.clear();
    const size_t count = ReadCompactSize(s);
    for (size_t i = 0; i < count; ++i) {
        std::pair<K, V> item;
        Unserialize(s, item);
        // OPTIMIZATIONS.md row 7: insert by move; a duplicate key keeps the first entry (insert semantics).
        if constexpr (SERDIFF_PLANTED(map_duplicate_key_last_wins)) items.insert_or_assign(item.first, std::move(item.second)); else
        items.insert(items.end(), std::move(item));
    }
}

template <WriteStream S, typename K, typename Compare, typename Alloc>
void Serialize(S& s, const std::set<K, Compare, Alloc>& items)
{
    WriteCompactSize(s, items.size());
    for (const auto& item : items) Serialize(s, item);
}
template <ReadStream S, typename K, typename Compare, typename Alloc>
void Unserialize(S& s, std::set<K, Compare, Alloc>& items)
{
    items.clear();
    const size_t count = ReadCompactSize(s);
    for (size_t i = 0; i < count; ++i) {
        K key;
        Unserialize(s, key);
        // OPTIMIZATIONS.md row 7: insert by move; a duplicate key keeps the first entry (insert semantics).
        items.insert(items.end(), std::move(key));
    }
}

// Pointers serialize the pointee; serializing a null pointer is a programming error, as in Core.
template <WriteStream S, typename T, typename Deleter>
void Serialize(S& s, const std::unique_ptr<T, Deleter>& pointer)
{
    Serialize(s, *pointer);
}
template <ReadStream S, typename T>
void Unserialize(S& s, std::unique_ptr<T>& pointer)
{
    auto object = std::make_unique<T>();
    Unserialize(s, *object);
    pointer = std::move(object);
}
template <WriteStream S, typename T>
void Serialize(S& s, const std::shared_ptr<T>& pointer)
{
    Serialize(s, *pointer);
}
template <ReadStream S, typename T>
void Unserialize(S& s, std::shared_ptr<T>& pointer)
{
    auto object = std::make_shared<std::remove_const_t<T>>();
    Unserialize(s, *object);
    pointer = std::move(object);
}

template <WriteStream S, typename Formatter, typename Ref>
void Serialize(S& s, const Wrapper<Formatter, Ref>& wrapper)
{
    Formatter::Ser(s, wrapper.object);
}
template <ReadStream S, typename Formatter, typename Ref>
void Unserialize(S& s, const Wrapper<Formatter, Ref>& wrapper)
{
    Formatter::Unser(s, wrapper.object);
}

// The actions a Layout body's READWRITE(...) runs, one per direction.
template <typename S>
struct WriteAction {
    static constexpr bool kReading = false;
    S& stream;
    template <typename... Fields>
    void operator()(const Fields&... fields) const
    {
        (Serialize(stream, fields), ...);
    }
};
template <typename S>
struct ReadAction {
    static constexpr bool kReading = true;
    S& stream;
    template <typename... Fields>
    void operator()(Fields&&... fields) const
    {
        (Unserialize(stream, fields), ...);
    }
};

template <WriteStream S, Described T>
void Serialize(S& s, const T& object)
{
    Layout<T>::ops(object, WriteAction<S>{s});
}
template <ReadStream S, Described T>
void Unserialize(S& s, T& object)
{
    Layout<T>::ops(object, ReadAction<S>{s});
}

// Serialized size of any serializable value, computed without writing.
template <typename T>
size_t GetSerializeSize(const T& object)
{
    SizeComputer sizer;
    Serialize(sizer, object);
    return sizer.size();
}

}  // namespace serdiff::optimized
