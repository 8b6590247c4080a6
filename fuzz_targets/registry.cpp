// The registry's storage and lookup, shared by the libFuzzer/AFL++ entry point and the replay driver.
#include "fuzz_targets/registry.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "differential/compare.h"

namespace serdiff::fuzz {

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

const Target* find_target(std::string_view name)
{
    const auto found = registry().find(name);
    if (found != registry().end()) return &found->second;
    std::fprintf(stderr, "serdiff fuzz: unknown target '%.*s'; known targets:\n", static_cast<int>(name.size()),
                 name.data());
    for (const auto& [known, target] : registry()) std::fprintf(stderr, "  %s\n", known.c_str());
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
               ", \"libfuzzer_flags\": " + json_string(options.libfuzzer_flags) + "}";
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
