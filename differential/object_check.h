// The shared body of every object-level target: decode on both sides, compare, re-encode, re-decode.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <span>
#include <string>

#include "differential/compare.h"
#include "model/decoded.h"
#include "model/model.h"

namespace serdiff::differential {

// One object type as both implementations see it. Empty std::functions mean "not applicable".
template <typename T>
struct CodecPair {
    std::string label;
    std::function<model::Decoded<T>(std::span<const uint8_t>)> optimized_decode;
    std::function<model::Decoded<T>(std::span<const uint8_t>)> reference_decode;
    std::function<model::Bytes(const T&)> optimized_encode;
    std::function<model::Bytes(const T&)> reference_encode;
    std::function<uint64_t(const T&)> optimized_size;  // the optimized SizeComputer
    // True when docs/format.md guarantees decode-then-encode reproduces the consumed bytes exactly.
    bool round_trip_byte_exact = true;
    // When set, decides for a value whether decoding its encoding must give the same value back
    // (otherwise only the two sides' decodings of it are compared).
    std::function<bool(const T&)> value_survives_round_trip;
};

// Runs one side's call; an exception escaping it (an encoder must not throw) is reported as a mismatch.
template <typename Label, typename Call>
auto without_exception(const Label& label, std::string_view side, std::span<const uint8_t> input, Call&& call)
{
    try {
        return call();
    } catch (const std::exception& error) {
        report_mismatch(label_text(label), std::string(side) + " threw an exception", error.what(), input);
    }
}

// Both sides encode `value` identically, the SizeComputer agrees, and both decode it back identically
// (to `value` itself where the format guarantees that). Returns the optimized encoding.
template <typename T>
model::Bytes check_encoding(const CodecPair<T>& codec, const T& value, std::span<const uint8_t> input)
{
    // Labels are built only for a report (label_text): codec.label + a suffix.
    const auto label = [&codec](const char* suffix) { return [&codec, suffix] { return codec.label + suffix; }; };
    const model::Bytes optimized =
        without_exception(label(" encode"), subject_side(), input, [&] { return codec.optimized_encode(value); });
    const model::Bytes reference =
        without_exception(label(" encode"), "reference", input, [&] { return codec.reference_encode(value); });
    compare_bytes(label(" encode"), optimized, reference, input);
    if (codec.optimized_size) {
        const uint64_t size =
            without_exception(label(" size"), subject_side(), input, [&] { return codec.optimized_size(value); });
        if (size != optimized.size())
            report_mismatch(codec.label + " size", "SizeComputer differs from the encoded length",
                std::string(subject_side()) + " size_*() = " + std::to_string(size) + ", encoded length = " +
                    std::to_string(optimized.size()),
                input);
    }
    const model::Decoded<T> optimized_again = codec.optimized_decode(optimized);
    compare_decoded(label(" re-decode of the encoding"), optimized_again, codec.reference_decode(optimized), input);
    if (codec.value_survives_round_trip && !codec.value_survives_round_trip(value)) return optimized;
    if (!optimized_again.ok || optimized_again.consumed != optimized.size())
        report_mismatch(codec.label + " re-decode", "the encoding does not decode back completely",
                        optimized_again.ok ? "consumed " + std::to_string(optimized_again.consumed) + " of " +
                                                 std::to_string(optimized.size()) + " bytes"
                                           : "rejected: " + optimized_again.error,
                        input);
    if (!(optimized_again.value == value))
        report_mismatch(codec.label + " re-decode", "decoding the encoding changes the value",
                        describe_text_difference(describe_value(optimized_again.value), describe_value(value)), input);
    return optimized;
}

// Decodes arbitrary bytes on both sides; on success checks the encoding of the decoded value.
template <typename T>
void check_decode_round_trip(const CodecPair<T>& codec, std::span<const uint8_t> input)
{
    const model::Decoded<T> optimized = codec.optimized_decode(input);
    compare_decoded([&codec] { return codec.label + " decode"; }, optimized, codec.reference_decode(input), input);
    if (!optimized.ok) return;
    if (optimized.consumed > input.size())
        report_mismatch(codec.label + " decode", "consumed more bytes than the input holds",
                        "consumed " + std::to_string(optimized.consumed) + " of " + std::to_string(input.size()),
                        input);
    const model::Bytes encoded = check_encoding(codec, optimized.value, input);
    if (codec.round_trip_byte_exact) {
        const std::string difference = describe_byte_difference(encoded, input.first(optimized.consumed),
                                                                "re-encoded", "consumed input");
        if (!difference.empty())
            report_mismatch(codec.label + " round trip", "re-encoding differs from the bytes decoded", difference,
                            input);
    }
}

}  // namespace serdiff::differential
