// Target varint: decode into every integer kind (unsigned and non-negative signed), and encode values of each kind.
#include "differential/compare.h"
#include "differential/fuzz_input.h"
#include "differential/reference/reference.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"

using namespace serdiff;

namespace {

// Largest value a VarInt of `kind` may hold (the signed maximum for the non-negative signed mode).
uint64_t kind_maximum(model::IntKind kind)
{
    const int bits = 8 * model::int_kind_bytes(kind) - (model::int_kind_signed(kind) ? 1 : 0);
    return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

}  // namespace

SERDIFF_FUZZ_TARGET(varint, .max_len = 64, .codec = "varint")
{
    // Through the subject's and the reference's codec tables (model/codec_table.h), the entries the CLI, the tests and Python use.
    const model::CodecTable& optimized_side = subject::codec_table();
    const model::CodecTable& reference_side = reference::codec_table();
    differential::FuzzInput fuzz(input);
    const uint64_t raw_value = fuzz.integral<uint64_t>();
    for (const model::IntKind kind : model::kAllIntKinds) {
        // Labels are built only when a report is printed (differential::label_text).
        const auto label = [kind](const char* what) {
            return [kind, what] { return std::string("varint(") + model::int_kind_name(kind) + ")" + what; };
        };
        const auto optimized_decoded = optimized_side.decode_varint(input, kind);
        differential::compare_decoded(label(" decode"), optimized_decoded, reference_side.decode_varint(input, kind),
                                      input);
        if (optimized_decoded.ok) {
            // Every value has exactly one VarInt encoding, so a decoded one re-encodes to the bytes consumed.
            differential::compare_bytes(label(" round trip"), optimized_side.encode_varint(optimized_decoded.value, kind),
                                        input.first(optimized_decoded.consumed), input);
        }

        // Encode side: the input's first 8 bytes, reduced into the kind's range at both its ends.
        const uint64_t maximum = kind_maximum(kind);
        const uint64_t value = maximum == ~uint64_t{0} ? raw_value : raw_value % (maximum + 1);
        const model::Bytes encoded = optimized_side.encode_varint(value, kind);
        differential::compare_bytes(label(" encode"), encoded, reference_side.encode_varint(value, kind), input);
        const auto decoded_back = reference_side.decode_varint(encoded, kind);
        if (!decoded_back.ok || decoded_back.value != value || decoded_back.consumed != encoded.size())
            differential::report_mismatch(label(" encode")(), "the encoding does not decode back to the value",
                                          "value " + std::to_string(value) + " encoded as " + model::to_hex(encoded),
                                          input);
    }
}
