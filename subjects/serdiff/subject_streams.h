// The serdiff subject's streams and formatters as the stream programs name them (the compile-time half of the
// seam: differential/subject.h is the link-time half). Each subject has a subject_streams.h of the same shape;
// the harness sources that include it are compiled once per subject, each with its own subject's directory on
// the include path (docs/core.md "The seam").
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "serialize/file.h"
#include "serialize/prevector.h"
#include "serialize/serialize.h"
#include "serialize/streams.h"

namespace serdiff::subject {

using optimized::AutoFile;
using optimized::BufferedFile;
using optimized::BufferedReader;
using optimized::BufferedWriter;
using optimized::DataStream;
using optimized::SizeComputer;
using optimized::SpanReader;
using optimized::SpanWriter;
template <typename T>
using Span = std::span<T>;  // the byte span Serialize/Unserialize take (an older Core tree has its own class)
inline constexpr bool kHasSpanWriter = true;  // (the Core subject's may lack it: an older tree)
inline constexpr bool kHasBufferedFiles = true;  // BufferedReader and BufferedWriter (likewise)
using optimized::VectorWriter;
template <size_t N, typename T>
using prevector = optimized::prevector<N, T>;
// What the prevector target may ask of it beyond Core's interface: serialize/'s prevector also takes single-pass
// ranges, resizes with a fill value, takes an initializer list and returns the new element from emplace_back.
inline constexpr bool kPrevectorTakesSinglePassRanges = true;
inline constexpr bool kPrevectorResizeTakesValue = true;
inline constexpr bool kPrevectorEmplaceBackReturnsReference = true;
// Whether push_back/insert may be given one of the prevector's own elements (std::vector allows it).
inline constexpr bool kPrevectorTakesOwnElements = true;
inline constexpr bool kPrevectorTakesInitializerList = true;
// The capacity push_back, emplace_back or insert leaves when `needed` elements no longer fit `capacity`: serialize/'s
// prevector doubles, or takes exactly what is needed if that is more (prevector.h grow_for).
constexpr size_t prevector_grown_capacity(size_t capacity, size_t needed) { return std::max(needed, 2 * capacity); }
template <typename Prevector>
bool prevector_is_inline(const Prevector& vector)
{
    return vector.is_inline();
}

// The file-error contract of docs/file-io.md: a failed write latches (every later call fails), the destructors
// write what is pending and close, a null FILE* is refused by the constructor, a BufferedWriter outlives close()
// (calls that would reach the file fail), errors are worded as the reference words them, and a 0-byte
// BufferedWriter acts as a 1-byte one. subjects/core/subject_streams.h has Core's.
inline constexpr bool kFileErrorsLatch = true;
inline constexpr bool kFileDestructorsClose = true;
inline constexpr bool kAutoFileRefusesNullFile = true;
inline constexpr bool kBufferedWriterUsableAfterClose = true;
inline constexpr bool kSecondCloseFails = true;
inline constexpr bool kBufferedWriterFlushReachesFile = true;
inline constexpr bool kFileErrorsWordedAsReference = true;
inline constexpr bool kBufferedWriterTakesZeroSize = true;

// Core's BufferedWriter can write into a closed file from its destructor and its wrapper counts that; serdiff's
// cannot (its calls after close() fail), so nothing counts here and the program reads this only for a subject
// whose destructors do not close (kFileDestructorsClose false).
inline size_t& buffered_writes_after_close()
{
    static size_t none = 0;
    return none;
}

using optimized::CompactSizeFormatter;
using optimized::GetSizeOfVarInt;
using optimized::ReadCompactSize;
using optimized::ReadVarInt;
using optimized::Serialize;
using optimized::Unserialize;
using optimized::Using;
using optimized::VarIntFormatter;
using optimized::VarIntMode;
using optimized::WriteCompactSize;
using optimized::WriteVarInt;
using optimized::ser_readdata16;
using optimized::ser_readdata16be;
using optimized::ser_readdata32;
using optimized::ser_readdata32be;
using optimized::ser_readdata64;
using optimized::ser_readdata64be;
using optimized::ser_readdata8;
using optimized::ser_writedata16;
using optimized::ser_writedata16be;
using optimized::ser_writedata32;
using optimized::ser_writedata32be;
using optimized::ser_writedata64;
using optimized::ser_writedata64be;
using optimized::ser_writedata8;
template <int Width, bool BigEndian>
using CustomUintFormatter = optimized::CustomUintFormatter<Width, BigEndian>;

// What a failed read throws, and its model::errors text.
using ReadError = optimized::SerializeError;
inline std::string read_error_text(const ReadError& error) { return error.what(); }
// What writing a value that does not fit a CustomUintFormatter's width throws.
using CustomWidthRefusal = std::out_of_range;
// What WriteVarInt's refusal of a negative value in non-negative signed mode says (docs/format.md "VarInt").
inline constexpr std::string_view kNegativeVarIntRefusal = "WriteVarInt: negative value in non-negative signed mode";
// serialize/'s string read grows in bounded chunks as its bytes arrive (docs/format.md "Vectors and allocation").
inline constexpr bool kStringReadAllocatesClaimedLength = false;
// serialize/ writes and reads std::array of any element type, element by element where they are not bytes.
inline constexpr bool kSerializesArraysOfAnyElement = true;
// serialize/ reads a std::unique_ptr<T> or std::shared_ptr<T> of any default-constructible T.
inline constexpr bool kReadsPointersOfAnyType = true;

template <typename S, std::unsigned_integral I>
void write_big_endian(S& s, I value)
{
    optimized::write_integer<optimized::ByteOrder::Big>(s, value);
}
template <std::unsigned_integral I, typename S>
I read_big_endian(S& s)
{
    return optimized::read_integer<I, optimized::ByteOrder::Big>(s);
}

template <size_t Limit, typename Text>
auto LimitedString(Text&& text)
{
    return optimized::LimitedString<Limit>(std::forward<Text>(text));
}

// A fixed array of integers (std::array<uint16_t, 3>): serialize/ writes and reads it as one value.
template <typename S, typename T, size_t N>
void serialize_integer_array(S& s, const std::array<T, N>& array)
{
    Serialize(s, array);
}
template <typename S, typename T, size_t N>
void unserialize_integer_array(S& s, std::array<T, N>& array)
{
    Unserialize(s, array);
}

// What a DataStream holds after writing, and how far a DataStream reader has read.
inline std::span<const uint8_t> written(const DataStream& stream) { return stream.bytes(); }
inline size_t read_position(const DataStream& stream) { return stream.read_position(); }

}  // namespace serdiff::subject
