// serdiff_corpus_gen: writes structure-aware seed inputs for every fuzz target (boundary values of each
// encoding, built with the model and the reference encoder) and imports seeds from ../shared/data.
//   serdiff_corpus_gen --out corpora                       generated seeds → corpora/<target>/ (program
//                                                          targets in the grammar of differential/program_input.h)
//   serdiff_corpus_gen --shared-data DIR --out BUILD/seeds  real-data seeds (build tree only, never committed)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "differential/file_programs.h"
#include "differential/fuzz_input.h"
#include "differential/generate.h"
#include "differential/program_input.h"
#include "differential/reference/reference.h"
#include "differential/stream_program.h"
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
        if (witness) in.witness = {filled(72, 0x30), filled(33, 0x02)};
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
    // A witness stack of 253 items: its item count takes a 3-byte CompactSize (the SizeComputer adds that
    // width on a branch of its own).
    model::Transaction many_items = sample_transaction(2, 1, true, 0);
    many_items.inputs[0].witness = {};
    for (int i = 0; i < 253; ++i) many_items.inputs[0].witness.push_back(Bytes{static_cast<uint8_t>(i)});
    add("transaction", "witness-253-items", reference::encode_transaction(many_items, true));
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
    // Byte lengths claimed far beyond the input (20 MiB, under MAX_SIZE): decoding must end in "end of data"
    // without allocating the claim (every fuzz binary aborts on a single allocation over 16 MiB).
    const Bytes prevout(36, 0);
    const Bytes claim = concat({{0xfe}, le(0x01400000, 4)});
    add("transaction", "scriptsig-claims-20mib", concat({le(1, 4), {0x01}, prevout, claim}));
    add("transaction", "scriptpubkey-claims-20mib",
        concat({le(1, 4), {0x01}, prevout, {0x00}, le(0xffffffff, 4), {0x01}, le(0, 8), claim}));
    add("transaction", "witness-item-claims-20mib",
        concat({le(1, 4), {0x00, 0x01, 0x01}, prevout, {0x00}, le(0xffffffff, 4), {0x01}, le(0, 8), {0x00}, {0x01}, claim}));
    // 3,473,408 witness items claimed, the first of 256 bytes, then 8 bytes: rust-bitcoin (a peer of
    // peer_transaction) zero-fills 4 index bytes per claimed item and doubles that buffer to 28 MB before it
    // finds the input short: a peer's rule, outside the allocation bound (differential/allocation_bound.h).
    add("transaction", "witness-claims-3.4m-items",
        concat({le(1, 4), {0x00, 0x01, 0x01}, prevout, {0x00}, le(0xffffffff, 4), {0x01}, le(0, 8), {0x00}, {0xfe},
                le(0x00350000, 4), {0xfd}, le(0x0100, 2), filled(8, 0x42)}));
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
    coinbase.inputs[0].witness = {filled(32, 0)};
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
            height = static_cast<uint32_t>(uint64_t{height} * 7 + 1);  // wraps at 2^32 on purpose (the seeds depend on it)
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

// Fuzz bytes in the order size_computer's ValueGenerator (differential/generate.cpp) and widen_scripts
// (fuzz_targets/size_computer.cpp) consume them, so a seed can name the lengths it holds.
struct GeneratorBytes {
    Bytes bytes;
    GeneratorBytes& byte(uint8_t value)
    {
        bytes.push_back(value);
        return *this;
    }
    GeneratorBytes& raw(const Bytes& more)
    {
        bytes.insert(bytes.end(), more.begin(), more.end());
        return *this;
    }
    // ValueGenerator::byte_string of exactly `size` bytes (at most the budget left): generate_edge_value's integral
    // form (a 2, then the size in 8 bytes), then the min(size, 64) bytes taken from the input.
    GeneratorBytes& sized(uint64_t size, uint8_t fill)
    {
        byte(2).raw(le(size, 8));
        return raw(filled(std::min<uint64_t>(size, 64), fill));
    }
    // ValueGenerator::transaction's fields before the inputs: version, input count, whether the inputs have witnesses.
    GeneratorBytes& transaction_start(size_t inputs, bool witness) { return raw(le(2, 4)).byte(static_cast<uint8_t>(inputs)).byte(witness); }
    // One input: prevout, a scriptSig of `script` bytes, sequence, and (in a transaction with witnesses) the items.
    GeneratorBytes& input(uint8_t salt, uint64_t script, std::initializer_list<uint64_t> items = {}, bool witness = false)
    {
        raw(filled(32, salt)).raw(le(salt, 4)).sized(script, 0x51).raw(le(0xffffffff, 4));
        if (witness) {
            byte(static_cast<uint8_t>(items.size()));
            for (const uint64_t item : items) sized(item, 0x30);
        }
        return *this;
    }
    GeneratorBytes& p2pkh_output(uint8_t salt) { return raw(le(50'000, 8)).byte(0).raw(filled(20, salt)); }
    // An output whose script is raw bytes (ValueGenerator::script's byte_string case) of `size` bytes.
    GeneratorBytes& raw_output(uint64_t size) { return raw(le(1'000, 8)).byte(7).sized(size, 0x6a); }
    // widen_scripts: how many scripts it replaces, then for each the script's index (inputs first, then outputs;
    // no byte when the transaction has one script) and the new length.
    GeneratorBytes& widen(std::initializer_list<std::pair<uint8_t, uint64_t>> scripts, size_t script_count)
    {
        byte(static_cast<uint8_t>(scripts.size()));
        for (const auto& [at, size] : scripts) {
            if (script_count > 1) byte(at);
            sized(size, 0x42);
        }
        return *this;
    }
};

// Scripts and witness items at 252/253 and 65,535/65,536 bytes (5-byte CompactSize lengths), which the generator
// reaches only through widen_scripts and its witness items: each seed says which. The first byte is the kind (0
// transaction with witness, 1 without, 3 block).
void generate_size_computer_lengths()
{
    GeneratorBytes scriptsig;
    scriptsig.byte(1).transaction_start(1, false).input(0x11, 5).byte(1).p2pkh_output(1).raw(le(0, 4));
    scriptsig.widen({{0, 0x10000}}, 2);
    add("size_computer", "scriptsig-65536", scriptsig.bytes);

    GeneratorBytes scriptpubkey;
    scriptpubkey.byte(0).transaction_start(1, true).input(0x12, 253, {252, 253}, true);
    scriptpubkey.byte(2).p2pkh_output(2).raw_output(20).raw(le(0, 4));
    scriptpubkey.widen({{2, 0x10000}, {1, 0xffff}}, 3);
    add("size_computer", "scriptpubkeys-65535-65536", scriptpubkey.bytes);

    GeneratorBytes items;
    items.byte(0).transaction_start(1, true).input(0x13, 0, {0, 1, 252, 253, 0xffff, 0x10000}, true);
    items.byte(1).p2pkh_output(3).raw(le(0, 4)).byte(0);
    add("size_computer", "witness-items-every-width", items.bytes);

    GeneratorBytes block;
    block.byte(3).raw(le(4, 4)).raw(filled(32, 0x01)).raw(filled(32, 0x02)).raw(le(1'700'000'000, 4));
    block.raw(le(0x207fffff, 4)).raw(le(7, 4)).byte(2);
    block.transaction_start(1, false).input(0x14, 10).byte(1).p2pkh_output(4).raw(le(0, 4));
    block.transaction_start(1, true).input(0x15, 300, {0x10000}, true).byte(1).raw_output(253).raw(le(0, 4));
    block.byte(0).widen({{0, 0x10000}}, 2);  // transaction 0's scriptSig
    add("size_computer", "block-scripts-65536", block.bytes);
}

// A 64-bit linear congruential step: multiplies and adds modulo 2^64 by definition (no integer-sanitizer report).
#if defined(__clang__)
__attribute__((no_sanitize("unsigned-integer-overflow")))
#endif
uint64_t lcg_next(uint64_t state)
{
    return state * 6364136223846793005ULL + 1442695040888963407ULL;
}

void generate_size_computer()
{
    // The first byte picks the object type (6 kinds); the rest drives the ValueGenerator.
    uint64_t state = 0x5eed;
    for (int kind = 0; kind < 6; ++kind) {
        for (size_t size : {24, 200, 2000}) {
            Bytes bytes{static_cast<uint8_t>(kind)};
            for (size_t i = 1; i < size; ++i) {
                state = lcg_next(state);
                bytes.push_back(static_cast<uint8_t>(state >> 56));
            }
            add("size_computer", "kind" + std::to_string(kind) + "-" + std::to_string(size), bytes);
        }
    }
    generate_size_computer_lengths();
}

// ---------------------------------------------------------------------------------------------
// Program seeds (primitive_stream, obfuscation, buffered_writer, buffered_reader, block_store), written in
// the grammar of differential/program_input.h; each parser's byte layout is in docs/targets.md.

using serdiff::differential::buffer_relative_length;
using serdiff::differential::kFirstLargeLengthByte;
using serdiff::differential::kLargeLengths;
using serdiff::differential::ProgramWriter;
using serdiff::differential::StreamOperation;

// primitive_stream header: raw bytes as parse_stream_program reads them.
ProgramWriter stream_header(uint8_t writer_buffer, uint8_t reader_buffer, uint8_t initial, uint8_t position,
                            uint8_t start, uint8_t tail = 0, uint8_t corrupt = 0)
{
    ProgramWriter w;
    w.raw({writer_buffer, reader_buffer, initial, position, start});
    w.raw({0x3c, 0xa5, 0x00, 0x7f, 0x81, 0x19, 0xee, 0x42});  // key: no zero phase hides a wrong offset
    w.raw({tail, corrupt});
    return w;
}

// One operation with typical arguments (the values are the interesting part of each seed).
void stream_operation(ProgramWriter& w, StreamOperation operation, uint64_t value, uint8_t shape = 0)
{
    using Op = StreamOperation;
    w.byte(static_cast<uint8_t>(operation));
    switch (operation) {
    // Every fixed-width integer takes 8 bytes (the parser masks them to the width).
    case Op::U8: case Op::I8: case Op::U16: case Op::U16BigEndian: case Op::I16: case Op::U32: case Op::U32BigEndian:
    case Op::I32: case Op::U64: case Op::U64BigEndian: case Op::I64: w.little_endian(value, 8); break;
    case Op::CustomWidth: case Op::CompactSize: case Op::VarInt: w.byte(shape).number(value); break;
    case Op::Bool: w.byte(static_cast<uint8_t>(value)); break;
    case Op::RawBytes: case Op::ByteVector: case Op::String: case Op::LimitedString: case Op::Prevector: case Op::Skip:
        w.number(value).payload(static_cast<size_t>(value), shape, std::vector<uint8_t>{1, 2, 3, 0xfd, 0xff});
        break;
    case Op::IntegerVector:
        w.byte(static_cast<uint8_t>(value));
        for (uint64_t i = 0; i < value; ++i) w.little_endian(i * 0x01010101, 4);
        break;
    case Op::ByteArray: for (int i = 0; i < 32; ++i) w.byte(static_cast<uint8_t>(i * 7 + value)); break;
    case Op::IntegerArray: w.little_endian(value, 2).little_endian(0xffff, 2).little_endian(0xfd, 2); break;
    case Op::Pair: w.little_endian(value, 4).byte(3).payload(3, 9, std::vector<uint8_t>{'a', 'b', 'c'}); break;
    case Op::Map: case Op::Set:
        w.byte(static_cast<uint8_t>(value));
        for (uint64_t i = 0; i < value; ++i) {
            if (operation == Op::Map) w.little_endian(i * 977, 2).byte(static_cast<uint8_t>(i));
            else w.little_endian(i * 0x10001, 4);
        }
        break;
    case Op::PairListAsMap: case Op::ListAsSet:
        w.byte(static_cast<uint8_t>(value));
        for (uint64_t i = 0; i < value; ++i) {
            w.byte(static_cast<uint8_t>(i % 3));  // keys repeat: duplicates
            if (operation == Op::PairListAsMap) w.byte(static_cast<uint8_t>(0x10 + i));
        }
        break;
    case Op::Flush: break;
    }
}

// The bytes of `bytes_written` re-read as `read` (opcode high bit): a raw span read back as another type.
void stream_raw_read_as(ProgramWriter& w, const Bytes& bytes_written, StreamOperation read, uint8_t shape,
                        uint64_t count = 0)
{
    w.byte(static_cast<uint8_t>(StreamOperation::RawBytes) | 0x80).number(bytes_written.size());
    w.payload(bytes_written.size(), 0, bytes_written);
    w.byte(static_cast<uint8_t>(read)).byte(shape).number(count);
}

void generate_primitive_stream()
{
    using Op = StreamOperation;
    const std::string target = "primitive_stream";
    {  // Every operation once, typical values, small buffers, the VectorWriter starting mid-vector.
        ProgramWriter w = stream_header(3, 4, 20, 7, 5);
        for (size_t op = 0; op < serdiff::differential::kStreamOperationCount; ++op)
            stream_operation(w, static_cast<Op>(op), op == static_cast<size_t>(Op::CustomWidth) ? 0x123456 : 3 + op,
                             op == static_cast<size_t>(Op::CustomWidth) ? 2 : 0);
        add(target, "every-operation", w.bytes);
        ProgramWriter appended = stream_header(0, 0, 0, 0, 0);  // VectorWriter appends, buffers of 1 byte
        appended.raw(std::span(w.bytes).subspan(15));
        add(target, "every-operation-append-buffer-1", appended.bytes);
    }
    {  // Integer extremes for every width and byte order.
        ProgramWriter w = stream_header(7, 7, 40, 3, 1);
        for (Op op : {Op::U8, Op::U16, Op::U32, Op::U64, Op::U16BigEndian, Op::U32BigEndian, Op::U64BigEndian, Op::I8,
                      Op::I16, Op::I32, Op::I64})
            for (uint64_t value : {0ULL, 1ULL, 0x7fULL, 0x80ULL, 0xffULL, 0x7fffULL, 0x8000ULL, ~0ULL})
                stream_operation(w, op, value);
        add(target, "integers-every-width", w.bytes);
    }
    {  // Custom widths 1..8 in both byte orders at their maxima.
        ProgramWriter w = stream_header(2, 9, 0, 0, 3);
        for (int width = 1; width <= 8; ++width)
            for (int big = 0; big < 2; ++big)
                stream_operation(w, Op::CustomWidth, width == 8 ? ~0ULL : (1ULL << (8 * width)) - 1,
                                 static_cast<uint8_t>((width - 1) | (big << 3)));
        add(target, "custom-widths", w.bytes);
    }
    {  // CompactSize on both sides of every width change, with and without the range check.
        ProgramWriter w = stream_header(8, 8, 0, 0, 0);
        for (uint64_t value : {0ULL, 0xfcULL, 0xfdULL, 0xffffULL, 0x10000ULL, 0x2000000ULL, 0x2000001ULL, 0xffffffffULL,
                               0x100000000ULL, ~0ULL})
            stream_operation(w, Op::CompactSize, value, value > 0x2000000 ? 1 : 0);
        add(target, "compact-size-edges", w.bytes);
    }
    {  // VarInt at every 7-bit group threshold for every kind.
        for (uint8_t kind = 0; kind < 8; ++kind) {
            ProgramWriter w = stream_header(5, 6, 12, 12, 9);
            for (uint64_t value : {127ULL, 128ULL, 16511ULL, 16512ULL, 2113663ULL, 2113664ULL, 270549120ULL,
                                   34630287488ULL, 72624976668147840ULL, 9295997013522923648ULL, ~0ULL})
                stream_operation(w, Op::VarInt, value, kind);
            add(target, std::string("varint-thresholds-") + model::int_kind_name(model::kAllIntKinds[kind]), w.bytes);
        }
    }
    {  // Byte payloads of every interesting length, as spans, vectors, strings, prevectors.
        ProgramWriter w = stream_header(6, 10, 50, 49, 7);
        for (Op op : {Op::RawBytes, Op::ByteVector, Op::String, Op::Prevector, Op::Skip})
            for (uint64_t size : {0ULL, 1ULL, 2ULL, 28ULL, 29ULL, 252ULL, 253ULL})
                stream_operation(w, op, size, static_cast<uint8_t>(size));
        add(target, "byte-payload-lengths", w.bytes);
        ProgramWriter big = stream_header(31, 31, 0, 0, 0, /*large payloads=*/0xa0);
        stream_operation(big, Op::ByteVector, 0xffff, 1);
        stream_operation(big, Op::String, 0x10000, 2);
        add(target, "byte-payload-0xffff-0x10000", big.bytes);
    }
    {  // A byte vector across the 5,000,000-byte allocation chunk (memory streams only: too big for files).
        ProgramWriter w = stream_header(0, 0, 0, 0, 0, /*large payloads=*/0xa0);
        stream_operation(w, Op::ByteVector, 5000001, 0x5a);
        stream_operation(w, Op::Prevector, 5000000, 0xa5);
        add(target, "byte-vector-chunk-boundary", w.bytes);
    }
    {  // Containers: the 0xfd count, duplicate keys read into a map and a set, a string over its limit.
        ProgramWriter w = stream_header(4, 3, 30, 2, 2);
        stream_operation(w, Op::IntegerVector, 253);
        stream_operation(w, Op::PairListAsMap, 9);
        stream_operation(w, Op::ListAsSet, 7);
        stream_operation(w, Op::Map, 16);
        stream_operation(w, Op::Set, 16);
        stream_operation(w, Op::LimitedString, 16);
        stream_operation(w, Op::LimitedString, 17);
        add(target, "containers-and-duplicates", w.bytes);
    }
    {  // Reads that fail: non-canonical and oversized CompactSizes, VarInt overflow, a truncated tail.
        ProgramWriter w = stream_header(1, 2, 0, 0, 4);
        stream_raw_read_as(w, {0xfd, 0xfc, 0x00}, Op::CompactSize, 0);
        add(target, "read-noncanonical-compact-size-fd", w.bytes);
        ProgramWriter fe = stream_header(1, 2, 0, 0, 4);
        stream_raw_read_as(fe, {0xfe, 0xff, 0xff, 0x00, 0x00}, Op::CompactSize, 0);
        add(target, "read-noncanonical-compact-size-fe", fe.bytes);
        ProgramWriter large = stream_header(1, 2, 0, 0, 4);
        stream_raw_read_as(large, {0xfe, 0x01, 0x00, 0x00, 0x02}, Op::CompactSize, 0);
        add(target, "read-compact-size-above-max-size", large.bytes);
        ProgramWriter unchecked = stream_header(1, 2, 0, 0, 4);
        stream_raw_read_as(unchecked, {0xfe, 0x01, 0x00, 0x00, 0x02}, Op::CompactSize, 16);
        add(target, "read-compact-size-above-max-size-unchecked", unchecked.bytes);
        ProgramWriter overflow = stream_header(3, 3, 0, 0, 0);
        stream_raw_read_as(overflow, filled(10, 0xff), Op::VarInt, 0x60);  // kind u64 (shape >> 5 = 3)
        add(target, "read-varint-overflow", overflow.bytes);
        ProgramWriter huge = stream_header(3, 3, 0, 0, 0);
        stream_raw_read_as(huge, {0xfe, 0x41, 0x4b, 0x4c, 0x00}, Op::ByteVector, 0);  // claims 5,000,001 bytes
        add(target, "read-huge-claimed-byte-vector", huge.bytes);
        // The file claims 5,000,001 bytes and holds 10: the vector the failed read leaves holds those 10, then zeros, to
        // the end of the first chunk, and nothing it held before (docs/format.md "What a failed read leaves").
        ProgramWriter huge_ten = stream_header(3, 3, 0, 0, 0);
        stream_raw_read_as(huge_ten, concat({{0xfe, 0x41, 0x4b, 0x4c, 0x00}, filled(10, 0x5c)}), Op::ByteVector, 0);
        add(target, "read-huge-claimed-byte-vector-10-bytes-there", huge_ten.bytes);
        ProgramWriter truncated = stream_header(2, 5, 0, 0, 1, /*tail=*/3);
        stream_operation(truncated, Op::U64, 0x0102030405060708ULL);
        stream_operation(truncated, Op::ByteVector, 40, 7);
        add(target, "read-truncated-tail", truncated.bytes);
        // A last single read (fixed width, span, array, skip) 3 bytes short: DataStream and SpanReader must
        // fail it without moving (check_failed_read_consumed_nothing), the file streams as the reference.
        for (const Op last : {Op::U16, Op::U64BigEndian, Op::RawBytes, Op::ByteArray, Op::Skip}) {
            ProgramWriter short_read = stream_header(2, 5, 0, 0, 1, /*tail=*/3);
            stream_operation(short_read, Op::U8, 0x5a);
            stream_operation(short_read, last, 40, 1);
            add(target, std::string("read-truncated-") + serdiff::differential::stream_operation_name(last), short_read.bytes);
        }
        ProgramWriter corrupted = stream_header(2, 5, 0, 0, 1, 0, /*corrupt=*/1);
        stream_operation(corrupted, Op::CompactSize, 0x7f);
        stream_operation(corrupted, Op::Map, 3);
        add(target, "read-corrupted-first-byte", corrupted.bytes);
    }
    {  // File streams: flushes between writes, buffers of 1, 8 and 32 bytes, a start offset of 7.
        for (uint8_t buffer : {0, 7, 31}) {
            ProgramWriter w = stream_header(buffer, buffer, 5, 1, 7);
            for (int i = 0; i < 3; ++i) {
                stream_operation(w, Op::U8, 0xab);
                stream_operation(w, Op::RawBytes, 9, 3);
                stream_operation(w, Op::Flush, 0);
                stream_operation(w, Op::U32, 0xdeadbeef);
                stream_operation(w, Op::ByteVector, 40, 4);
            }
            add(target, "file-flushes-buffer-" + std::to_string(buffer + 1), w.bytes);
        }
    }
    token({"primitive_stream"}, "raw_number_u64_max", {0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
    token({"primitive_stream"}, "read_as_compact_size", {static_cast<uint8_t>(Op::RawBytes) | 0x80, 0x03});
    token({"primitive_stream"}, "noncanonical_fd", {0xfd, 0x00, 0x00});
    token({"primitive_stream"}, "varint_overflow", filled(10, 0xff));
    // From an empty corpus: a byte vector past the 5,000,000-byte allocation chunk (its length as one number
    // byte), and the read-shape byte that allows such payloads.
    token({"primitive_stream"}, "byte_vector_past_chunk",
          ProgramWriter().byte(static_cast<uint8_t>(Op::ByteVector)).number(5'000'001).bytes);
    token({"primitive_stream"}, "large_payloads_shape", {0xa0});
}

void generate_obfuscation()
{
    // key, offset (number), alignment, length (number), payload salt + prefix.
    const uint64_t offsets[] = {0, 1, 5, 7, 8, 9, 13, 0xfffffffffffffff9ULL};
    const uint64_t lengths[] = {0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 4096};
    size_t index = 0;
    for (uint64_t offset : offsets) {
        for (uint64_t length : lengths) {
            if (index++ % 3 != 0 && length != 33) continue;  // a spread, not the full product
            ProgramWriter w;
            w.raw({0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}).number(offset).byte(static_cast<uint8_t>(index % 8));
            w.number(length).payload(static_cast<size_t>(length), static_cast<uint8_t>(index), filled(32, 0xc3));
            add("obfuscation", "offset-" + std::to_string(offset) + "-length-" + std::to_string(length) + "-align-" +
                                   std::to_string(index % 8), w.bytes);
        }
    }
    token({"obfuscation"}, "offset_near_u64_max", {0xf8, 0xf9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
}

// bit_stream programs (fuzz_targets/bit_stream.cpp): kind byte (0 bits, 5 a Golomb-Rice code, 7 an alignment),
// count or parameter byte, number; 0xff ends the program and the rest is the stream the program reads.
void generate_bit_stream()
{
    const auto bits = [](ProgramWriter& w, uint8_t count, uint64_t value) { w.byte(0).byte(count).number(value); };
    const auto rice = [](ProgramWriter& w, uint8_t parameter, uint64_t value) { w.byte(5).byte(parameter).number(value); };
    const auto align = [](ProgramWriter& w) { w.byte(7); };
    const auto end = [](ProgramWriter& w, std::initializer_list<uint8_t> stream) { w.byte(0xff).raw(stream); };
    // Every kind of bit count, after 3 bits so that each write straddles a byte boundary.
    for (uint8_t count : {0, 1, 2, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 56, 57, 63, 64}) {
        ProgramWriter w;
        bits(w, 3, 5);
        bits(w, count, 0xfedcba9876543210ULL);
        bits(w, count, ~uint64_t{0});
        align(w);
        bits(w, count, 1);
        end(w, {0xa5, 0x5a, 0xff, 0x00, 0x81, 0x7e, 0xc3, 0x3c, 0x12, 0x34});
        add("bit_stream", "bits-" + std::to_string(count), w.bytes);
    }
    // Golomb-Rice codes: BIP 158's P = 19 and the edges, quotients 0, 1, 3 and the harness's largest (4096); the
    // stream: long runs of one bits.
    for (uint8_t parameter : {0, 1, 7, 8, 19, 20, 32, 63}) {
        ProgramWriter w;
        bits(w, 1, 1);
        const uint64_t unit = uint64_t{1} << parameter;
        for (uint64_t value : {uint64_t{0}, unit - 1, unit, parameter == 63 ? unit + 5 : 3 * unit + 5,
                               parameter == 63 ? unit : 4096 * unit}) {
            rice(w, parameter, value);
        }
        align(w);
        rice(w, parameter, unit + 1);
        end(w, {0xff, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x00, 0xff, 0x7f});
        add("bit_stream", "golomb-rice-p" + std::to_string(parameter), w.bytes);
    }
    // A bad bit count after a partial byte: the writer stops there and still flushes the partial byte.
    for (int bad = 0xf8; bad <= 0xff; ++bad) {
        ProgramWriter w;
        bits(w, 5, 0x15);
        bits(w, static_cast<uint8_t>(bad), 7);
        bits(w, 8, 0xff);
        end(w, {0xc0, 0x01});
        add("bit_stream", "bad-count-" + std::to_string(bad - 0xf8), w.bytes);
    }
    // Reads past the end of the stream: mid-value, and a unary quotient that never ends.
    {
        ProgramWriter w;
        bits(w, 64, 0);
        bits(w, 64, 0);
        bits(w, 7, 0);
        end(w, {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a});
        add("bit_stream", "read-past-end", w.bytes);
    }
    {
        ProgramWriter w;
        rice(w, 19, 0);
        end(w, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
        add("bit_stream", "unary-without-end", w.bytes);
    }
    token({"bit_stream"}, "end_of_program", {0xff});
    token({"bit_stream"}, "golomb_rice_p19", {0x05, 0x13});
}

// buffered_file programs (differential/buffered_file_program.cpp): buffer byte (1 + b % 64), rewind byte (b % buffer;
// 0xff: the buffer size, refused), start byte, key, content length (number) + payload; steps (kind % 10): 0 read
// (length byte, as buffered_reader's), 1 u8, 2 u32, 3 4-byte magic, 4 CompactSize, 5 find byte, 6 set position (back
// by t & 0x7f for t >= 0x80, else ahead by t), 7 set limit (0xff none, else position + t - 16), 8 skip to position + t,
// 9 eof.
void generate_buffered_file()
{
    const Bytes key = {0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80};
    const Bytes zero_key(8, 0);
    // Reads across the ring buffer's end, rewinds inside and past what it holds, and the end of the file; each buffer
    // size with a rewind of 0, half the buffer and one less than the buffer.
    for (const uint8_t buffer : {0, 1, 6, 15, 63}) {
        const size_t size = buffer + 1u;
        for (const size_t rewind : {size_t{0}, size / 2, size - 1}) {
            ProgramWriter w;
            w.byte(buffer).byte(static_cast<uint8_t>(rewind)).byte(3).raw(key).number(200).payload(200, buffer, filled(32, 0x5c));
            for (int round = 0; round < 3; ++round) {
                w.byte(0).byte(static_cast<uint8_t>(2 + round));  // read buffer - 1, buffer, buffer + 1
                w.byte(6).byte(static_cast<uint8_t>(0x80 | std::min<size_t>(rewind + round, 0x7f)));  // back
                w.byte(1).byte(9);                                // a byte, eof
                w.byte(6).byte(static_cast<uint8_t>(0x80 | std::min<size_t>(size + 1, 0x7f)));  // past what it holds
                w.byte(2).byte(4);                                // u32, CompactSize
            }
            w.byte(8).byte(150).byte(5).byte(0x77).byte(0).byte(7).byte(9);  // skip, search to the end, read, eof
            add("buffered_file", "buffer-" + std::to_string(size) + "-rewind-" + std::to_string(rewind), w.bytes);
        }
    }
    // A full ring buffer that starts one byte in: rewind 0, a file of buffer + 1 bytes read whole (the second refill
    // gets the last byte only), back to position 1, then a read of the whole buffer, which wraps past its end.
    for (const uint8_t buffer : {1, 15}) {
        const size_t size = buffer + 1u;
        ProgramWriter w;
        w.byte(buffer).byte(0).byte(0).raw(key).number(size + 1).payload(size + 1, buffer, filled(32, 0x6d));
        w.byte(0).byte(4);                                              // read buffer + 1
        w.byte(6).byte(static_cast<uint8_t>(0x80 | size));              // back to position 1
        w.byte(0).byte(3).byte(9);                                      // read buffer, eof
        add("buffered_file", "full-buffer-wrapped-" + std::to_string(size), w.bytes);
    }
    // Limits: a read that would pass one (nothing read), one behind the position (refused), a skip past one, none
    // again; a search is not bounded by the limit.
    {
        ProgramWriter w;
        w.byte(31).byte(8).byte(0).raw(key).number(100).payload(100, 3);
        w.byte(7).byte(16 + 10).byte(0).byte(8 + 8).byte(0).byte(8 + 3).byte(1);  // limit +10, read 8, read 3 (past), u8
        w.byte(7).byte(0).byte(8).byte(20).byte(7).byte(0xff).byte(8).byte(20);  // limit behind, skip past, no limit, skip
        w.byte(7).byte(16).byte(5).byte(0x00).byte(9).byte(4);                    // limit here, search, eof, CompactSize
        add("buffered_file", "limits", w.bytes);
    }
    // As LoadExternalBlockFile reads a blocks file: no limit, search for the magic's first byte, the magic, the size,
    // a limit at the record's end, the record, a byte past it (refused), then back to just after the magic and on.
    {
        const Bytes magic = {0xf9, 0xbe, 0xb4, 0xd9};
        Bytes content = concat({filled(5, 0x00), magic, Bytes{0x08, 0, 0, 0}, filled(8, 0xab), Bytes{0xf9, 0x11}, magic,
                                Bytes{0x02, 0, 0, 0}});
        ProgramWriter w;
        w.byte(31).byte(20).byte(0).raw(zero_key).number(content.size() + 2).payload(content.size() + 2, 0, content);
        for (int record = 0; record < 3; ++record) {
            w.byte(7).byte(0xff).byte(5).byte(0xf9).byte(3).byte(2);  // no limit, find, magic, size
            w.byte(7).byte(16 + 8).byte(0).byte(8 + 8).byte(1);        // limit at the record's end, the record, u8 past it
            w.byte(6).byte(0x80 | 13).byte(6).byte(1);                // back 13, ahead 1
        }
        w.byte(9).byte(0).byte(8 + 40).byte(9);  // eof, a read past the end, eof
        add("buffered_file", "load-external-block-file", w.bytes);
    }
    // A rewind not below the buffer size: every side refuses to construct.
    {
        ProgramWriter w;
        w.byte(15).byte(0xff).byte(0).raw(key).number(10).payload(10, 1).byte(1);
        add("buffered_file", "rewind-refused", w.bytes);
    }
    // An empty file and a start past the end: the first refill meets the end of the file.
    {
        ProgramWriter w;
        w.byte(7).byte(2).byte(20).raw(key).number(10).payload(10, 2).byte(9).byte(1).byte(9).byte(5).byte(0).byte(9);
        add("buffered_file", "start-past-end", w.bytes);
    }
    token({"buffered_file"}, "search_step", {0x05});
    token({"buffered_file"}, "no_limit", {0x07, 0xff});
}

// prevector programs (fuzz_targets/prevector.cpp): shape byte, then op bytes (op % 18) with their arguments.
void generate_prevector()
{
    for (uint8_t shape : {0, 1}) {
        const std::string prefix = shape ? "u32-inline3-" : "u8-inline28-";
        ProgramWriter grow;  // push_back across the inline capacity, then every range and erase form
        grow.byte(shape);
        for (uint64_t i = 0; i < 30; ++i) grow.byte(0).number(i * 37 + 1);
        grow.byte(13);                                             // snapshot (copy construction)
        grow.byte(10).number(3).number(5).byte(0x5a).byte(1);      // insert 5 at 3, single-pass iterator
        grow.byte(10).number(0).number(40).byte(0x11).byte(0);     // insert 40 at front, forward iterator
        grow.byte(12).number(2).number(7);                         // erase [2, 9)
        grow.byte(11).number(0);                                   // erase front
        grow.byte(16).number(4).byte(1);                           // push_back(own element)
        grow.byte(16).number(1).byte(0).number(0);                 // insert(own element) at front
        grow.byte(1).number(0xfe);                                 // emplace_back
        grow.byte(15).byte(14).byte(1).byte(14).byte(0);           // move, self-assign, assign snapshot
        grow.byte(2).byte(5).number(90).byte(3).number(2);         // pop_back, reserve, resize down
        add("prevector", prefix + "grow-past-inline", grow.bytes);
        ProgramWriter assign;  // the assign/resize/constructor forms around the inline edge
        assign.byte(shape);
        assign.byte(7).number(shape ? 3 : 28).number(9).byte(13).byte(4).number(shape ? 4 : 29).number(7);
        assign.byte(8).number(shape ? 3 : 28).byte(0x21).byte(1).byte(8).number(50).byte(0x22).byte(0);
        assign.byte(6).byte(3).number(shape ? 2 : 27).byte(17).number(12).number(5).byte(1);
        assign.byte(17).number(40).number(3).byte(2).byte(17).number(0).number(8).byte(3).byte(17).number(0).number(0).byte(0);
        add("prevector", prefix + "assign-resize-construct", assign.bytes);
    }
}

// model_script and model_witness_stack programs (fuzz_targets/model_script.cpp, model_witness_stack.cpp): op bytes
// (op % 17 and op % 12) with their arguments, around the 40 inline bytes and the CompactSize prefix widths.
void generate_model_containers()
{
    using serdiff::model::Script;
    const uint64_t edge = Script::kInlineBytes;
    ProgramWriter grow;  // push_back across the inline edge, then every other member on the heap
    for (uint64_t i = 0; i < edge + 5; ++i) grow.byte(0).number(i * 37 + 1);
    grow.byte(10);                                               // snapshot (copy construction)
    grow.byte(1).number(10).byte(1).number(60);                  // resize down, resize up (zero-filled)
    grow.byte(2).number(100).byte(8).number(70).number(9).byte(0);  // resize_uninitialized, one byte written
    grow.byte(9).number(60).number(40).number(0x5a);             // fill [60, 100)
    grow.byte(3).number(150).byte(7).number(3).number(90);       // reserve, assign its own bytes [3, 93)
    grow.byte(12).byte(1).byte(11).byte(1).byte(11).byte(0);     // moves (self-move), self-assign, assign snapshot
    grow.byte(13).byte(14).byte(1).byte(14).byte(0).byte(13);    // swap, destroyed in place (copy, move), swap
    add("model_script", "grow-past-inline", grow.bytes);
    ProgramWriter edges;  // every size-changing member at 39, 40 and 41 bytes, from inline and from the heap
    for (uint64_t n : {edge - 1, edge, edge + 1, edge}) edges.byte(1).number(n).byte(10);
    edges.byte(4).byte(2).number(edge).byte(8).number(edge - 1).number(1).byte(1).byte(2).number(edge + 1);
    edges.byte(9).number(0).number(edge + 1).number(3).byte(4).byte(3).number(edge).byte(3).number(edge + 1);
    edges.byte(5).number(edge).number(0xee).byte(5).number(edge + 1).number(0xef).byte(6).number(edge).byte(0x31);
    edges.byte(0).number(1).byte(12).byte(0).byte(14).byte(1);
    add("model_script", "resize-assign-reserve-at-40-and-41", edges.bytes);
    ProgramWriter construct;  // each constructor at 0, 40 and 41 bytes
    for (uint8_t kind = 0; kind < 5; ++kind)
        for (uint64_t n : {uint64_t{0}, edge, edge + 1}) construct.byte(15).number(n).number(kind + 1).byte(0x40).byte(kind).byte(10);
    add("model_script", "constructors-at-0-40-41", construct.bytes);

    ProgramWriter widths;  // an item of each length-prefix width, at the 1- and 3-byte widths' edges
    for (uint64_t n : {0, 1, 0xfc, 0xfd, 0x10000}) widths.byte(0).number(n).payload(static_cast<size_t>(n), 0x21);
    widths.byte(5).byte(9).number(3).byte(2).number(2).byte(1).number(1).number(100);  // snapshot, advance, part of own item
    widths.byte(1).number(0xfd).number(5).byte(0x33).byte(11).byte(1).byte(11).byte(0);  // append 253 (5 written), empties
    widths.byte(7).byte(8).byte(6).byte(1).byte(6).byte(0).byte(3).number(8);            // move, swap, copies, reserve
    add("model_witness_stack", "prefix-widths-and-every-member", widths.bytes);
    ProgramWriter small;  // many small items: aliasing pushes, initializer lists, clear
    for (uint64_t i = 0; i < 20; ++i) {
        if (i % 2) small.byte(1).number(i).number(i / 2).byte(static_cast<uint8_t>(i));  // append i, write half
        else small.byte(0).number(i).payload(static_cast<size_t>(i), static_cast<uint8_t>(i));
    }
    small.byte(2).number(19).byte(0).number(19).byte(9).number(15).byte(5).byte(4).byte(10).byte(3);
    for (uint64_t i = 0; i < 3; ++i) small.number(i + 1).payload(static_cast<size_t>(i + 1), 0x44);
    small.byte(7).byte(8);
    add("model_witness_stack", "small-items-aliasing-initializer-list", small.bytes);
}

// compression programs (fuzz_targets/compression.cpp): amount number, script shape byte + payload(65), then
// the rest decoded as a compressed script. Shapes: % 8 form (0 P2PKH, 1 P2SH, 2 compressed key, 3 uncompressed
// key, else plain bytes), bit 4 off-form key byte, bits 5-6 near miss (flip a byte, one short, one long).
void generate_compression()
{
    const uint64_t amounts[] = {0, 1, 9, 10, 100000000, 2100000000000000ULL, 0xffffffffffffffffULL};
    const uint8_t shapes[] = {0x00, 0x01, 0x02, 0x03, 0x12, 0x13, 0x20, 0x41, 0x62, 0x23, 0x04};
    size_t index = 0;
    for (uint8_t shape : shapes) {
        ProgramWriter w;
        w.number(amounts[index % std::size(amounts)]).byte(shape).payload(65, static_cast<uint8_t>(index), filled(32, 0x5c));
        if ((shape >> 5) & 3) w.byte(7).byte(3);       // near-miss arguments
        if (shape % 8 >= 4) w.number(index * 9 + 3);   // plain script length
        if (index % 3 == 0) w.raw({0x00});                                              // tag 0 + short payload
        else if (index % 3 == 1) w.raw({0x05}).raw(std::span<const uint8_t>(filled(32, 0x07)));  // tag 5, x maybe off-curve
        else w.raw({0xce, 0x10}).raw(std::span<const uint8_t>(filled(8, 0xab)));               // size beyond the limit
        add("compression", "amount-" + std::to_string(index) + "-shape-" + std::to_string(shape), w.bytes);
        ++index;
    }
    // Tag 4 with x = 0, which is not on the curve (0^3 + 7 is not a square mod p): the script decodes empty,
    // whatever the destination held before (compression.cpp decodes into a non-empty one).
    ProgramWriter off_curve;
    off_curve.number(1).byte(0x00).payload(65, 0x33, filled(32, 0x5c)).raw({0x04}).raw(std::span<const uint8_t>(filled(32, 0x00)));
    add("compression", "tag-4-x-not-on-curve", off_curve.bytes);
    // Each special form with one structural byte (an opcode, a push length, the key prefix) changed: the
    // near misses that must fall back to the plain form.
    const std::pair<uint8_t, std::vector<uint8_t>> structure[] = {
        {0, {0, 1, 2, 23, 24}}, {1, {0, 1, 22}}, {2, {0, 1, 34}}, {3, {0, 1, 66}}};
    for (const auto& [form, positions] : structure) {
        for (uint8_t position : positions) {
            ProgramWriter w;
            w.number(position).byte(static_cast<uint8_t>(0x20 | form)).payload(65, position, filled(32, 0x3d));
            w.byte(position).byte(form == 2 && position == 1 ? 0 : 4);  // 0x02 → 0x03 stays a key: flip bit 0 there
            add("compression", "form-" + std::to_string(form) + "-byte-" + std::to_string(position) + "-changed", w.bytes);
        }
    }
}

void generate_buffered_streams()
{
    // buffered_writer: buffer byte, start, key, close flag; steps: 0 byte, 1 span (length selector + payload),
    // 2 flush, 3 CompactSize (number), 4 u32, 5 close. Span length selectors 0..7 are buffer edges, 0xf8..0xff
    // the large lengths around AutoFile's 4096-byte chunks (kLargeLengths), else selector − 8.
    for (uint8_t buffer : {0, 1, 6, 7, 15, 31}) {
        for (uint8_t close_flag : {0, 1}) {
            ProgramWriter w;
            w.byte(buffer).byte(static_cast<uint8_t>(3 + buffer)).raw({9, 0, 0xff, 0x80, 1, 2, 3, 4}).byte(close_flag);
            const size_t size = buffer + 1u;
            for (uint8_t selector = 0; selector < 8; ++selector) {
                w.byte(1).byte(selector).payload(buffer_relative_length(selector, size), selector);
                w.byte(0).byte(0x5a);
                if (selector % 3 == 2) w.byte(2);
            }
            w.byte(3).number(0xfd).byte(3).number(0x10000).byte(4).little_endian(0xcafebabe, 4).byte(2);
            add("buffered_writer", "buffer-" + std::to_string(size) + (close_flag ? "-destructor" : "-close"), w.bytes);
        }
    }
    // Use after close (step 5): writes that only fill the BufferedWriter's buffer, one that overflows it, a
    // flush and a second close must all leave the closed file as it was, and the flush and close must fail.
    for (uint8_t buffer : {uint8_t{3}, uint8_t{15}}) {
        ProgramWriter w;
        w.byte(buffer).byte(2).raw({9, 0, 0xff, 0x80, 1, 2, 3, 4}).byte(0);
        w.byte(1).byte(3).payload(buffer + 1u, 1).byte(0).byte(0x11).byte(5);   // a span, a byte, close
        w.byte(0).byte(0x22).byte(2).byte(1).byte(5).payload(2u * (buffer + 1u), 2).byte(2).byte(5);
        add("buffered_writer", "use-after-close-buffer-" + std::to_string(buffer + 1u), w.bytes);
    }
    // Fault mode (flags bits 1-2: 2 short write, 3 I/O error; bit 3 stdio buffered; then the fault offset as a
    // number, taken modulo the bytes written + 1): spans around the buffer, single bytes and flushes, so the
    // fault lands inside a span, between writes and at a flush.
    // The errno byte picks EIO, ENOSPC, EPERM (errno 1) or EFBIG.
    struct FaultSeed {
        const char* name;
        uint8_t flags;
        uint64_t offset;
        uint8_t error_number;
    };
    for (const FaultSeed& fault : {FaultSeed{"short-write-unbuffered", 4, 13, 1}, FaultSeed{"io-error-unbuffered", 6, 29, 2},
                                   FaultSeed{"short-write-stdio-buffered", 12, 41, 3},
                                   FaultSeed{"io-error-stdio-buffered", 14, 7, 0}}) {
        for (uint8_t buffer : {uint8_t{2}, uint8_t{15}}) {
            ProgramWriter w;
            w.byte(buffer).byte(5).raw({9, 0, 0xff, 0x80, 1, 2, 3, 4}).byte(fault.flags).number(fault.offset);
            w.byte(fault.error_number);
            const size_t size = buffer + 1u;
            for (uint8_t selector = 0; selector < 8; ++selector) {
                w.byte(1).byte(selector).payload(buffer_relative_length(selector, size), selector);
                w.byte(0).byte(static_cast<uint8_t>(0xa0 + selector));
                if (selector % 2) w.byte(2);
            }
            add("buffered_writer", std::string("fault-") + fault.name + "-buffer-" + std::to_string(buffer + 1u), w.bytes);
        }
    }
    // Stdio-buffered and no flush step: stdio holds every byte until close(), so the fault surfaces in the
    // close of every writer, whose message must then be the reference's.
    for (const uint8_t flags : {uint8_t{12}, uint8_t{14}}) {
        ProgramWriter w;
        w.byte(7).byte(5).raw({9, 0, 0xff, 0x80, 1, 2, 3, 4}).byte(flags).number(20).byte(2);
        for (uint8_t selector = 0; selector < 8; ++selector) w.byte(1).byte(selector).payload(selector * 3u, selector).byte(0).byte(selector);
        add("buffered_writer", std::string("fault-") + (flags == 12 ? "short-write" : "io-error") + "-at-close", w.bytes);
    }
    // Keyed spans of 4095..20000 bytes (selectors 0xf8..0xff): AutoFile obfuscates them in 4096-byte chunks, so
    // the direct writer's chunk loop runs 1..5 times at every key offset; then the same with an I/O error
    // inside the third chunk of a span.
    for (const bool fault : {false, true}) {
        ProgramWriter w;
        w.byte(30).byte(5).raw({9, 0, 0xff, 0x80, 1, 2, 3, 4}).byte(fault ? 6 : 0);
        if (fault) w.number(4096 * 2 + 4097 + 100).byte(0);
        for (uint8_t selector = kFirstLargeLengthByte; selector != 0; ++selector) {
            w.byte(1).byte(selector).payload(kLargeLengths[selector - kFirstLargeLengthByte], selector);
            w.byte(0).byte(selector);
        }
        w.byte(2);
        add("buffered_writer", fault ? "large-spans-io-error" : "large-spans", w.bytes);
    }
    // A file that cannot be opened (flags bits 1-2 = 1): every constructor reports it, with one message.
    ProgramWriter open_failure;
    open_failure.byte(3).byte(0).raw({9, 0, 0xff, 0x80, 1, 2, 3, 4}).byte(2).byte(0).byte(0x11);
    add("buffered_writer", "open-failure", open_failure.bytes);
    // buffered_reader: buffer byte, start, key, content length (number) + payload; steps: 0 byte, 1 read
    // (selector), 2 ignore (selector), 3 position. Buffer byte 0xf0 asks for a 0-byte buffer (it acts as 1).
    for (uint8_t buffer : {0, 1, 7, 15, 31, 0xf0}) {
        ProgramWriter w;
        w.byte(buffer).byte(static_cast<uint8_t>(buffer % 9)).raw({0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80});
        w.number(300).payload(300, buffer, filled(32, 0x99));
        for (int round = 0; round < 3; ++round)
            for (uint8_t selector = 0; selector < 8; ++selector)
                w.byte(static_cast<uint8_t>(1 + (selector + round) % 3)).byte(selector).byte(0).byte(3);
        const std::string size_name = buffer >= 0xf0 ? std::string("0-requested") : std::to_string(buffer + 1u);
        add("buffered_reader", "buffer-" + size_name, w.bytes);
        ProgramWriter past_end;
        past_end.byte(buffer).byte(2).raw({1, 2, 3, 4, 5, 6, 7, 8}).number(5).payload(5, 1);
        past_end.byte(1).byte(static_cast<uint8_t>(8 + 3)).byte(1).byte(static_cast<uint8_t>(8 + 9));
        add("buffered_reader", "read-past-end-buffer-" + size_name, past_end.bytes);
    }
    // Reads and skips of 4095..20000 bytes (selectors 0xf8..0xff) in a 64 KiB keyed file: AutoFile::ignore skips
    // in 4096-byte chunks; the last skip runs past the end inside its second chunk.
    for (uint8_t buffer : {uint8_t{0}, uint8_t{31}}) {
        ProgramWriter w;
        w.byte(buffer).byte(3).raw({0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80});
        w.number(0x10000).payload(0x10000, 7, filled(32, 0x42));
        for (const uint8_t selector : {0xfd, 0xfa, 0xfe, 0xff}) w.byte(2).byte(selector).byte(3);  // ignore, position
        w.byte(0).byte(1).byte(0xfa).byte(2).byte(0xfc).byte(2).byte(0xff);  // byte, read 4097, ignore 8192, 20000
        add("buffered_reader", "large-reads-and-ignores-buffer-" + std::to_string(buffer + 1u), w.bytes);
    }
}

// Code that only tools/mutate/instantiate.cpp instantiated before (docs/mutation.md "Equivalence"): prevector's const
// front()/back() and copy assignment into a later array element (checked after every step); DataStream size()/unread()
// and reserve(), VectorWriter operator<<, SpanWriter one-byte static-extent spans, the LimitedString writer (every
// primitive_stream program); the BufferedReader/BufferedWriter default buffer sizes (buffer byte kDefaultBufferByte).
// The unseekable mode of buffered_writer and buffered_reader (start byte 0xef, kUnseekableStartByte): the program
// runs again on a FILE whose every seek fails, so the AutoFile's position is unknown (docs/file-io.md). Raw bytes in
// the programs' grammar (docs/targets.md "Program formats"): writer = buffer byte, start, key, flags, steps; reader =
// buffer byte, start, key, content (length number, salt, up to 32 bytes), steps.
void generate_unseekable()
{
    constexpr uint8_t kUnseekable = 0xef;
    const Bytes key{9, 0, 0xff, 0x80, 1, 2, 3, 4};
    const Bytes zero_key(8, 0);
    const auto span = [](uint8_t selector, uint8_t salt, const Bytes& data = {}) {   // writer step 1
        return concat({Bytes{1, selector, salt}, data});
    };
    const auto writer = [&](const std::string& name, uint8_t buffer, const Bytes& file_key, uint8_t flags,
                            const Bytes& steps) {
        add("buffered_writer", "unseekable-" + name, concat({Bytes{buffer, kUnseekable}, file_key, Bytes{flags}, steps}));
    };
    const auto reader = [&](const std::string& name, uint8_t buffer, const Bytes& file_key, const Bytes& content,
                            const Bytes& steps) {
        const Bytes body = concat({Bytes{static_cast<uint8_t>(64 + content.size()), 0x5e},
                                   Bytes(content.begin(), content.begin() + std::min<size_t>(content.size(), 32))});
        add("buffered_reader", "unseekable-" + name, concat({Bytes{buffer, kUnseekable}, file_key, body, steps}));
    };
    // Writer steps: 0 byte, 1 span, 2 flush, 3 CompactSize (number), 4 u32, 5 close; buffer 1 + byte % 32.
    const Bytes abcd{'a', 'b', 'c', 'd'};
    const Bytes mixed = concat({Bytes{2}, span(8, 1), Bytes{0, 0x41}, span(3, 2, abcd), Bytes{2, 3, 0x0f, 4, 1, 2, 3, 4},
                                span(0xf9, 3), Bytes{0, 0x42, 2, 5, 0, 0x43}});
    writer("keyed-empty-span-flush-then-byte-buffer-4", 3, key, 0,
           concat({span(8, 1), Bytes{2}, span(0, 1), Bytes{0, 0x41}, span(10, 2, Bytes{'x', 'y'}), Bytes{2, 5}}));
    writer("keyed-span-fills-buffer-4", 3, key, 0, concat({span(3, 2, abcd), Bytes{0, 0x41, 2, 5}}));
    writer("keyed-u32-first-stdio-buffered-buffer-1", 0, key, 8, Bytes{4, 0xbe, 0xba, 0xfe, 0xca, 0, 0x11, 5});
    writer("keyed-compact-size-first-buffer-32", 31, key, 1, Bytes{3, 0x0f, 2, 0, 0x11});
    writer("keyed-large-span-buffer-8", 7, key, 0, concat({span(0xf9, 3), Bytes{2, 5}}));
    writer("keyed-and-io-error-buffer-3", 2, key, 6, concat({Bytes{29, 0}, mixed}));   // fault mode too (offset 29, EIO)
    writer("zero-key-buffer-4", 3, zero_key, 0, mixed);
    writer("zero-key-stdio-buffered-buffer-1", 0, zero_key, 8, mixed);
    writer("zero-key-buffer-0-requested", 0xf0, zero_key, 1, mixed);
    writer("keyed-mixed-buffer-4", 3, key, 0, mixed);
    // Reader steps: 0 byte, 1 read (selector), 2 ignore (selector), 3 position.
    Bytes content;
    for (uint8_t byte = 0x30; byte < 0x30 + 40; ++byte) content.push_back(byte);
    reader("keyed-position-ignore-then-read-buffer-4", 3, key, content, Bytes{3, 2, 11, 3, 2, 0, 1, 8, 0, 3});
    reader("keyed-empty-read-first-buffer-4", 3, key, content, Bytes{1, 0, 0, 3});
    reader("keyed-ignore-past-end-buffer-8", 7, key, content, Bytes{2, 8 + 39, 2, 8 + 5});
    reader("keyed-byte-first-buffer-0-requested", 0xf0, key, content, Bytes{0, 3});
    const Bytes zero_key_steps{3, 0, 1, 3, 1, 0, 2, 4, 3, 1, 8 + 7, 2, 2, 0, 1, 6, 3, 1, 8 + 30};
    for (const auto& [buffer, suffix] : std::initializer_list<std::pair<uint8_t, const char*>>{
             {0, "buffer-1"}, {3, "buffer-4"}, {31, "buffer-32"}, {0xf0, "buffer-0-requested"}}) {
        reader(std::string("zero-key-") + suffix, buffer, zero_key, content, zero_key_steps);
    }
}

// The read-fault mode of buffered_reader (start byte 0xee, kReadFaultStartByte): the steps again from a FILE whose
// reads fail with EIO from an offset on (the key's first two bytes, little endian, modulo the stored size), stdio
// buffered (a file below 8 KiB fails at its first read) and unbuffered (the step that reaches the offset fails).
// Reader grammar as generate_unseekable's; the 20,000-byte file (number 0xf8 + 8 bytes) crosses stdio's 8 KiB
// buffer and takes spans of 8192 and 20000 bytes (length bytes 0xfc, 0xff), which stdio reads past its buffer.
void generate_read_faults()
{
    constexpr uint8_t kReadFault = 0xee;
    const auto reader = [&](const std::string& name, uint8_t buffer, const Bytes& file_key, const Bytes& length,
                            const Bytes& steps) {
        Bytes content;
        for (uint8_t byte = 0x30; byte < 0x30 + 32; ++byte) content.push_back(byte);
        add("buffered_reader", "read-fault-" + name, concat({Bytes{buffer, kReadFault}, file_key, length, Bytes{0x5e}, content, steps}));
    };
    const Bytes forty{64 + 40};
    const Bytes key_at_20{20, 0, 0xff, 0x80, 1, 2, 3, 4};
    // Reader steps: 0 byte, 1 read (selector), 2 ignore (selector), 3 position; selector t ≥ 8 is t − 8 bytes.
    reader("ignore-across-offset-20-buffer-4", 3, key_at_20, forty, Bytes{0, 1, 8 + 5, 2, 8 + 30, 3});
    reader("read-across-offset-20-buffer-1", 0, key_at_20, forty, Bytes{3, 1, 8 + 30, 0});
    reader("bytes-up-to-offset-20-buffer-32", 31, key_at_20, forty, Bytes{2, 8 + 19, 0, 3, 0, 3});
    reader("zero-key-ignore-first-buffer-4", 3, Bytes(8, 0), forty, Bytes{2, 8 + 10, 0});
    const Bytes twenty_thousand{0xf8, 0x20, 0x4e, 0, 0, 0, 0, 0, 0};
    const Bytes key_at_12000{0xe0, 0x2e, 9, 8, 7, 6, 5, 4};
    reader("large-spans-offset-12000-buffer-8", 7, key_at_12000, twenty_thousand, Bytes{1, 0xfc, 3, 1, 0xfc, 3, 0, 3});
    reader("large-ignores-offset-12000-buffer-16", 15, key_at_12000, twenty_thousand, Bytes{2, 0xfc, 3, 2, 0xfc, 0, 3});
    reader("whole-file-offset-12000-buffer-1", 0, key_at_12000, twenty_thousand, Bytes{1, 0xff, 3});
}

void generate_instantiation_only()
{
    using Op = StreamOperation;
    for (uint8_t shape : {0, 1}) {
        ProgramWriter w;  // distinct values inline, then past the inline capacity, then back to one element
        w.byte(shape);
        for (uint64_t i = 0; i < 5; ++i) w.byte(0).number(i * 11 + 3);
        for (uint64_t i = 0; i < 30; ++i) w.byte(0).number(i * 37 + 1);
        w.byte(14).byte(1).byte(3).number(1).byte(0).number(77);
        add("prevector", std::string(shape ? "u32-inline3-" : "u8-inline28-") + "const-ends-copy-assign", w.bytes);
    }
    {
        ProgramWriter w = stream_header(5, 9, 12, 4, 3);
        stream_operation(w, Op::U8, 0x81);
        stream_operation(w, Op::I8, 0xfe);
        stream_operation(w, Op::Bool, 1);
        stream_operation(w, Op::LimitedString, 16);
        stream_operation(w, Op::U32, 0xdeadbeef);
        stream_operation(w, Op::Bool, 0);
        stream_operation(w, Op::ByteVector, 40);
        stream_operation(w, Op::LimitedString, 3);
        stream_operation(w, Op::U8, 0);
        add("primitive_stream", "one-byte-fields-limited-string", w.bytes);
        ProgramWriter over = stream_header(5, 9, 0, 0, 0);
        stream_operation(over, Op::U8, 7);
        stream_operation(over, Op::LimitedString, 17);  // written by the formatter, refused when read back
        stream_operation(over, Op::U8, 9);
        add("primitive_stream", "limited-string-over-limit", over.bytes);
    }
    const uint8_t kDefault = serdiff::differential::kDefaultBufferByte;
    {
        ProgramWriter w;  // buffered_writer: default buffer, start 5, key, close(); bytes, spans, a flush, u32, close
        w.byte(kDefault).byte(5).raw({9, 0, 0xff, 0x80, 1, 2, 3, 4}).byte(0);
        for (uint8_t selector = 0; selector < 8; ++selector) w.byte(1).byte(selector).payload(buffer_relative_length(selector, 16), selector).byte(0).byte(0x5a);
        w.byte(2).byte(3).number(0xfd).byte(4).little_endian(0xcafebabe, 4).byte(1).byte(0xfc).payload(8192, 3).byte(5);
        add("buffered_writer", "default-buffer", w.bytes);
    }
    {
        ProgramWriter w;  // buffered_reader: default buffer, start 4, key, 20000 bytes; reads, skips, positions
        w.byte(kDefault).byte(4).raw({0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80});
        w.number(20000).payload(20000, 5, filled(32, 0x37));
        for (uint8_t selector = 0; selector < 8; ++selector) w.byte(1).byte(selector).byte(0).byte(3).byte(2).byte(selector);
        w.byte(1).byte(0xfa).byte(2).byte(0xfe).byte(1).byte(0xff);  // read 4097, skip 12289, read 20000: past the end
        add("buffered_reader", "default-buffer", w.bytes);
    }
}

// The fuzz bytes block_store's ValueGenerator consumes to build one value from `source` (so seeds stay aligned).
template <typename Build>
Bytes generator_prefix(const Bytes& source, Build build)
{
    serdiff::differential::FuzzInput input(source);
    serdiff::differential::ValueGenerator generator(input, serdiff::differential::kMaxRecordGeneratedBytes);
    build(generator);
    return Bytes(source.begin(), source.end() - static_cast<std::ptrdiff_t>(input.remaining()));
}

void generate_block_store()
{
    // key, shape (buffer 1 + shape % 64; 0x80: AutoFile; 0x40: read with the testnet magic), record count,
    // records (0 generated block, 1 raw payload, 2 generated undo + parent hash, 3 the same + trailing bytes),
    // edit count, edits
    // (0 flip, 1 truncate, 2 stored zeros, 3 overwrite 4 bytes: kind, number, argument), extra offset.
    Bytes source;
    uint64_t state = 0xb10c;
    for (int i = 0; i < 600; ++i) {
        state = lcg_next(state);
        source.push_back(static_cast<uint8_t>(state >> 56));
    }
    const Bytes block = generator_prefix(source, [](auto& g) { g.block(); });
    const Bytes undo = generator_prefix(source, [](auto& g) {
        g.block_undo();
        g.hash();
    });
    auto records = [&](uint8_t shape) {
        ProgramWriter w;
        w.raw({0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}).byte(shape).byte(4);
        w.byte(0).raw(block);
        w.byte(1).number(100).payload(100, 3, filled(32, 0x01));
        w.byte(2).raw(undo);
        w.byte(0).raw(block);
        return w;
    };
    struct Edit {
        const char* name;
        std::vector<uint8_t> bytes;
    };
    const Edit edits[] = {
        {"intact", {0}},
        {"truncated-mid-record", {1, 1, 0xf8, 0x90, 0x01, 0, 0, 0, 0, 0, 0}},  // truncate at 400
        {"flipped-size-byte", {1, 0, 0x45, 3}},                                 // flip bit 3 of byte 5
        {"stored-zeros", {1, 2, 0x50}},
        {"size-beyond-file", {1, 3, 0x44, 0x89, 0xab, 0xdd, 0xef}},  // stored ^ key = size 0x100000
        {"size-above-maximum", {1, 3, 0x44, 0x88, 0xa2, 0xf0, 0xef}},  // size 4,000,001: above the block maximum
        {"size-at-maximum", {1, 3, 0x44, 0x89, 0xa2, 0xf0, 0xef}},     // size 4,000,000: allowed, beyond the file
        {"flipped-magic", {2, 0, 0x40, 0, 0, 0x41, 7}},
    };
    for (const Edit& edit : edits) {
        for (uint8_t shape : {uint8_t{2}, uint8_t{0x80}}) {
            ProgramWriter w = records(shape);
            w.raw(edit.bytes).byte(0x42);
            add("block_store", std::string(edit.name) + (shape & 0x80 ? "-autofile" : "-buffer-3"), w.bytes);
        }
    }
    // One undo record read back with another parent hash (the extra offset 0 takes the generator's next hash)
    // and with a payload byte flipped: "undo checksum mismatch" with a payload that still decodes.
    for (uint8_t shape : {uint8_t{2}, uint8_t{0x80}}) {
        const std::string suffix = shape & 0x80 ? "-autofile" : "-buffer-3";
        ProgramWriter other_parent;
        other_parent.raw({0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}).byte(shape).byte(1).byte(2).raw(undo);
        other_parent.byte(0).number(0);
        add("block_store", "undo-other-parent-hash" + suffix, other_parent.bytes);
        ProgramWriter flipped;
        flipped.raw({0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}).byte(shape).byte(1).byte(2).raw(undo);
        flipped.byte(1).byte(0).number(40).byte(2).number(0);
        add("block_store", "undo-payload-flipped" + suffix, flipped.bytes);
    }
    // An undo record whose payload decodes with 3 bytes left over (record kind 3): "3 trailing bytes inside the
    // record" from read_undo_record and the scan; once after a generated undo, once after an empty one (1 byte
    // decoded, so the count of trailing bytes exceeds what was decoded).
    const Bytes empty_undo = generator_prefix(Bytes(64, 0), [](auto& g) {
        g.block_undo();
        g.hash();
    });
    for (uint8_t shape : {uint8_t{2}, uint8_t{0x80}}) {
        ProgramWriter trailing;
        trailing.raw({0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}).byte(shape).byte(1).byte(3);
        trailing.raw(shape & 0x80 ? empty_undo : undo);
        trailing.byte(2).payload(3, 0x50, std::vector<uint8_t>{0x51, 0x52, 0x53}).byte(0).number(0);
        add("block_store", std::string(shape & 0x80 ? "undo-empty-trailing-bytes-autofile" : "undo-trailing-bytes-buffer-3"),
            trailing.bytes);
    }
    // Two 100-byte raw records, the file cut 5 bytes into the second one's header: "record header truncated".
    for (uint8_t shape : {uint8_t{2}, uint8_t{0x80}}) {
        ProgramWriter cut;
        cut.raw({0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}).byte(shape).byte(2);
        cut.byte(1).number(100).payload(100, 3, filled(32, 0x01)).byte(1).number(100).payload(100, 4, filled(32, 0x02));
        cut.byte(1).byte(1).number(108 + 5).number(108);
        add("block_store", std::string("header-truncated") + (shape & 0x80 ? "-autofile" : "-buffer-3"), cut.bytes);
    }
    // An empty raw payload between two records: both writers refuse it with one error and write nothing.
    for (uint8_t shape : {uint8_t{2}, uint8_t{0x80}}) {
        ProgramWriter empty;
        empty.raw({0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}).byte(shape).byte(3);
        empty.byte(1).number(10).payload(10, 1).byte(1).number(0).payload(0, 2).byte(1).number(10).payload(10, 3);
        empty.byte(0).number(0);
        add("block_store", std::string("empty-raw-record") + (shape & 0x80 ? "-autofile" : "-buffer-3"), empty.bytes);
    }
    ProgramWriter testnet = records(0x45);
    testnet.byte(0).byte(0);
    add("block_store", "read-with-wrong-magic", testnet.bytes);
    // Seek fault mode: the intact file, the extra offset and the extra undo record's 32-byte hash, then a last
    // byte f: f % 3 = 1, a seek to the end fails, 2: the position after it cannot be told; errno EIO, EINVAL,
    // ESPIPE or EOVERFLOW (f / 3 % 4).
    const std::pair<const char*, uint8_t> seek_faults[] = {
        {"fails-eio", 1}, {"fails-einval", 4}, {"fails-espipe", 7}, {"fails-eoverflow", 10}, {"then-tell-fails-eio", 2},
        {"then-tell-fails-espipe", 8}};
    for (const auto& [name, fault] : seek_faults) {
        ProgramWriter w = records(0x80);
        w.byte(0).byte(0x42).raw(filled(32, 0x11)).byte(fault);
        add("block_store", std::string("seek-to-end-") + name, w.bytes);
    }
    token({"block_store"}, "mainnet_magic", {0xf9, 0xbe, 0xb4, 0xd9});

    // The Core subject's block_store (subjects/core/block_store.cpp) reads the same grammar with its own shape bits
    // (0x01: mine the blocks; 0x20: a filler block first, leaving 54 + 64 * (shape >> 1 & 0x0f) bytes of
    // blk00000.dat's 64 KiB so the next records roll over) and, after the fault byte, up to 3 partial reads
    // (count byte, then each: block index, offset, size), after no edits, extra offset 0, the extra undo read's parent
    // hash (32 bytes, the generator's) and the fault byte. Seeds "core-*": every partial-read edge of the first block.
    const uint64_t block_size = reference::encode_block([&] {
        serdiff::differential::FuzzInput input(block);
        serdiff::differential::ValueGenerator generator(input, serdiff::differential::kMaxRecordGeneratedBytes);
        return generator.block();
    }()).size();
    auto core_records = [&](uint8_t shape, std::span<const uint8_t> key) {
        ProgramWriter w;
        w.raw(key).byte(shape).byte(4);
        w.byte(0).raw(block);
        w.byte(2).raw(undo);
        w.byte(0).raw(block);
        w.byte(3).raw(undo).byte(0).payload(1, 0, std::vector<uint8_t>{0});  // the undo data of block 0 again
        return w;
    };
    const std::vector<uint8_t> key{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}, zero_key(8, 0);
    struct Part {
        uint8_t which;
        uint64_t offset, size;
    };
    const std::pair<const char*, std::vector<Part>> part_sets[] = {
        {"parts-inside", {{0, 0, 80}, {0, 13, 5}, {1, 7, block_size - 7}}},
        {"parts-at-the-end", {{0, block_size - 1, 1}, {0, 0, block_size}, {0, block_size, 1}}},
        {"parts-refused", {{0, 0, 0}, {0, 1, block_size}, {0, UINT64_MAX, 2}}},
    };
    for (uint8_t shape : {uint8_t{0x00}, uint8_t{0x01}}) {
        for (const auto& [name, parts] : part_sets) {
            ProgramWriter w = core_records(shape, key);
            w.byte(0).number(0).raw(filled(32, 0x11)).byte(0).byte(static_cast<uint8_t>(parts.size()));
            for (const Part& part : parts) w.byte(part.which).number(part.offset).number(part.size);
            add("block_store", std::string("core-") + name + (shape & 0x01 ? "-mined" : ""), w.bytes);
        }
    }
    ProgramWriter unkeyed = core_records(0x01, zero_key);
    unkeyed.byte(0).number(0).raw(filled(32, 0x11)).byte(0).byte(1).byte(0).number(9).number(11);
    add("block_store", "core-zero-key-mined", unkeyed.bytes);
    // Rollover. The filler leaves 54 bytes (shape 0x21): the next block goes to blk00001.dat, once with the
    // filler's undo data written first (the undo writes kept up: rev00000.dat is cut to its size at the rollover),
    // once without any. The filler leaves 118 bytes (shape 0x23): the filler's undo data, a block that still
    // fits, one that rolls over (the undo writes are behind: rev00000.dat keeps its chunk), then the undo data of the
    // block that fitted, the file's last (rev00000.dat is cut then).
    for (bool undo_first : {true, false}) {
        ProgramWriter w;
        w.raw(key).byte(0x21).byte(undo_first ? 3 : 2);
        if (undo_first) w.byte(2).raw(undo);
        w.byte(0).raw(block).byte(0).raw(block);
        w.byte(0).number(0).raw(filled(32, 0x11)).byte(0).byte(1).byte(2).number(3).number(40);
        add("block_store", std::string("core-rollover") + (undo_first ? "-undo-kept-up" : "-no-undo"), w.bytes);
    }
    ProgramWriter late;
    late.raw(key).byte(0x23).byte(4).byte(2).raw(undo).byte(0).raw(block).byte(0).raw(block);
    late.byte(3).raw(undo).byte(0).payload(1, 0, std::vector<uint8_t>{1});  // block index 1: the one that fitted
    late.byte(0).number(0).raw(filled(32, 0x11)).byte(0).byte(0);
    add("block_store", "core-rollover-undo-behind-then-last", late.bytes);
    // The fault mode (the fault byte f: f % 5 = 1 a full disk, 2 an I/O error, 3 one I/O error, 4 a failing close;
    // after the partial reads the file, by a byte indexing the files written in name order, and the offset): the
    // program's writes again with blk00000.dat's or rev00000.dat's writes failing from byte 20 of the first record,
    // and a full disk in the middle of the filler block's 64 KiB record, which reaches the file in one write from
    // ~BufferedWriter (Core ends the process: docs/findings.md, the retried flush).
    const std::pair<const char*, uint8_t> core_faults[] = {
        {"full-disk", 1}, {"io-error", 2}, {"io-error-once", 3}, {"failing-close", 4}};
    for (const auto& [name, fault] : core_faults) {
        for (uint8_t file : {uint8_t{0}, uint8_t{1}}) {
            ProgramWriter w = core_records(0x00, key);
            w.byte(0).number(0).raw(filled(32, 0x11)).byte(fault).byte(0).byte(file).number(20);
            add("block_store", std::string("core-fault-") + name + (file == 0 ? "-blk" : "-rev"), w.bytes);
        }
    }
    ProgramWriter retried;
    retried.raw(key).byte(0x21).byte(1).byte(0).raw(block);
    retried.byte(0).number(0).raw(filled(32, 0x11)).byte(1).byte(0).byte(0).number(30000);
    add("block_store", "core-fault-full-disk-in-a-64k-record", retried.bytes);
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
    // Whole fields for search from an empty corpus: an input and an output with empty scripts, and witness
    // stacks where a later input has items and the first has none.
    token({"transaction", "block"}, "input_empty_script", concat({filled(36, 0), {0x00}, le(0xffffffff, 4)}));
    token({"transaction", "block"}, "output_empty_script", concat({le(1, 8), {0x00}}));
    token({"transaction", "block"}, "witness_empty_then_one_item", {0x00, 0x01, 0x01, 0x00});
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
        generate_primitive_stream();
        generate_obfuscation();
        generate_bit_stream();
        generate_buffered_file();
        generate_prevector();
        generate_compression();
        generate_model_containers();
        generate_buffered_streams();
        generate_block_store();
        generate_instantiation_only();
        generate_unseekable();
        generate_read_faults();
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
