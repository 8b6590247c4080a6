// The fuzz target registry: SERDIFF_FUZZ_TARGET(name) { ... } registers a function of the input bytes.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace serdiff::fuzz {

using TargetFunction = void (*)(std::span<const uint8_t> input);

// Every registered target by name (sorted, so listings are stable).
std::map<std::string, TargetFunction, std::less<>>& registry();

struct Registration {
    Registration(const char* name, TargetFunction function);
};

// The target named `name`, or nullptr (after printing the known names to stderr) when there is none.
TargetFunction find_target(std::string_view name);
// Runs `target` on `input`; an exception escaping a target is reported as a mismatch (and aborts).
void run_target(std::string_view name, TargetFunction target, std::span<const uint8_t> input);
// Prints every target name, one per line, to stdout.
void list_targets();

}  // namespace serdiff::fuzz

// Defines a target; the body sees `std::span<const uint8_t> input`. One file per target in fuzz_targets/.
#define SERDIFF_FUZZ_TARGET(name)                                                                 \
    static void serdiff_fuzz_target_##name(std::span<const uint8_t> input);                       \
    static const ::serdiff::fuzz::Registration serdiff_fuzz_registration_##name{#name,             \
                                                                               serdiff_fuzz_target_##name}; \
    static void serdiff_fuzz_target_##name(std::span<const uint8_t> input)
