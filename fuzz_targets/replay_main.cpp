// The replay driver: runs files, directories or stdin through one target without any fuzzing engine
// (any compiler, e.g. gcc), and with --smoke-* runs deterministic mutations of them for a short smoke test.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_targets/registry.h"
#include "model/codec_table.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Who is speaking: "serdiff replay" names the serdiff subject's driver (serdiff_fuzz_replay), "serdiff replay (core)"
// the one built on Bitcoin Core's code (core_fuzz_replay); fuzz_targets/CMakeLists.txt defines the subject.
#ifndef SERDIFF_REPLAY_SUBJECT
#define SERDIFF_REPLAY_SUBJECT "serdiff"
#endif
constexpr std::string_view kSubject = SERDIFF_REPLAY_SUBJECT;
constexpr const char* kDriver = kSubject == "serdiff" ? "serdiff replay" : "serdiff replay (" SERDIFF_REPLAY_SUBJECT ")";

constexpr double kProgressIntervalSeconds = 2.0;
constexpr size_t kMaxSmokeBaseSize = 256 * 1024;  // larger seeds are replayed but not mutated (speed)
constexpr size_t kMaxSmokeInputSize = 300 * 1024;

void usage()
{
    std::fputs(
        "usage: serdiff_fuzz_replay [--target NAME] [--smoke-runs N] [--smoke-seconds S] [--seed N] [--bases-only] PATH...\n"
        "       serdiff_fuzz_replay --list [--json]\n"
        "       serdiff_fuzz_replay --list-types\n"
        "--shared-seeds DIR also replays DIR/<target> for a target that has seeds cut from the real data\n"
        "(its option real_data_seeds; that directory must then exist). --list --json prints every target's\n"
        "options; --list-types the object types of the codec table (model/codec_table.h).\n"
        "Runs every file (directories: every file inside, recursively; '-': stdin) through the target\n"
        "named by --target or the FUZZ environment variable. --smoke-runs/--smoke-seconds then run that\n"
        "many deterministic mutations of the inputs (or random inputs when there are none); with --bases-only\n"
        "the inputs are only the mutations' bases, not run first (a smoke test beside its corpus's replay).\n",
        stderr);
}

// What the abort handler reports: the file being replayed, or the smoke input to save.
std::string current_file;
std::string target_name;
const std::vector<uint8_t>* current_smoke_input = nullptr;

void on_abort(int)
{
    // Async-signal-safe only: write(2) and open(2); the process is dying anyway.
    auto say = [](const char* text) { (void)!write(2, text, std::strlen(text)); };
    if (current_smoke_input != nullptr) {
        const std::string path = "serdiff-smoke-crash-" + target_name;
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            (void)!write(fd, current_smoke_input->data(), current_smoke_input->size());
            ::close(fd);
            say(kDriver);
            say(": the smoke input that failed is saved as ./");
            say(path.c_str());
            say("\n");
        }
    } else if (!current_file.empty()) {
        say(kDriver);
        say(": failed on ");
        say(current_file.c_str());
        say("\n");
    }
    std::signal(SIGABRT, SIG_DFL);
    std::raise(SIGABRT);
}

bool read_file(const std::string& path, std::vector<uint8_t>& out)
{
    if (path == "-") {
        out.assign(std::istreambuf_iterator<char>(std::cin), {});
        return true;
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) return false;
    out.assign(std::istreambuf_iterator<char>(file), {});
    return true;
}

// xorshift64*: a fixed, portable generator so a smoke failure reproduces from its seed.
struct SmokeRandom {
    uint64_t state;
    uint64_t next()
    {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return state * 2685821657736338717ULL;
    }
    size_t below(size_t bound) { return bound == 0 ? 0 : static_cast<size_t>(next() % bound); }
};

std::vector<uint8_t> mutate(const std::vector<std::vector<uint8_t>>& bases, SmokeRandom& random)
{
    static constexpr uint8_t kInteresting[] = {0x00, 0x01, 0x7f, 0x80, 0xfc, 0xfd, 0xfe, 0xff};
    std::vector<uint8_t> out;
    if (!bases.empty()) out = bases[random.below(bases.size())];
    else out.resize(random.below(256));
    if (bases.empty())
        for (auto& b : out) b = static_cast<uint8_t>(random.next());
    const size_t mutations = 1 + random.below(4);
    for (size_t m = 0; m < mutations; ++m) {
        const size_t at = random.below(out.size() + 1);
        switch (random.below(6)) {
        case 0: if (at < out.size()) out[at] ^= static_cast<uint8_t>(1u << random.below(8)); break;
        case 1: if (at < out.size()) out[at] = kInteresting[random.below(std::size(kInteresting))]; break;
        case 2: out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(random.next())); break;
        case 3: if (at < out.size()) out.erase(out.begin() + static_cast<std::ptrdiff_t>(at)); break;
        case 4: out.resize(at); break;  // truncation: every "end of data" path
        default:
            if (!bases.empty()) {  // splice in a piece of another input
                const auto& other = bases[random.below(bases.size())];
                const size_t from = random.below(other.size() + 1);
                const size_t length = std::min(other.size() - from, random.below(64));
                out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), other.begin() + static_cast<std::ptrdiff_t>(from),
                           other.begin() + static_cast<std::ptrdiff_t>(from + length));
            }
        }
    }
    if (out.size() > kMaxSmokeInputSize) out.resize(kMaxSmokeInputSize);
    return out;
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> paths;
    uint64_t smoke_runs = 0;
    double smoke_seconds = 0;
    uint64_t seed = 1;
    bool bases_only = false;  // --bases-only: the files are the smoke's bases, not replayed first
    std::string shared_seeds;  // --shared-seeds: the real-data seed tree (tools/corpus_gen --shared-data)
    if (const char* name = std::getenv("FUZZ")) target_name = name;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                usage();
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--list-types") {
            for (const std::string_view type : serdiff::model::kTypeNames)
                std::printf("%.*s\n", static_cast<int>(type.size()), type.data());
            return 0;
        }
        if (arg == "--list") {
            serdiff::fuzz::list_targets(serdiff::fuzz::wants_json(argc, argv));
            return 0;
        } else if (arg == "--help" || arg == "-h") {
            usage();
            return 0;
        } else if (arg == "--target") target_name = value();
        else if (arg == "--smoke-runs") smoke_runs = std::stoull(value());
        else if (arg == "--smoke-seconds") smoke_seconds = std::stod(value());
        else if (arg == "--seed") seed = std::stoull(value());
        else if (arg == "--bases-only") bases_only = true;
        else if (arg == "--shared-seeds") shared_seeds = value();
        else if (arg == "--json") continue;
        else paths.push_back(arg);
    }
    if (target_name.empty()) {
        usage();
        return 2;
    }
    const serdiff::fuzz::Target* found = serdiff::fuzz::find_target(target_name);
    if (found == nullptr) return 2;
    const serdiff::fuzz::TargetFunction target = found->function;
    if (!shared_seeds.empty() && found->options.real_data_seeds)
        paths.push_back((fs::path(shared_seeds) / target_name).string());
    std::signal(SIGABRT, on_abort);

    // Expand directories into their files, sorted so runs are reproducible.
    std::vector<std::string> files;
    for (const auto& path : paths) {
        if (path != "-" && fs::is_directory(path)) {
            std::vector<std::string> inside;
            for (const auto& entry : fs::recursive_directory_iterator(path))
                if (entry.is_regular_file()) inside.push_back(entry.path().string());
            std::sort(inside.begin(), inside.end());
            files.insert(files.end(), inside.begin(), inside.end());
        } else if (path == "-" || fs::is_regular_file(path)) {
            files.push_back(path);
        } else {
            std::fprintf(stderr, "%s: %s does not exist\n", kDriver, path.c_str());
            return 2;
        }
    }

    const auto start = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    double last_progress = 0;
    uint64_t total_bytes = 0;
    std::vector<std::vector<uint8_t>> smoke_bases;
    std::vector<uint8_t> input;
    for (size_t i = 0; i < files.size(); ++i) {
        if (!read_file(files[i], input)) {
            std::fprintf(stderr, "%s: cannot read %s\n", kDriver, files[i].c_str());
            return 2;
        }
        current_file = files[i];
        if (!bases_only) serdiff::fuzz::run_target(target_name, target, input);
        total_bytes += input.size();
        if ((smoke_runs > 0 || smoke_seconds > 0) && input.size() <= kMaxSmokeBaseSize) smoke_bases.push_back(input);
        if (elapsed() - last_progress >= kProgressIntervalSeconds) {
            last_progress = elapsed();
            std::fprintf(stderr, "%s %s: %zu/%zu files, %llu bytes, %.1f s\n", kDriver, target_name.c_str(),
                         i + 1, files.size(), static_cast<unsigned long long>(total_bytes), last_progress);
        }
    }
    current_file.clear();
    const double replay_seconds = elapsed();
    if (bases_only)
        std::printf("%s %s: %zu files, %llu bytes read as smoke bases (not replayed: --bases-only)\n", kDriver,
                    target_name.c_str(), files.size(), static_cast<unsigned long long>(total_bytes));
    else
        std::printf("%s %s: %zu files, %llu bytes replayed in %.2f s, no mismatch\n", kDriver, target_name.c_str(),
                    files.size(), static_cast<unsigned long long>(total_bytes), replay_seconds);

    if (smoke_runs == 0 && smoke_seconds <= 0) return 0;
    SmokeRandom random{seed * 0x9e3779b97f4a7c15ULL + 1};
    uint64_t runs = 0;
    const double smoke_start = elapsed();
    last_progress = smoke_start;
    std::vector<uint8_t> smoke_input;
    current_smoke_input = &smoke_input;
    while ((smoke_runs == 0 || runs < smoke_runs) && (smoke_seconds <= 0 || elapsed() - smoke_start < smoke_seconds)) {
        smoke_input = mutate(smoke_bases, random);
        serdiff::fuzz::run_target(target_name, target, smoke_input);
        ++runs;
        if (elapsed() - last_progress >= kProgressIntervalSeconds) {
            last_progress = elapsed();
            std::fprintf(stderr, "serdiff smoke %s: %llu runs, %.1f s\n", target_name.c_str(),
                         static_cast<unsigned long long>(runs), last_progress - smoke_start);
        }
    }
    current_smoke_input = nullptr;
    std::printf("serdiff smoke %s: %llu mutated inputs from %zu bases (seed %llu) in %.2f s, no mismatch\n",
                target_name.c_str(), static_cast<unsigned long long>(runs), smoke_bases.size(),
                static_cast<unsigned long long>(seed), elapsed() - smoke_start);
    return 0;
}
