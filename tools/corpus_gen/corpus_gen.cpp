// serdiff_corpus_gen: writes structure-aware seed inputs for every fuzz target (boundary values of each
// encoding, built with the model and the reference encoder) and imports seeds from ../shared/data.
//   serdiff_corpus_gen --out corpora                       generated seeds → corpora/<target>/
//   serdiff_corpus_gen --shared-data DIR --out BUILD/seeds  real-data seeds (build tree only, never committed)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "differential/reference/reference.h"
#include "model/model.h"

namespace {

namespace fs = std::filesystem;
namespace reference = serdiff::reference;
using serdiff::model::Bytes;
namespace model = serdiff::model;

// Named seeds per target, written out at the end.
std::map<std::string, std::map<std::string, Bytes>> seeds;

void add(const std::string& target, const std::string& name, const Bytes& bytes) { seeds[target][name] = bytes; }

// Dictionary tokens per target (libFuzzer/AFL++ -dict format), written to <out>/dicts/<target>.dict.
std::map<std::string, std::map<std::string, Bytes>> dictionaries;

void token(std::initializer_list<const char*> targets, const std::string& name, const Bytes& bytes)
{
    for (const char* target : targets) dictionaries[target][name] = bytes;
}

Bytes concat(std::initializer_list<Bytes> parts)
{
    Bytes out;
    for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
    return out;
}

Bytes le(uint64_t value, int width)
{
    Bytes out;
    for (int i = 0; i < width; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
    return out;
}

Bytes filled(size_t size, uint8_t byte) { return Bytes(size, byte); }

model::uint256 hash_of(uint8_t byte)
{
    model::uint256 hash;
    hash.bytes.fill(byte);
    return hash;
}

void generate_compact_size()
{
    // Both sides of every width change, MAX_SIZE, and each prefix in a non-canonical or truncated form.
    const uint64_t values[] = {0, 1, 0xfc, 0xfd, 0xfe, 0xff, 0x100, 0xffff, 0x10000, 0x01ffffff, 0x02000000,
                               0x02000001, 0xffffffff, 0x100000000, 0xffffffffffffffff};
    for (uint64_t value : values) add("compact_size", "value-" + std::to_string(value), reference::encode_compactsize(value));
    add("compact_size", "noncanonical-fd-fc", {0xfd, 0xfc, 0x00});
    add("compact_size", "noncanonical-fe-ffff", {0xfe, 0xff, 0xff, 0x00, 0x00});
    add("compact_size", "noncanonical-ff-ffffffff", concat({{0xff}, le(0xffffffff, 8)}));
    add("compact_size", "noncanonical-and-too-large", concat({{0xff}, le(0x04000000, 8)}));
    add("compact_size", "truncated-fd", {0xfd, 0x00});
    add("compact_size", "truncated-fe", {0xfe, 0x00, 0x00});
    add("compact_size", "truncated-ff", {0xff, 0x00, 0x00, 0x00, 0x00});
    add("compact_size", "empty", {});
}

void generate_varint()
{
    // 7-bit group edges for every width, each kind's maximum, and overflowing/truncated sequences.
    std::vector<uint64_t> values{0, 1, 127, 128, 255, 256, 16511, 16512, 0x7fff, 0x8000, 0xffff};
    for (int bits = 7; bits < 64; bits += 7) {
        values.push_back((uint64_t{1} << bits) - 1);
        values.push_back(uint64_t{1} << bits);
    }
    for (int bits : {7, 8, 15, 16, 31, 32, 63}) values.push_back((uint64_t{1} << bits) - 1);
    values.push_back(~uint64_t{0});
    for (uint64_t value : values)
        add("varint", "value-" + std::to_string(value), reference::encode_varint(value, model::IntKind::U64));
    add("varint", "overflow-ten-ff", concat({filled(10, 0xff), {0x7f}}));
    add("varint", "overflow-u64-plus-one", concat({filled(9, 0xfe), {0x80, 0x00}}));
    add("varint", "truncated-continuation", {0x80, 0x80});
    add("varint", "empty", {});
}

model::Transaction sample_transaction(size_t inputs, size_t outputs, bool witness, size_t script_size)
{
    model::Transaction tx;
    tx.version = 2;
    for (size_t i = 0; i < inputs; ++i) {
        model::TxIn in;
        in.prevout.hash = hash_of(static_cast<uint8_t>(0x10 + i));
        in.prevout.n = static_cast<uint32_t>(i);
        in.script_sig = filled(script_size, 0x51);
        in.sequence = 0xfffffffe;
        if (witness) in.witness.stack = {filled(72, 0x30), filled(33, 0x02)};
        tx.inputs.push_back(in);
    }
    for (size_t i = 0; i < outputs; ++i)
        tx.outputs.push_back({static_cast<int64_t>(50'000 * (i + 1)),
                              concat({{0x76, 0xa9, 0x14}, filled(20, static_cast<uint8_t>(i)), {0x88, 0xac}})});
    tx.lock_time = 0;
    return tx;
}

void generate_transactions()
{
    add("transaction", "legacy-1in-2out", reference::encode_transaction(sample_transaction(1, 2, false, 107), false));
    add("transaction", "segwit-2in-1out", reference::encode_transaction(sample_transaction(2, 1, true, 0), true));
    add("transaction", "script-253-bytes", reference::encode_transaction(sample_transaction(1, 1, false, 253), false));
    add("transaction", "no-inputs-no-outputs", {0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00});
    // Witness marker with every stack empty, and an unknown flag bit.
    Bytes legacy = reference::encode_transaction(sample_transaction(1, 1, false, 10), false);
    Bytes superfluous = concat({Bytes(legacy.begin(), legacy.begin() + 4), {0x00, 0x01},
                                Bytes(legacy.begin() + 4, legacy.end() - 4), {0x00}, Bytes(legacy.end() - 4, legacy.end())});
    add("transaction", "superfluous-witness", superfluous);
    Bytes unknown_flag = superfluous;
    unknown_flag[5] = 0x03;
    add("transaction", "unknown-flag", unknown_flag);
    add("transaction", "huge-input-count", concat({le(1, 4), {0xfe}, le(0x02000000, 4)}));
    add("transaction", "truncated-segwit",
        Bytes(superfluous.begin(), superfluous.begin() + static_cast<std::ptrdiff_t>(superfluous.size() / 2)));
}

model::BlockHeader sample_header()
{
    model::BlockHeader header;
    header.version = 0x20000000;
    header.prev_block = hash_of(0xaa);
    header.merkle_root = hash_of(0xbb);
    header.time = 1700000000;
    header.bits = 0x1703a30c;
    header.nonce = 0x12345678;
    return header;
}

void generate_blocks()
{
    add("block_header", "sample", reference::encode_header(sample_header()));
    add("block_header", "zero", filled(80, 0));
    add("block_header", "truncated-79", filled(79, 0xff));
    model::Block block;
    block.header = sample_header();
    add("block", "empty", reference::encode_block(block));
    model::Transaction coinbase = sample_transaction(1, 1, true, 4);
    coinbase.inputs[0].prevout = {model::uint256{}, 0xffffffff};
    coinbase.inputs[0].witness.stack = {filled(32, 0)};
    block.transactions = {coinbase, sample_transaction(1, 2, false, 107), sample_transaction(2, 1, true, 0)};
    add("block", "coinbase-legacy-segwit", reference::encode_block(block));
    add("block", "huge-tx-count", concat({reference::encode_header(sample_header()), {0xfe}, le(0x01000000, 4)}));

    model::BlockLocator locator;
    locator.version = 70016;
    add("block_locator", "empty", reference::encode_locator(locator));
    for (size_t count : {1, 10, 253}) {
        locator.have.clear();
        for (size_t i = 0; i < count; ++i) locator.have.push_back(hash_of(static_cast<uint8_t>(i)));
        add("block_locator", std::to_string(count) + "-hashes", reference::encode_locator(locator));
    }
}

// One coin in its undo encoding, built field by field so non-minimal forms can be written too.
Bytes coin_bytes(uint32_t code, bool legacy_varint_nonzero, uint64_t compressed_amount, const Bytes& compressed_script)
{
    Bytes out = reference::encode_varint(code, model::IntKind::U32);
    if (code >> 1) out = concat({out, reference::encode_varint(legacy_varint_nonzero ? 5 : 0, model::IntKind::U32)});
    return concat({out, reference::encode_varint(compressed_amount, model::IntKind::U64), compressed_script});
}

Bytes undo_of(const std::vector<Bytes>& coins)
{
    Bytes out = concat({reference::encode_compactsize(1), reference::encode_compactsize(coins.size())});
    for (const auto& coin : coins) out = concat({out, coin});
    return out;
}

void generate_undo()
{
    // Through the reference encoder: every script form the compressor recognises, amount edges.
    model::BlockUndo undo;
    model::TxUndo tx_undo;
    const Bytes p2pkh = concat({{0x76, 0xa9, 0x14}, filled(20, 0x11), {0x88, 0xac}});
    const Bytes p2sh = concat({{0xa9, 0x14}, filled(20, 0x22), {0x87}});
    // The secp256k1 generator point G: a valid uncompressed key (x, then y with an even last byte).
    Bytes generator_key;
    model::from_hex("0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
                    "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
                    generator_key);
    const Bytes p2pk_compressed = concat({{0x21, 0x02}, filled(32, 0x33), {0xac}});
    const Bytes p2pk_uncompressed = concat({{0x41}, generator_key, {0xac}});
    const Bytes op_return = {0x6a, 0x04, 0xde, 0xad, 0xbe, 0xef};
    const int64_t amounts[] = {0, 1, 546, 100'000'000, 2'100'000'000'000'000};
    uint32_t height = 0;
    for (const Bytes& script : {p2pkh, p2sh, p2pk_compressed, p2pk_uncompressed, op_return, Bytes{}}) {
        for (int64_t amount : amounts) {
            model::Coin coin;
            coin.out = {amount, script};
            coin.height = height;
            coin.coinbase = (height % 3) == 0;
            height = height * 7 + 1;
            tx_undo.prevouts.push_back(coin);
        }
    }
    undo.txundo = {tx_undo, model::TxUndo{}};
    add("block_undo", "every-script-form", reference::encode_block_undo(undo));
    add("block_undo", "empty", reference::encode_block_undo(model::BlockUndo{}));

    // Byte-level forms the encoder never writes: each decodes, none re-encodes to the same bytes.
    const Bytes x32 = filled(32, 0x44);
    add("block_undo", "tag4-point-off-curve", undo_of({coin_bytes(3, false, 1, concat({{0x04}, filled(32, 0x00)}))}));
    add("block_undo", "tag5-on-curve", undo_of({coin_bytes(3, false, 1, concat({{0x05}, Bytes(generator_key.begin() + 1, generator_key.begin() + 33)}))}));
    add("block_undo", "legacy-varint-nonzero", undo_of({coin_bytes(4, true, 9, concat({{0x02}, x32}))}));
    add("block_undo", "p2pkh-written-long",
        undo_of({coin_bytes(2, false, 1, concat({reference::encode_varint(p2pkh.size() + 6, model::IntKind::U32), p2pkh}))}));
    add("block_undo", "script-10000-bytes",
        undo_of({coin_bytes(0, false, 1, concat({reference::encode_varint(10006, model::IntKind::U32), filled(10000, 0x51)}))}));
    add("block_undo", "script-10001-bytes-skipped",
        undo_of({coin_bytes(0, false, 1, concat({reference::encode_varint(10007, model::IntKind::U32), filled(10001, 0x51)}))}));
    add("block_undo", "amount-max-compressed", undo_of({coin_bytes(0, false, ~uint64_t{0}, {0x00, 0x00})}));
    add("block_undo", "code-u32-overflow", undo_of({concat({filled(5, 0xff), {0x00}})}));
    add("block_undo", "truncated-p2pk", undo_of({coin_bytes(0, false, 1, {0x03, 0x01})}));
}

void generate_size_computer()
{
    // The first byte picks the object type (6 kinds); the rest drives the ValueGenerator.
    uint64_t state = 0x5eed;
    for (int kind = 0; kind < 6; ++kind) {
        for (size_t size : {24, 200, 2000}) {
            Bytes bytes{static_cast<uint8_t>(kind)};
            for (size_t i = 1; i < size; ++i) {
                state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                bytes.push_back(static_cast<uint8_t>(state >> 56));
            }
            add("size_computer", "kind" + std::to_string(kind) + "-" + std::to_string(size), bytes);
        }
    }
}

bool read_file(const fs::path& path, Bytes& out)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) return false;
    out.assign(std::istreambuf_iterator<char>(file), {});
    return true;
}

// Every quoted, even-length hex string in a JSON file longer than `min_chars` (transaction or block hex).
std::vector<Bytes> hex_strings_in(const fs::path& path, size_t min_chars)
{
    Bytes text;
    std::vector<Bytes> out;
    if (!read_file(path, text)) return out;
    const std::string json(text.begin(), text.end());
    for (size_t open = json.find('"'); open != std::string::npos; open = json.find('"', open + 1)) {
        const size_t close = json.find('"', open + 1);
        if (close == std::string::npos) break;
        Bytes decoded;
        if (close - open - 1 > min_chars && model::from_hex(std::string_view(json).substr(open + 1, close - open - 1), decoded))
            out.push_back(decoded);
        open = close;
    }
    return out;
}

void import_shared_data(const fs::path& data)
{
    std::vector<fs::path> block_files;
    for (const auto& entry : fs::directory_iterator(data / "blocks"))
        if (entry.path().extension() == ".raw") block_files.push_back(entry.path());
    std::sort(block_files.begin(), block_files.end());
    model::BlockLocator locator;
    locator.version = 70016;
    for (const auto& path : block_files) {
        Bytes raw;
        if (!read_file(path, raw)) continue;
        const std::string stem = path.stem().string().substr(0, path.stem().string().find('-', 8));
        add("block", stem, raw);
        add("block_header", stem, Bytes(raw.begin(), raw.begin() + std::min<size_t>(80, raw.size())));
        const auto block = reference::decode_block(raw);
        if (!block.ok) {
            std::fprintf(stderr, "corpus_gen: %s does not decode (%s); skipped for transactions\n", path.c_str(),
                         block.error.c_str());
            continue;
        }
        locator.have.push_back(block.value.header.prev_block);
        // A sample of each block's transactions: the first ten, every 97th, and the three largest.
        const auto& txs = block.value.transactions;
        std::vector<size_t> picks;
        for (size_t i = 0; i < txs.size(); ++i)
            if (i < 10 || i % 97 == 0) picks.push_back(i);
        std::vector<size_t> by_size(txs.size());
        for (size_t i = 0; i < txs.size(); ++i) by_size[i] = i;
        auto encoded_size = [&](size_t i) { return reference::encode_transaction(txs[i], true).size(); };
        std::vector<size_t> sizes(txs.size());
        for (size_t i = 0; i < txs.size(); ++i) sizes[i] = encoded_size(i);
        std::sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
        for (size_t i = 0; i < std::min<size_t>(3, by_size.size()); ++i) picks.push_back(by_size[i]);
        for (size_t i : picks) add("transaction", stem + "-tx" + std::to_string(i), reference::encode_transaction(txs[i], true));
    }
    add("block_locator", "mainnet-prev-hashes", reference::encode_locator(locator));

    Bytes megatx;
    if (read_file(data / "tx" / "megatx.bin", megatx)) add("transaction", "megatx", megatx);
    Bytes witness_hex;
    Bytes huge_witness;
    if (read_file(data / "tx" / "huge_witness.hex", witness_hex)) {
        std::string hex(witness_hex.begin(), witness_hex.end());
        while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r' || hex.back() == ' ')) hex.pop_back();
        if (model::from_hex(hex, huge_witness)) add("transaction", "huge-witness", huge_witness);
    }
    for (const char* vectors : {"tx_valid.json", "tx_invalid.json"}) {
        size_t index = 0;
        for (const Bytes& tx : hex_strings_in(data / "vectors" / vectors, 64)) {
            const auto decoded = reference::decode_transaction(tx, true);
            if (decoded.ok && decoded.consumed == tx.size())
                add("transaction", std::string(vectors).substr(0, 10) + "-" + std::to_string(index++), tx);
        }
    }
    size_t index = 0;
    for (const Bytes& raw : hex_strings_in(data / "vectors" / "blockfilters.json", 160)) {
        const auto decoded = reference::decode_block(raw);
        if (decoded.ok && decoded.consumed == raw.size()) {
            add("block", "testnet-blockfilters-" + std::to_string(index), raw);
            add("block_header", "testnet-blockfilters-" + std::to_string(index++), Bytes(raw.begin(), raw.begin() + 80));
        }
    }
}

void generate_dictionaries()
{
    for (uint64_t value : {0xfdULL, 0xffffULL, 0x10000ULL, 0xffffffffULL, 0x100000000ULL, 0x02000000ULL, 0x02000001ULL})
        token({"compact_size", "transaction", "block", "block_locator", "block_undo"}, "compact_size_" + std::to_string(value),
              reference::encode_compactsize(value));
    token({"compact_size"}, "noncanonical_fd", {0xfd, 0x00, 0x00});
    for (uint64_t value : {127ULL, 128ULL, 16511ULL, 16512ULL, 2113663ULL, 2113664ULL, 0xffffffffULL, ~0ULL})
        token({"varint", "block_undo"}, "varint_" + std::to_string(value), reference::encode_varint(value, model::IntKind::U64));
    for (uint64_t size : {0ULL, 20ULL, 25ULL, 10000ULL, 10001ULL})
        token({"block_undo"}, "script_size_" + std::to_string(size), reference::encode_varint(size + 6, model::IntKind::U32));
    token({"block_undo"}, "p2pkh", {0x76, 0xa9, 0x14});
    token({"block_undo"}, "p2pk_uncompressed", {0x41, 0x04});
    token({"transaction", "block"}, "witness_marker", {0x00, 0x01});
    token({"transaction", "block"}, "version_2", le(2, 4));
    token({"transaction", "block"}, "sequence_final", le(0xffffffff, 4));
    token({"transaction", "block"}, "p2pkh_script", {0x19, 0x76, 0xa9, 0x14});
    token({"transaction", "block"}, "p2pkh_end", {0x88, 0xac});
    token({"transaction", "block"}, "p2wpkh_script", {0x16, 0x00, 0x14});
    token({"transaction", "block"}, "p2wsh_script", {0x22, 0x00, 0x20});
    token({"transaction", "block"}, "coinbase_prevout_index", le(0xffffffff, 4));
    token({"block_header", "block"}, "version_bits", le(0x20000000, 4));
    token({"block_header", "block"}, "bits_difficulty_1", le(0x1d00ffff, 4));
    token({"block_locator"}, "protocol_version", le(70016, 4));
    for (uint64_t value : {0xfdULL, 0x10000ULL, 2'100'000'000'000'000ULL, 0x00ffffffffffffffULL, 0x7fffffffffffffffULL})
        token({"size_computer"}, "u64_" + std::to_string(value), le(value, 8));
}

void write_dictionaries(const fs::path& out)
{
    fs::create_directories(out / "dicts");
    for (const auto& [target, tokens] : dictionaries) {
        std::ofstream file(out / "dicts" / (target + ".dict"), std::ios::trunc);
        file << "# " << target << ": tokens written by tools/corpus_gen (serdiff_corpus_gen --out corpora)\n";
        for (const auto& [name, bytes] : tokens) {
            file << name << "=\"";
            for (uint8_t byte : bytes) {
                static const char digits[] = "0123456789abcdef";
                file << "\\x" << digits[byte >> 4] << digits[byte & 15];
            }
            file << "\"\n";
        }
    }
}

// Targets whose input format is another target's: they start from the same seeds and tokens.
void share_with_same_format_targets()
{
    for (const auto& [target, same_format] : {std::pair{"transaction", "peer_transaction"}, std::pair{"block", "peer_block"}}) {
        if (seeds.count(target)) seeds[same_format] = seeds[target];
        if (dictionaries.count(target)) dictionaries[same_format] = dictionaries[target];
    }
}

int write_seeds(const fs::path& out)
{
    size_t files = 0, bytes = 0;
    for (const auto& [target, named] : seeds) {
        fs::create_directories(out / target);
        for (const auto& [name, content] : named) {
            std::ofstream file(out / target / name, std::ios::binary | std::ios::trunc);
            file.write(reinterpret_cast<const char*>(content.data()), static_cast<std::streamsize>(content.size()));
            if (!file) {
                std::fprintf(stderr, "corpus_gen: cannot write %s\n", (out / target / name).c_str());
                return 1;
            }
            ++files;
            bytes += content.size();
        }
        std::printf("  %-16s %4zu seeds\n", target.c_str(), named.size());
    }
    std::printf("corpus_gen: wrote %zu seeds (%zu bytes) under %s\n", files, bytes, out.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    fs::path out, shared_data;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--out") out = argv[i + 1];
        else if (flag == "--shared-data") shared_data = argv[i + 1];
    }
    if (out.empty() || argc % 2 == 0) {
        std::fputs("usage: serdiff_corpus_gen [--shared-data DIR] --out DIR\n", stderr);
        return 2;
    }
    if (shared_data.empty()) {
        generate_compact_size();
        generate_varint();
        generate_transactions();
        generate_blocks();
        generate_undo();
        generate_size_computer();
        generate_dictionaries();
        share_with_same_format_targets();
        write_dictionaries(out);
    } else {
        if (!fs::is_directory(shared_data / "blocks")) {
            std::fprintf(stderr, "corpus_gen: %s has no blocks/; nothing imported\n", shared_data.c_str());
            return 1;
        }
        import_shared_data(shared_data);
        share_with_same_format_targets();
    }
    return write_seeds(out);
}
