// The HEAD-vs-BASE record (differential/observe.h) when the two Core trees differ in a feature: what a check of a
// feature only one side has sees is recorded by neither (ObservedOnlyIfShared), so a HEAD that gained SpanWriter
// or BufferedReader/BufferedWriter is not "different from BASE" for having it; the check itself still runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "differential/observe.h"
#include "differential/stream_program.h"

namespace serdiff::test {
namespace {

using namespace differential;

struct SharedFeaturesRestored {
    ~SharedFeaturesRestored()
    {
        set_shared_features(~0u);
        set_observations(nullptr);
    }
};

TEST(Observe, ACheckOfAFeatureOneSideLacksIsNotRecorded)
{
    const SharedFeaturesRestored restore;
    Observations record;
    set_observations(&record);
    set_shared_features(kFeatureBufferedFiles);  // BASE has no SpanWriter
    {
        const ObservedOnlyIfShared only(kFeatureSpanWriter);
        observe_text("SpanWriter check", "seen");
        EXPECT_FALSE(observing());
    }
    EXPECT_EQ(observations(), &record);  // restored after the check
    EXPECT_EQ(record.count, 0u);
    {
        const ObservedOnlyIfShared only(kFeatureBufferedFiles);
        observe_text("BufferedReader check", "seen");
    }
    observe_text("outside any check", "seen");
    EXPECT_EQ(record.count, 2u);
}

std::vector<uint8_t> read_file(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// primitive_stream's seeds, run with every feature shared and with SpanWriter or the buffered files not: the record
// loses entries (those checks observe) and keeps the others in order; nothing else changes and no check fails.
TEST(Observe, PrimitiveStreamRecordsItsFeatureChecksOnlyWhenShared)
{
    const SharedFeaturesRestored restore;
    const std::filesystem::path corpus = std::filesystem::path(SERDIFF_SOURCE_DIR) / "corpora" / "primitive_stream";
    std::vector<std::filesystem::path> seeds;
    for (const auto& entry : std::filesystem::directory_iterator(corpus)) seeds.push_back(entry.path());
    std::sort(seeds.begin(), seeds.end());
    seeds.resize(std::min<size_t>(seeds.size(), 40));
    // (The process's first program records a few entries more: checks some state once. BASE's first run is its own
    // process's first too, so HEAD and BASE still agree; here a first run out of the way keeps the records comparable.)
    {
        const std::vector<uint8_t> first = read_file(seeds.front());
        check_stream_program(parse_stream_program(first), first);
    }
    size_t fewer[2] = {0, 0};
    const Feature features[2] = {kFeatureSpanWriter, kFeatureBufferedFiles};
    for (const auto& seed : seeds) {
        const std::vector<uint8_t> input = read_file(seed);
        const StreamProgram program = parse_stream_program(input);
        Observations all;
        set_shared_features(~0u);
        set_observations(&all);
        check_stream_program(program, input);
        const auto all_entries = split_entries(all.entries);
        for (int i = 0; i < 2; ++i) {
            Observations without;
            set_shared_features(~0u & ~static_cast<uint32_t>(features[i]));
            set_observations(&without);
            check_stream_program(program, input);
            const auto entries = split_entries(without.entries);
            ASSERT_LE(entries.size(), all_entries.size()) << seed;
            // A subsequence of the full record.
            size_t at = 0;
            for (const auto& entry : all_entries)
                if (at < entries.size() && std::ranges::equal(entry, entries[at])) ++at;
            EXPECT_EQ(at, entries.size()) << seed << ": entries not in the full record";
            if (entries.size() < all_entries.size()) ++fewer[i];
        }
    }
    EXPECT_GT(fewer[0], 0u) << "no seed's SpanWriter checks observed anything";
    EXPECT_GT(fewer[1], 0u) << "no seed's buffered checks observed anything";
}

}  // namespace
}  // namespace serdiff::test
