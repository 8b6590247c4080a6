// Differential comparison of optimized vs reference results; any difference prints a mismatch report and aborts
// (or, when set_mismatch_handler installed one, hands the report to a handler that throws).
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <vector>
#include <string_view>

#include "model/decoded.h"
#include "model/json.h"
#include "model/model.h"

namespace serdiff::differential {

// Called with the full report instead of printing and aborting (the Python extension raises from it).
// A handler must not return (it throws); if it does, report_mismatch prints and aborts as usual.
using MismatchHandler = void (*)(const std::string& report);
// Installs the handler (nullptr restores the default: print and abort). Process-wide, not thread-safe.
void set_mismatch_handler(MismatchHandler handler);

// Prints the report (headline, details, the fuzz input in hex) to stderr and aborts, so libFuzzer,
// AFL++ and the replay driver all record a crash that replays with one command.
[[noreturn]] void report_mismatch(std::string_view label, std::string_view what, std::string_view details,
                                  std::span<const uint8_t> input);

// Describes where two byte strings first differ, with both sides in hex around that offset (±16 bytes);
// empty when they are equal. `left_name`/`right_name` label the two sides.
std::string describe_byte_difference(std::span<const uint8_t> left, std::span<const uint8_t> right,
                                     std::string_view left_name = "optimized",
                                     std::string_view right_name = "reference");

// Byte strings must be identical.
void compare_bytes(std::string_view label, std::span<const uint8_t> optimized, std::span<const uint8_t> reference,
                   std::span<const uint8_t> input);

// Printable form of a decoded value: integers in decimal and hex, model types as JSON.
template <std::integral T>
std::string describe_value(T value)
{
    return std::to_string(value);
}
template <typename T>
    requires requires(const T& value) { model::to_json(value); }
std::string describe_value(const T& value)
{
    return model::to_json(value);
}

// The two printed values with the first differing character marked (long JSON is cut around it).
std::string describe_text_difference(const std::string& optimized, const std::string& reference);

// One printed line per step of a read program (value and position, or the error that ended it).
using Trace = std::vector<std::string>;
// The traces of an optimized and the reference reader must be equal; the report shows the first step
// where they part and the last step they shared.
void compare_traces(const std::string& label, const Trace& optimized, const Trace& reference,
                    std::span<const uint8_t> input);

// What "the two sides agree on a decoding" means, for the fuzz targets and `serdiff inspect` alike: the first
// of "ok" (accept/reject), "error" (the message), "consumed" and "value" (==) that differs, or "" when none does.
template <typename T>
std::string_view first_decoded_difference(const model::Decoded<T>& optimized, const model::Decoded<T>& reference)
{
    if (optimized.ok != reference.ok) return "ok";
    if (!optimized.ok) return optimized.error != reference.error ? "error" : "";
    if (optimized.consumed != reference.consumed) return "consumed";
    if (!(optimized.value == reference.value)) return "value";
    return "";
}

// Accept/reject, error message, bytes consumed and (via ==) the value must all agree.
template <typename T>
void compare_decoded(std::string_view label, const model::Decoded<T>& optimized, const model::Decoded<T>& reference,
                     std::span<const uint8_t> input)
{
    const std::string_view difference = first_decoded_difference(optimized, reference);
    if (difference.empty()) return;
    auto outcome = [](const model::Decoded<T>& decoded) {
        return decoded.ok ? std::string("accepted") : "rejected: " + model::json_quote(decoded.error);
    };
    if (difference == "ok")
        report_mismatch(label, "accept/reject differs",
                        "optimized " + outcome(optimized) + "\nreference " + outcome(reference), input);
    if (difference == "error")
        report_mismatch(label, "error message differs",
                        "optimized " + outcome(optimized) + "\nreference " + outcome(reference), input);
    if (difference == "consumed")
        report_mismatch(label, "bytes consumed differ",
                        "optimized consumed " + std::to_string(optimized.consumed) + "\nreference consumed " +
                            std::to_string(reference.consumed),
                        input);
    report_mismatch(label, "decoded value differs",
                    describe_text_difference(describe_value(optimized.value), describe_value(reference.value)), input);
}

}  // namespace serdiff::differential
