// Typed stream programs: parsing from fuzz bytes, the subject's and the reference's runners, and the comparison.
// Compiled once per subject: the subject's streams and formatters come from its subject_streams.h.
#include "differential/stream_program.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "differential/allocation_bound.h"
#include "differential/compare.h"
#include "differential/memory_file.h"
#include "differential/program_input.h"
#include "differential/reference/file_io.h"
#include "differential/reference/primitives.h"
#include "differential/subject.h"
#include "subject_streams.h"

namespace serdiff::differential {

namespace {

using model::Bytes;
using model::IntKind;
using Op = StreamOperation;
using ScriptLike = subject::prevector<28, uint8_t>;
using PairValue = std::pair<uint32_t, std::string>;

uint64_t mask_to_bits(uint64_t value, int bits) { return bits >= 64 ? value : value & ((uint64_t{1} << bits) - 1); }

int value_bits(IntKind kind) { return 8 * model::int_kind_bytes(kind) - (model::int_kind_signed(kind) ? 1 : 0); }

int integer_width(Op operation)
{
    switch (operation) {
    case Op::U8: case Op::I8: return 1;
    case Op::U16: case Op::U16BigEndian: case Op::I16: return 2;
    case Op::U32: case Op::U32BigEndian: case Op::I32: return 4;
    default: return 8;
    }
}

bool is_byte_payload(Op operation)
{
    return operation == Op::RawBytes || operation == Op::ByteVector || operation == Op::String ||
           operation == Op::LimitedString || operation == Op::Prevector || operation == Op::Skip;
}

// ----------------------------------------------------------------------------------------- rendering

// FNV-1a over every byte (harness arithmetic: no coverage hooks on a loop over megabytes).
SERDIFF_NO_COVERAGE uint64_t fnv1a(std::span<const uint8_t> bytes)
{
    uint64_t digest = 0xcbf29ce484222325ULL;
    for (uint8_t value : bytes) digest = (digest ^ value) * 0x100000001b3ULL;
    return digest;
}

std::string render_bytes(std::span<const uint8_t> bytes)
{
    if (bytes.size() <= 64) return "x" + model::to_hex(bytes.data(), bytes.size());
    // Long payloads: both ends in hex plus an FNV-1a digest of everything, so traces stay short.
    const uint64_t digest = fnv1a(bytes);
    return std::to_string(bytes.size()) + " bytes x" + model::to_hex(bytes.data(), 32) + "..x" +
           model::to_hex(bytes.data() + bytes.size() - 32, 32) + " fnv " + std::to_string(digest);
}
std::string render_bytes(std::string_view text)
{
    return render_bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}
// FNV-1a over every value's eight little-endian bytes (as fnv1a: no coverage hooks on a loop over a million).
template <typename Range>
SERDIFF_NO_COVERAGE uint64_t fnv1a_values(const Range& items)
{
    uint64_t digest = 0xcbf29ce484222325ULL;
    for (const auto& item : items)
        for (int shift = 0; shift < 64; shift += 8)
            digest = (digest ^ ((static_cast<uint64_t>(item) >> shift) & 0xff)) * 0x100000001b3ULL;
    return digest;
}
template <typename Iterator>
std::string join_values(Iterator first, Iterator last)
{
    std::string out;
    for (; first != last; ++first) out += (out.empty() ? "" : ",") + std::to_string(*first);
    return out;
}
// Up to 32 values in full; a longer list (a claimed count the stream can fill: a program's payload reaches
// megabytes, so a million integers) as its count, both ends and a digest of every value, as render_bytes
// does for payloads: the full text of a long list once passed the fuzz binaries' 16 MiB allocation bound.
template <typename Range>
std::string render_list(const Range& items)
{
    const size_t count = std::size(items);
    if (count <= 32) return "[" + join_values(std::begin(items), std::end(items)) + "]";
    return std::to_string(count) + " values [" + join_values(std::begin(items), std::next(std::begin(items), 8)) +
           ",..," + join_values(std::prev(std::end(items), 8), std::end(items)) + "] fnv " +
           std::to_string(fnv1a_values(items));
}
std::string render_map(const std::map<uint16_t, uint8_t>& items)
{
    std::string out = "{";
    for (const auto& [key, value] : items)
        out += (out.size() > 1 ? "," : "") + std::to_string(key) + ":" + std::to_string(value);
    return out + "}";
}
std::string render_pair(const PairValue& pair) { return "(" + std::to_string(pair.first) + "," + render_bytes(pair.second) + ")"; }

// ----------------------------------------------------------------------------------------- parsing

void parse_step_arguments(ProgramInput& in, StreamStep& step, size_t operation_limit, size_t& budget)
{
    FuzzInput& raw = in.raw();
    switch (step.write) {
    case Op::U8: case Op::U16: case Op::U32: case Op::U64: case Op::U16BigEndian: case Op::U32BigEndian:
    case Op::U64BigEndian: case Op::I8: case Op::I16: case Op::I32: case Op::I64:
        step.number = mask_to_bits(raw.integral<uint64_t>(), 8 * integer_width(step.write));
        break;
    case Op::CustomWidth: {
        const uint8_t shape = in.byte();
        step.width = 1 + (shape & 7);
        step.big_endian = (shape & 8) != 0;
        step.number = mask_to_bits(in.number(), 8 * step.width);
        break;
    }
    case Op::Bool: step.number = in.byte() & 1; break;
    case Op::CompactSize:
        step.range_check = (in.byte() & 1) == 0;
        step.number = in.number();
        break;
    case Op::VarInt:
        step.kind = model::kAllIntKinds[in.byte() % std::size(model::kAllIntKinds)];
        step.number = mask_to_bits(in.number(), value_bits(step.kind));
        break;
    case Op::RawBytes: case Op::ByteVector: case Op::String: case Op::LimitedString: case Op::Prevector:
    case Op::Skip: {
        const size_t size = static_cast<size_t>(in.number_at_most(std::min(operation_limit, budget)));
        budget -= size;
        step.bytes = in.payload(size);
        break;
    }
    case Op::IntegerVector: {
        const size_t count = in.byte();  // up to 255: crosses the one-byte CompactSize count at 0xfd
        for (size_t i = 0; i < count; ++i) step.integers.push_back(raw.integral<uint32_t>());
        break;
    }
    case Op::ByteArray: step.bytes = raw.bytes(32); break;
    case Op::IntegerArray:
        for (int i = 0; i < 3; ++i) step.integers.push_back(raw.integral<uint16_t>());
        break;
    case Op::Pair: {
        step.integers.push_back(raw.integral<uint32_t>());
        const size_t size = std::min<size_t>(in.byte(), budget);
        budget -= size;
        step.bytes = in.payload(size);
        break;
    }
    case Op::Map: case Op::PairListAsMap: {
        const size_t count = in.byte() % (kMaxStreamContainerElements + 1);
        for (size_t i = 0; i < count; ++i) {
            // Pair lists draw keys from 0..3 so duplicate keys are the common case.
            const uint16_t key = step.write == Op::Map ? raw.integral<uint16_t>() : static_cast<uint16_t>(in.byte() % 4);
            step.pairs.emplace_back(key, in.byte());
        }
        break;
    }
    case Op::Set: case Op::ListAsSet: {
        const size_t count = in.byte() % (kMaxStreamContainerElements + 1);
        for (size_t i = 0; i < count; ++i)
            step.integers.push_back(step.write == Op::Set ? raw.integral<uint32_t>() : in.byte() % 4);
        break;
    }
    case Op::Flush: break;
    }
}

// ----------------------------------------------------------------------------------------- optimized side

template <int Width = 1, typename Visit>
void with_custom_width(int width, bool big_endian, Visit&& visit)
{
    if constexpr (Width <= 8) {
        if (width != Width) return with_custom_width<Width + 1>(width, big_endian, visit);
        if (big_endian) visit.template operator()<subject::CustomUintFormatter<Width, true>>();
        else visit.template operator()<subject::CustomUintFormatter<Width, false>>();
    }
}

template <typename Visit>
void with_varint_type(IntKind kind, Visit&& visit)
{
    using Mode = subject::VarIntMode;
    switch (kind) {
    case IntKind::U8: return visit.template operator()<Mode::Unsigned, uint8_t>();
    case IntKind::U16: return visit.template operator()<Mode::Unsigned, uint16_t>();
    case IntKind::U32: return visit.template operator()<Mode::Unsigned, uint32_t>();
    case IntKind::U64: return visit.template operator()<Mode::Unsigned, uint64_t>();
    case IntKind::I8: return visit.template operator()<Mode::NonNegativeSigned, int8_t>();
    case IntKind::I16: return visit.template operator()<Mode::NonNegativeSigned, int16_t>();
    case IntKind::I32: return visit.template operator()<Mode::NonNegativeSigned, int32_t>();
    case IntKind::I64: return visit.template operator()<Mode::NonNegativeSigned, int64_t>();
    }
}

// How a step reaches a stream: a combination of these bits (0: the Serialize/Unserialize calls, CompactSize and VarInt
// through their formatters). Each stream is driven one way per pass (check_writers, check_readers), so that every
// entry point of the subject's API is compiled and run.
using Via = unsigned;
// Through the stream's operator<< / operator>>, which must return the stream itself (asserted below for every stream
// given this bit; Core's VectorWriter and SpanWriter wrappers forward it to Core's).
constexpr Via kViaShift = 1;
// A u8, i8 or bool written through write() as a one-byte static-extent span instead of write_byte.
constexpr Via kViaOneByteSpans = 2;
// Integers through ser_writedata*/ser_readdata* (Core's names; signed ones as Core's Serialize passes them, cast to
// unsigned), CompactSize and VarInt through Write/ReadCompactSize and Write/ReadVarInt instead of their formatters.
constexpr Via kViaDirect = 4;

template <typename S>
void write_optimized(S& s, const StreamStep& step, Via via = 0)
{
    using subject::Serialize;
    if ((via & kViaOneByteSpans) && (step.write == Op::U8 || step.write == Op::I8 || step.write == Op::Bool)) {
        const std::byte byte{static_cast<uint8_t>(step.write == Op::Bool ? step.number != 0 : step.number)};
        s.write(std::span<const std::byte, 1>(&byte, 1));
        return;
    }
    if (via & kViaDirect) {
        switch (step.write) {
        case Op::U8: case Op::I8: subject::ser_writedata8(s, static_cast<uint8_t>(step.number)); return;
        case Op::U16: case Op::I16: subject::ser_writedata16(s, static_cast<uint16_t>(step.number)); return;
        case Op::U32: case Op::I32: subject::ser_writedata32(s, static_cast<uint32_t>(step.number)); return;
        case Op::U64: case Op::I64: subject::ser_writedata64(s, step.number); return;
        case Op::U16BigEndian: subject::ser_writedata16be(s, static_cast<uint16_t>(step.number)); return;
        case Op::U32BigEndian: subject::ser_writedata32be(s, static_cast<uint32_t>(step.number)); return;
        case Op::U64BigEndian: subject::ser_writedata64be(s, step.number); return;
        case Op::CompactSize: subject::WriteCompactSize(s, step.number); return;
        case Op::VarInt:
            with_varint_type(step.kind, [&]<subject::VarIntMode Mode, typename I>() {
                subject::WriteVarInt<Mode, I>(s, static_cast<I>(step.number));
            });
            return;
        default: break;
        }
    }
    switch (step.write) {
    case Op::U8: Serialize(s, static_cast<uint8_t>(step.number)); break;
    case Op::U16: Serialize(s, static_cast<uint16_t>(step.number)); break;
    case Op::U32: Serialize(s, static_cast<uint32_t>(step.number)); break;
    case Op::U64: Serialize(s, step.number); break;
    case Op::U16BigEndian: subject::write_big_endian(s, static_cast<uint16_t>(step.number)); break;
    case Op::U32BigEndian: subject::write_big_endian(s, static_cast<uint32_t>(step.number)); break;
    case Op::U64BigEndian: subject::write_big_endian(s, step.number); break;
    case Op::I8: Serialize(s, static_cast<int8_t>(step.number)); break;
    case Op::I16: Serialize(s, static_cast<int16_t>(step.number)); break;
    case Op::I32: Serialize(s, static_cast<int32_t>(step.number)); break;
    case Op::I64: Serialize(s, static_cast<int64_t>(step.number)); break;
    case Op::CustomWidth:
        with_custom_width(step.width, step.big_endian, [&]<typename Formatter>() {
            Serialize(s, subject::Using<Formatter>(step.number));
        });
        break;
    case Op::Bool: Serialize(s, step.number != 0); break;
    case Op::CompactSize: {
        // Through CompactSizeFormatter (Core's COMPACTSIZE), whose Ser calls WriteCompactSize.
        uint64_t value = step.number;
        Serialize(s, subject::Using<subject::CompactSizeFormatter<true>>(value));
        break;
    }
    case Op::VarInt:
        // Through VarIntFormatter (Core's VARINT), whose Ser calls WriteVarInt (kViaDirect calls that one).
        with_varint_type(step.kind, [&]<subject::VarIntMode Mode, typename I>() {
            I value = static_cast<I>(step.number);
            Serialize(s, subject::Using<subject::VarIntFormatter<Mode>>(value));
        });
        break;
    case Op::RawBytes: case Op::Skip: Serialize(s, subject::Span<const uint8_t>(step.bytes)); break;
    case Op::ByteVector: Serialize(s, step.bytes); break;
    case Op::String: Serialize(s, std::string(step.bytes.begin(), step.bytes.end())); break;
    case Op::LimitedString: {
        // Through the LimitedString formatter's writer where the stream has operator<< (every serdiff writer that has
        // one; Core's formatter writes with it: Core's DataStream and SizeComputer, and the VectorWriter and SpanWriter
        // wrappers, which hand it to Core's), else as a plain string.
        std::string text(step.bytes.begin(), step.bytes.end());
        if constexpr (requires(const std::string& v) { s << v; }) Serialize(s, subject::LimitedString<kStreamStringLimit>(text));
        else Serialize(s, text);
        break;
    }
    case Op::Prevector: Serialize(s, ScriptLike(step.bytes.begin(), step.bytes.end())); break;
    case Op::IntegerVector: case Op::ListAsSet: Serialize(s, step.integers); break;
    case Op::ByteArray: {
        std::array<uint8_t, 32> array{};
        std::copy_n(step.bytes.begin(), 32, array.begin());
        Serialize(s, array);
        break;
    }
    case Op::IntegerArray: {
        const std::array<uint16_t, 3> array{static_cast<uint16_t>(step.integers[0]), static_cast<uint16_t>(step.integers[1]),
                                            static_cast<uint16_t>(step.integers[2])};
        subject::serialize_integer_array(s, array);
        break;
    }
    case Op::Pair: Serialize(s, PairValue(step.integers[0], std::string(step.bytes.begin(), step.bytes.end()))); break;
    case Op::Map: Serialize(s, std::map<uint16_t, uint8_t>(step.pairs.begin(), step.pairs.end())); break;
    case Op::PairListAsMap: Serialize(s, step.pairs); break;
    case Op::Set: Serialize(s, std::set<uint32_t>(step.integers.begin(), step.integers.end())); break;
    case Op::Flush:
        if constexpr (requires { s.flush(); }) s.flush();
        break;
    }
}

// A step as one object, so a stream's operator<< and operator>> can take it (kViaShift).
struct ViaStep {
    const StreamStep& step;
    Via via;            // the other bits, for the calls inside
    std::string value;  // what a read gave
};
struct StepFormatter {
    template <typename S>
    static void Ser(S& s, const ViaStep& wrapped)
    {
        write_optimized(s, wrapped.step, wrapped.via);
    }
    template <typename S>
    static void Unser(S& s, ViaStep& wrapped);  // below read_optimized
};

// A stream given kViaShift goes through its operator<< / operator>>; one without the operator would fall back to the
// Serialize calls without a word (Core's wrapper streams have neither, and are never given kViaShift). So every
// stream the checks below give kViaShift is asserted here to have the operator, on both subjects.
template <typename S>
concept ShiftWritable = requires(S& s, const ViaStep& wrapped) { s << subject::Using<StepFormatter>(wrapped); };
template <typename S>
concept ShiftReadable = requires(S& s, ViaStep& wrapped) { s >> subject::Using<StepFormatter>(wrapped); };
static_assert(ShiftWritable<subject::DataStream> && ShiftWritable<subject::VectorWriter> &&
              ShiftWritable<subject::SpanWriter>);
static_assert(ShiftReadable<subject::DataStream> && ShiftReadable<subject::SpanReader>);

template <typename S>
void write_step(S& s, const StreamStep& step, Via via, std::string_view name, std::span<const uint8_t> input)
{
    if (via & kViaShift) {
        if constexpr (ShiftWritable<S>) {
            const ViaStep wrapped{step, via & ~kViaShift, {}};
            auto& result = (s << subject::Using<StepFormatter>(wrapped));
            if (&result != &s)
                report_mismatch("primitive_stream " + std::string(name), "operator<< did not return the writer",
                                std::string("after ") + stream_operation_name(step.write), input);
            return;
        }
    }
    write_optimized(s, step, via);
}

// A string read on the subject's side. Core's Unserialize(std::string) resizes the string to its claimed length
// (up to MAX_SIZE, 32 MiB) before the bytes arrive, past the fuzz binaries' 16 MiB allocation bound: a finding
// (docs/core.md), let pass as a peer's allocation (differential/allocation_bound.h) so that fuzzing goes on past it.
template <typename Read>
void reading_string(const Read& read)
{
    if constexpr (subject::kStringReadAllocatesClaimedLength) {
        const PeerAllocations claimed_length_allowed;
        read();
    } else {
        read();
    }
}

template <typename S>
std::string read_optimized(S& s, const StreamStep& step, Via via = 0)
{
    using subject::Unserialize;
    if (via & kViaDirect) {
        switch (step.read) {
        case Op::U8: return std::to_string(subject::ser_readdata8(s));
        case Op::U16: return std::to_string(subject::ser_readdata16(s));
        case Op::U32: return std::to_string(subject::ser_readdata32(s));
        case Op::U64: return std::to_string(subject::ser_readdata64(s));
        case Op::U16BigEndian: return std::to_string(subject::ser_readdata16be(s));
        case Op::U32BigEndian: return std::to_string(subject::ser_readdata32be(s));
        case Op::U64BigEndian: return std::to_string(subject::ser_readdata64be(s));
        case Op::I8: return std::to_string(static_cast<int8_t>(subject::ser_readdata8(s)));
        case Op::I16: return std::to_string(static_cast<int16_t>(subject::ser_readdata16(s)));
        case Op::I32: return std::to_string(static_cast<int32_t>(subject::ser_readdata32(s)));
        case Op::I64: return std::to_string(static_cast<int64_t>(subject::ser_readdata64(s)));
        case Op::CompactSize: return std::to_string(subject::ReadCompactSize(s, step.range_check));
        case Op::VarInt: {
            std::string out;
            with_varint_type(step.read_kind, [&]<subject::VarIntMode Mode, typename I>() {
                out = std::to_string(subject::ReadVarInt<Mode, I>(s));
            });
            return out;
        }
        default: break;
        }
    }
    auto plain = [&]<typename T>() {
        T value{};
        Unserialize(s, value);
        return std::to_string(value);
    };
    switch (step.read) {
    case Op::U8: return plain.template operator()<uint8_t>();
    case Op::U16: return plain.template operator()<uint16_t>();
    case Op::U32: return plain.template operator()<uint32_t>();
    case Op::U64: return plain.template operator()<uint64_t>();
    case Op::U16BigEndian: return std::to_string(subject::read_big_endian<uint16_t>(s));
    case Op::U32BigEndian: return std::to_string(subject::read_big_endian<uint32_t>(s));
    case Op::U64BigEndian: return std::to_string(subject::read_big_endian<uint64_t>(s));
    case Op::I8: return plain.template operator()<int8_t>();
    case Op::I16: return plain.template operator()<int16_t>();
    case Op::I32: return plain.template operator()<int32_t>();
    case Op::I64: return plain.template operator()<int64_t>();
    case Op::CustomWidth: {
        uint64_t value = 0;
        with_custom_width(step.read_width, step.read_big_endian,
                          [&]<typename Formatter>() { Unserialize(s, subject::Using<Formatter>(value)); });
        return std::to_string(value);
    }
    case Op::Bool: {
        bool value = false;
        Unserialize(s, value);
        return value ? "true" : "false";
    }
    case Op::CompactSize: {
        // Through CompactSizeFormatter's Unser, which calls ReadCompactSize (as the write above).
        uint64_t value = 0;
        if (step.range_check) Unserialize(s, subject::Using<subject::CompactSizeFormatter<true>>(value));
        else Unserialize(s, subject::Using<subject::CompactSizeFormatter<false>>(value));
        return std::to_string(value);
    }
    case Op::VarInt: {
        std::string out;
        // Through VarIntFormatter's Unser, which calls ReadVarInt (as the write above).
        with_varint_type(step.read_kind, [&]<subject::VarIntMode Mode, typename I>() {
            I value{};
            Unserialize(s, subject::Using<subject::VarIntFormatter<Mode>>(value));
            out = std::to_string(value);
        });
        return out;
    }
    case Op::RawBytes: {
        Bytes bytes(static_cast<size_t>(step.read_count));
        Unserialize(s, subject::Span<uint8_t>(bytes));
        return render_bytes(bytes);
    }
    case Op::Skip: s.ignore(static_cast<size_t>(step.read_count)); return "skipped";
    case Op::ByteVector: {
        Bytes bytes;
        Unserialize(s, bytes);
        return render_bytes(bytes);
    }
    case Op::String: {
        std::string text;
        reading_string([&] { Unserialize(s, text); });
        return render_bytes(text);
    }
    case Op::LimitedString: {
        std::string text;
        Unserialize(s, subject::LimitedString<kStreamStringLimit>(text));
        return render_bytes(text);
    }
    case Op::Prevector: {
        ScriptLike script;
        Unserialize(s, script);
        return render_bytes(std::span<const uint8_t>(script.data(), script.size()));
    }
    case Op::IntegerVector: {
        std::vector<uint32_t> items;
        Unserialize(s, items);
        return render_list(items);
    }
    case Op::ByteArray: {
        std::array<uint8_t, 32> array{};
        Unserialize(s, array);
        return render_bytes(array);
    }
    case Op::IntegerArray: {
        std::array<uint16_t, 3> array{};
        subject::unserialize_integer_array(s, array);
        return render_list(array);
    }
    case Op::Pair: {
        PairValue pair;
        reading_string([&] { Unserialize(s, pair); });
        return render_pair(pair);
    }
    case Op::Map: case Op::PairListAsMap: {
        std::map<uint16_t, uint8_t> items;
        Unserialize(s, items);
        return render_map(items);
    }
    case Op::Set: case Op::ListAsSet: {
        std::set<uint32_t> items;
        Unserialize(s, items);
        return render_list(items);
    }
    case Op::Flush: return "nothing";
    }
    return "";
}

// ----------------------------------------------------------------------------------------- reference side

void write_reference(reference::Writer& w, const StreamStep& step)
{
    switch (step.write) {
    case Op::U8: case Op::U16: case Op::U32: case Op::U64: w.write_uint(step.number, integer_width(step.write)); break;
    case Op::U16BigEndian: case Op::U32BigEndian: case Op::U64BigEndian:
        w.write_uint(step.number, integer_width(step.write), true);
        break;
    case Op::I8: case Op::I16: case Op::I32: case Op::I64: {
        // Sign-extend the masked two's-complement pattern to the value it stands for.
        const int bits = 8 * integer_width(step.write);
        const int64_t value = bits == 64 ? static_cast<int64_t>(step.number)
                                         : static_cast<int64_t>(step.number << (64 - bits)) >> (64 - bits);
        w.write_int(value, integer_width(step.write));
        break;
    }
    case Op::CustomWidth: w.write_uint(step.number, step.width, step.big_endian); break;
    case Op::Bool: w.write_bool(step.number != 0); break;
    case Op::CompactSize: w.write_compactsize(step.number); break;
    case Op::VarInt: w.write_varint(step.number, step.kind); break;
    case Op::RawBytes: case Op::Skip: w.write_bytes(step.bytes); break;
    case Op::ByteVector: case Op::Prevector: w.write_byte_vector(step.bytes); break;
    case Op::String: case Op::LimitedString:
        w.write_string(std::string_view(reinterpret_cast<const char*>(step.bytes.data()), step.bytes.size()));
        break;
    case Op::IntegerVector: case Op::ListAsSet:
        w.write_vector<uint32_t>(std::span<const uint32_t>(step.integers),
                                 [](reference::Writer& out, uint32_t value) { out.write_uint(value, 4); });
        break;
    case Op::ByteArray: w.write_bytes(step.bytes); break;
    case Op::IntegerArray:
        w.write_array<uint32_t>(std::span<const uint32_t>(step.integers),
                                [](reference::Writer& out, uint32_t value) { out.write_uint(value, 2); });
        break;
    case Op::Pair:
        w.write_uint(step.integers[0], 4);
        w.write_byte_vector(step.bytes);
        break;
    case Op::Map:
        w.write_map(std::map<uint16_t, uint8_t>(step.pairs.begin(), step.pairs.end()),
                    [](reference::Writer& out, uint16_t key) { out.write_uint(key, 2); },
                    [](reference::Writer& out, uint8_t value) { out.write_uint(value, 1); });
        break;
    case Op::PairListAsMap:
        w.write_vector<std::pair<uint16_t, uint8_t>>(std::span<const std::pair<uint16_t, uint8_t>>(step.pairs),
                                                     [](reference::Writer& out, const std::pair<uint16_t, uint8_t>& pair) {
                                                         out.write_uint(pair.first, 2);
                                                         out.write_uint(pair.second, 1);
                                                     });
        break;
    case Op::Set:
        w.write_set(std::set<uint32_t>(step.integers.begin(), step.integers.end()),
                    [](reference::Writer& out, uint32_t value) { out.write_uint(value, 4); });
        break;
    case Op::Flush: break;
    }
}

std::string read_reference(reference::Reader& r, const StreamStep& step)
{
    auto read_u16 = [](reference::Reader& in) { return static_cast<uint16_t>(in.read_uint(2)); };
    auto read_u32 = [](reference::Reader& in) { return static_cast<uint32_t>(in.read_uint(4)); };
    switch (step.read) {
    case Op::U8: case Op::U16: case Op::U32: case Op::U64: return std::to_string(r.read_uint(integer_width(step.read)));
    case Op::U16BigEndian: case Op::U32BigEndian: case Op::U64BigEndian:
        return std::to_string(r.read_uint(integer_width(step.read), true));
    case Op::I8: case Op::I16: case Op::I32: case Op::I64: return std::to_string(r.read_int(integer_width(step.read)));
    case Op::CustomWidth: return std::to_string(r.read_uint(step.read_width, step.read_big_endian));
    case Op::Bool: return r.read_bool() ? "true" : "false";
    case Op::CompactSize: return std::to_string(r.read_compactsize(step.range_check));
    case Op::VarInt: return std::to_string(r.read_varint(step.read_kind));
    case Op::RawBytes: return render_bytes(r.read_bytes(static_cast<size_t>(step.read_count)));
    case Op::Skip: r.skip(static_cast<size_t>(step.read_count)); return "skipped";
    case Op::ByteVector: case Op::Prevector: return render_bytes(r.read_byte_vector());
    case Op::String: return render_bytes(r.read_string());
    case Op::LimitedString: return render_bytes(r.read_limited_string(kStreamStringLimit));
    case Op::IntegerVector: return render_list(r.read_vector<uint32_t>(read_u32));
    case Op::ByteArray: return render_bytes(r.read_bytes(32));
    case Op::IntegerArray: return render_list(r.read_array<uint16_t>(3, read_u16));
    case Op::Pair:
        return render_pair(r.read_pair<uint32_t, std::string>(read_u32, [](reference::Reader& in) { return in.read_string(); }));
    case Op::Map: case Op::PairListAsMap:
        return render_map(r.read_map<uint16_t, uint8_t>(read_u16, [](reference::Reader& in) { return in.read_byte(); }));
    case Op::Set: case Op::ListAsSet: return render_list(r.read_set<uint32_t>(read_u32));
    case Op::Flush: return "nothing";
    }
    return "";
}

// ----------------------------------------------------------------------------------------- comparison

std::string trace_entry(size_t index, const StreamStep& step, const std::string& value, uint64_t position)
{
    return "#" + std::to_string(index) + " " + stream_operation_name(step.read) + " = " + value + " @" +
           std::to_string(position);
}

template <typename S>
void StepFormatter::Unser(S& s, ViaStep& wrapped)
{
    wrapped.value = read_optimized(s, wrapped.step, wrapped.via);
}

// One step read from an optimized reader the way `via` says.
template <typename S>
std::string read_step(S& s, const StreamStep& step, Via via, std::string_view name, std::span<const uint8_t> input)
{
    if (via & kViaShift) {
        if constexpr (ShiftReadable<S>) {
            ViaStep wrapped{step, via & ~kViaShift, {}};
            auto& result = (s >> subject::Using<StepFormatter>(wrapped));
            if (&result != &s)
                report_mismatch("primitive_stream " + std::string(name), "operator>> did not return the reader",
                                std::string("after ") + stream_operation_name(step.read), input);
            return wrapped.value;
        }
    }
    return read_optimized(s, step, via);
}

// Where a program's reads stopped: the step that failed and the stream's offset before and after it.
struct FailedRead {
    bool failed = false;
    size_t step = 0;
    uint64_t before = 0, after = 0;
};

// Reads every step (the way `via` says) until the first SerializeError; `position` gives the stream's offset into
// the data.
template <typename S, typename Position>
Trace trace_optimized(S& s, const StreamProgram& program, Position position, FailedRead* failed_read, Via via,
                      std::string_view name, std::span<const uint8_t> input)
{
    Trace trace;
    size_t i = 0;
    uint64_t before = 0;
    try {
        for (; i < program.steps.size(); ++i) {
            before = position();
            // The read first, then the position after it: two statements, since the order in which a call's
            // arguments are evaluated is unspecified (gcc evaluated position() first, before the read).
            const std::string value = read_step(s, program.steps[i], via, name, input);
            trace.push_back(trace_entry(i, program.steps[i], value, position()));
        }
        // An empty read reads nothing, at the end of the data too: the position stays and nothing fails (Core's
        // readers return at once; serdiff's must not hand memcpy the empty span's null data()).
        const uint64_t end = position();
        s.read(std::span<std::byte>());
        if (position() != end)
            report_mismatch("primitive_stream " + std::string(name), "an empty read() moved the position",
                            "from " + std::to_string(end) + " to " + std::to_string(position()), input);
    } catch (const subject::ReadError& error) {
        trace.push_back("error: " + subject::read_error_text(error));
        if (failed_read) *failed_read = {true, i, before, position()};
    }
    return trace;
}

// DataStream and SpanReader, as Bitcoin Core's, check a read's length before they copy or skip: a step that
// is one read (a fixed-width integer, a raw span, a byte array, a skip) and fails leaves the read position
// where it was, so a caller that catches the error can read again. (A file stream has read what was there.)
void check_failed_read_consumed_nothing(std::string_view reader, const StreamProgram& program, const FailedRead& failed,
                                        std::span<const uint8_t> input)
{
    if (!failed.failed || failed.after == failed.before) return;
    switch (program.steps[failed.step].read) {
    case Op::U8: case Op::I8: case Op::U16: case Op::U32: case Op::U64: case Op::U16BigEndian: case Op::U32BigEndian: case Op::U64BigEndian:
    case Op::I16: case Op::I32: case Op::I64: case Op::RawBytes: case Op::ByteArray: case Op::Skip: break;
    default: return;  // several reads: the ones before the failing one moved the position
    }
    report_mismatch("primitive_stream " + std::string(reader) + " read", "a failed read moved the read position",
                    "step " + std::to_string(failed.step) + " (" + stream_operation_name(program.steps[failed.step].read) +
                        ") failed at offset " + std::to_string(failed.before) + " and left the position at " +
                        std::to_string(failed.after),
                    input);
}

Trace trace_reference(std::span<const uint8_t> data, const StreamProgram& program)
{
    reference::Reader r(data);
    Trace trace;
    for (size_t i = 0; i < program.steps.size(); ++i) {
        const std::string value = read_reference(r, program.steps[i]);
        if (r.failed()) {
            trace.push_back(std::string("error: ") + r.error());
            break;
        }
        trace.push_back(trace_entry(i, program.steps[i], value, r.position()));
    }
    return trace;
}

void compare_position(std::string_view writer, size_t index, const StreamStep& step, uint64_t optimized,
                      uint64_t reference, std::span<const uint8_t> input)
{
    observe_number([writer, index] { return "primitive_stream " + std::string(writer) + " position after write " +
                                            std::to_string(index); },
                   optimized, reference);
    if (optimized == reference) return;
    report_mismatch("primitive_stream " + std::string(writer), "position after a write differs",
                    "after operation #" + std::to_string(index) + " (" + stream_operation_name(step.write) +
                        "): " + subject_side() + " at " + std::to_string(optimized) + ", reference wrote " +
                        std::to_string(reference) + " bytes",
                    input);
}

// The operations both sides write with one write() of the stream (Core's too: ser_writedata*, one span, a byte
// array's MakeByteSpan), which a SpanWriter refuses whole when it does not fit; CompactSize and VarInt (Core writes
// them byte by byte), strings, vectors and the other containers may stop part way.
bool writes_one_value(Op operation)
{
    switch (operation) {
    case Op::U8: case Op::U16: case Op::U32: case Op::U64: case Op::U16BigEndian: case Op::U32BigEndian:
    case Op::U64BigEndian: case Op::I8: case Op::I16: case Op::I32: case Op::I64: case Op::CustomWidth: case Op::Bool:
    case Op::RawBytes: case Op::Skip: case Op::ByteArray:
        return true;
    default:
        return false;
    }
}

// Runs the steps on an optimized writer the way `via` says, checking its position (relative to where it started)
// after each; then an empty write() (every caller in the serializer skips empty spans, so only this reaches the
// writers' own check), which must write nothing and not throw.
template <typename S, typename Position>
void write_all(std::string_view name, S& s, const StreamProgram& program, const std::vector<size_t>& ends,
               Position position, std::span<const uint8_t> input, Via via = 0)
{
    for (size_t i = 0; i < program.steps.size(); ++i) {
        write_step(s, program.steps[i], via, name, input);
        compare_position(name, i, program.steps[i], position(), ends[i], input);
    }
    s.write(std::span<const std::byte>());
    const size_t end = ends.empty() ? 0 : ends.back();
    if (position() != end)
        report_mismatch("primitive_stream " + std::string(name), "an empty write() moved the position",
                        "from " + std::to_string(end) + " to " + std::to_string(position()), input);
}

void check_file_writers(const StreamProgram& program, const Bytes& expected, const std::vector<size_t>& ends,
                        std::span<const uint8_t> input)
{
    static MemoryFile direct_file("serdiff-autofile-writer");
    static MemoryFile buffered_file("serdiff-bufferedwriter");
    static MemoryFile reference_file("serdiff-reference-filewriter");
    const uint64_t start = program.file_start;
    {
        subject::AutoFile file{direct_file.open("wb", start), program.key};
        write_all("AutoFile", file, program, ends, [&] { return file.position() - start; }, input, kViaDirect);
        file.close();
    }
    if (subject::kHasBufferedFiles) {  // (a Core tree older than BufferedWriter: docs/core.md)
        const ObservedOnlyIfShared only_if_shared(kFeatureBufferedFiles);
        subject::AutoFile file{buffered_file.open("wb", start), program.key};
        subject::BufferedWriter writer{file, program.writer_buffer_size};
        write_all("BufferedWriter", writer, program, ends, [&] { return writer.position() - start; }, input);
        writer.close();
    }
    {
        reference::FileWriter writer{reference_file.open("wb", start), program.key};
        size_t written = 0;
        for (size_t i = 0; i < program.steps.size(); ++i) {
            if (program.steps[i].write == Op::Flush) writer.flush();
            writer.write(std::as_bytes(std::span(expected).subspan(written, ends[i] - written)));
            written = ends[i];
        }
        writer.close();
    }
    const Bytes reference_bytes = reference_file.contents();
    compare_bytes("primitive_stream AutoFile file", direct_file.contents(), reference_bytes, input);
    if (subject::kHasBufferedFiles) {
        const ObservedOnlyIfShared only_if_shared(kFeatureBufferedFiles);
        compare_bytes("primitive_stream BufferedWriter file", buffered_file.contents(), reference_bytes, input);
    }
}

// A DataStream's size(), empty() and (serdiff's) unread() at read position `at` of `data` (what it holds): the bytes from there on (all
// of them compared up to 64 KiB, else the first 64 and the last).
template <typename Stream>
void check_unread(std::string_view where, const Stream& stream, std::span<const uint8_t> data, size_t at,
                  std::span<const uint8_t> input)
{
    const std::span<const std::byte> want = std::as_bytes(data.subspan(std::min(at, data.size())));
    std::span<const std::byte> unread = want;  // Core's DataStream has no unread(): size() only
    if constexpr (requires { stream.unread(); }) unread = std::as_bytes(stream.unread());
    const size_t head = want.size() <= kMaxStreamFileProgramBytes ? want.size() : std::min<size_t>(64, want.size());
    const bool is_empty = stream.empty();  // serdiff's and Core's DataStream both have it: no byte left to read
    const bool same = stream.size() == want.size() && unread.size() == want.size() && is_empty == want.empty() &&
                      (want.empty() || (std::memcmp(unread.data(), want.data(), head) == 0 && unread.back() == want.back()));
    if (!same)
        report_mismatch("primitive_stream " + std::string(where), "size()/unread()/empty() are not the bytes not yet read",
                        "at " + std::to_string(at) + " of " + std::to_string(data.size()) + ": size() " +
                            std::to_string(stream.size()) + ", unread() " + std::to_string(unread.size()) +
                            " bytes, empty() " + (is_empty ? "true" : "false"),
                        input);
    // Core's DataStream gives up what it holds once nothing is left to read (else a stream read to its end and written
    // again keeps every byte it ever held).
    if constexpr (requires { stream.held(); })
        if (want.empty() && stream.held() != 0)
            report_mismatch("primitive_stream " + std::string(where), "a DataStream read to its end still holds its bytes",
                            "at " + std::to_string(at) + " of " + std::to_string(data.size()) + ": holds " +
                                std::to_string(stream.held()) + " bytes, none left to read",
                            input);
    // Core's DataStream also views the bytes not yet read through operator[], begin()/end(), data() and str().
    if constexpr (requires { stream[size_t{0}]; stream.begin(); stream.end(); stream.data(); stream.str(); }) {
        // data() over what the size() check compared; operator[] and begin() over the first 64 bytes and the last
        // (each is the same pointer plus the read position); str(), a copy of what is left, only while that is at most
        // 256 bytes (near the end of every read): a replay of the corpus through Core took twice as long with more.
        bool views = static_cast<size_t>(stream.end() - stream.begin()) == want.size() &&
                     (want.empty() || std::memcmp(stream.data(), want.data(), head) == 0);
        if (views && want.size() <= 256) {
            const std::string text = stream.str();
            views = text.size() == want.size() && (want.empty() || std::memcmp(text.data(), want.data(), want.size()) == 0);
        }
        const auto same_at = [&](size_t i) { return stream[i] == want[i] && stream.begin()[i] == want[i]; };
        for (size_t i = 0; views && i < std::min<size_t>(head, 64); ++i) views = same_at(i);
        if (views && !want.empty()) views = same_at(want.size() - 1);
        if (!views)
            report_mismatch("primitive_stream " + std::string(where),
                            "operator[], begin()/end(), data() or str() are not the bytes not yet read",
                            "at " + std::to_string(at) + " of " + std::to_string(data.size()) + ": end() - begin() " +
                                std::to_string(stream.end() - stream.begin()) + ", str() " + std::to_string(stream.str().size()) +
                                " bytes",
                            input);
    }
}

void check_writers(const StreamProgram& program, const Bytes& expected, const std::vector<size_t>& ends,
                   std::span<const uint8_t> input)
{
    {
        subject::DataStream stream;
        write_all("DataStream", stream, program, ends, [&] { return subject::written(stream).size(); }, input,
                  kViaShift | kViaDirect);
        compare_bytes("primitive_stream DataStream", subject::written(stream), expected, input);
        check_unread("DataStream written", stream, expected, 0, input);
        if (expected.size() <= kMaxStreamFileProgramBytes) {
            // reserve() below the written bytes keeps them, and the stream still grows past where its buffer ended;
            // reserve() above them keeps them too.
            stream.reserve(expected.size() / 2);
            const Bytes more(8 * expected.size() + 256, 0x5a);
            stream.write(std::as_bytes(std::span<const uint8_t>(more)));
            stream.reserve(2 * (expected.size() + more.size()));
            Bytes both = expected;
            both.insert(both.end(), more.begin(), more.end());
            compare_bytes("primitive_stream DataStream after reserve()", subject::written(stream), both, input);
            check_unread("DataStream after reserve()", stream, both, 0, input);
        }
        // clear() empties the stream, its read position included (Core's too): what is written next is all it holds.
        stream.clear();
        check_unread("DataStream after clear()", stream, {}, 0, input);
        static constexpr uint8_t kAfterClear[2] = {0xa5, 0x5a};
        stream.write(std::as_bytes(std::span<const uint8_t>(kAfterClear)));
        check_unread("DataStream written after clear()", stream, kAfterClear, 0, input);
    }
    const auto check_vector_writer = [&](std::string_view name, Via via) {
        std::vector<uint8_t> target = program.vector_writer_initial;
        const size_t start = program.vector_writer_position;
        subject::VectorWriter writer(target, start);
        write_all(name, writer, program, ends, [&] { return writer.position() - start; }, input, via);
        // The initial vector, zero-padded to the start, overwritten from there and extended.
        Bytes wanted = program.vector_writer_initial;
        if (wanted.size() < start) wanted.resize(start);
        if (wanted.size() < start + expected.size()) wanted.resize(start + expected.size());
        std::copy(expected.begin(), expected.end(), wanted.begin() + static_cast<std::ptrdiff_t>(start));
        compare_bytes(
            [&] {
                return "primitive_stream " + std::string(name) + " (initial " +
                       std::to_string(program.vector_writer_initial.size()) + " bytes, start " +
                       std::to_string(start) + ")";
            },
            target, wanted, input);
    };
    check_vector_writer("VectorWriter", kViaShift);
    {
        subject::SizeComputer sizer;
        write_all("SizeComputer", sizer, program, ends, [&] { return sizer.size(); }, input);
        // GetSizeOfVarInt against what the reference wrote for each VarInt step.
        for (size_t i = 0; i < program.steps.size(); ++i) {
            const StreamStep& step = program.steps[i];
            if (step.write != Op::VarInt) continue;
            const size_t written = ends[i] - (i == 0 ? 0 : ends[i - 1]);
            with_varint_type(step.kind, [&]<subject::VarIntMode Mode, typename I>() {
                const size_t size = subject::GetSizeOfVarInt<Mode, I>(static_cast<I>(step.number));
                if (size != written)
                    report_mismatch("primitive_stream GetSizeOfVarInt", "the size differs from the bytes written",
                                    "step " + std::to_string(i) + ": " + std::to_string(size) + " against " +
                                        std::to_string(written),
                                    input);
            });
        }
    }
    if (subject::kHasSpanWriter) {  // (a Core tree older than SpanWriter: docs/core.md)
        const ObservedOnlyIfShared only_if_shared(kFeatureSpanWriter);
        Bytes target(expected.size());
        subject::SpanWriter writer{std::span<uint8_t>(target)};
        write_all("SpanWriter", writer, program, ends, [&] { return writer.position(); }, input, kViaShift);
        compare_bytes("primitive_stream SpanWriter", target, expected, input);
    }
    if (std::ranges::any_of(program.steps, [](const StreamStep& step) {
            return step.write == Op::U8 || step.write == Op::I8 || step.write == Op::Bool;
        })) {
        if (subject::kHasSpanWriter) {
            const ObservedOnlyIfShared only_if_shared(kFeatureSpanWriter);
            Bytes target(expected.size());
            subject::SpanWriter writer{std::span<uint8_t>(target)};
            write_all("SpanWriter (one-byte spans)", writer, program, ends, [&] { return writer.position(); }, input,
                      kViaOneByteSpans);
            compare_bytes("primitive_stream SpanWriter (one-byte spans)", target, expected, input);
        }
        // The other in-memory writers' write() of a one-byte static-extent span (their own fast path) too.
        subject::DataStream stream;
        write_all("DataStream (one-byte spans)", stream, program, ends, [&] { return subject::written(stream).size(); },
                  input, kViaOneByteSpans);
        compare_bytes("primitive_stream DataStream (one-byte spans)", subject::written(stream), expected, input);
        check_vector_writer("VectorWriter (one-byte spans)", kViaOneByteSpans);
        subject::SizeComputer sizer;
        write_all("SizeComputer (one-byte spans)", sizer, program, ends, [&] { return sizer.size(); }, input,
                  kViaOneByteSpans);
    }
    if (subject::kHasSpanWriter && !expected.empty()) {
        const ObservedOnlyIfShared only_if_shared(kFeatureSpanWriter);
        // SpanWriter is public: a span one byte short must be refused by the write that would pass its end, with an
        // exception that says so (a caller who sized the span wrongly learns it from what()); nothing is written
        // past the span (ASan would see it).
        constexpr uint8_t kUntouched = 0xa5;
        Bytes short_target(expected.size() - 1, kUntouched);
        std::string error = "(no error)";
        subject::SpanWriter writer{std::span<uint8_t>(short_target)};
        try {
            for (const StreamStep& step : program.steps) write_optimized(writer, step);
        } catch (const std::exception& e) {
            error = e.what();
        }
        observe_text("primitive_stream SpanWriter: what() of a write past the span", error);
        if (error.find("SpanWriter") == std::string::npos)
            report_mismatch("primitive_stream SpanWriter", "a write past the end of the span was not refused with a message naming it",
                            "span of " + std::to_string(short_target.size()) + " bytes for " +
                                std::to_string(expected.size()) + ": what() = \"" + error + "\"",
                            input);
        // docs/format.md "What a failed write leaves": a value written with one write (writes_one_value) that does not
        // fit writes nothing of itself: the position stays after the steps before it, the span from there untouched.
        const auto failing = static_cast<size_t>(
            std::find_if(ends.begin(), ends.end(), [&](size_t end) { return end > short_target.size(); }) - ends.begin());
        if (failing < program.steps.size() && writes_one_value(program.steps[failing].write)) {
            const size_t before = failing == 0 ? 0 : ends[failing - 1];
            const bool untouched = std::all_of(short_target.begin() + static_cast<std::ptrdiff_t>(before), short_target.end(),
                                               [](uint8_t byte) { return byte == kUntouched; });
            if (writer.position() != before || !untouched)
                report_mismatch("primitive_stream SpanWriter", "a value that did not fit was written in part",
                                std::string(stream_operation_name(program.steps[failing].write)) + " at step " +
                                    std::to_string(failing) + ": position " + std::to_string(writer.position()) +
                                    " (before it: " + std::to_string(before) + "), span " +
                                    (untouched ? "untouched" : "written") + " past it",
                                input);
        }
    }
    if (expected.size() <= kMaxStreamFileProgramBytes) check_file_writers(program, expected, ends, input);
}

// docs/format.md "What a failed read leaves": a byte vector whose payload a file cannot fill is left as Core's
// Unserialize leaves it: nothing it held before, grown to the end of the chunk in progress (the claimed length, at most
// 5,000,000 bytes) before that chunk is read, so it holds the bytes the file delivered, then zeros. A string claimed
// within one chunk is resized to the claimed length keeping its old bytes up to there (Core's string read), so it holds
// the delivered bytes, then its old bytes, then zeros. The failing step is read again on a fresh reader (`open`
// advances it past the steps before), into a container that already holds more bytes than the file has left. A failure
// in the length itself is not compared (docs/format.md).
template <typename Open>
void check_failed_payload_read(std::string_view reader, const StreamProgram& program, std::span<const uint8_t> data,
                               const FailedRead& failed, const Open& open, std::span<const uint8_t> input)
{
    if (!failed.failed || failed.before >= data.size()) return;
    const Op op = program.steps[failed.step].read;
    if (op != Op::ByteVector && op != Op::String) return;
    const std::span<const uint8_t> rest = data.subspan(static_cast<size_t>(failed.before));
    reference::Reader length{rest};  // the claimed length as the reference reads it (canonical, <= MAX_SIZE)
    const uint64_t claimed = length.read_compactsize();
    if (length.failed()) return;  // the length fails: not compared
    const std::span<const uint8_t> payload = rest.subspan(length.position());
    if (claimed <= payload.size()) return;
    // Past one chunk serdiff empties a string and reads it in chunks, Core's resizes it at once: not compared.
    if (op == Op::String && claimed > 5'000'000) return;
    const size_t chunk_end = static_cast<size_t>(std::min<uint64_t>(claimed, 5'000'000));
    const size_t old_size = payload.size() + 16;
    constexpr uint8_t kOld = 0xa5;  // bytes a vector read must not leave behind, and a string read must keep
    std::vector<uint8_t> items(old_size, kOld);
    if (op == Op::ByteVector) {
        open(failed.step, [&](auto& stream) {
            try {
                Unserialize(stream, items);
            } catch (const std::exception&) {
            }
        });
    } else {
        std::string text(old_size, static_cast<char>(kOld));
        open(failed.step, [&](auto& stream) {
            try {
                Unserialize(stream, text);
            } catch (const std::exception&) {
            }
        });
        items.assign(text.begin(), text.end());
    }
    size_t same = 0;
    while (same < items.size() && same < payload.size() && items[same] == payload[same]) ++same;
    // After the delivered bytes: the old bytes up to the old size (a string), then zeros.
    const size_t kept = op == Op::String ? std::min(old_size, chunk_end) : 0;
    size_t wrong = items.size();
    for (size_t i = same; i < items.size(); ++i)
        if (items[i] != (i < kept ? kOld : 0)) {
            wrong = i;
            break;
        }
    if (items.size() != chunk_end || wrong != items.size())
        report_mismatch("primitive_stream " + std::string(reader) + " failed " + (op == Op::String ? "string" : "byte vector") + " read",
                        "the container after the failed read is not what Core's leaves",
                        "step " + std::to_string(failed.step) + " claims " + std::to_string(claimed) + " bytes, the file has " +
                            std::to_string(payload.size()) + "; it holds " + std::to_string(items.size()) +
                            " bytes (want " + std::to_string(chunk_end) + ")" +
                            (wrong != items.size() ? ", byte " + std::to_string(wrong) + " is " + std::to_string(items[wrong]) +
                                                         (op == Op::String ? " (want the file's bytes, then the old bytes, then zeros)"
                                                                           : " (want the file's bytes, then zeros)")
                                                   : std::string()),
                        input);
}

void check_readers(const StreamProgram& program, Bytes data, std::span<const uint8_t> input)
{
    data.resize(data.size() - std::min(data.size(), program.truncate_tail));
    if (program.corrupt_offset != 0 && !data.empty()) data[(program.corrupt_offset - 1) % data.size()] ^= 0x80;
    const Trace expected = trace_reference(data, program);
    {
        subject::DataStream stream(data);
        FailedRead failed;
        const auto position = [&] {
            const size_t at = subject::read_position(stream);
            check_unread("DataStream read", stream, data, at, input);
            return at;
        };
        compare_traces("primitive_stream DataStream read",
                       trace_optimized(stream, program, position, &failed, kViaShift | kViaDirect, "DataStream read", input),
                       expected, input);
        check_failed_read_consumed_nothing("DataStream", program, failed, input);
    }
    {
        subject::SpanReader reader(data);
        FailedRead failed;
        const auto position = [&] {
            const size_t at = data.size() - reader.size();
            check_unread("SpanReader read", reader, data, at, input);
            return at;
        };
        compare_traces("primitive_stream SpanReader read",
                       trace_optimized(reader, program, position, &failed, kViaShift, "SpanReader read", input), expected, input);
        check_failed_read_consumed_nothing("SpanReader", program, failed, input);
    }
    if (data.size() > kMaxStreamFileProgramBytes) return;
    static MemoryFile read_file("serdiff-stream-reader");
    const uint64_t start = program.file_start;
    Bytes stored(start, 0);
    stored.insert(stored.end(), data.begin(), data.end());
    reference::obfuscate(std::as_writable_bytes(std::span(stored)).subspan(start), start, program.key);
    read_file.assign(stored);
    {
        subject::AutoFile file{read_file.open("rb", start), program.key};
        FailedRead failed;
        compare_traces("primitive_stream AutoFile read",
                       trace_optimized(file, program, [&] { return file.position() - start; }, &failed, kViaDirect,
                                       "AutoFile read", input),
                       expected, input);
        check_failed_payload_read("AutoFile", program, data, failed, [&](size_t step, const auto& read) {
            subject::AutoFile again{read_file.open("rb", start), program.key};
            for (size_t i = 0; i < step; ++i) read_optimized(again, program.steps[i]);
            read(again);
        }, input);
    }
    if (subject::kHasBufferedFiles) {
        const ObservedOnlyIfShared only_if_shared(kFeatureBufferedFiles);
        subject::AutoFile file{read_file.open("rb", start), program.key};
        subject::BufferedReader reader{file, program.reader_buffer_size};
        FailedRead failed;
        compare_traces([&] { return "primitive_stream BufferedReader read (buffer " +
                                    std::to_string(program.reader_buffer_size) + ")"; },
                       trace_optimized(reader, program, [&] { return reader.position() - start; }, &failed, 0,
                                       "BufferedReader read", input),
                       expected, input);
        check_failed_payload_read("BufferedReader", program, data, failed, [&](size_t step, const auto& read) {
            subject::AutoFile again_file{read_file.open("rb", start), program.key};
            subject::BufferedReader again{again_file, program.reader_buffer_size};
            for (size_t i = 0; i < step; ++i) read_optimized(again, program.steps[i]);
            read(again);
        }, input);
    }
}

}  // namespace

const char* stream_operation_name(StreamOperation operation)
{
    static constexpr const char* kNames[kStreamOperationCount] = {
        "u8", "u16", "u32", "u64", "u16be", "u32be", "u64be", "i8", "i16", "i32", "i64", "custom_width", "bool",
        "compact_size", "varint", "raw_bytes", "byte_vector", "string", "limited_string", "prevector",
        "integer_vector", "byte_array", "integer_array", "pair", "map", "set", "pair_list_as_map", "list_as_set",
        "skip", "flush"};
    return kNames[static_cast<size_t>(operation)];
}

uint32_t subject_features()
{
    return (subject::kHasSpanWriter ? kFeatureSpanWriter : 0u) | (subject::kHasBufferedFiles ? kFeatureBufferedFiles : 0u);
}

StreamProgram parse_stream_program(std::span<const uint8_t> data)
{
    ProgramInput in(data);
    StreamProgram program;
    program.writer_buffer_size = 1 + in.byte() % 32;
    program.reader_buffer_size = 1 + in.byte() % 32;
    const size_t initial_size = in.byte() % 64;
    for (size_t i = 0; i < initial_size; ++i) program.vector_writer_initial.push_back(static_cast<uint8_t>(0xa0 + i));
    program.vector_writer_position = in.byte() % (initial_size + 9);
    program.file_start = in.byte() % 24;
    for (auto& value : program.key) value = std::byte{in.byte()};
    const uint8_t read_shape = in.byte();
    program.truncate_tail = read_shape % 16;
    program.large_payloads = (read_shape & 0xf0) == 0xa0;  // 1 in 16: large programs run ~100x slower
    program.corrupt_offset = in.byte();

    size_t budget = program.large_payloads ? kMaxLargeStreamProgramBytes : kMaxStreamProgramBytes;
    const size_t operation_limit = program.large_payloads ? kMaxLargeStreamOperationBytes : kMaxStreamOperationBytes;
    while (!in.exhausted() && program.steps.size() < kMaxStreamOperations) {
        StreamStep step;
        const uint8_t opcode = in.byte();
        step.write = static_cast<Op>((opcode & 0x7f) % kStreamOperationCount);
        parse_step_arguments(in, step, operation_limit, budget);
        step.read_width = step.width;
        step.read_big_endian = step.big_endian;
        step.read_kind = step.kind;
        step.read_count = step.bytes.size();
        step.read = step.write;
        if (opcode & 0x80) {
            // Read another type than was written: one byte shapes the read, a number gives its byte count.
            step.read = static_cast<Op>(in.byte() % kStreamOperationCount);
            const uint8_t shape = in.byte();
            step.read_width = 1 + (shape & 7);
            step.read_big_endian = (shape & 8) != 0;
            step.range_check = (shape & 16) == 0;
            step.read_kind = model::kAllIntKinds[shape >> 5];
            step.read_count = in.number_at_most(4096);
        }
        program.payload_bytes += is_byte_payload(step.write) || step.write == Op::Pair ? step.bytes.size() : 0;
        program.steps.push_back(std::move(step));
    }
    return program;
}

// A CustomWidth value that does not fit the width (one past its maximum, or negative) must be refused with
// std::out_of_range, as Core's CustomUintFormatter throws, never written truncated; the reference refuses it too.
void check_custom_width_refuses(const StreamStep& step, std::span<const uint8_t> input)
{
    if (step.write != Op::CustomWidth) return;
    const uint64_t past_max = step.width == 8 ? 0 : uint64_t{1} << (8 * step.width);
    with_custom_width(step.width, step.big_endian, [&]<typename Formatter>() {
        auto refused = [&](auto value) {
            subject::DataStream stream;
            try {
                Serialize(stream, subject::Using<Formatter>(value));
            } catch (const subject::CustomWidthRefusal& error) {
                observe_text("primitive_stream CustomWidth: the refusal's what()", error.what());
                return subject::written(stream).empty();
            }
            observe("primitive_stream CustomWidth: a value that does not fit, written", subject::written(stream));
            return false;
        };
        if ((step.width < 8 && !refused(past_max)) || !refused(int64_t{-1} - static_cast<int64_t>(step.number % 128)))
            report_mismatch("primitive_stream CustomWidth", "a value that does not fit the width was written",
                            std::to_string(step.width) + "-byte " + (step.big_endian ? "big" : "little") +
                                "-endian formatter, value " + (step.width < 8 ? std::to_string(past_max) + " or " : "") +
                                "a negative one",
                            input);
    });
    if (step.width == 8) return;  // every uint64_t fits
    reference::Writer writer;
    bool reference_refused = false;
    try {
        writer.write_uint(past_max, step.width, step.big_endian);
    } catch (const std::invalid_argument&) {
        reference_refused = true;
    }
    if (!reference_refused)
        report_mismatch("primitive_stream CustomWidth", "the reference wrote a value that does not fit the width",
                        std::to_string(step.width) + " bytes, value " + std::to_string(past_max), input);
}

// What the subject writes (or the error it throws) for a negative value in the non-negative signed mode, observed
// where the subject keeps that as its own rule (subject::divergences().negative_varint_written).
void observe_negative_varint(const StreamStep& step)
{
    with_varint_type(step.kind, [&]<subject::VarIntMode Mode, typename I>() {
        if constexpr (Mode == subject::VarIntMode::NonNegativeSigned) {
            const I negative = static_cast<I>(-1 - static_cast<int>(step.number % 64));
            subject::DataStream stream;
            std::string outcome;
            const auto written_hex = [&stream] {
                const std::span<const uint8_t> bytes = subject::written(stream);
                return model::to_hex(bytes.data(), bytes.size());
            };
            try {
                subject::WriteVarInt<Mode, I>(stream, negative);
                outcome = "wrote " + written_hex();
            } catch (const std::exception& error) {
                outcome = "threw \"" + std::string(error.what()) + "\" after " + written_hex();
            }
            observe_text([&] { return "primitive_stream VarInt: negative " + std::to_string(negative) + " (" +
                                      model::int_kind_name(step.kind) + ") in the non-negative signed mode"; },
                         outcome);
        }
    });
}

// A negative value written as a non-negative signed VarInt is a programming error: WriteVarInt must refuse it
// with std::invalid_argument saying subject::kNegativeVarIntRefusal and write nothing (a negative would encode as a
// huge unsigned number), as the reference's encoder refuses it.
void check_negative_varint_refused(const StreamStep& step, std::span<const uint8_t> input)
{
    if (step.write != Op::VarInt) return;
    if (subject::divergences().negative_varint_written) {
        // Nothing to compare with the reference (the subject writes it; docs/divergences.md), but what it writes is
        // observed: a HEAD that writes other bytes than its BASE for a negative value differs from BASE.
        if (observing()) observe_negative_varint(step);
        return;
    }
    with_varint_type(step.kind, [&]<subject::VarIntMode Mode, typename I>() {
        if constexpr (Mode == subject::VarIntMode::NonNegativeSigned) {
            const I negative = static_cast<I>(-1 - static_cast<int>(step.number % 64));
            subject::DataStream stream;
            bool refused = false;
            std::string refusal = "(no error)";
            try {
                subject::WriteVarInt<Mode, I>(stream, negative);
            } catch (const std::invalid_argument& error) {
                refusal = error.what();
                refused = subject::written(stream).empty() &&
                          (subject::kNegativeVarIntRefusal.empty() || refusal == subject::kNegativeVarIntRefusal);
            }
            bool reference_refused = false;
            try {
                reference::Writer writer;
                writer.write_varint(static_cast<uint64_t>(static_cast<int64_t>(negative)), step.kind);
            } catch (const std::invalid_argument&) {
                reference_refused = true;
            }
            if (!refused || !reference_refused)
                report_mismatch("primitive_stream VarInt", "a negative non-negative-signed VarInt was written, or refused in other words",
                                std::string(model::int_kind_name(step.kind)) + " value " + std::to_string(negative) +
                                    ": " + subject_side() + " " + (refused ? "refused" : "wrote it or refused in other words (\"" + refusal + "\")") + ", reference " +
                                    (reference_refused ? "refused" : "wrote it"),
                                input);
        }
    });
}

// serdiff's Serialize(std::array<T, N>) writes an array of non-byte elements element by element (Core serializes
// std::array of bytes only: kSerializesArraysOfAnyElement false there). The programs' integer arrays cannot tell that
// from writing the elements' object bytes on a little-endian host, so an array of strings (whose encoding, a
// CompactSize and the bytes, is not their memory) is written, compared with the reference and read back. Once per
// process: nothing in it depends on the input. (A template, so that the calls are not compiled for Core.)
// Pointers serialize their pointee (Core's CTransactionRef is a shared_ptr<const CTransaction>), and a prevector of
// non-byte elements is a CompactSize count, then each element (Core's prevector Serialize for a non-byte T): once per
// process, written and compared with the reference, then read back: the prevector on both subjects, the pointers
// where the subject reads any pointee (Core's pointer reads need the type's deserializing constructor).
template <typename Stream = subject::DataStream>
void check_pointers_and_element_prevector(std::span<const uint8_t> input)
{
    static bool checked = false;
    if (checked) return;
    checked = true;
    const std::vector<uint32_t> integers{1, 0xfffe, 0x12345678};
    const std::string text(300, 'p');  // a 3-byte CompactSize length
    const auto shared = std::make_shared<const std::vector<uint32_t>>(integers);
    const auto unique = std::make_unique<const std::string>(text);
    const subject::prevector<2, uint32_t> elements(integers.begin(), integers.end());  // 3 elements: on the heap
    Stream stream;
    subject::Serialize(stream, shared);
    subject::Serialize(stream, unique);
    subject::Serialize(stream, elements);
    reference::Writer writer;
    const auto write_u32 = [](reference::Writer& w, uint32_t value) { w.write_uint(value, 4); };
    writer.write_vector<uint32_t>(integers, write_u32);
    writer.write_string(text);
    writer.write_vector<uint32_t>(integers, write_u32);
    compare_bytes("primitive_stream shared_ptr, unique_ptr and prevector<2, uint32_t>", subject::written(stream),
                  writer.out, input);
    std::string read_back = "(not read)";
    if constexpr (subject::kReadsPointersOfAnyType) {
        std::shared_ptr<const std::vector<uint32_t>> shared_back;
        std::unique_ptr<std::string> unique_back;
        subject::Unserialize(stream, shared_back);
        subject::Unserialize(stream, unique_back);
        if (!shared_back || *shared_back != integers || !unique_back || *unique_back != text)
            report_mismatch("primitive_stream shared_ptr and unique_ptr", "read back differs from what was written",
                            std::string(shared_back ? std::to_string(shared_back->size()) + " integers" : "no vector") +
                                ", " + (unique_back ? std::to_string(unique_back->size()) + "-byte string" : "no string"),
                            input);
    } else {
        reference::Reader skip(writer.out);  // the pointers' bytes, skipped
        skip.read_vector<uint32_t>([](reference::Reader& r) { return static_cast<uint32_t>(r.read_uint(4)); });
        skip.read_string();
        stream.ignore(skip.position());
    }
    subject::prevector<2, uint32_t> elements_back(1, 7);
    subject::Unserialize(stream, elements_back);
    if (!std::ranges::equal(elements_back, integers) || !stream.empty())
        report_mismatch("primitive_stream prevector<2, uint32_t>", "read back differs from what was written",
                        std::to_string(elements_back.size()) + " elements, " + std::to_string(stream.size()) +
                            " bytes left unread",
                        input);
}

template <typename Stream = subject::DataStream>
void check_array_of_strings(std::span<const uint8_t> input)
{
    if constexpr (subject::kSerializesArraysOfAnyElement) {
        static bool checked = false;
        if (checked) return;
        checked = true;
        const std::array<std::string, 3> strings{"", "a", std::string(300, 'z')};  // counts of 1 and 3 bytes
        Stream stream;
        subject::Serialize(stream, strings);
        reference::Writer writer;
        for (const std::string& text : strings) writer.write_string(text);
        compare_bytes("primitive_stream std::array<std::string, 3>", subject::written(stream), writer.out, input);
        std::array<std::string, 3> back;
        subject::Unserialize(stream, back);
        if (back != strings || !stream.empty())
            report_mismatch("primitive_stream std::array<std::string, 3>", "read back differs from what was written",
                            "strings of " + std::to_string(back[0].size()) + ", " + std::to_string(back[1].size()) + ", " +
                                std::to_string(back[2].size()) + " bytes, " + std::to_string(stream.size()) + " left unread",
                            input);
    }
}

// A CompactSize read through CompactSizeFormatter into a narrower unsigned integer (Core's COMPACTSIZE of a
// uint8_t, uint16_t or uint32_t field) takes the value when it fits and refuses it with "size too large" when it
// does not (docs/format.md "Errors"), never truncating it; what ReadCompactSize refuses first (the range check) is
// refused alike. The step's canonical encoding is read into each narrower type and compared with the reference.
void check_compact_size_narrowing(const StreamStep& step, std::span<const uint8_t> input)
{
    reference::Writer writer;
    writer.write_compactsize(step.number);
    reference::Reader reference_reader(writer.out);
    const uint64_t read = reference_reader.read_compactsize(step.range_check);
    const auto check = [&]<typename I>() {
        std::string expected;
        if (reference_reader.failed()) expected = std::string("error: ") + reference_reader.error();
        else if (read > std::numeric_limits<I>::max()) expected = std::string("error: ") + model::errors::kSizeTooLarge;
        else expected = std::to_string(read);
        subject::SpanReader reader(writer.out);
        I value = 0;
        std::string got;
        try {
            if (step.range_check) Unserialize(reader, subject::Using<subject::CompactSizeFormatter<true>>(value));
            else Unserialize(reader, subject::Using<subject::CompactSizeFormatter<false>>(value));
            got = std::to_string(value);
        } catch (const subject::ReadError& error) {
            got = "error: " + subject::read_error_text(error);
        }
        if (got != expected)
            report_mismatch("primitive_stream CompactSize", "a CompactSize read into a narrower integer differs",
                            std::to_string(step.number) + " into a " + std::to_string(8 * sizeof(I)) + "-bit integer" +
                                (step.range_check ? "" : " (no range check)") + ": " + subject_side() + " " + got +
                                ", reference " + expected,
                            input);
    };
    check.template operator()<uint8_t>();
    check.template operator()<uint16_t>();
    check.template operator()<uint32_t>();
}

void check_stream_program(const StreamProgram& program, std::span<const uint8_t> input)
{
    check_array_of_strings(input);
    check_pointers_and_element_prevector(input);
    // The refusal checks once per formatter (width and byte order) and per VarInt kind in a program: a repeat
    // in the same program would throw the same exceptions again for nothing.
    uint32_t custom_widths_checked = 0, varint_kinds_checked = 0;
    size_t compact_sizes_narrowed = 0;  // the first 8 CompactSize steps of a program (each may throw three times)
    for (const StreamStep& step : program.steps) {
        const uint32_t custom_width = 1u << (2 * step.width + (step.big_endian ? 1 : 0));
        if (step.write == Op::CustomWidth && !(custom_widths_checked & custom_width)) {
            custom_widths_checked |= custom_width;
            check_custom_width_refuses(step, input);
        }
        const uint32_t varint_kind = 1u << static_cast<unsigned>(step.kind);
        if (step.write == Op::VarInt && !(varint_kinds_checked & varint_kind)) {
            varint_kinds_checked |= varint_kind;
            check_negative_varint_refused(step, input);
        }
        if (step.write == Op::CompactSize && compact_sizes_narrowed < 8) {
            ++compact_sizes_narrowed;
            check_compact_size_narrowing(step, input);
        }
    }
    reference::Writer writer;
    std::vector<size_t> ends;  // the reference's length after each step
    for (const StreamStep& step : program.steps) {
        write_reference(writer, step);
        ends.push_back(writer.out.size());
    }
    check_writers(program, writer.out, ends, input);
    check_readers(program, writer.out, input);
}

}  // namespace serdiff::differential
