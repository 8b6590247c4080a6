// The registry's storage and lookup, shared by the libFuzzer/AFL++ entry point and the replay driver.
#include "fuzz_targets/registry.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <unistd.h>

#include "differential/allocation_bound.h"
#include "differential/compare.h"
#include "differential/subject.h"

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

void bounded_malloc_hook(const volatile void*, size_t size)
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

void ignore_free(const volatile void*) {}

[[maybe_unused]] const bool allocation_bound_installed =
    __sanitizer_install_malloc_and_free_hooks &&
    __sanitizer_install_malloc_and_free_hooks(bounded_malloc_hook, ignore_free) != 0;
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
               ", \"subject\": " + json_string(subject::name()) + "}";
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
