// Differential comparison of optimized vs reference results; any difference prints a mismatch report and aborts
// (or, when set_mismatch_handler installed one, hands the report to a handler that throws).
#pragma once

#include <concepts>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "model/decoded.h"
#include "model/json.h"
#include "model/model.h"
#include "differential/observe.h"

namespace serdiff::differential {

// Called with the full report instead of printing and aborting (the Python extension raises from it).
// A handler must not return (it throws); if it does, report_mismatch prints and aborts as usual.
using MismatchHandler = void (*)(const std::string& report);
// Installs the handler (nullptr restores the default: print and abort). Process-wide, not thread-safe.
void set_mismatch_handler(MismatchHandler handler);

// What a mismatch report calls the side under test: "optimized" (serdiff's serializer) unless the subject names
// itself otherwise (the Core subject: "core", set by subjects/core/subject.cpp when the binary starts).
const char* subject_side();
void set_subject_side(const char* name);

// Prints the report (headline, details, the fuzz input in hex) to stderr and aborts, so libFuzzer,
// AFL++ and the replay driver all record a crash that replays with one command.
[[noreturn]] void report_mismatch(std::string_view label, std::string_view what, std::string_view details,
                                  std::span<const uint8_t> input);

// Runs `check` at its first call only: one flag per call site (each lambda is its own type). For a comparison no
// input changes (a fixed object on both sides), run at a process's first input: a mismatch names that input, and
// replaying it alone shows the mismatch again.
template <typename Check>
void once_per_process(const Check& check)
{
    static bool done = false;
    if (done) return;
    done = true;
    check();
}

// Describes where two byte strings first differ, with both sides in hex around that offset (±16 bytes);
// empty when they are equal. `left_name`/`right_name` label the two sides.
std::string describe_byte_difference(std::span<const uint8_t> left, std::span<const uint8_t> right,
                                     std::string_view left_name = subject_side(),
                                     std::string_view right_name = "reference");

// Harness helpers that walk whole payloads (digests, equality) need no coverage feedback of their own: the
// engine's comparison hooks on every byte of a megabyte buffer cost more than the check. Sanitizers stay on.
#if defined(__clang__)
#define SERDIFF_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define SERDIFF_NO_COVERAGE
#endif

// A comparison's label: text, or a callable returning it. A callable is called only when a report is
// printed, so a comparison that passes costs no string building (labels often carry numbers).
template <typename Label>
std::string label_text(const Label& label)
{
    if constexpr (std::is_invocable_v<const Label&>) return std::string(label());
    else return std::string(std::string_view(label));
}

// Same length and same bytes (memcmp: no per-byte comparison hooks).
SERDIFF_NO_COVERAGE inline bool bytes_equal(std::span<const uint8_t> left, std::span<const uint8_t> right)
{
    return left.size() == right.size() && (left.empty() || std::memcmp(left.data(), right.data(), left.size()) == 0);
}

// The report of two byte strings that differ (compare_bytes after its check; records nothing).
[[noreturn]] void report_bytes_difference(std::string_view label, std::span<const uint8_t> optimized,
                                          std::span<const uint8_t> reference, std::span<const uint8_t> input);

// Byte strings must be identical. The subject's bytes are observed (differential/observe.h) either way.
void compare_bytes(std::string_view label, std::span<const uint8_t> optimized, std::span<const uint8_t> reference,
                   std::span<const uint8_t> input);
template <typename MakeLabel>
    requires std::is_invocable_v<const MakeLabel&>
void compare_bytes(const MakeLabel& label, std::span<const uint8_t> optimized, std::span<const uint8_t> reference,
                   std::span<const uint8_t> input)
{
    observe(label, optimized, &reference);
    if (bytes_equal(optimized, reference)) return;
    report_bytes_difference(label_text(label), optimized, reference, input);
}

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
// A trace observed as one entry, its steps one per line (the reference's beside it in a labelled run).
template <typename Label>
void observe_trace(const Label& label, const Trace& optimized, const Trace& reference)
{
    const auto joined = [](const Trace& trace) {
        std::string out;
        for (const std::string& line : trace) out += line + "\n";
        return out;
    };
    const std::string subject_steps = joined(optimized);
    const std::span<const uint8_t> value(reinterpret_cast<const uint8_t*>(subject_steps.data()), subject_steps.size());
    if (!observations()->labelled) return observe(label, value);
    const std::string reference_steps = joined(reference);
    const std::span<const uint8_t> reference_value(reinterpret_cast<const uint8_t*>(reference_steps.data()),
                                                   reference_steps.size());
    observe(label, value, &reference_value);
}
[[noreturn]] void report_trace_difference(std::string_view label, const Trace& optimized, const Trace& reference,
                                          std::span<const uint8_t> input);
// The traces of an optimized and the reference reader must be equal; the report shows the first step
// where they part and the last step they shared.
void compare_traces(std::string_view label, const Trace& optimized, const Trace& reference,
                    std::span<const uint8_t> input);
template <typename MakeLabel>
    requires std::is_invocable_v<const MakeLabel&>
void compare_traces(const MakeLabel& label, const Trace& optimized, const Trace& reference,
                    std::span<const uint8_t> input)
{
    if (observing()) observe_trace(label, optimized, reference);
    if (optimized == reference) return;
    report_trace_difference(label_text(label), optimized, reference, input);
}

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

// A decoding's outcome as one unlabelled observation: accept/reject, bytes consumed, the error (a reused buffer).
template <typename Label>
void observe_outcome(const Label& label, bool ok, uint64_t consumed, std::string_view error)
{
    thread_local std::vector<uint8_t> packed;
    packed.assign(1, ok ? 1 : 0);
    for (int i = 0; i < 8; ++i) packed.push_back(static_cast<uint8_t>(consumed >> (8 * i)));
    packed.insert(packed.end(), error.begin(), error.end());
    observe(label, packed);
}

// Accept/reject, error message, bytes consumed and (via ==) the value must all agree. `label`: see label_text.
template <typename T, typename Label>
void compare_decoded(const Label& label, const model::Decoded<T>& optimized, const model::Decoded<T>& reference,
                     std::span<const uint8_t> input)
{
    // Observed: accept/reject, the error, the bytes consumed (the value is compared with the reference's, so a BASE
    // that decodes another value stops at its own mismatch, which its record then holds). Unlabelled (every input):
    // packed into a reused buffer, no allocation; labelled (a report's run): as text, with the reference's.
    if (observing() && !observations()->labelled) {
        observe_outcome(label, optimized.ok, optimized.consumed, optimized.error);
    } else if (observing()) {
        const auto outcome = [](const model::Decoded<T>& decoded) {
            return decoded.ok ? "accepted, consumed " + std::to_string(decoded.consumed) : "rejected: " + decoded.error;
        };
        const std::string subject_outcome = outcome(optimized);
        const std::string reference_outcome = outcome(reference);
        const std::span<const uint8_t> reference_value(reinterpret_cast<const uint8_t*>(reference_outcome.data()),
                                                       reference_outcome.size());
        observe(label, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(subject_outcome.data()),
                                                subject_outcome.size()),
                &reference_value);
    }
    const std::string_view difference = first_decoded_difference(optimized, reference);
    if (difference.empty()) return;
    auto outcome = [](const model::Decoded<T>& decoded) {
        return decoded.ok ? std::string("accepted") : "rejected: " + model::json_quote(decoded.error);
    };
    if (difference == "ok")
        report_mismatch(label_text(label), "accept/reject differs",
                        std::string(subject_side()) + " " + outcome(optimized) + "\nreference " + outcome(reference), input);
    if (difference == "error")
        report_mismatch(label_text(label), "error message differs",
                        std::string(subject_side()) + " " + outcome(optimized) + "\nreference " + outcome(reference), input);
    if (difference == "consumed")
        report_mismatch(label_text(label), "bytes consumed differ",
                        std::string(subject_side()) + " consumed " + std::to_string(optimized.consumed) + "\nreference consumed " +
                            std::to_string(reference.consumed),
                        input);
    report_mismatch(label_text(label), "decoded value differs",
                    describe_text_difference(describe_value(optimized.value), describe_value(reference.value)), input);
}

}  // namespace serdiff::differential
