// The registry's storage and lookup, shared by the libFuzzer/AFL++ entry point and the replay driver.
#include "fuzz_targets/registry.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <exception>
#include <string>
#include <unistd.h>

#include "differential/allocation_bound.h"
#include "differential/compare.h"
#include "differential/subject.h"
#include "fuzz_targets/base_abi.h"

// The allocation bound of every fuzz binary (libFuzzer, AFL++, replay): while a target runs (run_target; the
// engines' own start-up tables are larger), no single allocation of serdiff's own code may exceed
// kMaxSingleAllocation (a peer's are not judged: differential/allocation_bound.h). A decoder that trusts a claimed length (up to MAX_SIZE, 32 MiB) instead of reading
// in MAX_VECTOR_ALLOCATE (5,000,000-byte) chunks is caught here on the first input that claims more; the
// largest legitimate allocation is a real block's bytes (2.3 MB in ../shared/data, up to twice that while a
// vector grows). Works through the sanitizers' malloc hooks (ASan, MSan); a build without them skips it.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*)(const volatile void*, size_t),
                                                         void (*)(const volatile void*)) __attribute__((weak));
extern "C" void __sanitizer_print_stack_trace() __attribute__((weak));

namespace serdiff::fuzz {

namespace {
constexpr size_t kMaxSingleAllocation = size_t{16} << 20;
thread_local bool target_running = false;  // an executable's TLS: reading it never allocates

[[maybe_unused]] void bounded_malloc_hook(const volatile void*, size_t size)
{
    if (size <= kMaxSingleAllocation || !target_running || differential::peer_depth != 0) return;
    // No allocation here (this runs inside malloc): the message is built in a fixed buffer.
    char message[192];
    size_t length = 0;
    const auto append = [&](const char* text) {
        while (*text && length < sizeof message) message[length++] = *text++;
    };
    char digits[24];
    size_t count = 0;
    for (size_t value = size; count == 0 || value != 0; value /= 10) digits[count++] = static_cast<char>('0' + value % 10);
    append("==serdiff== ERROR: serdiff: allocation-over-bound of ");
    while (count > 0 && length < sizeof message) message[length++] = digits[--count];
    append(" bytes (the fuzz binaries' bound is 16 MiB: a claimed length trusted before its bytes arrived?)\n");
    (void)!::write(2, message, length);
    if (__sanitizer_print_stack_trace) __sanitizer_print_stack_trace();
    std::abort();
}

[[maybe_unused]] void ignore_free(const volatile void*) {}

#ifndef SERDIFF_BASE_LIBRARY  // in the fuzz binary only: its hook bounds BASE's allocations too, and it runs BASE
[[maybe_unused]] const bool allocation_bound_installed =
    __sanitizer_install_malloc_and_free_hooks &&
    __sanitizer_install_malloc_and_free_hooks(bounded_malloc_hook, ignore_free) != 0;

// The features of differential/observe.h both trees have, computed at the first input (a change that adds SpanWriter,
// say: its checks then compare HEAD with the reference only, said once when one runs).
uint32_t base_shared_features()
{
    static const uint32_t shared = [] {
        const uint32_t head = differential::subject_features();
        const uint32_t base = serdiff_base_features != nullptr ? serdiff_base_features() : head;
        const uint32_t both = head & base;
        differential::set_shared_features(both);
        return both;
    }();
    return shared;
}

// Whether a BASE is linked in and its tree has the target.
bool base_has_target(const std::string& name)
{
    return serdiff_base_run != nullptr && (serdiff_base_has_target == nullptr || serdiff_base_has_target(name.c_str()));
}

// HEAD vs BASE (docs/base.md): with a BASE shared object linked in (serdiff_base_run is
// weak: null in every other binary), each input that HEAD ran through without a finding runs through BASE, and the
// two observation records (differential/observe.h) must be equal. A difference is reported from a second, labelled
// run of both, which names the comparison and shows HEAD's, BASE's and (where it compared) the reference's value.
struct Labelled {
    std::vector<std::span<const uint8_t>> entries;
    std::vector<std::string> labels, references;
};

size_t first_difference(const std::vector<std::span<const uint8_t>>& head, const std::vector<std::span<const uint8_t>>& base)
{
    size_t i = 0;
    while (i < head.size() && i < base.size() && differential::bytes_equal(head[i], base[i])) ++i;
    return i;
}

Labelled base_labelled(const char* name, std::span<const uint8_t> input)
{
    serdiff_base_record record{};
    serdiff_base_run(name, input.data(), input.size(), 1, &record, &differential::peer_depth, base_shared_features());
    Labelled out;
    out.entries = differential::split_entries({record.entries, record.entries_size});
    std::string_view rest(record.labels, record.labels_size);
    while (!rest.empty()) {
        const size_t label_end = rest.find('\0');
        const size_t reference_end = rest.find('\0', label_end + 1);
        out.labels.emplace_back(rest.substr(0, label_end));
        out.references.emplace_back(rest.substr(label_end + 1, reference_end - label_end - 1));
        rest.remove_prefix(reference_end + 1);
    }
    return out;
}

[[noreturn]] void report_base_difference(std::string_view name, TargetFunction target, std::span<const uint8_t> input,
                                         const std::vector<uint8_t>& head_entries,
                                         const std::vector<uint8_t>& base_entries, int base_status)
{
    // The labelled runs: labels are built only now. A check that runs once per process is not run again, so the
    // first difference is looked for again in the labelled records, and the first run's index is the fallback.
    const std::string target_name(name);
    differential::Observations head_labelled;
    head_labelled.labelled = true;
    differential::set_observations(&head_labelled);
    target(input);
    differential::set_observations(nullptr);
    Labelled base = base_labelled(target_name.c_str(), input);
    auto head = differential::split_entries(head_labelled.entries);
    size_t index = first_difference(head, base.entries);
    std::string label, reference;
    std::span<const uint8_t> head_value, base_value;
    bool head_has = false, base_has = false;
    const auto at = [](const std::vector<std::string>& list, size_t i) { return i < list.size() ? list[i] : std::string(); };
    if (index < head.size() || index < base.entries.size()) {
        head_has = index < head.size();
        base_has = index < base.entries.size();
        if (head_has) head_value = head[index];
        if (base_has) base_value = base.entries[index];
        label = head_has ? at(head_labelled.labels, index) : at(base.labels, index);
        if (head_has && base_has && at(base.labels, index) != label) label += "\n  (BASE: " + at(base.labels, index) + ")";
        reference = head_has ? at(head_labelled.references, index) : at(base.references, index);
    } else {
        // Only the unlabelled runs differ (a once-per-process check): their entry, without its label.
        const auto head_first = differential::split_entries(head_entries);
        const auto base_first = differential::split_entries(base_entries);
        index = first_difference(head_first, base_first);
        head_has = index < head_first.size();
        base_has = index < base_first.size();
        if (head_has) head_value = head_first[index];
        if (base_has) base_value = base_first[index];
        label = "(a check the first input of this process ran; replay the input alone for its label)";
    }
    const std::string head_text = head_has ? differential::detail::render_value(head_value) : "(nothing more observed)";
    const std::string base_text = base_has ? differential::detail::render_value(base_value) : "(nothing more observed)";
    std::string agrees;
    if (!reference.empty()) {
        agrees = reference == head_text && reference == base_text ? "both"
                 : reference == head_text                         ? "HEAD"
                 : reference == base_text                         ? "BASE"
                                                                  : "neither";
    } else if (base_status == SERDIFF_BASE_MISMATCH && !base_has) {
        agrees = "HEAD";
    }
    std::string details = "observation " + std::to_string(index) + " of the target: " + label + "\n";
    details += "HEAD: " + head_text + "\nBASE: " + base_text + "\n";
    if (!reference.empty()) details += "reference: " + reference + "\n";
    else if (base_has && base_status == SERDIFF_BASE_MISMATCH && index + 1 == base.entries.size())
        details += "reference: BASE differs from the reference here, HEAD agrees with it\n";
    else details += "reference: no value of its own here (a rule of Core's own, docs/divergences.md, or a check of "
                    "one property of the value)\n";
    if (!agrees.empty()) details += "the reference agrees with: " + agrees + "\n";
    if (head_has && base_has) details += differential::describe_byte_difference(head_value, base_value, "HEAD", "BASE");
    differential::report_mismatch(std::string(name) + " (HEAD vs BASE)", "HEAD differs from BASE", details, input);
}

// SERDIFF_BASE_ALONE=1: the binary runs BASE alone (its own comparison with the reference), not HEAD.
bool base_alone()
{
    static const bool alone = [] {
        const char* value = std::getenv("SERDIFF_BASE_ALONE");
        return value != nullptr && std::string_view(value) == "1";
    }();
    return alone;
}

// SERDIFF_BASE_SKIP_FOR_BENCH=1: make fuzz-bench's run of the same binary without the BASE comparison (its
// "without BASE" column: the same instrumented code, BASE loaded but never called). Nothing else sets it.
bool base_skipped_for_bench()
{
    static const bool skipped = [] {
        const char* value = std::getenv("SERDIFF_BASE_SKIP_FOR_BENCH");
        if (value == nullptr || std::string_view(value) != "1") return false;
        std::fprintf(stderr, "serdiff fuzz: SERDIFF_BASE_SKIP_FOR_BENCH=1: HEAD is NOT compared with BASE (a "
                             "benchmark's baseline)\n");
        return true;
    }();
    return skipped;
}

// Runs `target` through BASE after HEAD (whose record is `head`); reports the first difference.
void compare_with_base(std::string_view name, TargetFunction target, std::span<const uint8_t> input,
                       const differential::Observations& head)
{
    static std::string target_name;
    target_name.assign(name);
    serdiff_base_record record{};
    const int status = serdiff_base_run(target_name.c_str(), input.data(), input.size(), 0, &record,
                                        &differential::peer_depth, base_shared_features());
    if (status == SERDIFF_BASE_NO_TARGET) {
        static bool said = false;
        if (!said) std::fprintf(stderr, "serdiff fuzz: BASE has no target %s: HEAD is compared with the reference only\n",
                                target_name.c_str());
        said = true;
        return;
    }
    if (status == SERDIFF_BASE_RAN && record.count == head.count && record.entries_size == head.entries.size() &&
        (head.entries.empty() || std::memcmp(record.entries, head.entries.data(), head.entries.size()) == 0))
        return;
    const std::vector<uint8_t> base_entries(record.entries, record.entries + record.entries_size);
    report_base_difference(name, target, input, head.entries, base_entries, status);
}
#endif
}  // namespace

std::map<std::string, Target, std::less<>>& registry()
{
    static std::map<std::string, Target, std::less<>> targets;  // built before main by Registration
    return targets;
}

Registration::Registration(const char* name, TargetFunction function, TargetOptions options)
{
    if (!registry().emplace(name, Target{function, options}).second) {
        std::fprintf(stderr, "serdiff fuzz: target %s registered twice\n", name);
        std::abort();
    }
}

std::map<std::string, std::string, std::less<>>& absent_targets()
{
    static std::map<std::string, std::string, std::less<>> targets;
    return targets;
}

AbsentRegistration::AbsentRegistration(const char* name, const char* reason) { absent_targets().emplace(name, reason); }

const Target* find_target(std::string_view name)
{
    const auto found = registry().find(name);
    if (found != registry().end()) return &found->second;
    const auto absent = absent_targets().find(name);
    if (absent != absent_targets().end()) {
        std::fprintf(stderr, "serdiff fuzz: target '%.*s' is not built for the %s subject: %s\n",
                     static_cast<int>(name.size()), name.data(), subject::name(), absent->second.c_str());
        return nullptr;
    }
    std::fprintf(stderr, "serdiff fuzz: unknown target '%.*s'; known targets:\n", static_cast<int>(name.size()),
                 name.data());
    for (const auto& [known, target] : registry()) std::fprintf(stderr, "  %s\n", known.c_str());
    return nullptr;
}

void run_target(std::string_view name, TargetFunction target, std::span<const uint8_t> input)
{
    struct Running {
        Running() { target_running = true; }
        ~Running() { target_running = false; }
    };
    try {
        const Running running;
#ifndef SERDIFF_BASE_LIBRARY
        if (serdiff_base_run != nullptr && base_alone()) {
            serdiff_base_record record{};
            static std::string target_name;
            target_name.assign(name);
            if (serdiff_base_run(target_name.c_str(), input.data(), input.size(), SERDIFF_BASE_ALONE, &record,
                                 &differential::peer_depth, ~0u) == SERDIFF_BASE_NO_TARGET) {
                std::fprintf(stderr, "serdiff fuzz: BASE has no target %s\n", target_name.c_str());
                std::exit(2);
            }
            return;
        }
        if (serdiff_base_run != nullptr && !base_skipped_for_bench()) {
            static differential::Observations head;
            base_shared_features();  // (HEAD records only what BASE can have too)
            head.clear();
            differential::set_observations(&head);
            target(input);
            differential::set_observations(nullptr);
            compare_with_base(name, target, input, head);
            return;
        }
#endif
        target(input);
    } catch (const std::exception& error) {
        differential::report_mismatch(name, "uncaught exception (neither side may throw out of the codec)",
                                      error.what(), input);
    }
}

namespace {
std::string json_string(std::string_view text)
{
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}
}  // namespace

void list_targets(bool json)
{
    if (!json) {
        for (const auto& [name, target] : registry()) std::printf("%s\n", name.c_str());
        return;
    }
    std::string out = "[";
    for (const auto& [name, target] : registry()) {
        const TargetOptions& options = target.options;
        if (out.size() > 1) out += ",";
        out += "\n  {\"name\": " + json_string(name) + ", \"max_len\": " + std::to_string(options.max_len) +
               ", \"codec\": " + json_string(options.codec) +
               ", \"real_data_seeds\": " + (options.real_data_seeds ? "true" : "false") +
               ", \"afl_unsupported\": " + json_string(options.afl_unsupported) +
               ", \"libfuzzer_flags\": " + json_string(options.libfuzzer_flags) +
               ", \"subject\": " + json_string(subject::name()) +
#ifndef SERDIFF_BASE_LIBRARY
               // A target BASE's tree does not have (an older tree, subjects/core/probe.cmake) is compared with the
               // reference alone: not "compared_with_base", and said so.
               ", \"compared_with_base\": " + (base_has_target(name) ? "true" : "false") +
               (serdiff_base_run != nullptr && !base_has_target(name) ? ", \"base_lacks_target\": true" : "") +
#endif
               "}";
    }
    for (const auto& [name, reason] : absent_targets()) {
        if (out.size() > 1) out += ",";
        out += "\n  {\"name\": " + json_string(name) + ", \"subject\": " + json_string(subject::name()) +
               ", \"absent\": " + json_string(reason) + "}";
    }
    std::printf("%s\n]\n", out.c_str());
}

bool wants_json(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (std::string_view{argv[i]} == "--json") return true;
    return false;
}

}  // namespace serdiff::fuzz
