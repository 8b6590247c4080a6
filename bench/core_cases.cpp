// serdiff_bench_core's cases: Bitcoin Core's block serialization compiled from source (serdiff_core, the Core
// subject's library: the pinned sdist or SERDIFF_CORE_SRC) at the bench preset's flags, on the same blocks as
// serdiff_bench. bench/report.py runs this binary beside serdiff_bench and puts its rows beside the optimized ones.
// One binary per Core tree: a second tree (e.g. a pull request's BASE and HEAD) is a second build of this target
// with another SERDIFF_CORE_SRC, run under another --name (docs/bench.md).
//
// Rows, named after --name (default core-src), each checked once before it is timed:
//   SerializeBlock/<block>/<name>-reused  CBlock << TX_WITH_WITNESS into a DataStream cleared and reused
//                                         (capacity kept), compared with optimized-reused
//   DeserializeBlock/<block>/<name>       SpanReader >> TX_WITH_WITNESS(CBlock): every CTransaction computes its
//                                         txid and wtxid when built; compared with optimized+txids
//   DeserializeBlock/<block>/<name>-nohash  SpanReader >> CBlockHeader >> TX_WITH_WITNESS(vector of
//                                         CMutableTransaction): the same decode, no hashing; compared with optimized
//   SizeComputerBlock/<block>/<name>      GetSerializeSize(TX_WITH_WITNESS(block)), compared with optimized
//   WriteBlock/<block>:xor|plain/<name>-buffered    the block record (magic, size, block) through a BufferedWriter
//                                         onto an AutoFile with (xor) or without (plain) an Obfuscation key, as
//                                         node/blockstorage.cpp's WriteBlock; compared with optimized-buffered
//   WriteBlock/<block>:xor|plain/<name>-unbuffered  the same record written into the AutoFile directly (every field
//                                         one AutoFile::write); compared with autofile-unbuffered
//   ReadBlock/<block>:xor|plain/<name>-unbuffered   the record read back field by field from the AutoFile (magic,
//                                         size, CBlock); compared with autofile-unbuffered
//   WriteBlock/<block>:xor|plain/<name>-blockmanager  node::BlockManager::WriteBlock (mainnet parameters, a blocks
//                                         directory whose xor.dat holds the key or zeros): FindNextBlockPos, the chunk
//                                         allocation and the record, each run the next height (a tree block_store drives)
//   ReadBlock/<block>:xor|plain/<name>-blockmanager   node::BlockManager::ReadBlock of that record with its hash:
//                                         ReadRawBlock, the decode, the proof-of-work and hash checks
// The file cases write and read files in --scratch (default bench-out/files), named core-<name>-*.dat; the
// BlockManager cases blocks directories core-<name>-<block>-xor|plain-write|read-blocks/ there.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/cases.h"

// Bitcoin Core's headers (serdiff_core's include directory).
#include <crypto/sha256.h>
#include <hash.h>
#include <primitives/block.h>
#include <primitives/transaction.h>
#include <serialize.h>
#include <streams.h>
#include <uint256.h>
#include <util/obfuscation.h>
#if SERDIFF_CORE_HAS_BLOCK_STORE
#include <chain.h>
#include <dbwrapper.h>
#include <kernel/chainparams.h>
#include <kernel/notifications_interface.h>
#include <node/blockstorage.h>
#include <util/signalinterrupt.h>
#include <util/translation.h>
#endif

#ifndef SERDIFF_CORE_TREE
#define SERDIFF_CORE_TREE "?"
#endif

namespace serdiff::bench {
namespace {

void require(bool condition, const std::string& what)
{
    if (!condition) throw std::runtime_error("benchmark self-check failed: " + what);
}

// A block decoded without building CTransactions: the header and the transactions as CMutableTransaction, which
// compute no hash (Core's CTransaction computes its txid and wtxid in its constructor).
struct MutableBlock {
    CBlockHeader header;
    std::vector<CMutableTransaction> vtx;
};

MutableBlock decode_without_hashing(std::span<const uint8_t> bytes)
{
    MutableBlock block;
    SpanReader reader{bytes};
    reader >> block.header >> TX_WITH_WITNESS(block.vtx);
    return block;
}

// The merkle root of the block's txids (as consensus/merkle.cpp computes it, without the mutation check).
uint256 merkle_root(const CBlock& block)
{
    std::vector<uint256> level;
    for (const CTransactionRef& tx : block.vtx) level.push_back(tx->GetHash().ToUint256());
    while (level.size() > 1) {
        if (level.size() % 2 == 1) level.push_back(level.back());
        std::vector<uint256> next;
        for (size_t i = 0; i < level.size(); i += 2) next.push_back(Hash(level[i], level[i + 1]));
        level = std::move(next);
    }
    return level.empty() ? uint256{} : level.front();
}

constexpr std::array<std::byte, 4> kMagic{std::byte{0xf9}, std::byte{0xbe}, std::byte{0xb4}, std::byte{0xd9}};
// The key of serdiff_bench's ":xor" file rows (bench/cases.cpp kKey).
constexpr std::array<std::byte, Obfuscation::KEY_SIZE> kKey{std::byte{0x1f}, std::byte{0x2e}, std::byte{0x3d},
                                                            std::byte{0x4c}, std::byte{0x5b}, std::byte{0x6a},
                                                            std::byte{0x79}, std::byte{0x88}};

std::FILE* open_file(const std::filesystem::path& path, const char* mode)
{
    std::FILE* file = std::fopen(path.c_str(), mode);
    if (!file) throw std::runtime_error("cannot open " + path.string());
    return file;
}

template <typename Stream>
void write_record(Stream& out, const CBlock& block, uint32_t size)
{
    out << kMagic << size << TX_WITH_WITNESS(block);
}

void close_file(AutoFile& file, const std::string& what)
{
    require(file.fclose() == 0, what + ": fclose");
}

// WriteBlock and ReadBlock: Core's AutoFile, Obfuscation and BufferedWriter on a file in the scratch directory,
// written in place ("r+b", as serdiff_bench's rows: no truncation is timed). Each case runs once untimed and the
// file it wrote is read back and checked (un-XORed) against the block's bytes.
void add_core_file_cases(const std::shared_ptr<const BenchBlock>& block, const std::shared_ptr<CBlock>& parsed,
                         const std::string& name, const std::filesystem::path& scratch_dir, std::vector<Case>& cases)
{
    const uint64_t size = block->bytes.size();
    std::filesystem::create_directories(scratch_dir);
    for (const bool keyed : {false, true}) {
        const Obfuscation obfuscation = keyed ? Obfuscation{kKey} : Obfuscation{};
        const std::string subject = block->label + (keyed ? ":xor" : ":plain");
        const auto path = scratch_dir / ("core-" + name + "-" + block->label + (keyed ? "-xor" : "-plain") + ".dat");
        { std::FILE* created = open_file(path, "wb"); std::fclose(created); }
        auto check_file = [block, path, obfuscation, size, subject, name](const std::string& how) {
            std::vector<std::byte> bytes(size + 8);
            std::FILE* file = open_file(path, "rb");
            const size_t got = std::fread(bytes.data(), 1, bytes.size(), file);
            std::fclose(file);
            require(got == bytes.size(), subject + " " + name + how + " file size");
            obfuscation(bytes, 0);
            require(std::equal(kMagic.begin(), kMagic.end(), bytes.begin()), subject + " " + name + how + " magic");
            require(std::memcmp(bytes.data() + 8, block->bytes.data(), size) == 0,
                    subject + " " + name + how + " block bytes in the file");
        };
        auto add = [&](const char* group, const std::string& implementation, std::function<void()> run,
                       const std::string& how) {
            run();
            if (std::string{group} == "WriteBlock") check_file(how);
            cases.push_back({group, subject, implementation, size, 1, std::move(run), {}});
        };
        add("WriteBlock", name + "-buffered", [parsed, path, obfuscation, size] {
            AutoFile file{open_file(path, "r+b"), obfuscation};
            {
                BufferedWriter writer{file};
                write_record(writer, *parsed, uint32_t(size));
            }
            close_file(file, "WriteBlock buffered");
        }, "-buffered");
        add("WriteBlock", name + "-unbuffered", [parsed, path, obfuscation, size] {
            AutoFile file{open_file(path, "r+b"), obfuscation};
            write_record(file, *parsed, uint32_t(size));
            close_file(file, "WriteBlock unbuffered");
        }, "-unbuffered");
        add("ReadBlock", name + "-unbuffered", [path, obfuscation, size, subject] {
            AutoFile file{open_file(path, "rb"), obfuscation};
            std::array<std::byte, 4> magic;
            uint32_t record_size{0};
            CBlock decoded;
            file >> magic >> record_size >> TX_WITH_WITNESS(decoded);
            require(magic == kMagic && record_size == size, subject + " ReadBlock record header");
            benchmark::DoNotOptimize(decoded.vtx.data());
            close_file(file, "ReadBlock");
        }, "");
    }
}

#if SERDIFF_CORE_HAS_BLOCK_STORE
// A BlockManager row must not see an error: one is a failed self-check.
class BenchNotifications : public kernel::Notifications {
public:
    void flushError(const bilingual_str& message) override
    {
        throw std::runtime_error("BlockManager flush error: " + message.original);
    }
    void fatalError(const bilingual_str& message) override
    {
        throw std::runtime_error("BlockManager fatal error: " + message.original);
    }
};

// One BlockManager over its own blocks directory (emptied first), as a node has it: mainnet, xor.dat holding the
// key (or zeros), no pruning, the block index database in memory (subjects/core/node_support.cpp's stub).
struct BenchBlockManager {
    std::filesystem::path directory;
    BenchNotifications notifications;
    util::SignalInterrupt interrupt;
    std::unique_ptr<node::BlockManager> manager;
    int height = 0;
    int deleted_below = 0;  // the block files below this one are deleted

    BenchBlockManager(const std::filesystem::path& dir, bool keyed) : directory(dir)
    {
        static const std::unique_ptr<const CChainParams> params = CChainParams::Main();
        std::filesystem::remove_all(directory);
        std::filesystem::create_directories(directory / "blocks");
        std::array<std::byte, Obfuscation::KEY_SIZE> key{};
        if (keyed) key = kKey;
        std::FILE* xor_file = open_file(directory / "blocks" / "xor.dat", "wb");
        require(std::fwrite(key.data(), 1, key.size(), xor_file) == key.size(), "BlockManager xor.dat");
        std::fclose(xor_file);
        node::BlockManager::Options options{
            .chainparams = *params,
            .use_xor = true,
            .prune_target = 0,
            .fast_prune = false,
            .blocks_dir = directory / "blocks",
            .notifications = notifications,
            .block_tree_db_params = DBParams{.path = directory / "index", .cache_bytes = 0, .memory_only = true},
        };
        manager = std::make_unique<node::BlockManager>(interrupt, std::move(options));
    }
};

// WriteBlock and ReadBlock through Core's BlockManager, beside the stream-level rows, each with a BlockManager of its
// own. ReadBlock's holds the one record it reads: written untimed, read back raw (the block's bytes), then read with
// ReadBlock once to give back the block, and every timed run to give the same result. WriteBlock's writes each run
// at the next height (its first write untimed and read back raw): a file that the writes have left two files behind
// is deleted once, so a long run keeps at most two 128 MiB files. Every 128 MiB a write finalizes the file it
// leaves (truncation, fdatasync, a directory sync), as Core's does: that time is in the row.
void add_block_manager_cases(const std::shared_ptr<const BenchBlock>& block, const std::shared_ptr<CBlock>& parsed,
                             const std::string& name, const std::filesystem::path& scratch_dir, std::vector<Case>& cases)
{
    const uint64_t size = block->bytes.size();
    for (const bool keyed : {false, true}) {
        const std::string subject = block->label + (keyed ? ":xor" : ":plain");
        const std::string what = subject + " " + name + "-blockmanager";
        const std::string directory = "core-" + name + "-" + block->label + (keyed ? "-xor" : "-plain");
        const auto write_first = [&](BenchBlockManager& bench) {
            const FlatFilePos written = bench.manager->WriteBlock(*parsed, ++bench.height);
            require(!written.IsNull(), what + " WriteBlock");
            const auto raw = bench.manager->ReadRawBlock(written);
            require(raw.has_value() && raw->size() == size && std::memcmp(raw->data(), block->bytes.data(), size) == 0,
                    what + " WriteBlock: the record read back raw");
            // The file itself holds the block XORed with the key at its offset (zeros: the bytes as they are).
            std::vector<std::byte> stored(size);
            std::FILE* file = open_file(bench.manager->GetBlockPosFilename(written), "rb");
            const bool read = std::fseek(file, static_cast<long>(written.nPos), SEEK_SET) == 0 &&
                              std::fread(stored.data(), 1, size, file) == size;
            std::fclose(file);
            require(read, what + " WriteBlock: the record in the file");
            (keyed ? Obfuscation{kKey} : Obfuscation{})(stored, written.nPos);
            require(std::memcmp(stored.data(), block->bytes.data(), size) == 0, what + " WriteBlock: the file's bytes");
            return written;
        };
        auto bench = std::make_shared<BenchBlockManager>(scratch_dir / (directory + "-write-blocks"), keyed);
        write_first(*bench);
        auto reader = std::make_shared<BenchBlockManager>(scratch_dir / (directory + "-read-blocks"), keyed);
        const FlatFilePos position = write_first(*reader);
        const uint256 hash = parsed->GetHash();
        CBlock decoded;
        const bool read_ok = reader->manager->ReadBlock(decoded, position, hash);
        DataStream again;
        again << TX_WITH_WITNESS(decoded);
        require(again.size() == size && std::memcmp(again.data(), block->bytes.data(), size) == 0,
                what + " ReadBlock gives back the block");
        require(read_ok || block->generated, what + " ReadBlock's header checks (a mainnet block)");
        cases.push_back({"WriteBlock", subject, name + "-blockmanager", size, 1, [bench, parsed, what] {
            const FlatFilePos written = bench->manager->WriteBlock(*parsed, ++bench->height);
            require(!written.IsNull(), what + " WriteBlock");
            if (written.nFile - 1 > bench->deleted_below) {
                std::error_code error;
                std::filesystem::remove(bench->manager->GetBlockPosFilename(FlatFilePos(written.nFile - 2, 0)), error);
                bench->deleted_below = written.nFile - 1;
            }
        }, {}});
        cases.push_back({"ReadBlock", subject, name + "-blockmanager", size, 1, [reader, position, hash, read_ok, what] {
            CBlock read;
            require(reader->manager->ReadBlock(read, position, hash) == read_ok, what + " ReadBlock");
            benchmark::DoNotOptimize(read.vtx.data());
        }, {}});
    }
}
#endif

void add_core_cases(const std::shared_ptr<const BenchBlock>& block, const std::string& name,
                    const std::filesystem::path& scratch_dir, std::vector<Case>& cases)
{
    const uint64_t size = block->bytes.size();
    const std::string& label = block->label;
    const std::span<const uint8_t> bytes{block->bytes};
    auto add = [&](const char* group, const std::string& implementation, std::function<void()> run) {
        cases.push_back({group, label, implementation, size, 1, std::move(run), {}});
    };

    // Checks: Core decodes the whole block, its txids hash up to the header's merkle root, it re-encodes the
    // block to the same bytes (from CBlock and from the mutable decode), and its size computer gives the size.
    auto parsed = std::make_shared<CBlock>();
    {
        SpanReader reader{bytes};
        reader >> TX_WITH_WITNESS(*parsed);
        require(reader.empty(), label + " " + name + " decode consumes the block");
    }
    require(merkle_root(*parsed) == parsed->hashMerkleRoot, label + " " + name + " txids (merkle root)");
    for (const CTransactionRef& tx : parsed->vtx)
        require(tx->HasWitness() == (tx->GetWitnessHash().ToUint256() != tx->GetHash().ToUint256()),
                label + " " + name + " wtxid");
    auto stream = std::make_shared<DataStream>();
    *stream << TX_WITH_WITNESS(*parsed);
    require(stream->size() == size && std::memcmp(stream->data(), bytes.data(), size) == 0,
            label + " " + name + " re-encodes the block");
    {
        const MutableBlock mutable_block = decode_without_hashing(bytes);
        DataStream again;
        again << mutable_block.header << TX_WITH_WITNESS(mutable_block.vtx);
        require(again.size() == size && std::memcmp(again.data(), bytes.data(), size) == 0,
                label + " " + name + "-nohash re-encodes the block");
    }
    require(GetSerializeSize(TX_WITH_WITNESS(*parsed)) == size, label + " " + name + " GetSerializeSize");

    add("SerializeBlock", name + "-reused", [parsed, stream] {
        stream->clear();
        *stream << TX_WITH_WITNESS(*parsed);
        benchmark::DoNotOptimize(stream->data());
    });
    add("DeserializeBlock", name, [block] {
        CBlock decoded;
        SpanReader reader{std::span<const uint8_t>{block->bytes}};
        reader >> TX_WITH_WITNESS(decoded);
        benchmark::DoNotOptimize(decoded.vtx.data());
    });
    add("DeserializeBlock", name + "-nohash", [block] {
        MutableBlock decoded = decode_without_hashing(block->bytes);
        benchmark::DoNotOptimize(decoded.vtx.data());
    });
    add("SizeComputerBlock", name, [parsed] { benchmark::DoNotOptimize(GetSerializeSize(TX_WITH_WITNESS(*parsed))); });
    add_core_file_cases(block, parsed, name, scratch_dir, cases);
#if SERDIFF_CORE_HAS_BLOCK_STORE
    add_block_manager_cases(block, parsed, name, scratch_dir, cases);
#endif
}

}  // namespace

std::vector<Case> make_cases(const CaseSetup& setup, std::vector<std::string>& notes)
{
    const std::string name = setup.name.empty() ? "core-src" : setup.name;
    if (name.find('/') != std::string::npos) throw std::runtime_error("--name= may not contain '/'");
    // Core's own programs choose their SHA-256 once at start (bench_bitcoin's main, kernel::Context); without
    // that call Core hashes with its plain C implementation.
    std::string sha256;
    if (setup.sha256.empty() || setup.sha256 == "auto") sha256 = SHA256AutoDetect();
    else if (setup.sha256 == "standard") sha256 = SHA256AutoDetect(sha256_implementation::STANDARD);
    else throw std::runtime_error("--sha256= takes auto or standard");
    notes.push_back(name + ": Bitcoin Core compiled from " SERDIFF_CORE_TREE " at the bench flags; SHA-256 '" + sha256 +
                    "'");
    std::vector<Case> cases;
    for (const BenchBlock& bench_block : setup.blocks)
        add_core_cases(std::make_shared<const BenchBlock>(bench_block), name, setup.scratch_dir, cases);
    return cases;
}

}  // namespace serdiff::bench
