// Target compact_size: decode with and without the range check, and encode any 64-bit value, on both sides.
#include "differential/compare.h"
#include "differential/fuzz_input.h"
#include "differential/reference/reference.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"

using namespace serdiff;

SERDIFF_FUZZ_TARGET(compact_size, .max_len = 64, .codec = "compact_size")
{
    // Through the subject's and the reference's codec tables (model/codec_table.h), the entries the CLI, the tests and Python use.
    const model::CodecTable& optimized_side = subject::codec_table();
    const model::CodecTable& reference_side = reference::codec_table();
    for (const bool range_check : {true, false}) {
        // Labels are built only when a report is printed (differential::label_text).
        const auto label = [range_check](const char* what) {
            return [range_check, what] {
                return std::string(range_check ? "compact_size(range check)" : "compact_size(no range check)") + what;
            };
        };
        const auto optimized_decoded = optimized_side.decode_compact_size(input, range_check);
        differential::compare_decoded(label(" decode"), optimized_decoded,
                                      reference_side.decode_compact_size(input, range_check), input);
        if (!optimized_decoded.ok) continue;
        // A decoded CompactSize is canonical, so its encoding is exactly the bytes consumed.
        const model::Bytes encoded = optimized_side.encode_compact_size(optimized_decoded.value);
        differential::compare_bytes(label(" round trip"), encoded, input.first(optimized_decoded.consumed), input);
    }

    differential::FuzzInput fuzz(input);
    const uint64_t value = fuzz.integral<uint64_t>();
    const model::Bytes optimized_encoded = optimized_side.encode_compact_size(value);
    differential::compare_bytes("compact_size encode", optimized_encoded, reference_side.encode_compact_size(value), input);
    const auto decoded_back = optimized_side.decode_compact_size(optimized_encoded, false);
    if (!decoded_back.ok || decoded_back.value != value || decoded_back.consumed != optimized_encoded.size())
        differential::report_mismatch("compact_size encode", "the encoding does not decode back to the value",
                                      "value " + std::to_string(value) + " encoded as " +
                                          model::to_hex(optimized_encoded),
                                      input);
}
