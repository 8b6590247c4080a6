// One list of benchmark cases, run by Google Benchmark (timing) and by the callgrind mode (instructions).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/blocks.h"

namespace serdiff::bench {

struct Case {
    std::string group;           // e.g. "SerializeBlock"
    std::string subject;         // e.g. "413567", "413567:xor", "1MiB:unaligned", "3 bytes"
    std::string implementation;  // e.g. "optimized", "reference", "memcpy", "rust-bitcoin"
    uint64_t bytes_per_op = 0;   // for MB/s; 0 when throughput means nothing
    uint64_t ops_per_run = 1;    // operations one call of `run` performs (batched small operations)
    // One timed run; either `run` (timed by the caller) or `run_self_timed` (a peer timing itself:
    // runs `iterations` runs and returns their nanoseconds) is set.
    std::function<void()> run;
    std::function<uint64_t(uint64_t iterations)> run_self_timed;

    std::string name() const { return group + "/" + subject + "/" + implementation; }
};

struct CaseSetup {
    std::vector<BenchBlock> blocks;
    std::filesystem::path scratch_dir;  // block files for the WriteBlock/ReadBlock cases
    // serdiff_bench_core only (bench/core_cases.cpp): the implementation name of its rows (--name=, default
    // "core-src") and Core's SHA-256 (--sha256=auto, Core's SHA256AutoDetect(), or --sha256=standard, its C code).
    std::string name;
    std::string sha256;
};

// Every case of this binary (serdiff_bench: bench/cases.cpp; serdiff_bench_core: bench/core_cases.cpp); writes the
// read benchmarks' block files into setup.scratch_dir. `notes` collects lines for
// the report (peers left out and why). Each case is checked once here, so a wrong result fails early.
std::vector<Case> make_cases(const CaseSetup& setup, std::vector<std::string>& notes);

}  // namespace serdiff::bench
