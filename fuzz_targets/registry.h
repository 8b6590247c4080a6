// The fuzz target registry: SERDIFF_FUZZ_TARGET(name) { ... } registers a function of the input bytes.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace serdiff::fuzz {

using TargetFunction = void (*)(std::span<const uint8_t> input);

// A target's facts, written once beside it (SERDIFF_FUZZ_TARGET(name, .max_len = 64, ...)). Every script
// reads them from the binary (`--list --json`): tools/fuzz (make fuzz, test-planted, fuzz-bench, mutate),
// the CI jobs, ci/oss-fuzz/build.sh (<target>.options) and the target-list check.
struct TargetOptions {
    size_t max_len = 65536;             // longest input an engine mutates: enough for the structure, no more
    const char* codec = "";             // the serialize/codec.h decode_<codec> this target covers, if any
    bool real_data_seeds = false;       // tools/corpus_gen cuts seeds for it from the real data
    const char* afl_unsupported = "";   // why AFL++ cannot run it (empty: it can)
    // Extra libFuzzer flags every libFuzzer run of it gets (make fuzz, fuzz-bench, test-planted, the CI smoke,
    // OSS-Fuzz's <target>.options), space-separated "-name=value": search settings, never fewer checks.
    const char* libfuzzer_flags = "";
};

struct Target {
    TargetFunction function;
    TargetOptions options;
};

// Every registered target by name (sorted, so listings are stable).
std::map<std::string, Target, std::less<>>& registry();

struct Registration {
    Registration(const char* name, TargetFunction function, TargetOptions options);
};

// A target this binary's subject does not build, with the reason (subjects/core/absent_targets.tsv, registered
// by a generated file): `--list --json` lists it with "absent" so every tool can say why it is missing; it is
// never run, and find_target names the reason.
std::map<std::string, std::string, std::less<>>& absent_targets();
struct AbsentRegistration {
    AbsentRegistration(const char* name, const char* reason);
};

// The target named `name`, or nullptr (after printing the known names to stderr) when there is none.
const Target* find_target(std::string_view name);
// Runs `target` on `input`; an exception escaping a target is reported as a mismatch (and aborts).
void run_target(std::string_view name, TargetFunction target, std::span<const uint8_t> input);
// Prints every target name, one per line, to stdout; with `json`, one JSON array of every target and its
// options instead (each with the binary's "subject"), followed by the absent targets with their reasons.
void list_targets(bool json);
// True when argv holds `--json` (for `--list --json`).
bool wants_json(int argc, char** argv);

}  // namespace serdiff::fuzz

// Defines a target with its options (designated initializers of TargetOptions, or none); the body sees
// `std::span<const uint8_t> input`. One file per target in fuzz_targets/.
#define SERDIFF_FUZZ_TARGET(name, ...)                                                            \
    static void serdiff_fuzz_target_##name(std::span<const uint8_t> input);                       \
    static const ::serdiff::fuzz::Registration serdiff_fuzz_registration_##name{                  \
        #name, serdiff_fuzz_target_##name, ::serdiff::fuzz::TargetOptions{__VA_ARGS__}};           \
    static void serdiff_fuzz_target_##name(std::span<const uint8_t> input)
