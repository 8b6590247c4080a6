// The reference codec for Bitcoin's consensus objects, one explicit function per type, over the primitive streams.
#include "differential/reference/reference.h"

#include <array>
#include <utility>

#include "crypto/crypto.h"

namespace serdiff::reference {

namespace {

// Runs a stream read over the whole input and packs the outcome: the reader's first error, or the value and
// the bytes it consumed.
template <typename Value, typename ReadValue>
Decoded<Value> decode_with(std::span<const uint8_t> data, ReadValue read_value)
{
    Reader reader(data);
    Value value = read_value(reader);
    if (reader.failed()) return {.ok = false, .error = reader.error(), .consumed = 0, .value = {}};
    return {.ok = true, .error = {}, .consumed = reader.position(), .value = std::move(value)};
}

// ---- Transaction parts ----

void write_txin(Writer& writer, const model::TxIn& input)
{
    writer.write_uint256(input.prevout.hash);
    writer.write_uint(input.prevout.n, 4);
    writer.write_byte_vector(input.script_sig);
    writer.write_uint(input.sequence, 4);
}

model::TxIn read_txin(Reader& reader)
{
    model::TxIn input;
    input.prevout.hash = reader.read_uint256();
    input.prevout.n = static_cast<uint32_t>(reader.read_uint(4));
    input.script_sig = reader.read_byte_vector();
    input.sequence = static_cast<uint32_t>(reader.read_uint(4));
    return input;
}

void write_txout(Writer& writer, const model::TxOut& output)
{
    writer.write_int(output.value, 8);
    writer.write_byte_vector(output.script_pubkey);
}

model::TxOut read_txout(Reader& reader)
{
    model::TxOut output;
    output.value = reader.read_int(8);
    output.script_pubkey = reader.read_byte_vector();
    return output;
}

// A CompactSize count, then each item as a byte vector; each item read on its own, then pushed.
void write_witness_stack(Writer& writer, const model::WitnessStack& witness)
{
    writer.write_compactsize(witness.size());
    for (const model::WitnessStack::Item item : witness) writer.write_byte_vector(item);
}

model::WitnessStack read_witness_stack(Reader& reader)
{
    model::WitnessStack witness;
    const uint64_t count = reader.read_compactsize(true);
    for (uint64_t i = 0; i < count && !reader.failed(); ++i) witness.push_back(reader.read_byte_vector());
    return witness;
}

model::Transaction read_transaction_allowing_witness(Reader& reader) { return read_transaction(reader, true); }
void write_transaction_with_witness(Writer& writer, const model::Transaction& tx) { write_transaction(writer, tx, true); }

void write_hash(Writer& writer, const model::uint256& hash) { writer.write_uint256(hash); }
model::uint256 read_hash(Reader& reader) { return reader.read_uint256(); }

// ---- Undo parts ----

void write_coin(Writer& writer, const model::Coin& coin)
{
    // u32 arithmetic as Bitcoin Core: a height of 2^31 or more wraps in the code (computed in u64 and cut to 32 bits,
    // so -fsanitize=integer sees no overflow: tools/corpus_gen's undo seeds have such heights).
    const auto code = static_cast<uint32_t>(uint64_t{coin.height} * 2 + (coin.coinbase ? 1u : 0u));
    writer.write_varint(code, model::IntKind::U32);
    if (coin.height > 0) writer.write_byte(0);  // the legacy version VarInt, always written as 0
    writer.write_varint(compress_amount(static_cast<uint64_t>(coin.out.value)), model::IntKind::U64);
    write_compressed_script(writer, coin.out.script_pubkey);
}

model::Coin read_coin(Reader& reader)
{
    model::Coin coin;
    const uint64_t code = reader.read_varint(model::IntKind::U32);
    coin.height = static_cast<uint32_t>(code >> 1);
    coin.coinbase = (code & 1) != 0;
    if (coin.height > 0) reader.read_varint(model::IntKind::U32);  // legacy version, ignored
    coin.out.value = static_cast<int64_t>(decompress_amount(reader.read_varint(model::IntKind::U64)));
    coin.out.script_pubkey = read_compressed_script(reader);
    return coin;
}

void write_tx_undo(Writer& writer, const model::TxUndo& tx_undo)
{
    writer.write_vector<model::Coin>(tx_undo.prevouts, write_coin);
}

model::TxUndo read_tx_undo(Reader& reader)
{
    model::TxUndo tx_undo;
    tx_undo.prevouts = reader.read_vector<model::Coin>(read_coin);
    return tx_undo;
}

// Script opcodes used by the compressed forms.
constexpr uint8_t kOpDup = 0x76;
constexpr uint8_t kOpHash160 = 0xa9;
constexpr uint8_t kOpEqualVerify = 0x88;
constexpr uint8_t kOpEqual = 0x87;
constexpr uint8_t kOpCheckSig = 0xac;
constexpr uint8_t kOpReturn = 0x6a;
constexpr uint64_t kSpecialScriptCount = 6;

}  // namespace

// ---- Amount and script compression ----

// docs/format.md's rule restated as a split into (mantissa, e) with amount = mantissa · 10^e, not in the
// optimized side's (and Core's) loop-and-fold shape, so a slip made in one cannot hide in both. Products wrap
// on u64 as Core's do.
namespace {

// 10^e for e in 0..9.
constexpr uint64_t kPowersOfTen[10] = {1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000,
                                       100'000'000, 1'000'000'000};

}  // namespace

uint32_t special_script_size(uint32_t tag)
{
    if (tag == 0 || tag == 1) return 20;  // key hash, script hash
    if (tag >= 2 && tag <= 5) return 32;  // a public key's x (tags 2, 3 compressed; 4, 5 uncompressed, y's parity)
    return 0;
}

uint64_t compress_amount(uint64_t amount)
{
    if (amount == 0) return 0;
    uint64_t e = 0;  // trailing decimal zeros taken off, at most 9
    while (e < 9 && amount % kPowersOfTen[e + 1] == 0) ++e;
    const uint64_t mantissa = amount / kPowersOfTen[e];
    if (e == 9) return 10 * (mantissa - 1) + 10;
    // mantissa = 10·n + d with d in 1..9 (not 0: e would be larger): folded to 9·n + (d − 1).
    const uint64_t n = mantissa / 10;
    const uint64_t d = mantissa % 10;
    return 10 * (9 * n + (d - 1)) + e + 1;
}

uint64_t decompress_amount(uint64_t compressed)
{
    if (compressed == 0) return 0;
    const uint64_t e = (compressed - 1) % 10;
    const uint64_t folded = (compressed - 1) / 10;
    // e < 9: folded = 9·n + (d − 1), mantissa = 10·n + d; e = 9: mantissa = folded + 1.
    const uint64_t mantissa = e < 9 ? 10 * (folded / 9) + folded % 9 + 1 : folded + 1;
    return mantissa * kPowersOfTen[e];
}

void write_compressed_script(Writer& writer, std::span<const uint8_t> script)
{
    const size_t size = script.size();
    if (size == 25 && script[0] == kOpDup && script[1] == kOpHash160 && script[2] == 20 &&
        script[23] == kOpEqualVerify && script[24] == kOpCheckSig) {
        writer.write_byte(0x00);
        for (size_t index = 3; index < 23; ++index) writer.write_byte(script[index]);
        return;
    }
    if (size == 23 && script[0] == kOpHash160 && script[1] == 20 && script[22] == kOpEqual) {
        writer.write_byte(0x01);
        for (size_t index = 2; index < 22; ++index) writer.write_byte(script[index]);
        return;
    }
    if (size == 35 && script[0] == 33 && script[34] == kOpCheckSig && (script[1] == 0x02 || script[1] == 0x03)) {
        for (size_t index = 1; index < 34; ++index) writer.write_byte(script[index]);
        return;
    }
    if (size == 67 && script[0] == 65 && script[66] == kOpCheckSig && script[1] == 0x04 &&
        crypto::pubkey_is_fully_valid(script.subspan(1, 65))) {
        writer.write_byte(static_cast<uint8_t>(0x04 | (script[65] & 0x01)));  // parity of y
        for (size_t index = 2; index < 34; ++index) writer.write_byte(script[index]);
        return;
    }
    // u32 arithmetic as Bitcoin Core's `unsigned int nSize`.
    const uint32_t tagged_size = static_cast<uint32_t>(size) + static_cast<uint32_t>(kSpecialScriptCount);
    writer.write_varint(tagged_size, model::IntKind::U32);
    writer.write_bytes(script);
}

Bytes read_compressed_script(Reader& reader)
{
    const uint64_t tag = reader.read_varint(model::IntKind::U32);
    if (tag < kSpecialScriptCount) {
        const Bytes payload = reader.read_bytes(tag < 2 ? 20 : 32);
        if (reader.failed()) return {};
        Bytes script;
        if (tag == 0) {
            script = {kOpDup, kOpHash160, 20};
            script.insert(script.end(), payload.begin(), payload.end());
            script.push_back(kOpEqualVerify);
            script.push_back(kOpCheckSig);
        } else if (tag == 1) {
            script = {kOpHash160, 20};
            script.insert(script.end(), payload.begin(), payload.end());
            script.push_back(kOpEqual);
        } else if (tag == 2 || tag == 3) {
            script = {33, static_cast<uint8_t>(tag)};
            script.insert(script.end(), payload.begin(), payload.end());
            script.push_back(kOpCheckSig);
        } else {
            std::array<uint8_t, 33> compressed{};
            compressed[0] = static_cast<uint8_t>(tag - 2);
            for (size_t index = 0; index < 32; ++index) compressed[index + 1] = payload[index];
            std::array<uint8_t, 65> uncompressed{};
            // Bitcoin Core ignores a failed decompression: the script stays empty.
            if (crypto::decompress_pubkey(compressed, uncompressed)) {
                script = {65};
                script.insert(script.end(), uncompressed.begin(), uncompressed.end());
                script.push_back(kOpCheckSig);
            }
        }
        return script;
    }
    const uint64_t size = tag - kSpecialScriptCount;
    if (size > model::kMaxScriptSize) {
        reader.skip(static_cast<size_t>(size));
        return Bytes{kOpReturn};
    }
    return reader.read_bytes(static_cast<size_t>(size));
}

// ---- Stream-level objects ----

void write_transaction(Writer& writer, const model::Transaction& tx, bool allow_witness)
{
    const bool with_witness = allow_witness && tx.has_witness();
    writer.write_uint(tx.version, 4);
    if (with_witness) {
        writer.write_compactsize(0);  // empty input vector as the marker
        writer.write_byte(0x01);      // flag: witness data follows the outputs
    }
    writer.write_vector<model::TxIn>(tx.inputs, write_txin);
    writer.write_vector<model::TxOut>(tx.outputs, write_txout);
    if (with_witness)
        for (const model::TxIn& input : tx.inputs) write_witness_stack(writer, input.witness);
    writer.write_uint(tx.lock_time, 4);
}

model::Transaction read_transaction(Reader& reader, bool allow_witness)
{
    model::Transaction tx;
    tx.version = static_cast<uint32_t>(reader.read_uint(4));
    tx.inputs = reader.read_vector<model::TxIn>(read_txin);
    uint8_t flags = 0;
    if (tx.inputs.empty() && allow_witness) {
        flags = reader.read_byte();
        if (flags != 0) {
            tx.inputs = reader.read_vector<model::TxIn>(read_txin);
            tx.outputs = reader.read_vector<model::TxOut>(read_txout);
        }
    } else {
        tx.outputs = reader.read_vector<model::TxOut>(read_txout);
    }
    if ((flags & 1) != 0 && allow_witness) {
        flags ^= 1;
        for (model::TxIn& input : tx.inputs) input.witness = read_witness_stack(reader);
        if (!tx.has_witness()) reader.fail(model::errors::kSuperfluousWitness);
    }
    if (flags != 0) reader.fail(model::errors::kUnknownOptionalData);
    tx.lock_time = static_cast<uint32_t>(reader.read_uint(4));
    return tx;
}

void write_header(Writer& writer, const model::BlockHeader& header)
{
    writer.write_int(header.version, 4);
    writer.write_uint256(header.prev_block);
    writer.write_uint256(header.merkle_root);
    writer.write_uint(header.time, 4);
    writer.write_uint(header.bits, 4);
    writer.write_uint(header.nonce, 4);
}

model::BlockHeader read_header(Reader& reader)
{
    model::BlockHeader header;
    header.version = static_cast<int32_t>(reader.read_int(4));
    header.prev_block = reader.read_uint256();
    header.merkle_root = reader.read_uint256();
    header.time = static_cast<uint32_t>(reader.read_uint(4));
    header.bits = static_cast<uint32_t>(reader.read_uint(4));
    header.nonce = static_cast<uint32_t>(reader.read_uint(4));
    return header;
}

void write_block(Writer& writer, const model::Block& block)
{
    write_header(writer, block.header);
    writer.write_vector<model::Transaction>(block.transactions, write_transaction_with_witness);
}

model::Block read_block(Reader& reader)
{
    model::Block block;
    block.header = read_header(reader);
    block.transactions = reader.read_vector<model::Transaction>(read_transaction_allowing_witness);
    return block;
}

void write_locator(Writer& writer, const model::BlockLocator& locator)
{
    writer.write_int(locator.version, 4);
    writer.write_vector<model::uint256>(locator.have, write_hash);
}

model::BlockLocator read_locator(Reader& reader)
{
    model::BlockLocator locator;
    locator.version = static_cast<int32_t>(reader.read_int(4));
    locator.have = reader.read_vector<model::uint256>(read_hash);
    return locator;
}

void write_block_undo(Writer& writer, const model::BlockUndo& undo)
{
    writer.write_vector<model::TxUndo>(undo.txundo, write_tx_undo);
}

model::BlockUndo read_block_undo(Reader& reader)
{
    model::BlockUndo undo;
    undo.txundo = reader.read_vector<model::TxUndo>(read_tx_undo);
    return undo;
}

// ---- Facade ----

Bytes encode_compactsize(uint64_t value)
{
    Writer writer;
    writer.out.reserve(9);  // the longest form: one allocation, not one per byte
    writer.write_compactsize(value);
    return std::move(writer.out);
}

Decoded<uint64_t> decode_compactsize(std::span<const uint8_t> data, bool range_check)
{
    return decode_with<uint64_t>(data, [range_check](Reader& reader) { return reader.read_compactsize(range_check); });
}

Bytes encode_varint(uint64_t value, model::IntKind kind)
{
    Writer writer;
    writer.out.reserve(10);  // the longest VarInt of a 64-bit value
    writer.write_varint(value, kind);
    return std::move(writer.out);
}

Decoded<uint64_t> decode_varint(std::span<const uint8_t> data, model::IntKind kind)
{
    return decode_with<uint64_t>(data, [kind](Reader& reader) { return reader.read_varint(kind); });
}

Bytes encode_transaction(const model::Transaction& tx, bool allow_witness)
{
    Writer writer;
    write_transaction(writer, tx, allow_witness);
    return std::move(writer.out);
}

Decoded<model::Transaction> decode_transaction(std::span<const uint8_t> data, bool allow_witness)
{
    return decode_with<model::Transaction>(
        data, [allow_witness](Reader& reader) { return read_transaction(reader, allow_witness); });
}

// Every SERDIFF_OBJECT_TYPES line: its read_<stem>/write_<stem> above, behind the facade.
#define SERDIFF_DEFINE_REFERENCE_CODEC(name, Type, stem)                      \
    Bytes encode_##stem(const model::Type& value)                             \
    {                                                                         \
        Writer writer;                                                        \
        write_##stem(writer, value);                                          \
        return std::move(writer.out);                                         \
    }                                                                         \
    Decoded<model::Type> decode_##stem(std::span<const uint8_t> data)         \
    {                                                                         \
        return decode_with<model::Type>(data, read_##stem);                   \
    }
SERDIFF_OBJECT_TYPES(SERDIFF_DEFINE_REFERENCE_CODEC)
#undef SERDIFF_DEFINE_REFERENCE_CODEC

const model::CodecTable& codec_table()
{
#define SERDIFF_REFERENCE_TABLE_ENTRY(name, Type, stem) .name = {decode_##stem, encode_##stem, nullptr},
    static const model::CodecTable table{
        .side = "reference",
        .encode_compact_size = encode_compactsize,
        .decode_compact_size = decode_compactsize,
        .encode_varint = encode_varint,
        .decode_varint = decode_varint,
        .transaction = {decode_transaction, encode_transaction, nullptr},
        SERDIFF_OBJECT_TYPES(SERDIFF_REFERENCE_TABLE_ENTRY)};
#undef SERDIFF_REFERENCE_TABLE_ENTRY
    return table;
}

}  // namespace serdiff::reference
