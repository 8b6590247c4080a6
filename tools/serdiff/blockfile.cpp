// `serdiff blockfile write|scan|import`: Bitcoin Core block files through the optimized file layer.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "crypto/block_check.h"
#include "crypto/crypto.h"
#include "model/model.h"
#include "serialize/block_store.h"
#include "serialize/codec.h"
#include "serialize/file.h"
#include "tools/serdiff/commands.h"

namespace serdiff::cli {
namespace {

namespace fs = std::filesystem;
using optimized::FileRecord;
using optimized::NetworkMagic;
using optimized::ObfuscationKey;
using optimized::RecordStatus;

constexpr int kExitOk = 0;
constexpr int kExitCorrupt = 1;
constexpr int kExitUsage = 2;

constexpr const char* kUsage =
    "usage: serdiff blockfile write [--key HEX] [--magic HEX] OUT.dat BLOCK.raw...\n"
    "       serdiff blockfile scan [--verify] [--key HEX] [--magic HEX] FILE.dat\n"
    "       serdiff blockfile import [--out DIR] [--magic HEX] BLOCKSDIR\n"
    "\n"
    "write   writes one block record (magic, size, block) per raw block into a new OUT.dat,\n"
    "        obfuscated with the key, and prints each record's file offset, size and source file.\n"
    "scan    lists every record of FILE.dat as OFFSET SIZE BLOCKHASH; a corrupt record prints\n"
    "        OFFSET error: MESSAGE. The scan goes on after a corrupt block whose framing is intact\n"
    "        and stops when the framing itself is broken; zero bytes (bitcoind's preallocated\n"
    "        space) end the file quietly.\n"
    "        --verify also checks each block that decodes: the header's proof of work against its\n"
    "        own nBits, the merkle root against the txids (and duplicate-hash mutation), and the\n"
    "        witness commitment against the wtxids; a block failing one is a corrupt record,\n"
    "        OFFSET error: verify: WHAT FAILED, and the scan goes on with the next record.\n"
    "import  reads a bitcoind blocks directory (blk*.dat, and xor.dat when present) and writes\n"
    "        each block as OUTDIR/<blockhash>.raw (default ./imported).\n"
    "\n"
    "--key HEX    8-byte obfuscation key, 16 hex digits (default 0000000000000000: none)\n"
    "--magic HEX  4-byte network magic in file order (default f9beb4d9, mainnet; import detects\n"
    "             mainnet, testnet3, testnet4, signet and regtest from the first record)\n"
    "Exit status: 0 success, 1 a corrupt record or unreadable block (with --verify: or a block failing\n"
    "a check), 2 bad usage or I/O error.\n";

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

constexpr NetworkMagic kMainnetMagic{std::byte{0xf9}, std::byte{0xbe}, std::byte{0xb4}, std::byte{0xd9}};

struct KnownNetwork {
    const char* name;
    const char* magic_hex;
};
constexpr KnownNetwork kKnownNetworks[] = {
    {"mainnet", "f9beb4d9"}, {"testnet3", "0b110907"}, {"testnet4", "1c163f28"},
    {"signet", "0a03cf40"},  {"regtest", "fabfb5da"},
};

template <size_t N>
std::array<std::byte, N> parse_hex_bytes(const std::string& text, const char* what)
{
    model::Bytes bytes;
    if (!model::from_hex(text, bytes) || bytes.size() != N)
        throw UsageError(std::string(what) + " must be " + std::to_string(2 * N) + " hex digits, got '" + text + "'");
    std::array<std::byte, N> out;
    for (size_t i = 0; i < N; ++i) out[i] = std::byte{bytes[i]};
    return out;
}

std::string hex_of(std::span<const std::byte> bytes)
{
    return model::to_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

model::Bytes read_whole_file(const fs::path& path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) throw std::runtime_error("cannot open " + path.string());
    return model::Bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

optimized::AutoFile open_for_reading(const fs::path& path, const ObfuscationKey& key)
{
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
    return optimized::AutoFile{file, key};
}

struct Options {
    ObfuscationKey key{};
    std::optional<NetworkMagic> magic;
    fs::path out_dir = "imported";
    bool verify = false;
    std::vector<std::string> positional;
};

Options parse_options(int argc, char** argv, bool allow_out, bool allow_verify = false)
{
    Options options;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--key") {
            options.key = parse_hex_bytes<8>(value(), "--key");
        } else if (arg == "--magic") {
            options.magic = parse_hex_bytes<4>(value(), "--magic");
        } else if (arg == "--out" && allow_out) {
            options.out_dir = value();
        } else if (arg == "--verify" && allow_verify) {
            options.verify = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw UsageError("unknown option " + arg);
        } else {
            options.positional.push_back(arg);
        }
    }
    return options;
}

int run_write(const Options& options)
{
    if (options.positional.size() < 2) throw UsageError("write needs OUT.dat and at least one BLOCK.raw");
    const NetworkMagic magic = options.magic.value_or(kMainnetMagic);
    std::FILE* raw_file = std::fopen(options.positional[0].c_str(), "wb");
    if (!raw_file) throw std::runtime_error("cannot create " + options.positional[0] + ": " + std::strerror(errno));
    optimized::AutoFile file{raw_file, options.key};
    optimized::BufferedWriter writer{file};
    int warnings = 0;
    for (size_t i = 1; i < options.positional.size(); ++i) {
        const fs::path source = options.positional[i];
        const model::Bytes block = read_whole_file(source);
        const auto decoded = optimized::decode_block(block);
        if (!decoded.ok || decoded.consumed != block.size()) {
            std::fprintf(stderr, "warning: %s is not exactly one block (%s); written anyway\n", source.c_str(),
                         decoded.ok ? "trailing bytes" : decoded.error.c_str());
            ++warnings;
        }
        const uint64_t offset = optimized::write_block_record(writer, magic, block);
        std::printf("%llu %zu %s\n", static_cast<unsigned long long>(offset), block.size(), source.c_str());
    }
    const uint64_t total = writer.position();
    writer.close();
    std::fprintf(stderr, "wrote %zu records, %llu bytes, to %s (magic %s, key %s)%s\n", options.positional.size() - 1,
                 static_cast<unsigned long long>(total), options.positional[0].c_str(), hex_of(magic).c_str(),
                 hex_of(options.key).c_str(), warnings ? "; see warnings" : "");
    return kExitOk;
}

// Walks the records of one file, calling on_block for each good one; reports corrupt ones on `report`.
struct ScanSummary {
    size_t ok = 0;
    size_t corrupt = 0;
    std::string ending;
};

template <typename OnBlock, typename OnCorrupt>
ScanSummary scan_file(optimized::AutoFile& file, const NetworkMagic& magic, OnBlock on_block, OnCorrupt on_corrupt)
{
    ScanSummary summary;
    uint64_t offset = 0;
    while (true) {
        const FileRecord record = optimized::read_block_record(file, offset, magic);
        switch (record.status) {
        case RecordStatus::ok:
            ++summary.ok;
            on_block(record);
            offset = record.next_offset;
            continue;
        case RecordStatus::end_of_file: summary.ending = "end of file"; return summary;
        case RecordStatus::zero_padding:
            summary.ending = "zero padding from offset " + std::to_string(record.offset);
            return summary;
        case RecordStatus::corrupt:
            ++summary.corrupt;
            on_corrupt(record);
            if (record.next_offset == 0) {
                summary.ending = "unreadable record at offset " + std::to_string(record.offset);
                return summary;
            }
            offset = record.next_offset;
            continue;
        }
    }
}

// --verify: the context-free checks of crypto/block_check.h on a record that framed and decoded; the failures
// joined with "; ", empty when the block is intact.
std::string verify_block_record(const FileRecord& record)
{
    const auto decoded = optimized::decode_block(record.payload);
    if (!decoded.ok) return "block does not decode: " + decoded.error;  // read_block_record decoded it already
    std::vector<model::uint256> txids, wtxids;
    txids.reserve(decoded.value.transactions.size());
    wtxids.reserve(decoded.value.transactions.size());
    for (const model::Transaction& tx : decoded.value.transactions) {
        txids.push_back(crypto::sha256d(optimized::encode_transaction(tx, false)));
        wtxids.push_back(tx.has_witness() ? crypto::sha256d(optimized::encode_transaction(tx, true)) : txids.back());
    }
    std::string out;
    for (const std::string& failure : crypto::check_block(decoded.value, record.hash, txids, wtxids))
        out += (out.empty() ? "" : "; ") + failure;
    return out;
}

int run_scan(const Options& options)
{
    if (options.positional.size() != 1) throw UsageError("scan needs exactly one FILE.dat");
    const NetworkMagic magic = options.magic.value_or(kMainnetMagic);
    optimized::AutoFile file = open_for_reading(options.positional[0], options.key);
    size_t failed_verification = 0;
    const ScanSummary summary = scan_file(
        file, magic,
        [&](const FileRecord& record) {
            const std::string failures = options.verify ? verify_block_record(record) : "";
            if (!failures.empty()) {
                ++failed_verification;
                std::printf("%llu error: verify: block %s: %s\n", static_cast<unsigned long long>(record.offset),
                            model::hash_to_hex(record.hash).c_str(), failures.c_str());
                return;
            }
            std::printf("%llu %u %s\n", static_cast<unsigned long long>(record.offset), record.size,
                        model::hash_to_hex(record.hash).c_str());
        },
        [](const FileRecord& record) {
            std::printf("%llu error: %s\n", static_cast<unsigned long long>(record.offset), record.error.c_str());
        });
    std::fflush(stdout);
    const size_t corrupt = summary.corrupt + failed_verification;
    if (options.verify)
        std::fprintf(stderr, "%zu blocks verified, %zu corrupt records (%zu framed and decoded but failed verification); "
                     "stopped at %s\n", summary.ok - failed_verification, corrupt, failed_verification,
                     summary.ending.c_str());
    else
        std::fprintf(stderr, "%zu blocks, %zu corrupt records; stopped at %s\n", summary.ok, summary.corrupt,
                     summary.ending.c_str());
    return corrupt == 0 ? kExitOk : kExitCorrupt;
}

// bitcoind's xor.dat holds the 8 key bytes and nothing else; without it the files are not obfuscated.
ObfuscationKey read_xor_key(const fs::path& blocks_dir)
{
    const fs::path path = blocks_dir / "xor.dat";
    if (!fs::exists(path)) return {};
    const model::Bytes bytes = read_whole_file(path);
    if (bytes.size() != 8) throw std::runtime_error(path.string() + " holds " + std::to_string(bytes.size()) + " bytes, expected 8");
    ObfuscationKey key;
    for (size_t i = 0; i < 8; ++i) key[i] = std::byte{bytes[i]};
    return key;
}

// The network magic of the first record, when it is a known network's.
std::optional<NetworkMagic> detect_magic(const fs::path& first_file, const ObfuscationKey& key)
{
    optimized::AutoFile file = open_for_reading(first_file, key);
    if (file.size() < 4) return std::nullopt;
    NetworkMagic found;
    file.read(found);
    for (const KnownNetwork& network : kKnownNetworks)
        if (hex_of(found) == network.magic_hex) {
            std::fprintf(stderr, "network: %s (magic %s)\n", network.name, network.magic_hex);
            return found;
        }
    return std::nullopt;
}

// blk<digits>.dat, bitcoind's block file names (plain code: <regex> costs a long compile and draws a
// gcc 12 -Wmaybe-uninitialized false positive inside libstdc++ under -O2 with ASan).
bool is_block_file_name(const std::string& name)
{
    const std::string prefix = "blk", suffix = ".dat";
    if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
        return false;
    return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()),
                       name.end() - static_cast<std::ptrdiff_t>(suffix.size()),
                       [](char c) { return c >= '0' && c <= '9'; });
}

int run_import(const Options& options)
{
    if (options.positional.size() != 1) throw UsageError("import needs exactly one blocks directory");
    const fs::path blocks_dir = options.positional[0];
    if (!fs::is_directory(blocks_dir)) throw std::runtime_error(blocks_dir.string() + " is not a directory");
    const ObfuscationKey key = read_xor_key(blocks_dir);
    std::fprintf(stderr, "obfuscation key: %s%s\n", hex_of(key).c_str(),
                 fs::exists(blocks_dir / "xor.dat") ? " (xor.dat)" : " (no xor.dat: not obfuscated)");

    std::vector<fs::path> block_files;
    for (const auto& entry : fs::directory_iterator(blocks_dir))
        if (entry.is_regular_file() && is_block_file_name(entry.path().filename().string()))
            block_files.push_back(entry.path());
    std::sort(block_files.begin(), block_files.end());
    if (block_files.empty()) throw std::runtime_error("no blk*.dat files in " + blocks_dir.string());

    std::optional<NetworkMagic> magic = options.magic;
    if (!magic) magic = detect_magic(block_files.front(), key);
    if (!magic) throw std::runtime_error("the first record of " + block_files.front().string() +
                                         " has no known network magic; pass --magic");

    fs::create_directories(options.out_dir);
    size_t imported = 0, corrupt = 0, already_present = 0;
    for (const fs::path& path : block_files) {
        optimized::AutoFile file = open_for_reading(path, key);
        size_t file_blocks = 0;
        const ScanSummary summary = scan_file(
            file, *magic,
            [&](const FileRecord& record) {
                const fs::path target = options.out_dir / (model::hash_to_hex(record.hash) + ".raw");
                ++file_blocks;
                if (fs::exists(target) && fs::file_size(target) == record.payload.size()) {
                    ++already_present;
                    return;
                }
                std::ofstream out(target, std::ios::binary | std::ios::trunc);
                out.write(reinterpret_cast<const char*>(record.payload.data()),
                          static_cast<std::streamsize>(record.payload.size()));
                if (!out.flush()) throw std::runtime_error("cannot write " + target.string());
                ++imported;
            },
            [&](const FileRecord& record) {
                std::fprintf(stderr, "%s: offset %llu: %s\n", path.filename().c_str(),
                             static_cast<unsigned long long>(record.offset), record.error.c_str());
            });
        corrupt += summary.corrupt;
        std::fprintf(stderr, "%s: %zu blocks, %zu corrupt; stopped at %s\n", path.filename().c_str(), file_blocks,
                     summary.corrupt, summary.ending.c_str());
    }
    std::fprintf(stderr, "imported %zu blocks (%zu already present) from %zu files into %s; %zu corrupt records\n",
                 imported, already_present, block_files.size(), options.out_dir.c_str(), corrupt);
    return corrupt == 0 ? kExitOk : kExitCorrupt;
}

}  // namespace

int run_blockfile(int argc, char** argv)
{
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? kExitUsage : kExitOk;
    }
    const std::string action = argv[1];
    try {
        if (action == "write") return run_write(parse_options(argc, argv, false));
        if (action == "scan") return run_scan(parse_options(argc, argv, false, true));
        if (action == "import") return run_import(parse_options(argc, argv, true));
        throw UsageError("unknown blockfile action '" + action + "'");
    } catch (const UsageError& error) {
        std::fprintf(stderr, "serdiff blockfile: %s\n\n%s", error.what(), kUsage);
        return kExitUsage;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "serdiff blockfile %s: %s\n", action.c_str(), error.what());
        return kExitUsage;
    }
}

}  // namespace serdiff::cli
