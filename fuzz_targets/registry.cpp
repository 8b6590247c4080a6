// The registry's storage and lookup, shared by the libFuzzer/AFL++ entry point and the replay driver.
#include "fuzz_targets/registry.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "differential/compare.h"

namespace serdiff::fuzz {

std::map<std::string, TargetFunction, std::less<>>& registry()
{
    static std::map<std::string, TargetFunction, std::less<>> targets;  // built before main by Registration
    return targets;
}

Registration::Registration(const char* name, TargetFunction function)
{
    if (!registry().emplace(name, function).second) {
        std::fprintf(stderr, "serdiff fuzz: target %s registered twice\n", name);
        std::abort();
    }
}

TargetFunction find_target(std::string_view name)
{
    const auto found = registry().find(name);
    if (found != registry().end()) return found->second;
    std::fprintf(stderr, "serdiff fuzz: unknown target '%.*s'; known targets:\n", static_cast<int>(name.size()),
                 name.data());
    for (const auto& [known, function] : registry()) std::fprintf(stderr, "  %s\n", known.c_str());
    return nullptr;
}

void run_target(std::string_view name, TargetFunction target, std::span<const uint8_t> input)
{
    try {
        target(input);
    } catch (const std::exception& error) {
        differential::report_mismatch(name, "uncaught exception (neither side may throw out of the codec)",
                                      error.what(), input);
    }
}

void list_targets()
{
    for (const auto& [name, function] : registry()) std::printf("%s\n", name.c_str());
}

}  // namespace serdiff::fuzz
