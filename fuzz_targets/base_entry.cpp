// BASE's side of a HEAD-vs-BASE comparison (docs/base.md): compiled with the Core subject's
// targets, harness and adapter against the BASE tree into one shared object (libcore_base.so) whose only exported
// symbols are serdiff_base_run, serdiff_base_features and serdiff_base_has_target (fuzz_targets/base.map). Two
// copies of Core's symbols cannot share one link; inside the shared object every symbol binds to its own copy, so
// HEAD (the fuzz binary) and BASE each run their own Core.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "differential/allocation_bound.h"
#include "differential/compare.h"
#include "differential/observe.h"
#include "fuzz_targets/base_abi.h"
#include "fuzz_targets/registry.h"

namespace {

// A mismatch with the reference inside BASE does not abort: BASE's record ends with it (HEAD, which got this far,
// agreed with the reference there, so the records differ at that entry at the latest).
struct BaseMismatch {
    std::string report;
};

[[noreturn]] void throw_mismatch(const std::string& report) { throw BaseMismatch{report}; }

std::string headline(const std::string& report)
{
    // "\n==== serdiff MISMATCH in LABEL: WHAT ====\nDETAILS..." -> "LABEL: WHAT" and the details' first lines.
    const size_t begin = report.find("MISMATCH in ");
    const size_t end = report.find(" ====", begin);
    if (begin == std::string::npos || end == std::string::npos) return report;
    std::string out = report.substr(begin + 12, end - begin - 12);
    const size_t details_end = report.find("\ninput (", end);
    if (details_end != std::string::npos && details_end > end + 6) out += "\n" + report.substr(end + 6, details_end - end - 6);
    return out;
}

serdiff::differential::Observations record;

// SERDIFF_BASE_TEST_PERTURB=N (tests only: ctest core_base_difference_reported): the first byte of BASE's entry N is
// flipped, or an entry appended when it has none, so a HEAD-vs-BASE report can be seen to fire on a tree compared
// with itself.
void perturb_for_test(serdiff::differential::Observations& observed)
{
    static const long index = [] {
        const char* value = std::getenv("SERDIFF_BASE_TEST_PERTURB");
        return value != nullptr ? std::strtol(value, nullptr, 10) : -1L;
    }();
    if (index < 0) return;
    const auto entries = serdiff::differential::split_entries(observed.entries);
    if (static_cast<size_t>(index) < entries.size() && !entries[index].empty()) {
        observed.entries[static_cast<size_t>(entries[index].data() - observed.entries.data())] ^= 0x01;
        return;
    }
    serdiff::differential::detail::append_entry_whole(
        observed, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("perturbed"), 9));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) uint32_t serdiff_base_features()
{
    return serdiff::differential::subject_features();
}

extern "C" __attribute__((visibility("default"))) int serdiff_base_has_target(const char* target_name)
{
    return serdiff::fuzz::registry().count(std::string(target_name)) != 0 ? 1 : 0;
}

extern "C" __attribute__((visibility("default"))) int serdiff_base_run(const char* target_name, const uint8_t* data,
                                                                        size_t size, int labelled,
                                                                        serdiff_base_record* out,
                                                                        volatile int* host_peer_depth,
                                                                        uint32_t shared_features)
{
    using namespace serdiff;
    differential::set_shared_features(shared_features);
    const auto found = fuzz::registry().find(std::string_view(target_name));
    if (found == fuzz::registry().end()) return SERDIFF_BASE_NO_TARGET;
    differential::host_peer_depth = host_peer_depth;
    if (labelled == SERDIFF_BASE_ALONE) {
        // BASE on its own, as a binary built from it would run the target: a mismatch with the reference is reported
        // and aborts (make review-core's "does BASE have this finding too?" with no second build).
        found->second.function(std::span<const uint8_t>(data, size));
        return SERDIFF_BASE_RAN;
    }
    record.clear();
    record.labelled = labelled != 0;
    differential::set_mismatch_handler(throw_mismatch);
    differential::set_observations(&record);
    int status = SERDIFF_BASE_RAN;
    try {
        found->second.function(std::span<const uint8_t>(data, size));
    } catch (const BaseMismatch& mismatch) {
        differential::observe_text("BASE's own comparison with the reference (BASE differs from the reference here)",
                                   headline(mismatch.report));
        status = SERDIFF_BASE_MISMATCH;
    } catch (const std::exception& error) {
        differential::observe_text("an exception escaped BASE's target", error.what());
        status = SERDIFF_BASE_THREW;
    }
    differential::set_observations(nullptr);
    differential::set_mismatch_handler(nullptr);
    perturb_for_test(record);
    out->entries = record.entries.data();
    out->entries_size = record.entries.size();
    out->count = record.count;
    // Labelled runs: each entry's label and the reference's value, as "label\0reference\0" pairs.
    static std::string labels;
    labels.clear();
    for (size_t i = 0; i < record.labels.size(); ++i) {
        labels += record.labels[i];
        labels += '\0';
        labels += record.references[i];
        labels += '\0';
    }
    out->labels = labels.data();
    out->labels_size = labels.size();
    return status;
}
