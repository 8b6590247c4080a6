// Stream operation programs on the primitive level: the same list of (operation, argument) steps run
// through the optimized streams (DataStream, VectorWriter, SpanReader, SizeComputer) and the reference
// Writer/Reader, returning bytes or the values read, so Python can compare them with the spec codec;
// and the primitive_stream fuzz target's own programs (check_fuzz_stream_program), raising on a mismatch.
#include "stream_programs.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "differential/compare.h"
#include "differential/reference/primitives.h"
#include "differential/stream_program.h"
#include "serialize/serialize.h"
#include "serialize/streams.h"

namespace nb = nanobind;
using serdiff::model::Bytes;
using serdiff::model::IntKind;

namespace {

inline constexpr uint64_t kMaxReadDestination = 1 << 24;

enum class Operation { Unsigned, Signed, Bool, CompactSize, VarInt, Bytes, ByteVector, Skip };

// One step of a program: ("u32", 5), ("u16be", 7), ("i64", -1), ("bool", True), ("compactsize", n),
// ("varint-u32", n), ("bytes", b"..."), ("byte_vector", b"..."); when reading, the argument of "bytes" and
// "skip" is a count, of "compactsize" the range check, and of the others ignored.
struct Step {
    Operation operation = Operation::Unsigned;
    int width = 0;  // bytes of a fixed-width integer
    bool big_endian = false;
    IntKind kind = IntKind::U64;  // of a VarInt
    uint64_t number = 0;
    int64_t signed_number = 0;
    bool flag = false;
    Bytes bytes;
};

Bytes bytes_of(nb::handle object)
{
    auto data = nb::cast<nb::bytes>(object);
    const auto* begin = static_cast<const uint8_t*>(data.data());
    return Bytes(begin, begin + data.size());
}

int width_of(std::string_view digits)
{
    if (digits == "8") return 1;
    if (digits == "16") return 2;
    if (digits == "32") return 4;
    if (digits == "64") return 8;
    throw nb::value_error("integer width must be 8, 16, 32 or 64");
}

Step parse_step(nb::handle step_object, bool reading)
{
    auto step_tuple = nb::cast<nb::tuple>(step_object);
    if (step_tuple.size() != 2) throw nb::value_error("a step is (operation, argument)");
    const auto name = nb::cast<std::string>(step_tuple[0]);
    nb::handle argument = step_tuple[1];
    Step step;
    if (name.starts_with("varint-")) {
        step.operation = Operation::VarInt;
        bool known = false;
        for (IntKind kind : serdiff::model::kAllIntKinds)
            if (name.substr(7) == serdiff::model::int_kind_name(kind)) step.kind = kind, known = true;
        if (!known) throw nb::value_error("unknown VarInt kind");
        if (!reading) {
            step.number = nb::cast<uint64_t>(argument);
            const int bits = 8 * serdiff::model::int_kind_bytes(step.kind) - serdiff::model::int_kind_signed(step.kind);
            if (bits < 64 && step.number >> bits) throw nb::value_error("VarInt value does not fit its kind");
        }
    } else if (name.starts_with("u")) {
        step.operation = Operation::Unsigned;
        step.big_endian = name.ends_with("be");
        step.width = width_of(std::string_view(name).substr(1, name.size() - 1 - (step.big_endian ? 2 : 0)));
        if (step.big_endian && step.width == 1) throw nb::value_error("u8 has no byte order");
        if (!reading) {
            step.number = nb::cast<uint64_t>(argument);
            if (step.width < 8 && step.number >> (8 * step.width)) throw nb::value_error("value does not fit");
        }
    } else if (name.starts_with("i")) {
        step.operation = Operation::Signed;
        step.width = width_of(std::string_view(name).substr(1));
        if (!reading) {
            step.signed_number = nb::cast<int64_t>(argument);
            const int64_t limit = step.width == 8 ? 0 : int64_t{1} << (8 * step.width - 1);
            if (step.width < 8 && (step.signed_number < -limit || step.signed_number >= limit))
                throw nb::value_error("value does not fit");
        }
    } else if (name == "bool") {
        step.operation = Operation::Bool;
        if (!reading) step.flag = nb::cast<bool>(argument);
    } else if (name == "compactsize") {
        step.operation = Operation::CompactSize;
        if (reading) step.flag = nb::cast<bool>(argument);
        else step.number = nb::cast<uint64_t>(argument);
    } else if (name == "bytes" || name == "byte_vector" || name == "skip") {
        step.operation = name == "bytes" ? Operation::Bytes : name == "skip" ? Operation::Skip : Operation::ByteVector;
        if (step.operation == Operation::Skip && !reading) throw nb::value_error("skip is a read operation");
        if (reading && step.operation != Operation::ByteVector) step.number = nb::cast<uint64_t>(argument);
        if (!reading) step.bytes = bytes_of(argument);
    } else {
        throw nb::value_error("unknown stream operation");
    }
    return step;
}

std::vector<Step> parse_program(nb::handle program, bool reading)
{
    std::vector<Step> steps;
    for (nb::handle step : program) steps.push_back(parse_step(step, reading));
    return steps;
}

nb::bytes to_python(std::span<const uint8_t> bytes) { return nb::bytes(bytes.data(), bytes.size()); }

// --- optimized ---

namespace optimized = serdiff::optimized;
using optimized::ByteOrder;

template <ByteOrder Order, typename S>
void write_unsigned(S& s, int width, uint64_t value)
{
    switch (width) {
    case 1: optimized::write_integer<Order>(s, static_cast<uint8_t>(value)); break;
    case 2: optimized::write_integer<Order>(s, static_cast<uint16_t>(value)); break;
    case 4: optimized::write_integer<Order>(s, static_cast<uint32_t>(value)); break;
    default: optimized::write_integer<Order>(s, value); break;
    }
}

template <ByteOrder Order, typename S>
uint64_t read_unsigned(S& s, int width)
{
    switch (width) {
    case 1: return optimized::read_integer<uint8_t, Order>(s);
    case 2: return optimized::read_integer<uint16_t, Order>(s);
    case 4: return optimized::read_integer<uint32_t, Order>(s);
    default: return optimized::read_integer<uint64_t, Order>(s);
    }
}

template <typename S>
void optimized_write_varint(S& s, IntKind kind, uint64_t value)
{
    using Mode = optimized::VarIntMode;
    switch (kind) {
    case IntKind::U8: optimized::WriteVarInt<Mode::Unsigned>(s, static_cast<uint8_t>(value)); break;
    case IntKind::U16: optimized::WriteVarInt<Mode::Unsigned>(s, static_cast<uint16_t>(value)); break;
    case IntKind::U32: optimized::WriteVarInt<Mode::Unsigned>(s, static_cast<uint32_t>(value)); break;
    case IntKind::U64: optimized::WriteVarInt<Mode::Unsigned>(s, value); break;
    case IntKind::I8: optimized::WriteVarInt<Mode::NonNegativeSigned>(s, static_cast<int8_t>(value)); break;
    case IntKind::I16: optimized::WriteVarInt<Mode::NonNegativeSigned>(s, static_cast<int16_t>(value)); break;
    case IntKind::I32: optimized::WriteVarInt<Mode::NonNegativeSigned>(s, static_cast<int32_t>(value)); break;
    case IntKind::I64: optimized::WriteVarInt<Mode::NonNegativeSigned>(s, static_cast<int64_t>(value)); break;
    }
}

template <typename S>
uint64_t optimized_read_varint(S& s, IntKind kind)
{
    using Mode = optimized::VarIntMode;
    switch (kind) {
    case IntKind::U8: return optimized::ReadVarInt<Mode::Unsigned, uint8_t>(s);
    case IntKind::U16: return optimized::ReadVarInt<Mode::Unsigned, uint16_t>(s);
    case IntKind::U32: return optimized::ReadVarInt<Mode::Unsigned, uint32_t>(s);
    case IntKind::U64: return optimized::ReadVarInt<Mode::Unsigned, uint64_t>(s);
    case IntKind::I8: return static_cast<uint64_t>(optimized::ReadVarInt<Mode::NonNegativeSigned, int8_t>(s));
    case IntKind::I16: return static_cast<uint64_t>(optimized::ReadVarInt<Mode::NonNegativeSigned, int16_t>(s));
    case IntKind::I32: return static_cast<uint64_t>(optimized::ReadVarInt<Mode::NonNegativeSigned, int32_t>(s));
    case IntKind::I64: return static_cast<uint64_t>(optimized::ReadVarInt<Mode::NonNegativeSigned, int64_t>(s));
    }
    return 0;
}

template <typename S>
void optimized_write(S& s, const Step& step)
{
    switch (step.operation) {
    case Operation::Unsigned:
        if (step.big_endian) write_unsigned<ByteOrder::Big>(s, step.width, step.number);
        else write_unsigned<ByteOrder::Little>(s, step.width, step.number);
        break;
    case Operation::Signed:
        switch (step.width) {
        case 1: optimized::Serialize(s, static_cast<int8_t>(step.signed_number)); break;
        case 2: optimized::Serialize(s, static_cast<int16_t>(step.signed_number)); break;
        case 4: optimized::Serialize(s, static_cast<int32_t>(step.signed_number)); break;
        default: optimized::Serialize(s, step.signed_number); break;
        }
        break;
    case Operation::Bool: optimized::Serialize(s, step.flag); break;
    case Operation::CompactSize: optimized::WriteCompactSize(s, step.number); break;
    case Operation::VarInt: optimized_write_varint(s, step.kind, step.number); break;
    case Operation::Bytes: s.write(std::as_bytes(std::span<const uint8_t>(step.bytes))); break;
    case Operation::ByteVector: optimized::Serialize(s, step.bytes); break;
    case Operation::Skip: break;
    }
}

template <typename S>
nb::object optimized_read(S& s, const Step& step)
{
    switch (step.operation) {
    case Operation::Unsigned:
        return nb::int_(step.big_endian ? read_unsigned<ByteOrder::Big>(s, step.width)
                                        : read_unsigned<ByteOrder::Little>(s, step.width));
    case Operation::Signed:
        switch (step.width) {
        case 1: return nb::int_(optimized::read_integer<int8_t, ByteOrder::Little>(s));
        case 2: return nb::int_(optimized::read_integer<int16_t, ByteOrder::Little>(s));
        case 4: return nb::int_(optimized::read_integer<int32_t, ByteOrder::Little>(s));
        default: return nb::int_(optimized::read_integer<int64_t, ByteOrder::Little>(s));
        }
    case Operation::Bool: {
        bool value = false;
        optimized::Unserialize(s, value);
        return nb::bool_(value);
    }
    case Operation::CompactSize: return nb::int_(optimized::ReadCompactSize(s, step.flag));
    case Operation::VarInt: return nb::int_(optimized_read_varint(s, step.kind));
    case Operation::Bytes: {
        // Only a claimed count beyond both the data and 16 MiB is refused here, to bound the destination;
        // every other short read is left to the stream's own check.
        if (step.number > s.size() && step.number > kMaxReadDestination)
            optimized::throw_serialize_error(serdiff::model::errors::kEndOfData);
        Bytes bytes(step.number);
        s.read(std::as_writable_bytes(std::span<uint8_t>(bytes)));
        return to_python(bytes);
    }
    case Operation::ByteVector: {
        Bytes bytes;
        optimized::Unserialize(s, bytes);
        return to_python(bytes);
    }
    case Operation::Skip: s.ignore(step.number); return nb::none();
    }
    return nb::none();
}

// Runs read steps until the first error; returns (values, error or "", bytes consumed).
template <typename S, typename Consumed>
nb::tuple optimized_read_program(S& s, const std::vector<Step>& steps, Consumed consumed)
{
    nb::list values;
    std::string error;
    try {
        for (const Step& step : steps) values.append(optimized_read(s, step));
    } catch (const optimized::SerializeError& failure) {
        error = failure.what();
    }
    return nb::make_tuple(values, error, consumed());
}

// --- reference ---

namespace reference = serdiff::reference;

void reference_write(reference::Writer& writer, const Step& step)
{
    switch (step.operation) {
    case Operation::Unsigned: writer.write_uint(step.number, step.width, step.big_endian); break;
    case Operation::Signed: writer.write_int(step.signed_number, step.width); break;
    case Operation::Bool: writer.write_bool(step.flag); break;
    case Operation::CompactSize: writer.write_compactsize(step.number); break;
    case Operation::VarInt: writer.write_varint(step.number, step.kind); break;
    case Operation::Bytes: writer.write_bytes(step.bytes); break;
    case Operation::ByteVector: writer.write_byte_vector(step.bytes); break;
    case Operation::Skip: break;
    }
}

nb::object reference_read(reference::Reader& reader, const Step& step)
{
    switch (step.operation) {
    case Operation::Unsigned: return nb::int_(reader.read_uint(step.width, step.big_endian));
    case Operation::Signed: return nb::int_(reader.read_int(step.width));
    case Operation::Bool: return nb::bool_(reader.read_bool());
    case Operation::CompactSize: return nb::int_(reader.read_compactsize(step.flag));
    case Operation::VarInt: return nb::int_(reader.read_varint(step.kind));
    case Operation::Bytes: return to_python(reader.read_bytes(step.number));  // checked before it allocates
    case Operation::ByteVector: return to_python(reader.read_byte_vector());
    case Operation::Skip:
        reader.skip(step.number);
        return nb::none();
    }
    return nb::none();
}

}  // namespace

void bind_stream_programs(nb::module_ optimized_module, nb::module_ reference_module)
{
    optimized_module.def(
        "write_program",
        [](nb::handle program, std::string_view stream, nb::bytes initial, size_t position) {
            const std::vector<Step> steps = parse_program(program, false);
            if (stream == "datastream") {
                optimized::DataStream s;
                for (const Step& step : steps) optimized_write(s, step);
                return to_python(s.bytes());
            }
            if (stream == "vectorwriter") {
                Bytes target = bytes_of(initial);
                optimized::VectorWriter s(target, position);
                for (const Step& step : steps) optimized_write(s, step);
                return to_python(target);
            }
            throw nb::value_error("stream must be datastream or vectorwriter");
        },
        nb::arg("program"), nb::arg("stream") = "datastream", nb::arg("initial") = nb::bytes(""),
        nb::arg("position") = 0,
        "Writes the program; a vectorwriter writes into `initial` from `position` (overwriting, then appending).");
    optimized_module.def(
        "size_program",
        [](nb::handle program) {
            optimized::SizeComputer s;
            for (const Step& step : parse_program(program, false)) optimized_write(s, step);
            return s.size();
        },
        "The SizeComputer's size of the program's writes.");
    optimized_module.def(
        "read_program",
        [](nb::bytes data, nb::handle program, std::string_view stream) {
            const std::vector<Step> steps = parse_program(program, true);
            const std::span<const uint8_t> view(static_cast<const uint8_t*>(data.data()), data.size());
            if (stream == "datastream") {
                optimized::DataStream s(view);
                return optimized_read_program(s, steps, [&] { return s.read_position(); });
            }
            if (stream == "spanreader") {
                optimized::SpanReader s(view);
                return optimized_read_program(s, steps, [&] { return view.size() - s.size(); });
            }
            throw nb::value_error("stream must be datastream or spanreader");
        },
        nb::arg("data"), nb::arg("program"), nb::arg("stream") = "datastream",
        "Reads until the first error: (values, error or '', bytes consumed).");

    reference_module.def("write_program", [](nb::handle program) {
        reference::Writer writer;
        for (const Step& step : parse_program(program, false)) reference_write(writer, step);
        return to_python(writer.out);
    });
    reference_module.def("read_program", [](nb::bytes data, nb::handle program) {
        const std::vector<Step> steps = parse_program(program, true);
        reference::Reader reader(std::span<const uint8_t>(static_cast<const uint8_t*>(data.data()), data.size()));
        nb::list values;
        std::string error;
        for (const Step& step : steps) {
            nb::object value = reference_read(reader, step);
            if (reader.failed()) {
                error = reader.error();
                break;
            }
            values.append(value);
        }
        return nb::make_tuple(values, error, reader.position());
    });
}

namespace {

// Carries report_mismatch's report out of check_stream_program; bound as serdiff._native.MismatchError.
struct MismatchException : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_mismatch(const std::string& report)
{
    throw MismatchException(report);
}

// Installs throw_mismatch for one call and restores the default (print and abort) afterwards.
struct ThrowingMismatchHandler {
    ThrowingMismatchHandler() { serdiff::differential::set_mismatch_handler(throw_mismatch); }
    ~ThrowingMismatchHandler() { serdiff::differential::set_mismatch_handler(nullptr); }
    ThrowingMismatchHandler(const ThrowingMismatchHandler&) = delete;
    ThrowingMismatchHandler& operator=(const ThrowingMismatchHandler&) = delete;
};

}  // namespace

void bind_fuzz_stream_programs(nb::module_ module)
{
    nb::exception<MismatchException>(module, "MismatchError", PyExc_AssertionError);
    module.def(
        "check_fuzz_stream_program",
        [](const nb::bytes& data) {
            const Bytes input = bytes_of(data);
            const ThrowingMismatchHandler handler;
            serdiff::differential::check_stream_program(serdiff::differential::parse_stream_program(input), input);
        },
        nb::arg("data"),
        "Runs the primitive_stream fuzz target on `data` (a program in the format of docs/fuzzing.md): the\n"
        "optimized writers/readers against the reference. Raises MismatchError (an AssertionError) with the\n"
        "fuzz target's mismatch report when they differ.");
}
