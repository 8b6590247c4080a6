// The benchmark cases: block codec, block store, XOR obfuscation, CompactSize/VarInt, memcpy, peers.
#include "bench/cases.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>

#include "crypto/crypto.h"
#include "differential/reference/file_io.h"
#include "differential/reference/primitives.h"
#include "differential/reference/reference.h"
#include "serialize/block_store.h"
#include "serialize/codec.h"
#include "serialize/file.h"
#include "serialize/model_formats.h"
#include "serialize/obfuscation.h"
#include "serialize/streams.h"

#if SERDIFF_BENCH_WITH_PEERS
#include "differential/oracles/peers.h"
#if SERDIFF_BENCH_WITH_CORE
#include "differential/oracles/core/library.h"
#endif
#endif

namespace serdiff::bench {
namespace {

using model::Bytes;

constexpr optimized::NetworkMagic kMainnetMagic = {std::byte{0xf9}, std::byte{0xbe}, std::byte{0xb4}, std::byte{0xd9}};
constexpr optimized::ObfuscationKey kZeroKey{};
constexpr optimized::ObfuscationKey kKey = {std::byte{0x1f}, std::byte{0x2e}, std::byte{0x3d}, std::byte{0x4c},
                                            std::byte{0x5b}, std::byte{0x6a}, std::byte{0x79}, std::byte{0x88}};
// Small operations run in batches of this many, so one timed run is long enough to measure.
constexpr size_t kBatch = 4096;

void require(bool condition, const std::string& what)
{
    if (!condition) throw std::runtime_error("benchmark self-check failed: " + what);
}

std::FILE* open_file(const std::filesystem::path& path, const char* mode)
{
    std::FILE* file = std::fopen(path.c_str(), mode);
    if (!file) throw std::runtime_error("cannot open " + path.string());
    return file;
}

// ---------------------------------------------------------------------------------------------
// Block codec: SerializeBlock, DeserializeBlock, SizeComputerBlock, memcpy.

void add_block_codec_cases(const std::shared_ptr<const BenchBlock>& block, std::vector<Case>& cases)
{
    const uint64_t size = block->bytes.size();
    const std::string& label = block->label;
    auto add = [&](const char* group, const char* implementation, std::function<void()> run) {
        cases.push_back({group, label, implementation, size, 1, std::move(run), {}});
    };

    // The facade: one SizeComputer pass, one allocation, a SpanWriter (what tests and tools call).
    require(optimized::encode_block(block->block) == block->bytes, label + " optimized encode");
    add("SerializeBlock", "optimized", [block] { benchmark::DoNotOptimize(optimized::encode_block(block->block)); });

    // Streaming into a buffer reused across blocks (Bitcoin Core's bench shape): no allocation once warm.
    auto stream = std::make_shared<optimized::DataStream>();
    *stream << block->block;
    require(std::ranges::equal(stream->bytes(), block->bytes), label + " DataStream encode");
    add("SerializeBlock", "optimized-reused", [block, stream] {
        stream->clear();
        *stream << block->block;
        benchmark::DoNotOptimize(stream->bytes().data());
    });

    require(reference::encode_block(block->block) == block->bytes, label + " reference encode");
    add("SerializeBlock", "reference", [block] { benchmark::DoNotOptimize(reference::encode_block(block->block)); });

    require(optimized::decode_block(block->bytes).value == block->block, label + " optimized decode");
    add("DeserializeBlock", "optimized", [block] { benchmark::DoNotOptimize(optimized::decode_block(block->bytes)); });
    add("DeserializeBlock", "reference", [block] { benchmark::DoNotOptimize(reference::decode_block(block->bytes)); });

    // The same work as Bitcoin Core's block decode (bitcoin-core row): Core's CTransaction computes its txid
    // (double SHA-256 of the witness-free serialization) and, for a transaction with witness, its wtxid
    // (double SHA-256 of the full serialization) when it is constructed. Here: decode, then serialize each
    // transaction into a reused buffer and hash it with crypto/ (Core streams into its hasher instead).
    auto hash_buffer = std::make_shared<optimized::DataStream>();
    auto decode_and_hash = [hash_buffer](const Bytes& bytes, std::vector<model::uint256>* txids) {
        auto decoded = optimized::decode_block(bytes);
        for (const model::Transaction& tx : decoded.value.transactions) {
            hash_buffer->clear();
            *hash_buffer << optimized::TxWithWitness{tx, false};
            const model::uint256 txid = crypto::sha256d(hash_buffer->bytes());
            benchmark::DoNotOptimize(txid);
            if (txids != nullptr) txids->push_back(txid);
            if (tx.has_witness()) {
                hash_buffer->clear();
                *hash_buffer << optimized::TxWithWitness{tx, true};
                benchmark::DoNotOptimize(crypto::sha256d(hash_buffer->bytes()));
            }
        }
        return decoded;
    };
    {
        // Self-check: the txids hash up to the header's merkle root.
        std::vector<model::uint256> level;
        const auto decoded = decode_and_hash(block->bytes, &level);
        while (level.size() > 1) {
            if (level.size() % 2 == 1) level.push_back(level.back());
            std::vector<model::uint256> next;
            for (size_t i = 0; i < level.size(); i += 2) next.push_back(crypto::sha256d(level[i].bytes, level[i + 1].bytes));
            level = std::move(next);
        }
        require(!level.empty() && level.front() == decoded.value.header.merkle_root, label + " txids (merkle root)");
    }
    add("DeserializeBlock", "optimized+txids",
        [block, decode_and_hash] { benchmark::DoNotOptimize(decode_and_hash(block->bytes, nullptr)); });

    require(optimized::size_block(block->block) == size, label + " SizeComputer");
    add("SizeComputerBlock", "optimized", [block] {
        benchmark::DoNotOptimize(optimized::size_block(block->block));
    });
    // The reference has no size computer: its way to learn the size is to encode.
    add("SizeComputerBlock", "reference", [block] {
        benchmark::DoNotOptimize(reference::encode_block(block->block).size());
    });

    // The physical limit: copy the same number of bytes into a warm buffer.
    auto destination = std::make_shared<Bytes>(size);
    add("memcpy", "memcpy", [block, destination] {
        benchmark::DoNotOptimize(destination->data());
        std::memcpy(destination->data(), block->bytes.data(), block->bytes.size());
        benchmark::ClobberMemory();
    });
}

// ---------------------------------------------------------------------------------------------
// Peers: decode and encode timed inside the peer (peer_abi.h).

void add_peer_cases(const std::shared_ptr<const BenchBlock>& block, std::vector<Case>& cases,
                    std::vector<std::string>& notes)
{
#if SERDIFF_BENCH_WITH_PEERS
    for (const oracles::Peer& peer : oracles::linked_peers()) {
        if (peer.bench_block == nullptr) continue;
        // Bitcoin Core also serializes into a callback that keeps nothing: what its writer callback costs.
        const bool core = std::string_view(peer.name) == "bitcoin-core";
        std::vector<int> modes = {SERDIFF_PEER_BENCH_DECODE, SERDIFF_PEER_BENCH_ENCODE};
        if (core) modes.push_back(SERDIFF_PEER_BENCH_ENCODE_DISCARD);
        for (const int mode : modes) {
            const auto bench_block = peer.bench_block;
            uint64_t nanoseconds = 0;
            const int status = bench_block(block->bytes.data(), block->bytes.size(), 1, mode, &nanoseconds);
            const char* group = mode == SERDIFF_PEER_BENCH_DECODE ? "DeserializeBlock" : "SerializeBlock";
            const std::string implementation =
                std::string(peer.name) + (mode == SERDIFF_PEER_BENCH_ENCODE_DISCARD ? "-discard" : "");
            if (status != SERDIFF_PEER_OK) {
                notes.push_back(implementation + " " + group + " " + block->label + ": left out (status " +
                                std::to_string(status) + ")");
                continue;
            }
            cases.push_back({group, block->label, implementation, block->bytes.size(), 1, {},
                             [block, bench_block, mode](uint64_t iterations) {
                                 uint64_t total = 0;
                                 if (bench_block(block->bytes.data(), block->bytes.size(), iterations, mode, &total) !=
                                     SERDIFF_PEER_OK)
                                     throw std::runtime_error("peer benchmark failed");
                                 return total;
                             }});
        }
#if SERDIFF_BENCH_WITH_CORE
        if (core)
            notes.push_back("bitcoin-core SerializeBlock " + block->label + ": " +
                            std::to_string(oracles::core::block_writer_calls(block->bytes.data(), block->bytes.size())) +
                            " writer callback calls per block");
#endif
    }
#else
    (void)block;
    (void)cases;
    (void)notes;
#endif
}

// ---------------------------------------------------------------------------------------------
// Block store: WriteBlock and ReadBlock over files on the local disk.

// Reads one block record field by field from a stream (the AutoFile-style path, or a BufferedReader),
// doing what read_block_record does: check the framing, decode, hash the header.
template <typename Stream>
void read_record_streaming(Stream& in, uint64_t expected_size)
{
    std::array<std::byte, 8> header;
    in.read(std::span{header});
    require(std::equal(kMainnetMagic.begin(), kMainnetMagic.end(), header.begin()), "record magic");
    uint32_t size = 0;
    for (int i = 7; i >= 4; --i) size = (size << 8) | std::to_integer<uint32_t>(header[i]);
    require(size == expected_size, "record size");
    model::Block decoded;
    optimized::Unserialize(in, decoded);
    std::array<uint8_t, 80> header_bytes;
    optimized::SpanWriter header_writer(header_bytes);
    optimized::Serialize(header_writer, decoded.header);
    benchmark::DoNotOptimize(crypto::sha256d(header_bytes));
}

void add_block_store_cases(const std::shared_ptr<const BenchBlock>& block, const std::filesystem::path& scratch_dir,
                           std::vector<Case>& cases)
{
    const uint64_t size = block->bytes.size();
    for (const bool keyed : {false, true}) {
        const optimized::ObfuscationKey key = keyed ? kKey : kZeroKey;
        const std::string subject = block->label + (keyed ? ":xor" : ":plain");
        auto add = [&](const char* group, const char* implementation, std::function<void()> run) {
            run();  // once untimed: creates the write files, warms the page cache, runs the self-checks
            cases.push_back({group, subject, implementation, size, 1, std::move(run), {}});
        };

        // Writes overwrite a file of the right size in place ("r+b"): no truncation or block allocation
        // is timed, only the writes into the warm page cache and the fclose.
        const auto write_path = scratch_dir / ("write-" + block->label + (keyed ? "-xor" : "-plain") + ".dat");
        {
            std::FILE* file = open_file(write_path, "wb");
            optimized::AutoFile created{file, key};
            optimized::BufferedWriter writer{created};
            optimized::write_block_record(writer, kMainnetMagic, std::span<const uint8_t>(block->bytes));
            writer.close();
        }
        add("WriteBlock", "optimized-buffered", [block, write_path, key] {
            optimized::AutoFile file{open_file(write_path, "r+b"), key};
            optimized::BufferedWriter writer{file};
            optimized::write_block_record(writer, kMainnetMagic, block->block);
            writer.close();
        });
        add("WriteBlock", "autofile-unbuffered", [block, write_path, key] {
            optimized::AutoFile file{open_file(write_path, "r+b"), key};
            optimized::write_block_record(file, kMainnetMagic, block->block);
            file.close();
        });
        add("WriteBlock", "reference", [block, write_path, key] {
            reference::FileWriter writer{open_file(write_path, "r+b"), key};
            reference::write_block_record(writer, kMainnetMagic, reference::encode_block(block->block));
            writer.close();
        });

        // Reads come from a file written once here (what the write cases write, checked byte for byte).
        const auto read_path = scratch_dir / ("read-" + block->label + (keyed ? "-xor" : "-plain") + ".dat");
        {
            std::FILE* file = open_file(read_path, "wb");
            optimized::AutoFile created{file, key};
            optimized::BufferedWriter writer{created};
            optimized::write_block_record(writer, kMainnetMagic, std::span<const uint8_t>(block->bytes));
            writer.close();
            Bytes check_bytes(size + 8);
            std::FILE* check = open_file(write_path, "rb");
            const size_t got = std::fread(check_bytes.data(), 1, check_bytes.size(), check);
            std::fclose(check);
            std::FILE* again = open_file(read_path, "rb");
            Bytes read_bytes(size + 8);
            const size_t got_again = std::fread(read_bytes.data(), 1, read_bytes.size(), again);
            std::fclose(again);
            require(got == size + 8 && got_again == size + 8 && check_bytes == read_bytes, subject + " written file");
        }
        add("ReadBlock", "optimized-buffered", [block, read_path, key] {
            optimized::AutoFile file{open_file(read_path, "rb"), key};
            const auto record = optimized::read_block_record(file, 0, kMainnetMagic);
            require(record.status == optimized::RecordStatus::ok, "optimized read_block_record");
        });
        add("ReadBlock", "optimized-bufferedreader", [read_path, key, size] {
            optimized::AutoFile file{open_file(read_path, "rb"), key};
            optimized::BufferedReader reader{file};
            read_record_streaming(reader, size);
        });
        add("ReadBlock", "autofile-unbuffered", [read_path, key, size] {
            optimized::AutoFile file{open_file(read_path, "rb"), key};
            read_record_streaming(file, size);
        });
        add("ReadBlock", "reference", [read_path, key] {
            reference::FileReader reader{open_file(read_path, "rb"), key};
            const auto record = reference::read_block_record(reader, 0, kMainnetMagic);
            require(record.status == reference::RecordStatus::ok, "reference read_block_record");
        });
    }
}

// ---------------------------------------------------------------------------------------------
// XOR obfuscation of 1 MiB.

void add_obfuscation_cases(std::vector<Case>& cases)
{
    constexpr size_t kMebibyte = 1024 * 1024;
    for (const bool aligned : {true, false}) {
        // Unaligned: the data starts 3 bytes into an aligned allocation and at file offset 5, so neither the
        // memory nor the key phase is on an 8-byte boundary.
        const size_t memory_offset = aligned ? 0 : 3;
        const uint64_t file_offset = aligned ? 0 : 5;
        auto buffer = std::make_shared<std::vector<std::byte>>(kMebibyte + 8, std::byte{0x5a});
        const std::string subject = aligned ? "1MiB:aligned" : "1MiB:unaligned";
        {
            std::vector<std::byte> batched(buffer->begin() + memory_offset, buffer->begin() + memory_offset + 100'003);
            std::vector<std::byte> bytewise = batched;
            optimized::obfuscate(batched, file_offset, kKey);
            reference::obfuscate(bytewise, file_offset, kKey);
            require(batched == bytewise, subject + " obfuscation");
        }
        cases.push_back({"Obfuscate", subject, "batched", kMebibyte, 1, [buffer, memory_offset, file_offset] {
                             optimized::obfuscate(std::span(buffer->data() + memory_offset, kMebibyte), file_offset, kKey);
                             benchmark::ClobberMemory();
                         }, {}});
        cases.push_back({"Obfuscate", subject, "byte-at-a-time", kMebibyte, 1, [buffer, memory_offset, file_offset] {
                             reference::obfuscate(std::span(buffer->data() + memory_offset, kMebibyte), file_offset, kKey);
                             benchmark::ClobberMemory();
                         }, {}});
    }
}

// ---------------------------------------------------------------------------------------------
// CompactSize and VarInt per encoded length, kBatch values per run.

template <typename Encode>
Bytes encode_all(const std::vector<uint64_t>& values, Encode encode_one)
{
    reference::Writer writer;
    for (const uint64_t value : values) encode_one(writer, value);
    return writer.out;
}

// Adds encode and decode cases, optimized and reference, for one class of values.
template <typename OptimizedWrite, typename OptimizedRead, typename ReferenceWrite, typename ReferenceRead>
void add_integer_cases(std::vector<Case>& cases, const std::string& group, const std::string& subject,
                       std::vector<uint64_t> values_in, OptimizedWrite optimized_write, OptimizedRead optimized_read,
                       ReferenceWrite reference_write, ReferenceRead reference_read)
{
    auto values = std::make_shared<const std::vector<uint64_t>>(std::move(values_in));
    auto encoded = std::make_shared<const Bytes>(encode_all(*values, reference_write));
    // Self-check: the optimized side writes the same bytes and reads the same values.
    {
        Bytes buffer(encoded->size());
        optimized::SpanWriter writer(buffer);
        for (const uint64_t value : *values) optimized_write(writer, value);
        require(buffer == *encoded, group + " " + subject + " encode");
        optimized::SpanReader reader(*encoded);
        for (const uint64_t value : *values) require(optimized_read(reader) == value, group + " " + subject + " decode");
    }
    auto output = std::make_shared<Bytes>(encoded->size());
    auto reference_writer = std::make_shared<reference::Writer>();
    reference_writer->out.reserve(encoded->size());
    const uint64_t bytes = encoded->size() / values->size();
    cases.push_back({group + "Encode", subject, "optimized", bytes, kBatch, [values, output, optimized_write] {
                         optimized::SpanWriter writer(*output);
                         for (const uint64_t value : *values) optimized_write(writer, value);
                         benchmark::DoNotOptimize(output->data());
                         benchmark::ClobberMemory();
                     }, {}});
    cases.push_back({group + "Encode", subject, "reference", bytes, kBatch, [values, reference_writer, reference_write] {
                         reference_writer->out.clear();
                         for (const uint64_t value : *values) reference_write(*reference_writer, value);
                         benchmark::DoNotOptimize(reference_writer->out.data());
                         benchmark::ClobberMemory();
                     }, {}});
    cases.push_back({group + "Decode", subject, "optimized", bytes, kBatch, [encoded, optimized_read] {
                         optimized::SpanReader reader(*encoded);
                         uint64_t sum = 0;
                         for (size_t i = 0; i < kBatch; ++i) sum += optimized_read(reader);
                         benchmark::DoNotOptimize(sum);
                     }, {}});
    cases.push_back({group + "Decode", subject, "reference", bytes, kBatch, [encoded, reference_read] {
                         reference::Reader reader(*encoded);
                         uint64_t sum = 0;
                         for (size_t i = 0; i < kBatch; ++i) sum += reference_read(reader);
                         benchmark::DoNotOptimize(sum);
                     }, {}});
}

// kBatch values spread over [low, high].
std::vector<uint64_t> values_between(uint64_t low, uint64_t high, uint64_t seed)
{
    std::mt19937_64 random(seed);
    std::vector<uint64_t> values(kBatch);
    for (auto& value : values) value = low + (high == low ? 0 : random() % (high - low + 1));
    values.front() = low;
    values.back() = high;
    return values;
}

void add_compact_size_and_varint_cases(std::vector<Case>& cases)
{
    // CompactSize classes by encoded length; with the range check off, 5- and 9-byte values are allowed.
    const std::array<std::array<uint64_t, 3>, 4> compact_classes = {{
        {1, 0, 0xfc}, {3, 0xfd, 0xffff}, {5, 0x10000, 0xffffffff}, {9, 0x100000000, ~uint64_t{0}}}};
    for (const auto& [length, low, high] : compact_classes) {
        add_integer_cases(
            cases, "CompactSize", std::to_string(length) + "B", values_between(low, high, length),
            [](optimized::SpanWriter& writer, uint64_t value) { optimized::WriteCompactSize(writer, value); },
            [](optimized::SpanReader& reader) { return optimized::ReadCompactSize(reader, false); },
            [](reference::Writer& writer, uint64_t value) { writer.write_compactsize(value); },
            [](reference::Reader& reader) { return reader.read_compactsize(false); });
    }
    // VarInt classes by encoded length 1..10 (u64): [threshold(k-1), threshold(k) - 1].
    for (size_t length = 1; length <= 10; ++length) {
        const uint64_t low = length == 1 ? 0 : optimized::kVarIntLengthThresholds[length - 2];
        const uint64_t high = length == 10 ? ~uint64_t{0} : optimized::kVarIntLengthThresholds[length - 1] - 1;
        add_integer_cases(
            cases, "VarInt", std::to_string(length) + "B", values_between(low, high, 100 + length),
            [](optimized::SpanWriter& writer, uint64_t value) {
                optimized::WriteVarInt<optimized::VarIntMode::Unsigned, uint64_t>(writer, value);
            },
            [](optimized::SpanReader& reader) {
                return optimized::ReadVarInt<optimized::VarIntMode::Unsigned, uint64_t>(reader);
            },
            [](reference::Writer& writer, uint64_t value) { writer.write_varint(value, model::IntKind::U64); },
            [](reference::Reader& reader) { return reader.read_varint(model::IntKind::U64); });
    }
}

}  // namespace

std::vector<Case> make_cases(const CaseSetup& setup, std::vector<std::string>& notes)
{
    if (!setup.name.empty() || !setup.sha256.empty())
        throw std::runtime_error("--name= and --sha256= are serdiff_bench_core's flags (Bitcoin Core's rows)");
    std::vector<Case> cases;
    std::filesystem::create_directories(setup.scratch_dir);
    for (const BenchBlock& bench_block : setup.blocks) {
        const auto block = std::make_shared<const BenchBlock>(bench_block);
        add_block_codec_cases(block, cases);
        add_peer_cases(block, cases, notes);
        add_block_store_cases(block, setup.scratch_dir, cases);
    }
#if SERDIFF_BENCH_WITH_PEERS
    for (const oracles::MissingPeer& missing : oracles::missing_peers())
        notes.push_back(std::string(missing.name) + " left out: " + missing.reason);
#else
    notes.push_back("peers (Bitcoin Core, rust-bitcoin, btcd) not built: this tree has SERDIFF_PEERS=OFF");
#endif
    add_obfuscation_cases(cases);
    add_compact_size_and_varint_cases(cases);
    return cases;
}

}  // namespace serdiff::bench
