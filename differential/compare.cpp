// The mismatch report: what differs, where, both sides in hex around it, the input; then abort().
#include "differential/compare.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

// clang's profile runtime (a -fprofile-instr-generate build: make coverage, make review-core's and make mutate's reach
// builds) writes the counters at exit, which abort() skips: a mismatching input would count as reaching nothing,
// and a changed line that only failing inputs run would look "not reached". Weak: null in every other build.
extern "C" int __llvm_profile_write_file(void) __attribute__((weak));

namespace serdiff::differential {
namespace {

constexpr size_t kContextBytes = 16;        // hex shown either side of the first differing byte
constexpr size_t kInputHexLimit = 4096;     // input bytes printed in full before truncating
constexpr size_t kTextContextChars = 160;   // characters of printed values shown around a difference

MismatchHandler mismatch_handler = nullptr;  // set_mismatch_handler
const char* side_name = "optimized";          // set_subject_side

std::string hex_window(std::span<const uint8_t> bytes, size_t centre)
{
    const size_t begin = centre > kContextBytes ? centre - kContextBytes : 0;
    const size_t end = std::min(bytes.size(), centre + kContextBytes + 1);
    std::string out = "[" + std::to_string(begin) + "..] ";
    if (begin > 0) out += "... ";
    for (size_t i = begin; i < end; ++i) {
        if (i == centre) out += ">";
        out += model::to_hex(&bytes[i], 1);
        if (i == centre) out += "<";
        if (i + 1 < end) out += " ";
    }
    if (centre >= bytes.size()) out += " <end of data>";
    else if (end < bytes.size()) out += " ...";
    return out;
}

}  // namespace

std::string describe_byte_difference(std::span<const uint8_t> left, std::span<const uint8_t> right,
                                     std::string_view left_name, std::string_view right_name)
{
    if (bytes_equal(left, right)) return "";
    const size_t common = std::min(left.size(), right.size());
    const size_t first = static_cast<size_t>(std::mismatch(left.begin(), left.begin() + static_cast<std::ptrdiff_t>(common),
                                                           right.begin()).first -
                                             left.begin());
    if (first == common && left.size() == right.size()) return "";
    std::string out = "first difference at offset " + std::to_string(first) + " (" + std::string(left_name) + " " +
                      std::to_string(left.size()) + " bytes, " + std::string(right_name) + " " +
                      std::to_string(right.size()) + " bytes)\n";
    out += std::string(left_name) + ": " + hex_window(left, first) + "\n";
    out += std::string(right_name) + ": " + hex_window(right, first);
    return out;
}

std::string describe_text_difference(const std::string& optimized, const std::string& reference)
{
    const size_t common = std::min(optimized.size(), reference.size());
    size_t first = 0;
    while (first < common && optimized[first] == reference[first]) ++first;
    auto window = [&](const std::string& text) {
        const size_t begin = first > kTextContextChars ? first - kTextContextChars : 0;
        const size_t end = std::min(text.size(), first + kTextContextChars);
        return (begin > 0 ? "..." : "") + text.substr(begin, first - begin) + " >>>" +
               text.substr(first, end > first ? end - first : 0) + (end < text.size() ? "..." : "");
    };
    return "first difference at character " + std::to_string(first) + " of the printed values (>>> marks it)\n" +
           subject_side() + ": " + window(optimized) + "\nreference: " + window(reference);
}

void compare_traces(std::string_view label, const Trace& optimized, const Trace& reference,
                    std::span<const uint8_t> input)
{
    if (observing()) observe_trace(label, optimized, reference);
    if (optimized == reference) return;
    report_trace_difference(label, optimized, reference, input);
}

void report_trace_difference(std::string_view label, const Trace& optimized, const Trace& reference,
                             std::span<const uint8_t> input)
{
    size_t first = 0;
    while (first < optimized.size() && first < reference.size() && optimized[first] == reference[first]) ++first;
    std::string details = "first differing read: " + std::to_string(first) + "\n";
    if (first > 0) details += "  (both) " + reference[first - 1] + "\n";
    details += "  " + std::string(subject_side()) + ": " + (first < optimized.size() ? optimized[first] : "(no more reads)") + "\n";
    details += "  reference: " + (first < reference.size() ? reference[first] : "(no more reads)");
    report_mismatch(label, "read values, positions or the error differ", details, input);
}

const char* subject_side() { return side_name; }
void set_subject_side(const char* name) { side_name = name; }

void set_mismatch_handler(MismatchHandler handler)
{
    mismatch_handler = handler;
}

void report_mismatch(std::string_view label, std::string_view what, std::string_view details,
                     std::span<const uint8_t> input)
{
    const size_t shown = std::min(input.size(), kInputHexLimit);
    std::string report = "\n==== serdiff MISMATCH in " + std::string(label) + ": " + std::string(what) + " ====\n";
    report += std::string(details) + "\n";
    report += "input (" + std::to_string(input.size()) + " bytes" +
              (shown < input.size() ? ", first " + std::to_string(shown) + " shown" : std::string()) +
              "): " + model::to_hex(input.data(), shown) + (shown < input.size() ? "..." : "") + "\n";
    report += "==== end of mismatch report ====\n";
    if (mismatch_handler != nullptr) mismatch_handler(report);
    std::fputs(report.c_str(), stderr);
    std::fflush(stderr);
    if (__llvm_profile_write_file != nullptr) __llvm_profile_write_file();
    std::abort();
}

void compare_bytes(std::string_view label, std::span<const uint8_t> optimized, std::span<const uint8_t> reference,
                   std::span<const uint8_t> input)
{
    observe(label, optimized, &reference);
    if (!bytes_equal(optimized, reference)) report_bytes_difference(label, optimized, reference, input);
}

void report_bytes_difference(std::string_view label, std::span<const uint8_t> optimized,
                             std::span<const uint8_t> reference, std::span<const uint8_t> input)
{
    report_mismatch(label, "bytes differ", describe_byte_difference(optimized, reference), input);
}

}  // namespace serdiff::differential
