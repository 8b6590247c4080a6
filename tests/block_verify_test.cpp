// Block verification (crypto/block_check.h) and `serdiff blockfile scan --verify`: compact-target decoding,
// merkle roots with the odd-level duplication and its mutation, and a block file of the four mainnet blocks
// with one byte flipped at sampled offsets of every record, each reported corrupt at the right record.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "crypto/block_check.h"
#include "crypto/crypto.h"
#include "model/model.h"
#include "serialize/codec.h"
#include "tests/test_util.h"

namespace serdiff::test {
namespace {

namespace fs = std::filesystem;

model::uint256 target_of(std::initializer_list<std::pair<size_t, uint8_t>> bytes)
{
    model::uint256 out;
    for (const auto& [index, value] : bytes) out.bytes[index] = value;
    return out;
}

// Vectors of Bitcoin Core's SetCompact behaviour (arith_uint256 tests), as facts about the format.
TEST(CompactTarget, DecodesSizeMantissaSignAndOverflow)
{
    EXPECT_TRUE(crypto::decode_compact_target(0).zero);
    EXPECT_TRUE(crypto::decode_compact_target(0x00123456).zero);
    EXPECT_TRUE(crypto::decode_compact_target(0x01003456).zero);
    EXPECT_TRUE(crypto::decode_compact_target(0x02000056).zero);
    EXPECT_EQ(crypto::decode_compact_target(0x01123456).target, target_of({{0, 0x12}}));
    EXPECT_EQ(crypto::decode_compact_target(0x02008000).target, target_of({{0, 0x80}}));
    EXPECT_EQ(crypto::decode_compact_target(0x05009234).target, target_of({{2, 0x34}, {3, 0x92}}));
    EXPECT_EQ(crypto::decode_compact_target(0x04123456).target, target_of({{1, 0x56}, {2, 0x34}, {3, 0x12}}));
    EXPECT_TRUE(crypto::decode_compact_target(0x04123456).valid());
    EXPECT_TRUE(crypto::decode_compact_target(0x04923456).negative);
    EXPECT_TRUE(crypto::decode_compact_target(0x01fedcba).negative);
    // The sign bit makes a target negative only when the word it ends up with is not zero (Core: nWord != 0):
    // a zero mantissa, and a mantissa the size shifts out entirely.
    EXPECT_FALSE(crypto::decode_compact_target(0x04800000).negative);
    EXPECT_FALSE(crypto::decode_compact_target(0x01803456).negative);
    EXPECT_TRUE(crypto::decode_compact_target(0x01803456).zero);
    EXPECT_FALSE(crypto::decode_compact_target(0x04923456).valid());
    EXPECT_TRUE(crypto::decode_compact_target(0xff123456).overflow);
    EXPECT_TRUE(crypto::decode_compact_target(0x23000001).overflow);   // size 35: past 256 bits
    EXPECT_FALSE(crypto::decode_compact_target(0x22000001).overflow);  // size 34, one-byte word: the top byte
    EXPECT_TRUE(crypto::decode_compact_target(0x22000100).overflow);
    EXPECT_TRUE(crypto::decode_compact_target(0x21010000).overflow);
    EXPECT_FALSE(crypto::decode_compact_target(0x20010000).overflow);
    // The largest word each of sizes 33 and 34 holds is the boundary of its test (Core: nWord > 0xffff, > 0xff).
    EXPECT_FALSE(crypto::decode_compact_target(0x2100ffff).overflow);
    EXPECT_FALSE(crypto::decode_compact_target(0x220000ff).overflow);
    EXPECT_EQ(crypto::decode_compact_target(0x2100ffff).target, target_of({{30, 0xff}, {31, 0xff}}));
    EXPECT_EQ(crypto::decode_compact_target(0x220000ff).target, target_of({{31, 0xff}}));
    EXPECT_EQ(crypto::decode_compact_target(0x22000001).target, target_of({{31, 0x01}}));
    // Mainnet's proof-of-work limit, nBits 1d00ffff: 0x00000000ffff0000...
    EXPECT_EQ(crypto::decode_compact_target(0x1d00ffff).target, target_of({{26, 0xff}, {27, 0xff}}));
}

TEST(CompactTarget, HashAtMostComparesAsLittleEndianNumbers)
{
    const model::uint256 target = target_of({{26, 0xff}, {27, 0xff}});
    EXPECT_TRUE(crypto::hash_at_most(target, target));
    EXPECT_TRUE(crypto::hash_at_most(target_of({{0, 0xff}, {25, 0xff}}), target));
    EXPECT_FALSE(crypto::hash_at_most(target_of({{28, 0x01}}), target));
    EXPECT_FALSE(crypto::hash_at_most(target_of({{0, 0x01}, {26, 0xff}, {27, 0xff}}), target));
}

model::uint256 leaf(uint8_t n)
{
    model::uint256 out;
    out.bytes.fill(n);
    return out;
}

TEST(MerkleRoot, PairsLevelsDuplicatesTheOddLastAndFlagsTheMutation)
{
    bool mutated = true;
    // The empty list: root zero, the flag cleared, and no flag asked for is no flag written.
    EXPECT_EQ(crypto::merkle_root({}, &mutated), model::uint256{});
    EXPECT_FALSE(mutated);
    EXPECT_EQ(crypto::merkle_root({}), model::uint256{});
    mutated = true;
    EXPECT_EQ(crypto::merkle_root({leaf(1)}, &mutated), leaf(1));
    EXPECT_FALSE(mutated);
    const model::uint256 ab = crypto::sha256d(leaf(1).bytes, leaf(2).bytes);
    EXPECT_EQ(crypto::merkle_root({leaf(1), leaf(2)}, &mutated), ab);
    EXPECT_FALSE(mutated);
    const model::uint256 cc = crypto::sha256d(leaf(3).bytes, leaf(3).bytes);
    const model::uint256 abc = crypto::sha256d(ab.bytes, cc.bytes);
    EXPECT_EQ(crypto::merkle_root({leaf(1), leaf(2), leaf(3)}, &mutated), abc);
    EXPECT_FALSE(mutated);
    // CVE-2012-2459: [a b c c] has the root of [a b c]; the equal pair is the tell.
    EXPECT_EQ(crypto::merkle_root({leaf(1), leaf(2), leaf(3), leaf(3)}, &mutated), abc);
    EXPECT_TRUE(mutated);
    // Equal hashes that are not a pair (positions 1 and 2) are no mutation.
    crypto::merkle_root({leaf(1), leaf(2), leaf(2), leaf(3)}, &mutated);
    EXPECT_FALSE(mutated);
}

// --- the four mainnet blocks -------------------------------------------------------------------------

std::vector<fs::path> mainnet_block_files()
{
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(data_dir() / "blocks"))
        if (entry.path().extension() == ".raw") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

struct Ids {
    std::vector<model::uint256> txids, wtxids;
};
Ids ids_of(const model::Block& block)
{
    Ids ids;
    for (const model::Transaction& tx : block.transactions) {
        ids.txids.push_back(crypto::sha256d(optimized::encode_transaction(tx, false)));
        ids.wtxids.push_back(crypto::sha256d(optimized::encode_transaction(tx, true)));
    }
    return ids;
}

TEST(BlockCheck, MainnetBlocksPassAndEachCheckFiresOnItsField)
{
    if (!have_data()) GTEST_SKIP() << "real data directory " << data_dir() << " is absent (see its README.md)";
    const auto files = mainnet_block_files();
    ASSERT_EQ(files.size(), 4u);
    size_t with_commitment = 0, odd_counts = 0;
    for (const fs::path& path : files) {
        SCOPED_TRACE(path.filename().string());
        const Bytes raw = read_file_bytes(path);
        const auto decoded = optimized::decode_block(raw);
        ASSERT_TRUE(decoded.ok) << decoded.error;
        model::Block block = decoded.value;
        const model::uint256 hash = crypto::sha256d(std::span{raw}.first(80));
        Ids ids = ids_of(block);
        EXPECT_EQ(crypto::check_block(block, hash, ids.txids, ids.wtxids), std::vector<std::string>{});
        const bool committed = crypto::witness_commitment_index(block.transactions[0]).has_value();
        with_commitment += committed;

        // Each damage is caught by its own check, and only by it.
        auto failures = [&](const model::Block& b, const model::uint256& h, const Ids& i) {
            std::string joined;
            for (const auto& f : crypto::check_block(b, h, i.txids, i.wtxids)) joined += f + "\n";
            return joined;
        };
        model::uint256 wrong_hash = hash;
        wrong_hash.bytes[31] ^= 0x80;
        EXPECT_EQ(failures(block, wrong_hash, ids).rfind("proof of work: header hash", 0), 0u);
        Ids swapped = ids;
        std::swap(swapped.txids[0], swapped.txids[1]);
        EXPECT_NE(failures(block, hash, swapped).find("merkle root: header has"), std::string::npos);
        EXPECT_EQ(failures(block, hash, swapped).find("proof of work"), std::string::npos);
        if (committed) {
            Ids bad_witness = ids;
            bad_witness.wtxids.back().bytes[0] ^= 1;
            // The message gives both 32-byte values in full: the committed one (the output's script past its 6-byte
            // OP_RETURN header) and the one the witnesses give.
            const size_t output = *crypto::witness_commitment_index(block.transactions[0]);
            const model::Script& script = block.transactions[0].outputs[output].script_pubkey;
            const std::string committed_hex = model::to_hex(script.data() + 6, 32);
            const std::string prefix = "witness commitment: coinbase output " + std::to_string(output) +
                                       " commits to " + committed_hex + ", the witnesses give ";
            const std::string message = failures(block, hash, bad_witness);
            ASSERT_EQ(message.rfind(prefix, 0), 0u) << message;
            const std::string given = message.substr(prefix.size());
            EXPECT_EQ(given.size(), 64u + 1u) << message;  // the hex and the joining newline
            EXPECT_NE(given.substr(0, 64), committed_hex) << message;
            model::Block no_nonce = block;
            no_nonce.transactions[0].inputs[0].witness.clear();
            // Only that failure: without its reserved value there is no commitment to compare with.
            EXPECT_EQ(failures(no_nonce, hash, ids),
                      "witness commitment: the coinbase witness is not one 32-byte reserved value (0 items)\n");
            no_nonce.transactions[0].inputs[0].witness.push_back(Bytes(31, 0));
            EXPECT_EQ(failures(no_nonce, hash, ids),
                      "witness commitment: the coinbase witness is not one 32-byte reserved value (1 items)\n");
        }
        // CVE-2012-2459: a block with an odd number of transactions and its last one repeated has the same
        // merkle root (and, the wtxid list repeating too, the same witness root); only the mutation check sees it.
        if (block.transactions.size() % 2 == 1) {
            ++odd_counts;
            model::Block duplicated = block;
            duplicated.transactions.push_back(block.transactions.back());
            Ids doubled = ids;
            doubled.txids.push_back(ids.txids.back());
            doubled.wtxids.push_back(ids.wtxids.back());
            EXPECT_EQ(failures(duplicated, hash, doubled),
                      "merkle root: duplicate transaction hashes at a pair position (CVE-2012-2459)\n");
        }
        model::Block bad_bits = block;
        bad_bits.header.bits |= 0x00800000;
        EXPECT_EQ(failures(bad_bits, hash, ids).rfind("proof of work: nBits", 0), 0u);
    }
    EXPECT_GE(with_commitment, 2u);  // 540107, 574200 and 702861 are after segwit's activation
    EXPECT_GE(odd_counts, 1u);       // at least one of the four has an odd transaction count
}

// --- serdiff blockfile scan --verify on a damaged block file -------------------------------------------

struct CliResult {
    int status = -1;
    std::vector<std::string> lines;
    std::string text;
};

// One run of the CLI (run_cli): its stdout lines, then its stderr lines (a scan prints a line per record on
// stdout, then the summary on stderr), and all of it as text for failure messages.
CliResult run_serdiff(const std::string& arguments)
{
    const CliRun run = run_cli(arguments);
    CliResult result;
    result.status = run.exit_status;
    result.text = run.out + run.err;
    std::istringstream stream(result.text);
    for (std::string line; std::getline(stream, line);) result.lines.push_back(line);
    return result;
}

constexpr const char* kKey = "0102030405060708";

// Where in a record a flip lands, and what --verify must say about it when the block still decodes.
struct Flip {
    std::string what;
    size_t record_offset;  // from the record's magic
    std::string expect;     // a substring of the record's error line ("" = any error)
    bool framing;           // magic or size: the records after it may be misread, not checked
};

class ScanVerify : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!have_data()) GTEST_SKIP() << "real data directory " << data_dir() << " is absent (see its README.md)";
        std::string blocks;
        uint64_t offset = 0;
        for (const fs::path& path : mainnet_block_files()) {
            blocks += " " + path.string();
            records.push_back({offset, read_file_bytes(path)});
            offset += 8 + records.back().block.size();
        }
        ASSERT_EQ(records.size(), 4u);
        const CliResult written = run_serdiff(std::string("blockfile write --key ") + kKey + " " +
                                                  (dir / "blk00000.dat").string() + blocks);
        ASSERT_EQ(written.status, 0) << written.text;
        file = read_file_bytes(dir / "blk00000.dat");
        ASSERT_EQ(file.size(), offset);
    }

    // The offsets of one record worth flipping: framing, every header field, the transactions (sampled),
    // and, in a block with a witness commitment, a witness byte and the coinbase's reserved value.
    std::vector<Flip> flips_of(size_t index, std::mt19937_64& rng) const
    {
        const Bytes& raw = records[index].block;
        std::vector<Flip> flips = {
            {"magic", 0, "", true},
            {"size (low byte)", 4, "", true},
            {"size (high byte)", 7, "", true},
            {"header version", 8 + 1, "proof of work", false},
            {"header prev_block", 8 + 4 + 17, "proof of work", false},
            {"header merkle_root", 8 + 36 + 5, "merkle root", false},
            {"header time", 8 + 68, "proof of work", false},
            {"header nonce", 8 + 79, "proof of work", false},
            {"last byte (a lock time)", 8 + raw.size() - 1, "", false},
        };
        // The nBits mantissa's low byte: the target moves a little, the hash moves everywhere.
        flips.push_back({"header bits", 8 + 72, "proof of work", false});
        std::uniform_int_distribution<size_t> in_txs(81, raw.size() - 1);
        for (int i = 0; i < 6; ++i) {
            const size_t at = in_txs(rng);
            flips.push_back({"transactions byte " + std::to_string(at), 8 + at, "", false});
        }
        const auto decoded = optimized::decode_block(raw);
        const model::Block& block = decoded.value;
        if (crypto::witness_commitment_index(block.transactions[0])) {
            // A witness byte: located by serializing the transaction with and without its witnesses.
            for (size_t t = 1; t < block.transactions.size(); ++t) {
                const model::Transaction& tx = block.transactions[t];
                if (!tx.has_witness()) continue;
                const Bytes with = optimized::encode_transaction(tx, true);
                const Bytes without = optimized::encode_transaction(tx, false);
                const auto found = std::search(raw.begin(), raw.end(), with.begin(), with.end());
                if (found == raw.end()) continue;
                const size_t witness_start = static_cast<size_t>(found - raw.begin()) + without.size() - 4 + 2;
                const size_t witness_size = with.size() - without.size() - 2;
                // The last byte of the witness section: inside the last item, not a length prefix.
                flips.push_back({"witness of tx " + std::to_string(t), 8 + witness_start + witness_size - 1,
                                 "witness commitment", false});
                break;
            }
            const Bytes coinbase = optimized::encode_transaction(block.transactions[0], true);
            const size_t count_size = optimized::encode_compactsize(block.transactions.size()).size();
            const size_t reserved_value_end = 80 + count_size + coinbase.size() - 4;  // before its lock time
            flips.push_back({"coinbase witness reserved value", 8 + reserved_value_end - 1, "witness commitment", false});
        }
        return flips;
    }

    struct Record {
        uint64_t offset;
        Bytes block;
    };
    TempDir dir{"serdiff-verify"};
    std::vector<Record> records;
    Bytes file;
};

TEST_F(ScanVerify, AnUndamagedFilePasses)
{
    const CliResult scan = run_serdiff(std::string("blockfile scan --verify --key ") + kKey + " " +
                                           (dir / "blk00000.dat").string());
    EXPECT_EQ(scan.status, 0) << scan.text;
    ASSERT_EQ(scan.lines.size(), 5u) << scan.text;
    for (size_t i = 0; i < 4; ++i)
        EXPECT_EQ(scan.lines[i].rfind(std::to_string(records[i].offset) + " " +
                                          std::to_string(records[i].block.size()) + " ", 0),
                  0u)
            << scan.lines[i];
    EXPECT_EQ(scan.lines[4].rfind("4 blocks verified, 0 corrupt records", 0), 0u) << scan.text;
}

TEST_F(ScanVerify, EveryFlipIsReportedAtItsRecord)
{
    std::mt19937_64 rng{2459};
    const fs::path damaged = dir / "damaged.dat";
    size_t flips_checked = 0, verify_only = 0;
    for (size_t index = 0; index < records.size(); ++index) {
        for (const Flip& flip : flips_of(index, rng)) {
            SCOPED_TRACE("record " + std::to_string(index) + " at " + std::to_string(records[index].offset) + ", " +
                         flip.what + " (+" + std::to_string(flip.record_offset) + ")");
            Bytes bytes = file;
            const size_t at = records[index].offset + flip.record_offset;
            bytes[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
            std::ofstream(damaged, std::ios::binary | std::ios::trunc)
                .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));

            const CliResult scan = run_serdiff(std::string("blockfile scan --verify --key ") + kKey + " " +
                                                   damaged.string());
            EXPECT_EQ(scan.status, 1) << scan.text;
            // The records before the damaged one are listed intact, in order; the first error is at its offset.
            ASSERT_GT(scan.lines.size(), index) << scan.text;
            for (size_t before = 0; before < index; ++before)
                EXPECT_EQ(scan.lines[before].rfind(std::to_string(records[before].offset) + " " +
                                                       std::to_string(records[before].block.size()) + " ",
                                                   0),
                          0u)
                    << scan.text;
            const std::string error_prefix = std::to_string(records[index].offset) + " error: ";
            ASSERT_EQ(scan.lines[index].rfind(error_prefix, 0), 0u) << scan.text;
            if (!flip.expect.empty() && scan.lines[index].find("verify:") != std::string::npos) {
                EXPECT_NE(scan.lines[index].find(flip.expect), std::string::npos) << scan.lines[index];
            }
            if (!flip.expect.empty() && flip.what.rfind("header", 0) == 0) {
                EXPECT_NE(scan.lines[index].find("verify:"), std::string::npos)
                    << "a header flip still frames and decodes: " << scan.lines[index];
            }
            if (!flip.framing) {
                // Framing intact: every later record is read and passes; one corrupt record in all.
                ASSERT_EQ(scan.lines.size(), records.size() + 1) << scan.text;
                for (size_t after = index + 1; after < records.size(); ++after)
                    EXPECT_EQ(scan.lines[after].rfind(std::to_string(records[after].offset) + " ", 0), 0u)
                        << scan.text;
                EXPECT_NE(scan.lines.back().find(", 1 corrupt records"), std::string::npos) << scan.text;
            }
            if (scan.lines[index].find("verify:") != std::string::npos) {
                ++verify_only;
                // What only --verify catches: the same file scans clean without it.
                if (flip.what.rfind("witness", 0) == 0 || flip.what.rfind("coinbase witness", 0) == 0) {
                    const CliResult plain = run_serdiff(std::string("blockfile scan --key ") + kKey + " " +
                                                            damaged.string());
                    EXPECT_EQ(plain.status, 0) << plain.text;
                }
            }
            ++flips_checked;
        }
    }
    EXPECT_GE(flips_checked, 4u * 16);
    EXPECT_GE(verify_only, 4u * 6);  // the header flips at least, which still decode
    std::printf("scan --verify: %zu flips checked, %zu caught only by the block checks\n", flips_checked, verify_only);
}

}  // namespace
}  // namespace serdiff::test
