// The observation record of a HEAD-vs-BASE comparison (differential/observe.h).
#include "differential/observe.h"

#include <cstdio>
#include <cstring>

#include "model/model.h"

namespace serdiff::differential {
namespace {
Observations* current = nullptr;
uint32_t shared = ~0u;
}  // namespace

uint32_t shared_features() { return shared; }
void set_shared_features(uint32_t features) { shared = features; }

void detail::note_unshared(Feature feature)
{
    static uint32_t said = 0;
    if (said & feature) return;
    said |= feature;
    std::fprintf(stderr, "serdiff fuzz: one of HEAD's and BASE's trees has %s and the other not: its checks are not "
                         "compared between them (HEAD's still with the reference)\n",
                 feature == kFeatureSpanWriter ? "SpanWriter" : "BufferedReader/BufferedWriter");
}

Observations* observations() { return current; }
void set_observations(Observations* record) { current = record; }

std::vector<std::span<const uint8_t>> split_entries(std::span<const uint8_t> entries)
{
    std::vector<std::span<const uint8_t>> out;
    size_t at = 0;
    while (at + 4 <= entries.size()) {
        const size_t length = size_t{entries[at]} | size_t{entries[at + 1]} << 8 | size_t{entries[at + 2]} << 16 |
                              size_t{entries[at + 3]} << 24;
        at += 4;
        if (length > entries.size() - at) break;  // cannot happen with append_entry's records
        out.push_back(entries.subspan(at, length));
        at += length;
    }
    return out;
}

namespace detail {

namespace {
// A value longer than this is recorded as its length, a 128-bit digest and its first bytes (a block's payload would
// make a record of megabytes, past the fuzz binaries' allocation bound); a labelled run keeps values of up to
// kLabelledWhole bytes whole, so a report can show where two differ.
constexpr size_t kWhole = 64;
constexpr size_t kLabelledWhole = 4096;
constexpr size_t kDigestPrefix = 32;

// The multiply-rotate lanes wrap and shift bits out on purpose: no integer check there (the asan preset and CI's
// asan-ubsan job compile with -fsanitize=integer, whose unsigned checks are not undefined behaviour).
#if defined(__clang__)
__attribute__((no_sanitize("coverage", "unsigned-integer-overflow", "unsigned-shift-base")))
#endif
void digest(std::span<const uint8_t> value, uint8_t out[16])
{
    // Two multiply-rotate lanes over 8-byte words: a difference between HEAD's and BASE's bytes, not an adversary's
    // collision, is what it must show.
    uint64_t a = 0x9e3779b97f4a7c15ULL ^ value.size(), b = 0xc2b2ae3d27d4eb4fULL + value.size();
    size_t i = 0;
    for (; i + 8 <= value.size(); i += 8) {
        uint64_t word;
        std::memcpy(&word, value.data() + i, 8);
        a = ((a ^ word) * 0xff51afd7ed558ccdULL);
        a = (a << 31) | (a >> 33);
        b = ((b + word) * 0xc4ceb9fe1a85ec53ULL);
        b = (b << 29) | (b >> 35);
    }
    for (; i < value.size(); ++i) {
        a = (a ^ value[i]) * 0x100000001b3ULL;
        b = (b + value[i]) * 0x9e3779b97f4a7c15ULL;
    }
    for (int k = 0; k < 8; ++k) {
        out[k] = static_cast<uint8_t>(a >> (8 * k));
        out[8 + k] = static_cast<uint8_t>(b >> (8 * k));
    }
}
}  // namespace

namespace {
// "#digest", the length, the digest, the first bytes: equal for equal values, different (but for a 128-bit collision)
// for different ones. Out of line: its array stays off the common path's stack (ASan gives each frame with an
// array its own fake-stack slot).
[[gnu::noinline]] void append_digest_entry(Observations& record, std::span<const uint8_t> value)
{
    uint8_t summary[7 + 8 + 16 + kDigestPrefix];
    std::memcpy(summary, "#digest", 7);
    for (int k = 0; k < 8; ++k) summary[7 + k] = static_cast<uint8_t>(uint64_t{value.size()} >> (8 * k));
    digest(value, summary + 15);
    std::memcpy(summary + 31, value.data(), kDigestPrefix);
    append_entry_whole(record, summary);
}
}  // namespace

void append_entry(Observations& record, std::span<const uint8_t> value)
{
    if (value.size() > (record.labelled ? kLabelledWhole : kWhole)) return append_digest_entry(record, value);
    append_entry_whole(record, value);
}

void append_entry_whole(Observations& record, std::span<const uint8_t> value)
{
    const uint32_t length = static_cast<uint32_t>(value.size());
    const size_t at = record.entries.size();
    record.entries.resize(at + 4 + value.size());
    record.entries[at] = static_cast<uint8_t>(length);
    record.entries[at + 1] = static_cast<uint8_t>(length >> 8);
    record.entries[at + 2] = static_cast<uint8_t>(length >> 16);
    record.entries[at + 3] = static_cast<uint8_t>(length >> 24);
    if (!value.empty()) std::memcpy(record.entries.data() + at + 4, value.data(), value.size());
    ++record.count;
}

void append_label(Observations& record, std::string label, std::string reference)
{
    // A labelled run labels every entry, so the labels line up with the entries.
    record.labels.resize(record.count - 1);
    record.references.resize(record.count - 1);
    record.labels.push_back(std::move(label));
    record.references.push_back(std::move(reference));
}

// Printable text as text (quoted), anything else as hex; long values cut in the middle.
std::string render_value(std::span<const uint8_t> value)
{
    if (value.size() == 7 + 8 + 16 + kDigestPrefix && std::memcmp(value.data(), "#digest", 7) == 0) {
        uint64_t length = 0;
        for (int k = 0; k < 8; ++k) length |= uint64_t{value[7 + k]} << (8 * k);
        return std::to_string(length) + " bytes starting " + model::to_hex(value.data() + 31, kDigestPrefix) +
               "..., digest " + model::to_hex(value.data() + 15, 16);
    }
    constexpr size_t kShown = 160;
    bool text = !value.empty();
    for (const uint8_t byte : value)
        if (byte < 0x20 || byte > 0x7e) text = false;
    if (text) {
        std::string out(reinterpret_cast<const char*>(value.data()), value.size());
        if (out.size() > 2 * kShown) out = out.substr(0, kShown) + "..." + out.substr(out.size() - kShown);
        return "\"" + out + "\"";
    }
    if (value.empty()) return "(empty)";
    if (value.size() > kShown) return model::to_hex(value.data(), kShown) + "... (" + std::to_string(value.size()) + " bytes)";
    return model::to_hex(value.data(), value.size()) + " (" + std::to_string(value.size()) + " bytes)";
}

}  // namespace detail
}  // namespace serdiff::differential
