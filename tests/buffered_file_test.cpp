// The reference BufferedFile model (differential/reference/buffered_file.h) against values worked out by hand from
// Core's streams.h BufferedFile (Fill, AdvanceStream, SetPos, SetLimit, FindByte), so the model is checked on its own,
// not only against Core.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "differential/file_programs.h"
#include "differential/reference/buffered_file.h"
#include "differential/reference/primitives.h"

namespace {

using serdiff::model::Bytes;
using serdiff::reference::BufferedFileModel;
using serdiff::reference::ReadError;

const Bytes kTen = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

// The error a call throws, "" when it returns (file_programs.h's error_of, which says "(no error)").
std::string error_of(auto&& call)
{
    const std::string text = serdiff::differential::error_of<ReadError>(call);
    return text == "(no error)" ? "" : text;
}

TEST(BufferedFileModel, RefillsKeepTheRewindBytesAndStopAtTheRingsEnd)
{
    BufferedFileModel file(kTen, 4, 1);
    EXPECT_EQ(file.read(3), (Bytes{0, 1, 2}));  // room min(4 - 0, 4 - 1) = 3
    EXPECT_EQ(file.source_position(), 3u);
    EXPECT_EQ(file.read(1), (Bytes{3}));  // room min(4 - 3, 3) = 1: to the ring's end
    EXPECT_EQ(file.source_position(), 4u);
    EXPECT_TRUE(file.set_position(0));  // 0 + 4 < 4 does not hold: the ring holds bytes 0..3
    EXPECT_EQ(file.read(4), (Bytes{0, 1, 2, 3}));
    EXPECT_EQ(file.source_position(), 4u);  // no refill while bytes read remain to be returned
    EXPECT_EQ(file.read(1), (Bytes{4}));
    EXPECT_EQ(file.source_position(), 7u);
    EXPECT_FALSE(file.set_position(2));  // 2 + 4 < 7: as far back as it holds, 7 - 4
    EXPECT_EQ(file.position(), 3u);
    EXPECT_FALSE(file.set_position(9));  // past what was read from the file: to 7
    EXPECT_EQ(file.position(), 7u);
    EXPECT_FALSE(file.eof());
}

TEST(BufferedFileModel, FindByteRefillsAndEofNeedsAShortRefill)
{
    BufferedFileModel file(kTen, 4, 1);
    file.find_byte(9);  // refills of 3 (bytes 0..2), 1 (3), 3 (4..6), 1 (7), then 2 of the 3 asked for (8, 9)
    EXPECT_EQ(file.position(), 9u);
    EXPECT_EQ(file.source_position(), 10u);
    EXPECT_FALSE(file.eof());  // byte 9 not yet returned
    EXPECT_EQ(file.read(1), (Bytes{9}));
    EXPECT_TRUE(file.eof());
    EXPECT_EQ(error_of([&] { file.read(1); }), "end of data");
    EXPECT_EQ(file.position(), 10u);
    file.set_position(8);
    EXPECT_EQ(error_of([&] { file.find_byte(0x77); }), "end of data");
    EXPECT_EQ(file.position(), 10u);  // a search that finds nothing ends at the end
}

TEST(BufferedFileModel, AnExactRefillToTheEndLeavesEofUnsetUntilTheNextRefill)
{
    const Bytes three = {1, 2, 3};
    BufferedFileModel file(three, 3, 0);
    EXPECT_EQ(file.read(3), (Bytes{1, 2, 3}));  // asked for 3, got 3: no end-of-file flag yet
    EXPECT_FALSE(file.eof());
    EXPECT_EQ(error_of([&] { file.read(1); }), "end of data");
    EXPECT_TRUE(file.eof());
}

TEST(BufferedFileModel, LimitsRefuseWholeReadsButNotSearchesOrRewinds)
{
    BufferedFileModel file(kTen, 8, 2);
    EXPECT_TRUE(file.set_limit(2));
    EXPECT_EQ(error_of([&] { file.read(3); }), "read past the limit");
    EXPECT_EQ(file.position(), 0u);  // nothing read
    EXPECT_EQ(file.read(2), (Bytes{0, 1}));
    EXPECT_EQ(file.read(0), Bytes{});
    EXPECT_FALSE(file.set_limit(1));  // behind the position: unchanged
    EXPECT_EQ(error_of([&] { file.skip_to(3); }), "read past the limit");
    file.find_byte(5);  // not bounded by the limit
    EXPECT_EQ(file.position(), 5u);
    EXPECT_EQ(file.read(0), Bytes{});  // an empty read past the limit checks nothing
    EXPECT_EQ(error_of([&] { file.read(1); }), "read past the limit");
    EXPECT_TRUE(file.set_limit(std::nullopt));
    file.skip_to(7);
    EXPECT_EQ(file.read(1), (Bytes{7}));
}

TEST(BufferedFileModel, AReadMeetingTheEndConsumesWhatIsLeft)
{
    const Bytes five = {1, 2, 3, 4, 5};
    BufferedFileModel file(five, 8, 0);
    EXPECT_EQ(error_of([&] { file.read(7); }), "end of data");
    EXPECT_EQ(file.position(), 5u);
    EXPECT_TRUE(file.eof());
}

TEST(BufferedFileModel, ARewindNotBelowTheBufferSizeIsRefused)
{
    EXPECT_EQ(error_of([] { BufferedFileModel(kTen, 4, 4); }), "rewind limit must be less than buffer size");
    EXPECT_EQ(error_of([] { BufferedFileModel(kTen, 4, 3); }), "");
}

}  // namespace
