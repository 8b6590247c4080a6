// Target bit_stream: the subject's bit streams (Core's BitStreamWriter/BitStreamReader and util/golombrice.h's
// Golomb-Rice coding, which BIP 158 block filters are made of) against the reference's bit-at-a-time packer
// (differential/reference/bits.h; rules in docs/format.md "Bit streams"): the bytes a program of writes gives,
// where a bad bit count stops it, and the values and stop of the same program read back from those bytes and from
// the input's own bytes.
#include <climits>
#include <string>

#include "differential/compare.h"
#include "differential/program_input.h"
#include "differential/reference/bits.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"

using namespace serdiff;

namespace {

using model::BitOp;

inline constexpr size_t kMaxOps = 256;
// Bit counts outside 0..64, which Core refuses with std::out_of_range.
inline constexpr int kBadBitCounts[] = {65, -1, 66, 127, 128, -64, INT_MAX, INT_MIN};

// Op grammar: a kind byte (0..4 bits, 5 and 6 a Golomb-Rice code, 7 an alignment, modulo 8), then for bits a count
// byte (0xf8 and up: a bad count from kBadBitCounts; else 0..64) and a number; for a Golomb-Rice code a parameter byte
// (0..63) and a number whose quotient is folded into 0..kMaxRiceQuotient. A 0xff kind byte ends the program; the
// rest of the input is read as a bit stream.
std::vector<BitOp> read_program(differential::ProgramInput& in)
{
    std::vector<BitOp> ops;
    while (ops.size() < kMaxOps && !in.exhausted()) {
        const uint8_t kind = in.byte();
        if (kind == 0xff) break;
        BitOp op;
        if (kind % 8 < 5) {
            const uint8_t count = in.byte();
            op.nbits = count >= 0xf8 ? kBadBitCounts[count - 0xf8] : count % 65;
            op.value = in.number();
        } else if (kind % 8 < 7) {
            op.kind = BitOp::Kind::kGolombRice;
            op.rice_parameter = in.byte() % 64;
            const uint64_t value = in.number();
            const uint64_t quotient = (value >> op.rice_parameter) % (model::kMaxRiceQuotient + 1);
            const uint64_t low = op.rice_parameter == 0 ? 0 : value & ((uint64_t{1} << op.rice_parameter) - 1);
            op.value = (quotient << op.rice_parameter) | low;
        } else {
            op.kind = BitOp::Kind::kAlign;
        }
        ops.push_back(op);
    }
    return ops;
}

std::string describe(const BitOp& op)
{
    switch (op.kind) {
    case BitOp::Kind::kBits: return "bits(" + std::to_string(op.nbits) + ", " + std::to_string(op.value) + ")";
    case BitOp::Kind::kGolombRice:
        return "golomb_rice(P=" + std::to_string(op.rice_parameter) + ", " + std::to_string(op.value) + ")";
    case BitOp::Kind::kAlign: return "align";
    }
    return "?";
}

// One line per operation: what it read (or, for a write program, that it ran), then how the run ended.
differential::Trace read_trace(std::span<const BitOp> ops, const model::BitReadResult& result)
{
    differential::Trace trace;
    size_t value = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
        if (result.stopped_at == i) {
            trace.push_back(describe(ops[i]) + ": " + (result.out_of_range ? "out of range" : "end of data"));
            return trace;
        }
        if (ops[i].kind == BitOp::Kind::kAlign) {
            trace.push_back("align");
        } else if (value < result.values.size()) {
            trace.push_back(describe(ops[i]) + " -> " + std::to_string(result.values[value++]));
        } else {
            trace.push_back(describe(ops[i]) + ": no value");
        }
    }
    if (value != result.values.size()) trace.push_back(std::to_string(result.values.size() - value) + " extra values");
    return trace;
}

differential::Trace write_trace(std::span<const BitOp> ops, const model::BitWriteResult& result)
{
    differential::Trace trace;
    trace.push_back(std::to_string(ops.size()) + " operations, " +
                    (result.refused_at ? "refused at " + std::to_string(*result.refused_at) + ": " +
                                             describe(ops[*result.refused_at])
                                       : std::string("all ran")));
    return trace;
}

}  // namespace

SERDIFF_FUZZ_TARGET(bit_stream, .max_len = 1024)
{
    differential::ProgramInput in(input);
    const std::vector<BitOp> ops = read_program(in);
    const std::span<const uint8_t> stream_bytes = in.raw().rest();

    // Writes: the bytes and where a bad bit count stopped the program.
    const model::BitWriteResult written = subject::bit_write(ops);
    const model::BitWriteResult expected = reference::bit_write(ops);
    differential::compare_traces("bit_stream write: how the program ended", write_trace(ops, written),
                                 write_trace(ops, expected), input);
    differential::compare_bytes("bit_stream write: bytes", written.bytes, expected.bytes, input);

    // The same program read back from those bytes: every value written comes back (the low nbits bits; a code's
    // value whole) up to the write's refusal, which the read refuses too.
    const model::BitReadResult reference_back = reference::bit_read(expected.bytes, ops);
    differential::compare_traces("bit_stream read back", read_trace(ops, subject::bit_read(expected.bytes, ops)),
                                 read_trace(ops, reference_back), input);
    size_t value = 0;
    const size_t ran = expected.refused_at.value_or(ops.size());
    for (size_t i = 0; i < ran; ++i) {
        if (ops[i].kind == BitOp::Kind::kAlign) continue;
        const uint64_t wanted = ops[i].kind == BitOp::Kind::kGolombRice || ops[i].nbits == 64
                                    ? ops[i].value
                                    : ops[i].value & ((uint64_t{1} << ops[i].nbits) - 1);
        if (value >= reference_back.values.size() || reference_back.values[value] != wanted) {
            differential::report_mismatch("bit_stream read back", "the reference reads back another value",
                                          "operation " + std::to_string(i) + " " + describe(ops[i]), input);
        }
        ++value;
    }
    if (reference_back.stopped_at != expected.refused_at) {
        differential::report_mismatch("bit_stream read back", "the reference's read stops elsewhere than its write",
                                      "", input);
    }

    // The program read from the input's own bytes: values, end of data mid-value, a Golomb-Rice code cut short.
    differential::compare_traces("bit_stream read", read_trace(ops, subject::bit_read(stream_bytes, ops)),
                                 read_trace(ops, reference::bit_read(stream_bytes, ops)), input);
}
