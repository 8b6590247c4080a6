// The reference model of Core's block files (differential/reference/block_files.h) against values worked out by hand
// from node/blockstorage.cpp and flatfile.cpp, so the model is checked on its own, not only against Core.
#include <gtest/gtest.h>

#include <cstdint>

#include "differential/reference/block_files.h"

namespace {

using serdiff::model::Bytes;
namespace files = serdiff::reference::block_files;

files::Options fast_prune(uint8_t key_byte)
{
    files::Options options;
    for (size_t i = 0; i < 8; ++i) options.key[i] = std::byte(static_cast<uint8_t>(key_byte + i));
    options.magic = {std::byte{0xfa}, std::byte{0xbf}, std::byte{0xb5}, std::byte{0xda}};
    options.block_chunk = 0x4000;
    options.undo_chunk = 0x100000;
    options.max_file = 0x10000;
    return options;
}

TEST(BlockFiles, ABlockRecordIsObfuscatedAtItsOffsetInAWholeChunk)
{
    files::BlockFiles model(fast_prune(0x10));
    const Bytes block(100, 0xaa);
    EXPECT_EQ(model.write_block(block, 1), (files::Position{0, 8}));
    EXPECT_EQ(model.write_block(block, 2), (files::Position{0, 116}));
    const Bytes& file = model.files().at("blk00000.dat");
    ASSERT_EQ(file.size(), 0x4000u);  // one 16 KiB chunk of zeros, records over its start
    EXPECT_EQ(file[0], 0xfa ^ 0x10);
    EXPECT_EQ(file[4], 100 ^ 0x14);  // the size, little-endian, XORed with key[4]
    EXPECT_EQ(file[5], 0x00 ^ 0x15);
    EXPECT_EQ(file[108], 0xfa ^ 0x14);  // the second record's magic at offset 108: key[108 % 8]
    EXPECT_EQ(file[216], 0x00);        // past the records: plain zeros
}

TEST(BlockFiles, ARecordThatWouldReachTheMaximumStartsTheNextFileAndCutsTheOld)
{
    files::BlockFiles model(fast_prune(0));
    EXPECT_EQ(model.write_block(Bytes(60000, 1), 1), (files::Position{0, 8}));
    // 60,008 + 5,528 = 65,536 reaches the 64 KiB maximum: the next file.
    EXPECT_EQ(model.write_block(Bytes(5520, 2), 2), (files::Position{1, 8}));
    EXPECT_EQ(model.files().at("blk00000.dat").size(), 60008u);
    EXPECT_EQ(model.files().at("blk00001.dat").size(), 0x4000u);
    EXPECT_EQ(model.files().count("rev00000.dat"), 0u);  // the undo writes had not kept up (none)
}

TEST(BlockFiles, UndoDataThatKeptUpIsCutAtTheRollover)
{
    files::BlockFiles model(fast_prune(0));
    model.write_block(Bytes(60000, 1), 1);
    const serdiff::model::uint256 parent{};
    EXPECT_EQ(model.write_undo(Bytes{0}, parent, 0, 1), (files::Position{0, 8}));
    EXPECT_EQ(model.files().at("rev00000.dat").size(), 0x100000u);  // a 1 MiB chunk
    model.write_block(Bytes(6000, 2), 2);
    EXPECT_EQ(model.files().at("rev00000.dat").size(), 41u);  // header, 1 byte, checksum
    ASSERT_TRUE(model.read_undo({0, 8}, parent).has_value());
    serdiff::model::uint256 other{};
    other.bytes[0] = 1;
    EXPECT_FALSE(model.read_undo({0, 8}, other).has_value());  // the checksum covers the parent's hash
}

TEST(BlockFiles, RawReadsRefuseWhatCoreRefuses)
{
    files::BlockFiles model(fast_prune(0x33));
    model.write_block(Bytes(100, 7), 1);
    EXPECT_EQ(model.read_raw({0, 8}).data, Bytes(100, 7));
    EXPECT_EQ(model.read_raw({0, 7}).error, files::RawError::io);   // below the header
    EXPECT_EQ(model.read_raw({0, 9}).error, files::RawError::io);   // the magic is not there
    EXPECT_EQ(model.read_raw({1, 8}).error, files::RawError::io);   // no such file
    EXPECT_EQ(model.read_raw({0, 8}, std::pair<uint64_t, uint64_t>{99, 1}).data, Bytes(1, 7));
    EXPECT_EQ(model.read_raw({0, 8}, std::pair<uint64_t, uint64_t>{100, 1}).error, files::RawError::bad_part_range);
    EXPECT_EQ(model.read_raw({0, 8}, std::pair<uint64_t, uint64_t>{0, 0}).error, files::RawError::bad_part_range);
    EXPECT_EQ(model.read_raw({0, 8}, std::pair<uint64_t, uint64_t>{UINT64_MAX, 2}).error, files::RawError::bad_part_range);
}

TEST(BlockFiles, ProofOfWorkDecodesTheCompactTarget)
{
    serdiff::model::uint256 limit;
    limit.bytes.fill(0xff);
    limit.bytes[31] = 0x7f;  // regtest's 7fff...ff
    serdiff::model::uint256 hash{};
    hash.bytes[31] = 0x7f;
    hash.bytes[30] = 0xff;
    EXPECT_TRUE(files::check_proof_of_work(hash, 0x207fffff, limit));   // hash 7fff00... <= 7fffff00...
    hash.bytes[31] = 0x80;
    EXPECT_FALSE(files::check_proof_of_work(hash, 0x207fffff, limit));  // above the target
    hash = {};
    EXPECT_FALSE(files::check_proof_of_work(hash, 0x20800000 | 0x7fff, limit));  // negative
    EXPECT_FALSE(files::check_proof_of_work(hash, 0x01003456, limit));  // decodes to zero
    EXPECT_FALSE(files::check_proof_of_work(hash, 0x22010000, limit));  // overflows 256 bits
    EXPECT_FALSE(files::check_proof_of_work(hash, 0x2100ffff, limit));  // above the limit
    EXPECT_TRUE(files::check_proof_of_work(hash, 0x03000001, limit));   // target 1, hash 0
}

}  // namespace
