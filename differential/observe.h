// What the side under test was seen to do, in order: the record a HEAD-vs-BASE comparison compares (docs/base.md).
// While a fuzz binary of the Core subject carries a BASE (a second Core tree built into
// a shared object, fuzz_targets/base_entry.cpp), each input runs through HEAD with an Observations installed, then
// through BASE with BASE's own; the two records must be equal entry for entry. Every comparison with the
// reference records the subject's side (compare_bytes, compare_decoded, compare_traces, positions), and the places
// where the harness compares nothing with the reference (a divergence of docs/divergences.md, the raw text and type
// of an exception the seam maps onto serdiff's wording, a property check's detail) record what they see too, so a
// change of Core's behaviour exactly there is a difference from BASE.
//
// Without an Observations installed (every binary without a BASE, and serdiff's), observing is one load and a
// branch. Labels are built only in a labelled run, the one that explains a difference already found.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace serdiff::differential {

struct Observations {
    bool labelled = false;             // build each entry's label and the reference's value (a report's second run)
    std::vector<uint8_t> entries;      // each entry: its length as 4 little-endian bytes, then its bytes
    std::vector<std::string> labels;   // labelled runs: one per entry
    std::vector<std::string> references;  // labelled runs: the reference's value where one was compared, else ""
    size_t count = 0;

    void clear()
    {
        entries.clear();
        labels.clear();
        references.clear();
        count = 0;
    }
};

// The record being written, or nullptr (not observing). Process-wide; the fuzz binaries run one input at a time.
Observations* observations();
void set_observations(Observations* record);

// The entries of a record, each a span of its bytes, found by walking the length prefixes.
std::vector<std::span<const uint8_t>> split_entries(std::span<const uint8_t> entries);

// What an older Core tree may lack (subjects/core/probe.cmake), each checked by the programs only where it exists.
enum Feature : uint32_t {
    kFeatureSpanWriter = 1u << 0,
    kFeatureBufferedFiles = 1u << 1,  // BufferedReader and BufferedWriter
};

namespace detail {
void append_entry(Observations& record, std::span<const uint8_t> value);
void append_entry_whole(Observations& record, std::span<const uint8_t> value);
void append_label(Observations& record, std::string label, std::string reference);
std::string render_value(std::span<const uint8_t> value);
void note_unshared(Feature feature);  // says once per feature that its checks are not compared with BASE
}  // namespace detail

// Records `value` (what the subject produced) under `label` (text, or a callable returning it, called only in a
// labelled run); `reference`, when given, is what the reference produced there (shown in a report only).
template <typename Label>
void observe(const Label& label, std::span<const uint8_t> value, const std::span<const uint8_t>* reference = nullptr)
{
    Observations* record = observations();
    if (record == nullptr) return;
    detail::append_entry(*record, value);
    if (!record->labelled) return;
    std::string text;
    if constexpr (std::is_invocable_v<const Label&>) text = std::string(label());
    else text = std::string(std::string_view(label));
    detail::append_label(*record, std::move(text), reference ? detail::render_value(*reference) : std::string());
}

// The same for text and integers.
template <typename Label>
void observe_text(const Label& label, std::string_view value)
{
    if (observations() == nullptr) return;
    observe(label, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
}
// An integer: its 8 bytes (HEAD's and BASE's come from one process, so the byte order is theirs alike), or in a
// labelled run its decimal text, with the reference's where one was compared (`reference`).
template <typename Label>
void observe_number(const Label& label, uint64_t value, std::optional<uint64_t> reference = std::nullopt)
{
    Observations* record = observations();
    if (record == nullptr) return;
    if (!record->labelled) return observe(label, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&value), 8));
    const std::string text = std::to_string(value);
    const std::string reference_text = reference ? std::to_string(*reference) : std::string();
    const std::span<const uint8_t> reference_bytes(reinterpret_cast<const uint8_t*>(reference_text.data()),
                                                   reference_text.size());
    observe(label, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()),
            reference ? &reference_bytes : nullptr);
}
inline bool observing() { return observations() != nullptr; }

// The features of the subject this harness was compiled for (stream_program.cpp, from subject_streams.h).
uint32_t subject_features();
// The features HEAD's and BASE's trees both have (every feature when there is no BASE). A check of a feature one
// side lacks still compares with the reference; what it sees is not recorded (ObservedOnlyIfShared), since the
// other side has nothing there: a HEAD that gained SpanWriter is not "different from BASE" for having it.
uint32_t shared_features();
void set_shared_features(uint32_t features);
class ObservedOnlyIfShared {
public:
    explicit ObservedOnlyIfShared(Feature feature) : m_saved(observations())
    {
        if (m_saved == nullptr || (shared_features() & feature) != 0) return;
        detail::note_unshared(feature);
        set_observations(nullptr);
    }
    ~ObservedOnlyIfShared() { set_observations(m_saved); }
    ObservedOnlyIfShared(const ObservedOnlyIfShared&) = delete;
    ObservedOnlyIfShared& operator=(const ObservedOnlyIfShared&) = delete;

private:
    Observations* m_saved;
};

}  // namespace serdiff::differential
