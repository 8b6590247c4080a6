// serdiff_bench: the benchmark cases under Google Benchmark, or under callgrind for instruction counts. The same
// main runs serdiff_bench_core, whose cases are Bitcoin Core's code compiled from source (bench/core_cases.cpp).
//
// Usage: serdiff_bench [--data=DIR] [--scratch=DIR] [Google Benchmark flags]
//        serdiff_bench_core [--name=core-src] [--sha256=auto|standard] [the same flags]
//        serdiff_bench [--data=DIR] [--scratch=DIR] --instructions [--filter=REGEX]
//          (run by bench/report.py under valgrind --tool=callgrind --collect-atstart=no: each case runs once
//          untimed, then once with collection on, dumped as "Client Request: <case name>"; a peer also at
//          3 iterations, dumped as "<case name>#3")
//        serdiff_bench [--data=DIR] [--scratch=DIR] --list
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "bench/blocks.h"
#include "bench/cases.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define SERDIFF_HAVE_CALLGRIND 1
#else
#define SERDIFF_HAVE_CALLGRIND 0
#endif

namespace {

using serdiff::bench::Case;

// Peer operations timed per call; the iteration time given to Google Benchmark is their mean.
constexpr uint64_t kPeerBatch = 8;

void register_case(const Case& bench_case)
{
    auto* registered = benchmark::RegisterBenchmark(bench_case.name().c_str(), [bench_case](benchmark::State& state) {
        if (bench_case.run_self_timed) {
            // Each call checks its input before timing; a batch of kPeerBatch keeps that overhead small.
            for (auto _ : state)
                state.SetIterationTime(static_cast<double>(bench_case.run_self_timed(kPeerBatch)) * 1e-9 / kPeerBatch);
        } else {
            for (auto _ : state) bench_case.run();
        }
        state.counters["ops_per_run"] = static_cast<double>(bench_case.ops_per_run);
        state.counters["bytes_per_op"] = static_cast<double>(bench_case.bytes_per_op);
        if (bench_case.bytes_per_op != 0)
            state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bench_case.bytes_per_op * bench_case.ops_per_run));
    });
    registered->Unit(benchmark::kMicrosecond);
    if (bench_case.run_self_timed) registered->UseManualTime();
}

int run_instructions(const std::vector<Case>& cases, const std::string& filter)
{
#if SERDIFF_HAVE_CALLGRIND
    if (!RUNNING_ON_VALGRIND) {
        std::fprintf(stderr, "serdiff_bench --instructions runs under valgrind --tool=callgrind (make bench-callgrind)\n");
        return 2;
    }
    const std::regex pattern(filter);
    for (const Case& bench_case : cases) {
        const std::string name = bench_case.name();
        if (!std::regex_search(name, pattern)) continue;
        // Once untimed (caches, lazy allocations), then once collected. A peer call checks its input before
        // its loop, so a peer is collected at 1 and at 3 iterations: the difference is two operations.
        auto collect = [&](const std::string& dump_name, uint64_t iterations) {
            CALLGRIND_ZERO_STATS;
            CALLGRIND_TOGGLE_COLLECT;
            if (bench_case.run_self_timed) bench_case.run_self_timed(iterations);
            else bench_case.run();
            CALLGRIND_TOGGLE_COLLECT;
            CALLGRIND_DUMP_STATS_AT(dump_name.c_str());
        };
        if (bench_case.run_self_timed) bench_case.run_self_timed(1);
        else bench_case.run();
        collect(name, 1);
        if (bench_case.run_self_timed) collect(name + "#3", 3);
        std::printf("case\t%s\t%llu\t%llu\t%d\n", name.c_str(),
                    static_cast<unsigned long long>(bench_case.ops_per_run),
                    static_cast<unsigned long long>(bench_case.bytes_per_op), bench_case.run_self_timed ? 1 : 0);
        std::fflush(stdout);
    }
    return 0;
#else
    (void)cases;
    (void)filter;
    std::fprintf(stderr, "serdiff_bench was built without <valgrind/callgrind.h> (install valgrind)\n");
    return 2;
#endif
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string program = std::filesystem::path(argv[0]).filename().string();
    std::string data_dir = SERDIFF_DATA_DIR;
    std::string scratch_dir = "bench-out/files";
    std::string filter = ".";
    std::string name;
    std::string sha256;
    bool instructions = false;
    bool list = false;
    // Our flags first; the rest goes to Google Benchmark.
    std::vector<char*> remaining{argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string_view argument = argv[i];
        if (argument.starts_with("--data=")) data_dir = argument.substr(7);
        else if (argument.starts_with("--scratch=")) scratch_dir = argument.substr(10);
        else if (argument.starts_with("--filter=")) filter = argument.substr(9);
        else if (argument.starts_with("--name=")) name = argument.substr(7);
        else if (argument.starts_with("--sha256=")) sha256 = argument.substr(9);
        else if (argument == "--instructions") instructions = true;
        else if (argument == "--list") list = true;
        else remaining.push_back(argv[i]);
    }
    try {
        std::string data_note;
        serdiff::bench::CaseSetup setup;
        setup.blocks = serdiff::bench::load_blocks(data_dir, data_note);
        setup.scratch_dir = scratch_dir;
        setup.name = name;
        setup.sha256 = sha256;
        std::fprintf(stderr, "%s: %s; block files in %s\n", program.c_str(), data_note.c_str(), scratch_dir.c_str());
        std::vector<std::string> notes;
        const std::vector<Case> cases = serdiff::bench::make_cases(setup, notes);
        for (const auto& note : notes) std::fprintf(stderr, "%s: %s\n", program.c_str(), note.c_str());
        if (list) {
            for (const Case& bench_case : cases) std::printf("%s\n", bench_case.name().c_str());
            return 0;
        }
        if (instructions) return run_instructions(cases, filter);

        benchmark::AddCustomContext("serdiff_blocks", data_note);
        std::string joined;
        for (const auto& note : notes) joined += (joined.empty() ? "" : "; ") + note;
        benchmark::AddCustomContext("serdiff_notes", joined);
        benchmark::AddCustomContext("serdiff_scratch_dir", scratch_dir);
        for (const Case& bench_case : cases) register_case(bench_case);
        int remaining_count = static_cast<int>(remaining.size());
        benchmark::Initialize(&remaining_count, remaining.data());
        if (benchmark::ReportUnrecognizedArguments(remaining_count, remaining.data())) return 2;
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "%s: %s\n", program.c_str(), error.what());
        return 1;
    }
}
