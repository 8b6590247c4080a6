// Loading the benchmark blocks, and the generator used when ../shared/data is absent.
#include "bench/blocks.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>

#include "differential/reference/reference.h"

namespace serdiff::bench {
namespace {

model::Bytes read_file(const std::filesystem::path& path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) throw std::runtime_error("cannot read " + path.string());
    return model::Bytes(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// The shape of one mainnet block (../shared/data/README.md), which a generated block imitates.
struct Shape {
    const char* label;
    size_t bytes;
    size_t transactions;
    size_t with_witness;
};
constexpr Shape kMainnetShapes[] = {
    {"413567", 999'887, 1'557, 0},
    {"540107", 2'259'447, 230, 104},
    {"574200", 1'245'250, 3'315, 1'341},
    {"702861", 1'381'836, 2'500, 2'065},
};

model::Bytes random_bytes(std::mt19937_64& random, size_t size)
{
    model::Bytes bytes(size);
    for (auto& byte : bytes) byte = static_cast<uint8_t>(random());
    return bytes;
}

// Transactions of typical script sizes (P2PKH inputs of 148 bytes, P2WPKH witnesses of 72 + 33 bytes,
// 25-byte output scripts), with as many inputs as the shape's mean transaction size asks for.
model::Block generate_block(const Shape& shape, uint64_t seed)
{
    std::mt19937_64 random(seed);
    model::Block block;
    block.header.version = 0x20000000;
    block.header.prev_block.bytes = std::to_array<uint8_t, 32>({1, 2, 3});
    block.header.time = 1'600'000'000;
    block.header.bits = 0x170f48e4;
    const size_t mean_size = shape.bytes / shape.transactions;
    for (size_t index = 0; index < shape.transactions; ++index) {
        const bool witness = index * shape.with_witness / shape.transactions !=
                             (index + 1) * shape.with_witness / shape.transactions;
        const size_t input_size = witness ? 41 + 108 : 148;
        const size_t inputs = std::max<size_t>(1, (mean_size > 80 ? mean_size - 80 : 0) / input_size);
        model::Transaction tx;
        tx.version = 2;
        for (size_t i = 0; i < inputs; ++i) {
            model::TxIn in;
            const auto hash = random_bytes(random, 32);
            std::copy(hash.begin(), hash.end(), in.prevout.hash.bytes.begin());
            in.prevout.n = static_cast<uint32_t>(random() % 4);
            in.sequence = 0xffffffff;
            if (witness) in.witness = {random_bytes(random, 72), random_bytes(random, 33)};
            else in.script_sig = random_bytes(random, 106);
            tx.inputs.push_back(std::move(in));
        }
        for (int o = 0; o < 2; ++o) tx.outputs.push_back({static_cast<int64_t>(random() % 5'000'000'000), random_bytes(random, 25)});
        block.transactions.push_back(std::move(tx));
    }
    return block;
}

}  // namespace

std::vector<BenchBlock> load_blocks(const std::filesystem::path& data_dir, std::string& note)
{
    std::vector<BenchBlock> blocks;
    const auto blocks_dir = data_dir / "blocks";
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(blocks_dir))
        for (const auto& entry : std::filesystem::directory_iterator(blocks_dir))
            if (entry.path().extension() == ".raw") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
        BenchBlock bench_block;
        // mainnet-HEIGHT-HASH.raw: the label is the height.
        const std::string stem = path.stem().string();
        const size_t first = stem.find('-');
        const size_t second = stem.find('-', first + 1);
        bench_block.label = first == std::string::npos ? stem : stem.substr(first + 1, second - first - 1);
        bench_block.bytes = read_file(path);
        auto decoded = reference::decode_block(bench_block.bytes);
        if (!decoded.ok || decoded.consumed != bench_block.bytes.size())
            throw std::runtime_error(path.string() + " does not decode as one block: " + decoded.error);
        bench_block.block = std::move(decoded.value);
        blocks.push_back(std::move(bench_block));
    }
    if (!blocks.empty()) {
        note = "mainnet blocks from " + blocks_dir.string();
        return blocks;
    }
    note = "GENERATED blocks shaped like the mainnet ones (" + blocks_dir.string() + " not found)";
    uint64_t seed = 1;
    for (const Shape& shape : kMainnetShapes) {
        BenchBlock bench_block;
        bench_block.label = std::string(shape.label) + "-shape";
        bench_block.block = generate_block(shape, seed++);
        bench_block.bytes = reference::encode_block(bench_block.block);
        bench_block.generated = true;
        blocks.push_back(std::move(bench_block));
    }
    return blocks;
}

}  // namespace serdiff::bench
