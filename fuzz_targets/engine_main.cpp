// Entry point for the coverage-guided engines: libFuzzer links it directly, AFL++ through libAFLDriver.
// The target comes from the FUZZ environment variable, else from the binary's own name (OSS-Fuzz wants
// one binary per target: a copy named `compact_size` runs compact_size); `--list` prints the targets.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fuzz_targets/registry.h"

namespace {
serdiff::fuzz::TargetFunction selected_target = nullptr;
const char* selected_name = "";
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    for (int i = 1; i < *argc; ++i) {
        if (std::strcmp((*argv)[i], "--list") == 0) {
            serdiff::fuzz::list_targets();
            std::exit(0);
        }
    }
    const char* name = std::getenv("FUZZ");
    if ((name == nullptr || *name == '\0') && *argc > 0) {
        const char* slash = std::strrchr((*argv)[0], '/');
        const char* base = slash ? slash + 1 : (*argv)[0];
        if (serdiff::fuzz::registry().count(std::string_view{base}) != 0) name = base;
    }
    if (name == nullptr || *name == '\0') {
        std::fprintf(stderr, "serdiff fuzz: set FUZZ=<target> (run with --list for the names)\n");
        std::exit(2);
    }
    selected_name = name;
    selected_target = serdiff::fuzz::find_target(name);
    if (selected_target == nullptr) std::exit(2);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    serdiff::fuzz::run_target(selected_name, selected_target, {data, size});
    return 0;
}
