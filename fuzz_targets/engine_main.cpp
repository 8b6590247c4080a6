// Entry point for the coverage-guided engines: libFuzzer links it directly, AFL++ through libAFLDriver.
// The target comes from the FUZZ environment variable, else from the binary's own name (OSS-Fuzz wants
// one binary per target: a copy named `compact_size` runs compact_size, and so does one named
// `<subject>_compact_size`, e.g. core_compact_size); `--list` prints the targets.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "differential/subject.h"
#include "fuzz_targets/registry.h"

// The engines' own code (libFuzzer's main, AFL++'s driver) is not instrumented: under MSan what it hands
// over may look uninitialized (stack left poisoned by static initializers, buffers it filled), so the
// entry points mark it initialized before reading it.
#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#include <sanitizer/msan_interface.h>
#define SERDIFF_MSAN_UNPOISON(address, size) __msan_unpoison(address, size)
#endif
#endif
#ifndef SERDIFF_MSAN_UNPOISON
#define SERDIFF_MSAN_UNPOISON(address, size) ((void)(address), (void)(size))
#endif

namespace {
serdiff::fuzz::TargetFunction selected_target = nullptr;
const char* selected_name = "";
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    SERDIFF_MSAN_UNPOISON(argc, sizeof *argc);
    SERDIFF_MSAN_UNPOISON(argv, sizeof *argv);
    for (int i = 1; i < *argc; ++i) {
        if (std::strcmp((*argv)[i], "--list") == 0) {
            serdiff::fuzz::list_targets(serdiff::fuzz::wants_json(*argc, *argv));
            std::exit(0);
        }
    }
    const char* name = std::getenv("FUZZ");
    if ((name == nullptr || *name == '\0') && *argc > 0) {
        const char* slash = std::strrchr((*argv)[0], '/');
        const char* base = slash ? slash + 1 : (*argv)[0];
        // ci/oss-fuzz/build.sh names the Core subject's copies core_<target>: the binary's own subject prefix is
        // dropped (what remains is the end of argv[0], so still NUL-terminated).
        const std::string_view prefix = serdiff::subject::name();
        const std::string_view own{base};
        if (own.size() > prefix.size() + 1 && own.starts_with(prefix) && own[prefix.size()] == '_' &&
            serdiff::fuzz::registry().count(own.substr(prefix.size() + 1)) != 0) {
            base += prefix.size() + 1;
        }
        if (serdiff::fuzz::registry().count(std::string_view{base}) != 0) name = base;
    }
    if (name == nullptr || *name == '\0') {
        std::fprintf(stderr, "serdiff fuzz: set FUZZ=<target> (run with --list for the names)\n");
        std::exit(2);
    }
    selected_name = name;
    const serdiff::fuzz::Target* target = serdiff::fuzz::find_target(name);
    if (target == nullptr) std::exit(2);
    selected_target = target->function;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // libFuzzer unpoisons the input itself; AFL++'s driver, not instrumented either, does not.
    SERDIFF_MSAN_UNPOISON(data, size);
    serdiff::fuzz::run_target(selected_name, selected_target, {data, size});
    return 0;
}
