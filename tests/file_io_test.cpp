// File layer tests: batched vs byte-wise XOR, optimized vs reference streams on random programs, record
// framing errors, the four mainnet blocks in block files, and the `serdiff blockfile` commands.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "crypto/crypto.h"
#include "differential/reference/file_io.h"
#include "differential/reference/reference.h"
#include "model/model.h"
#include "serialize/block_store.h"
#include "serialize/codec.h"
#include "serialize/file.h"
#include "serialize/obfuscation.h"
#include "tests/test_util.h"

namespace serdiff {
namespace {

namespace fs = std::filesystem;
using model::Bytes;
using test::TempDir;  // a fresh directory per test, removed afterwards

using Key = std::array<std::byte, 8>;
using Magic = std::array<std::byte, 4>;
constexpr Magic kMainnet{std::byte{0xf9}, std::byte{0xbe}, std::byte{0xb4}, std::byte{0xd9}};

Key random_key(std::mt19937_64& rng)
{
    Key key;
    for (auto& value : key) value = static_cast<std::byte>(rng());
    return key;
}

std::string key_hex(const Key& key) { return model::to_hex(reinterpret_cast<const uint8_t*>(key.data()), 8); }

Bytes read_bytes(const fs::path& path)
{
    std::ifstream file(path, std::ios::binary);
    return Bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& path, const Bytes& bytes)
{
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::FILE* open_at(const fs::path& path, const char* mode, uint64_t start)
{
    std::FILE* file = std::fopen(path.c_str(), mode);
    if (!file) throw std::runtime_error("cannot open " + path.string());
    if (fseeko(file, static_cast<off_t>(start), SEEK_SET) != 0) throw std::runtime_error("seek failed");
    return file;
}

Bytes random_bytes(std::mt19937_64& rng, size_t size)
{
    Bytes out(size);
    for (auto& value : out) value = static_cast<uint8_t>(rng());
    return out;
}

// A small valid block: a coinbase-like transaction and a witness transaction with random contents.
model::Block make_block(std::mt19937_64& rng)
{
    model::Block block;
    block.header.version = static_cast<int32_t>(rng());
    block.header.time = static_cast<uint32_t>(rng());
    block.header.nonce = static_cast<uint32_t>(rng());
    for (auto& value : block.header.prev_block.bytes) value = static_cast<uint8_t>(rng());
    const size_t transactions = 1 + rng() % 3;
    for (size_t t = 0; t < transactions; ++t) {
        model::Transaction tx;
        tx.version = 2;
        model::TxIn input;
        input.prevout.n = static_cast<uint32_t>(rng());
        input.script_sig = random_bytes(rng, rng() % 40);
        if (t % 2 == 1) input.witness = {random_bytes(rng, 1 + rng() % 70), random_bytes(rng, 33)};
        tx.inputs.push_back(input);
        tx.outputs.push_back({static_cast<int64_t>(rng() % 2'100'000'000'000'000), random_bytes(rng, rng() % 30)});
        block.transactions.push_back(tx);
    }
    return block;
}

model::BlockUndo make_undo(std::mt19937_64& rng)
{
    model::BlockUndo undo;
    undo.txundo.resize(1 + rng() % 2);
    for (auto& tx : undo.txundo) {
        model::Coin coin;
        coin.height = static_cast<uint32_t>(1 + rng() % 800'000);
        coin.out.value = 5'000'000'000;
        coin.out.script_pubkey = random_bytes(rng, 7 + rng() % 30);  // never one of the compressed forms
        coin.out.script_pubkey[0] = 0x6a;
        tx.prevouts.push_back(coin);
    }
    return undo;
}

// ---------------------------------------------------------------- obfuscation

TEST(Obfuscation, BatchedEqualsByteWiseForEveryOffsetLengthAndAlignment)
{
    std::mt19937_64 rng{1};
    size_t cases = 0;
    for (int round = 0; round < 4; ++round) {
        const Key key = round == 0 ? Key{} : random_key(rng);
        const Bytes source = random_bytes(rng, 120);
        for (size_t alignment = 0; alignment < 8; ++alignment)
            for (size_t length = 0; length + alignment <= 100; ++length)
                for (uint64_t offset : {0ull, 1ull, 5ull, 7ull, 8ull, 13ull, 0xfffffffffffffff9ull}) {
                    std::vector<std::byte> batched(120), bytewise(120);
                    std::memcpy(batched.data(), source.data(), 120);
                    std::memcpy(bytewise.data(), source.data(), 120);
                    optimized::obfuscate(std::span{batched}.subspan(alignment, length), offset, key);
                    reference::obfuscate(std::span{bytewise}.subspan(alignment, length), offset, key);
                    ASSERT_EQ(batched, bytewise) << "key " << key_hex(key) << " offset " << offset << " length "
                                                 << length << " alignment " << alignment;
                    ++cases;
                }
    }
    EXPECT_EQ(cases, 21'840u);
}

TEST(Obfuscation, ZeroKeyLeavesBytesAndXorIsItsOwnInverse)
{
    std::mt19937_64 rng{2};
    const Bytes source = random_bytes(rng, 64);
    std::vector<std::byte> data(64);
    std::memcpy(data.data(), source.data(), 64);
    optimized::obfuscate(data, 3, Key{});
    EXPECT_EQ(0, std::memcmp(data.data(), source.data(), 64));
    const Key key = random_key(rng);
    optimized::obfuscate(data, 11, key);
    EXPECT_NE(0, std::memcmp(data.data(), source.data(), 64));
    optimized::obfuscate(data, 11, key);
    EXPECT_EQ(0, std::memcmp(data.data(), source.data(), 64));
}

// ---------------------------------------------------------------- stream programs

// One random write program, run the same way against either side's writer.
struct WriteOp {
    enum Kind { Byte, Span, Flush } kind;
    Bytes bytes;
};

std::vector<WriteOp> random_write_program(std::mt19937_64& rng, size_t buffer_size)
{
    std::vector<WriteOp> program;
    const size_t steps = 1 + rng() % 30;
    for (size_t i = 0; i < steps; ++i) {
        switch (rng() % 4) {
        case 0: program.push_back({WriteOp::Byte, random_bytes(rng, 1)}); break;
        case 1: program.push_back({WriteOp::Flush, {}}); break;
        default: {
            const size_t sizes[] = {0, 1, 7, 8, 9, buffer_size - 1, buffer_size, buffer_size + 1, 2 * buffer_size + 3,
                                    static_cast<size_t>(rng() % (3 * buffer_size + 20))};
            program.push_back({WriteOp::Span, random_bytes(rng, sizes[rng() % std::size(sizes)])});
        }
        }
    }
    return program;
}

template <typename Writer>
void run_write_program(Writer& writer, const std::vector<WriteOp>& program)
{
    for (const WriteOp& op : program) {
        const uint64_t before = writer.position();
        switch (op.kind) {
        case WriteOp::Byte: writer.write_byte(std::byte{op.bytes[0]}); break;
        case WriteOp::Span: writer.write(std::as_bytes(std::span{op.bytes})); break;
        case WriteOp::Flush: writer.flush(); break;
        }
        ASSERT_EQ(writer.position(), before + op.bytes.size());
    }
    writer.close();
}

TEST(FileStreams, WritersProduceIdenticalFilesOnRandomPrograms)
{
    const TempDir dir("serdiff-file-io");
    std::mt19937_64 rng{3};
    for (int round = 0; round < 300; ++round) {
        const size_t buffer_size = std::vector<size_t>{1, 2, 7, 8, 16, 64}[rng() % 6];
        const Key key = random_key(rng);
        const uint64_t start = rng() % 20;
        const auto program = random_write_program(rng, buffer_size);
        SCOPED_TRACE("round " + std::to_string(round) + " key " + key_hex(key) + " start " + std::to_string(start) +
                     " buffer " + std::to_string(buffer_size));
        {
            optimized::AutoFile file{open_at(dir / "buffered", "wb", start), key};
            optimized::BufferedWriter writer{file, buffer_size};
            run_write_program(writer, program);
        }
        {
            optimized::AutoFile file{open_at(dir / "direct", "wb", start), key};
            run_write_program(file, program);
        }
        {
            reference::FileWriter writer{open_at(dir / "reference", "wb", start), key};
            run_write_program(writer, program);
        }
        const Bytes expected = read_bytes(dir / "reference");
        ASSERT_EQ(read_bytes(dir / "buffered"), expected);
        ASSERT_EQ(read_bytes(dir / "direct"), expected);
    }
}

// What a read program saw: every value and position, then the failure that ended it (if any).
template <typename Reader>
std::vector<std::string> run_read_program(Reader& reader, std::mt19937_64 rng, size_t buffer_size, size_t steps)
{
    std::vector<std::string> trace;
    try {
        for (size_t i = 0; i < steps; ++i) {
            const size_t sizes[] = {0, 1, 3, 8, buffer_size - 1, buffer_size, buffer_size + 1, 2 * buffer_size + 5};
            const size_t size = sizes[rng() % std::size(sizes)];
            switch (rng() % 4) {
            case 0: trace.push_back("byte " + std::to_string(std::to_integer<int>(reader.read_byte()))); break;
            case 1: {
                std::vector<std::byte> out(size);
                reader.read(out);
                trace.push_back("read " + model::to_hex(reinterpret_cast<const uint8_t*>(out.data()), out.size()));
                break;
            }
            case 2: reader.ignore(size); trace.push_back("ignore " + std::to_string(size)); break;
            default: trace.push_back("position " + std::to_string(reader.position()));
            }
        }
    } catch (const std::exception& error) {
        trace.push_back(std::string("error ") + error.what());
    }
    return trace;
}

TEST(FileStreams, ReadersReturnIdenticalValuesAndFailAtTheSameOperation)
{
    const TempDir dir("serdiff-file-io");
    std::mt19937_64 rng{4};
    size_t failures = 0;
    for (int round = 0; round < 300; ++round) {
        const size_t buffer_size = std::vector<size_t>{1, 2, 7, 8, 16, 64}[rng() % 6];
        const Key key = random_key(rng);
        const Bytes content = random_bytes(rng, rng() % 300);
        const uint64_t start = content.empty() ? 0 : rng() % content.size();
        write_bytes(dir / "data", content);
        const uint64_t program_seed = rng();
        SCOPED_TRACE("round " + std::to_string(round));

        reference::FileReader reference_reader{open_at(dir / "data", "rb", start), key};
        const auto expected = run_read_program(reference_reader, std::mt19937_64{program_seed}, buffer_size, 25);
        optimized::AutoFile buffered_file{open_at(dir / "data", "rb", start), key};
        optimized::BufferedReader buffered{buffered_file, buffer_size};
        EXPECT_EQ(run_read_program(buffered, std::mt19937_64{program_seed}, buffer_size, 25), expected);
        optimized::AutoFile direct{open_at(dir / "data", "rb", start), key};
        EXPECT_EQ(run_read_program(direct, std::mt19937_64{program_seed}, buffer_size, 25), expected);
        if (expected.back().starts_with("error")) {
            EXPECT_EQ(expected.back(), "error end of data");
            ++failures;
        }
    }
    EXPECT_GT(failures, 50u);  // the programs do run off the end of the file
}

TEST(FileStreams, BufferedReaderReadsPastItsBufferAtTheRightKeyOffset)
{
    const TempDir dir("serdiff-file-io");
    std::mt19937_64 rng{5};
    const Key key = random_key(rng);
    const Bytes plain = random_bytes(rng, 1000);
    {
        reference::FileWriter writer{open_at(dir / "data", "wb", 0), key};
        writer.write(std::as_bytes(std::span{plain}));
        writer.close();
    }
    optimized::AutoFile file{open_at(dir / "data", "rb", 0), key};
    optimized::BufferedReader reader{file, 16};
    std::vector<std::byte> out(1000);
    reader.read(std::span{out}.first(3));                 // fills the buffer
    reader.read(std::span{out}.subspan(3, 500));          // drains, then reads directly (row 9)
    out[503] = reader.read_byte();                        // refills after the direct read
    reader.read(std::span{out}.subspan(504, 496));
    EXPECT_EQ(0, std::memcmp(out.data(), plain.data(), plain.size()));
    EXPECT_EQ(reader.position(), 1000u);
    EXPECT_THROW(reader.read_byte(), optimized::SerializeError);
}

// ---------------------------------------------------------------- records

// A record file built by hand: [magic][size][payload] obfuscated at its positions.
Bytes frame(const Magic& magic, uint32_t size, const Bytes& payload)
{
    Bytes out(magic.size());
    std::memcpy(out.data(), magic.data(), 4);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(size >> (8 * i)));
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

Bytes concat_records(std::initializer_list<Bytes> records)
{
    Bytes out;
    for (const Bytes& record : records) out.insert(out.end(), record.begin(), record.end());
    return out;
}

Bytes obfuscated(Bytes plain, const Key& key, uint64_t offset = 0)
{
    reference::obfuscate(std::as_writable_bytes(std::span{plain}), offset, key);
    return plain;
}

struct RecordView {
    model::RecordStatus status;
    std::string error;
    uint64_t offset, size, next_offset;
    std::string hash;
    bool operator==(const RecordView&) const = default;
};

std::ostream& operator<<(std::ostream& out, const RecordView& view)
{
    return out << "{status " << model::to_string(view.status) << ", '" << view.error << "', offset " << view.offset << ", size "
               << view.size << ", next " << view.next_offset << ", hash " << view.hash << "}";
}

template <typename Record>
RecordView view(const Record& record)
{
    return {record.status, record.error, record.offset, record.size, record.next_offset,
            model::hash_to_hex(record.hash)};
}

std::vector<RecordView> scan_optimized(const fs::path& path, const Key& key, const Magic& magic = kMainnet)
{
    optimized::AutoFile file{open_at(path, "rb", 0), key};
    std::vector<RecordView> out;
    for (const auto& record : optimized::scan_block_file(file, magic)) out.push_back(view(record));
    return out;
}

std::vector<RecordView> scan_reference(const fs::path& path, const Key& key, const Magic& magic = kMainnet)
{
    reference::FileReader file{open_at(path, "rb", 0), key};
    std::vector<RecordView> out;
    for (const auto& record : reference::scan_block_file(file, magic)) out.push_back(view(record));
    return out;
}

// Scans `bytes` as a block file with both sides; they must agree; returns the optimized result.
std::vector<RecordView> scan_both(const TempDir& dir, const Bytes& bytes, const Key& key)
{
    write_bytes(dir / "records.dat", bytes);
    const auto optimized_records = scan_optimized(dir / "records.dat", key);
    EXPECT_EQ(optimized_records, scan_reference(dir / "records.dat", key));
    return optimized_records;
}

// Both sides return model::FileRecord (model/file_record.h).
constexpr auto kOk = model::RecordStatus::ok;
constexpr auto kEnd = model::RecordStatus::end_of_file;
constexpr auto kZero = model::RecordStatus::zero_padding;
constexpr auto kCorrupt = model::RecordStatus::corrupt;

class Records : public ::testing::Test {
protected:
    TempDir dir{"serdiff-file-io"};
    std::mt19937_64 rng{6};
    Key key = random_key(rng);
    Bytes block = reference::encode_block(make_block(rng));
    std::string block_hash = model::hash_to_hex(crypto::sha256d(std::span{block}.first(80)));

    // The error of the first corrupt record when both sides scan `plain_file` obfuscated.
    std::string error_of(const Bytes& plain_file)
    {
        for (const auto& record : scan_both(dir, obfuscated(plain_file, key), key))
            if (record.status == kCorrupt) return record.error;
        return "no corrupt record";
    }
};

TEST_F(Records, GoodRecordsScanWithHashesThenEndOfFile)
{
    const Bytes file = obfuscated(concat_records({frame(kMainnet, block.size(), block), frame(kMainnet, block.size(), block)}), key);
    const auto records = scan_both(dir, file, key);
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[0], (RecordView{kOk, "", 0, block.size(), 8 + block.size(), block_hash}));
    EXPECT_EQ(records[1].offset, 8 + block.size());
    EXPECT_EQ(records[1].hash, block_hash);
    EXPECT_EQ(records[2].status, kEnd);
}

TEST_F(Records, EachFramingErrorHasItsMessage)
{
    Magic testnet{std::byte{0x0b}, std::byte{0x11}, std::byte{0x09}, std::byte{0x07}};
    EXPECT_EQ(error_of(frame(testnet, block.size(), block)), "wrong network magic: expected f9beb4d9, found 0b110907");
    EXPECT_EQ(error_of(frame(kMainnet, 0, block)), "record size is zero");
    EXPECT_EQ(error_of(frame(kMainnet, 4'000'001, block)), "record size 4000001 above the maximum 4000000");
    EXPECT_EQ(error_of(frame(kMainnet, 0xffffffff, {})), "record size 4294967295 above the maximum 4000000");
    EXPECT_EQ(error_of(frame(kMainnet, block.size() + 1, block)),
              "record size " + std::to_string(block.size() + 1) + " exceeds the " + std::to_string(block.size()) +
                  " bytes left in the file");
    EXPECT_EQ(error_of(Bytes{0xf9, 0xbe, 0xb4, 0xd9, 0x01}), "record header truncated: 5 of 8 bytes");
    Bytes garbage = block;
    garbage.insert(garbage.end(), {1, 2, 3});
    EXPECT_EQ(error_of(frame(kMainnet, garbage.size(), garbage)), "3 trailing bytes inside the record");
    const Bytes short_block(block.begin(), block.begin() + 90);
    EXPECT_EQ(error_of(frame(kMainnet, short_block.size(), short_block)), "block does not decode: end of data");
}

TEST_F(Records, CorruptBlockWithIntactFramingIsSkippedAndTheScanGoesOn)
{
    Bytes garbage = block;
    garbage.push_back(0);
    const auto records = scan_both(
        dir, obfuscated(concat_records({frame(kMainnet, garbage.size(), garbage), frame(kMainnet, block.size(), block)}), key),
        key);
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[0].status, kCorrupt);
    EXPECT_EQ(records[1].status, kOk);
    EXPECT_EQ(records[1].offset, 8 + garbage.size());
    EXPECT_EQ(records[2].status, kEnd);
}

TEST_F(Records, StoredZerosEndTheFileQuietly)
{
    Bytes file = obfuscated(frame(kMainnet, block.size(), block), key);
    file.resize(file.size() + 4096, 0);  // zeros as bitcoind's preallocation leaves them, not obfuscated
    const auto records = scan_both(dir, file, key);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[1], (RecordView{kZero, "", 8 + block.size(), 0, 0, model::hash_to_hex({})}));
    Bytes three_zeros = obfuscated(frame(kMainnet, block.size(), block), key);
    three_zeros.resize(three_zeros.size() + 3, 0);
    EXPECT_EQ(scan_both(dir, three_zeros, key).back().status, kZero);
}

TEST_F(Records, EveryTruncationAndEveryFlippedByteGivesTheSameAnswerOnBothSides)
{
    const Bytes plain = concat_records({frame(kMainnet, block.size(), block), frame(kMainnet, block.size(), block)});
    const Bytes file = obfuscated(plain, key);
    const size_t record_size = 8 + block.size();
    const auto has_corrupt = [](const std::vector<RecordView>& records) {
        return std::any_of(records.begin(), records.end(), [](const RecordView& r) { return r.status == kCorrupt; });
    };
    for (size_t length = 0; length <= file.size(); ++length) {
        const auto records = scan_both(dir, Bytes(file.begin(), file.begin() + length), key);
        const bool at_boundary = length % record_size == 0;
        EXPECT_EQ(has_corrupt(records), !at_boundary) << "truncated to " << length;
    }
    // One flip per position (bit 0 or bit 7): a flipped magic or size byte always breaks the record;
    // a flip in a script may still decode, but both sides must say the same.
    for (size_t position = 0; position < file.size(); ++position) {
        Bytes damaged = file;
        damaged[position] ^= position % 2 ? 0x80 : 0x01;
        const auto records = scan_both(dir, damaged, key);
        if (position % record_size < 8) {
            EXPECT_TRUE(has_corrupt(records)) << "flip at " << position;
        }
    }
}

TEST_F(Records, UndoRecordsRoundTripAndCheckTheirChecksum)
{
    const Bytes undo = reference::encode_block_undo(make_undo(rng));
    model::uint256 parent_hash;
    parent_hash.bytes[0] = 0x42;
    {
        optimized::AutoFile file{open_at(dir / "rev-optimized.dat", "wb", 0), key};
        optimized::BufferedWriter writer{file, 5};
        EXPECT_EQ(optimized::write_undo_record(writer, kMainnet, undo, parent_hash), 0u);
        writer.close();
    }
    {
        reference::FileWriter writer{open_at(dir / "rev-reference.dat", "wb", 0), key};
        EXPECT_EQ(reference::write_undo_record(writer, kMainnet, undo, parent_hash), 0u);
        writer.close();
    }
    const Bytes written = read_bytes(dir / "rev-optimized.dat");
    ASSERT_EQ(written, read_bytes(dir / "rev-reference.dat"));
    ASSERT_EQ(written.size(), 8 + undo.size() + 32);

    const auto read_both = [&](const model::uint256& hash) {
        optimized::AutoFile optimized_file{open_at(dir / "rev-optimized.dat", "rb", 0), key};
        reference::FileReader reference_file{open_at(dir / "rev-optimized.dat", "rb", 0), key};
        const auto optimized_record = optimized::read_undo_record(optimized_file, 0, kMainnet, hash);
        const auto reference_record = reference::read_undo_record(reference_file, 0, kMainnet, hash);
        EXPECT_EQ(view(optimized_record), view(reference_record));
        EXPECT_EQ(optimized_record.payload, reference_record.payload);
        return optimized_record;
    };
    const auto good = read_both(parent_hash);
    EXPECT_EQ(good.status, optimized::RecordStatus::ok);
    EXPECT_EQ(good.payload, undo);
    EXPECT_EQ(good.hash, crypto::sha256d(parent_hash.bytes, undo));
    EXPECT_EQ(read_both(model::uint256{}).error, "undo checksum mismatch");

    Bytes flipped = written;
    flipped.back() ^= 1;
    write_bytes(dir / "rev-optimized.dat", flipped);
    EXPECT_EQ(read_both(parent_hash).error, "undo checksum mismatch");
    write_bytes(dir / "rev-optimized.dat", Bytes(written.begin(), written.end() - 1));
    EXPECT_EQ(read_both(parent_hash).error, "record size " + std::to_string(undo.size()) +
                                                " plus the 32-byte checksum exceeds the " +
                                                std::to_string(undo.size() + 31) + " bytes left in the file");
    write_bytes(dir / "rev-optimized.dat", obfuscated(frame(kMainnet, 0x02000001, {}), key));
    EXPECT_EQ(read_both(parent_hash).error, "record size 33554433 above the maximum 33554432");
}

TEST(RecordWriters, BlockObjectsSerializedIntoTinyBuffersMatchTheReferenceFile)
{
    const TempDir dir("serdiff-file-io");
    std::mt19937_64 rng{9};
    for (size_t buffer_size : {1, 3, 7, 64}) {
        const Key key = random_key(rng);
        std::vector<model::Block> blocks{make_block(rng), make_block(rng), make_block(rng)};
        {
            optimized::AutoFile file{open_at(dir / "objects.dat", "wb", 0), key};
            optimized::BufferedWriter writer{file, buffer_size};
            for (const auto& block : blocks) optimized::write_block_record(writer, kMainnet, block);
            writer.close();
        }
        {
            reference::FileWriter writer{open_at(dir / "reference.dat", "wb", 0), key};
            for (const auto& block : blocks) reference::write_block_record(writer, kMainnet, reference::encode_block(block));
            writer.close();
        }
        EXPECT_EQ(read_bytes(dir / "objects.dat"), read_bytes(dir / "reference.dat")) << "buffer " << buffer_size;
    }
}

TEST(RecordWriters, RejectEmptyAndOversizedPayloadsBeforeWritingAnything)
{
    const TempDir dir("serdiff-file-io");
    optimized::AutoFile file{open_at(dir / "x", "wb", 0), Key{}};
    optimized::BufferedWriter writer{file, 16};
    const Bytes too_big(model::kMaxBlockSerializedSize + 1);
    EXPECT_THROW(optimized::write_block_record(writer, kMainnet, Bytes{}), std::length_error);
    EXPECT_THROW(optimized::write_block_record(writer, kMainnet, too_big), std::length_error);
    EXPECT_EQ(writer.position(), 0u);
    reference::FileWriter reference_writer{open_at(dir / "y", "wb", 0), Key{}};
    EXPECT_THROW(reference::write_block_record(reference_writer, kMainnet, too_big), std::length_error);
    EXPECT_EQ(reference_writer.position(), 0u);
}

// ---------------------------------------------------------------- real data and the CLI

std::vector<fs::path> mainnet_blocks()
{
    std::vector<fs::path> paths;
    const fs::path dir = fs::path(SERDIFF_DATA_DIR) / "blocks";
    if (!fs::is_directory(dir)) return paths;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".raw") paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    return paths;
}

// mainnet-HEIGHT-HASH.raw carries the block hash in display order.
std::string hash_from_name(const fs::path& path)
{
    const std::string stem = path.stem().string();
    return stem.substr(stem.rfind('-') + 1);
}

TEST(MainnetBlocks, OptimizedAndReferenceWritersProduceIdenticalFilesThatScanBackWithTheirHashes)
{
    const auto paths = mainnet_blocks();
    if (paths.size() != 4) GTEST_SKIP() << "the four mainnet blocks are not in " << SERDIFF_DATA_DIR << "/blocks";
    const TempDir dir("serdiff-file-io");
    std::random_device seed_source;
    const uint64_t seed = (uint64_t{seed_source()} << 32) | seed_source();
    std::mt19937_64 rng{seed};
    const Key key = random_key(rng);
    SCOPED_TRACE("key " + key_hex(key) + " (seed " + std::to_string(seed) + ")");
    std::vector<Bytes> blocks;
    for (const auto& path : paths) blocks.push_back(read_bytes(path));

    std::vector<uint64_t> optimized_offsets, reference_offsets;
    {
        optimized::AutoFile file{open_at(dir / "optimized.dat", "wb", 0), key};
        optimized::BufferedWriter writer{file};
        for (const Bytes& block : blocks) optimized_offsets.push_back(optimized::write_block_record(writer, kMainnet, block));
        writer.close();
    }
    {
        reference::FileWriter writer{open_at(dir / "reference.dat", "wb", 0), key};
        for (const Bytes& block : blocks) reference_offsets.push_back(reference::write_block_record(writer, kMainnet, block));
        writer.close();
    }
    {
        // Serialized straight into the BufferedWriter by the optimized templates, from decoded blocks.
        optimized::AutoFile file{open_at(dir / "objects.dat", "wb", 0), key};
        optimized::BufferedWriter writer{file};
        for (const Bytes& block : blocks) {
            const auto decoded = optimized::decode_block(block);
            ASSERT_TRUE(decoded.ok) << decoded.error;
            optimized::write_block_record(writer, kMainnet, decoded.value);
        }
        writer.close();
    }
    EXPECT_EQ(optimized_offsets, reference_offsets);
    const Bytes reference_file = read_bytes(dir / "reference.dat");
    ASSERT_TRUE(read_bytes(dir / "optimized.dat") == reference_file);
    ASSERT_TRUE(read_bytes(dir / "objects.dat") == reference_file);

    // Only the optimized side scans 6 MB here: the reference reader's agreement is tested above.
    const auto records = scan_optimized(dir / "optimized.dat", key);
    ASSERT_EQ(records.size(), 5u);
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(records[i].status, kOk) << records[i].error;
        EXPECT_EQ(records[i].offset, optimized_offsets[i]);
        EXPECT_EQ(records[i].size, blocks[i].size());
        EXPECT_EQ(records[i].hash, hash_from_name(paths[i]));
    }
    EXPECT_EQ(records[4].status, kEnd);

    optimized::AutoFile file{open_at(dir / "optimized.dat", "rb", 0), key};
    for (size_t i = 0; i < 4; ++i)
        EXPECT_TRUE(optimized::read_block_record(file, optimized_offsets[i], kMainnet).payload == blocks[i]);
}

std::string run_cli(const std::string& arguments, const fs::path& output, int& exit_status)
{
    const std::string command = std::string(SERDIFF_CLI) + " " + arguments + " >" + output.string() + " 2>" +
                                output.string() + ".err";
    const int status = std::system(command.c_str());
    exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const Bytes text = read_bytes(output);
    return std::string(text.begin(), text.end());
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    return lines;
}

TEST(BlockfileCommand, WriteThenScanListsOffsetsSizesAndHashes)
{
    const TempDir dir("serdiff-file-io");
    std::mt19937_64 rng{7};
    std::vector<Bytes> blocks;
    std::string block_args;
    for (int i = 0; i < 3; ++i) {
        blocks.push_back(reference::encode_block(make_block(rng)));
        write_bytes(dir / ("b" + std::to_string(i) + ".raw"), blocks.back());
        block_args += " " + (dir / ("b" + std::to_string(i) + ".raw")).string();
    }
    int status = 0;
    const std::string written = run_cli("blockfile write --key 0102030405060708 --magic f9beb4d9 " +
                                            (dir / "out.dat").string() + block_args,
                                        dir / "write.txt", status);
    ASSERT_EQ(status, 0) << written;
    const auto write_lines = lines_of(written);
    ASSERT_EQ(write_lines.size(), 3u);
    const std::string scanned =
        run_cli("blockfile scan --key 0102030405060708 " + (dir / "out.dat").string(), dir / "scan.txt", status);
    ASSERT_EQ(status, 0) << scanned;
    const auto scan_lines = lines_of(scanned);
    ASSERT_EQ(scan_lines.size(), 3u);
    uint64_t offset = 0;
    for (size_t i = 0; i < 3; ++i) {
        const std::string hash = model::hash_to_hex(crypto::sha256d(std::span{blocks[i]}.first(80)));
        EXPECT_EQ(scan_lines[i], std::to_string(offset) + " " + std::to_string(blocks[i].size()) + " " + hash);
        EXPECT_TRUE(write_lines[i].starts_with(std::to_string(offset) + " ")) << write_lines[i];
        offset += 8 + blocks[i].size();
    }

    // The wrong key breaks the framing of the first record: a clear error, exit status 1.
    const std::string wrong = run_cli("blockfile scan " + (dir / "out.dat").string(), dir / "wrong.txt", status);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(lines_of(wrong).at(0), "0 error: wrong network magic: expected f9beb4d9, found f8bcb7dd");
}

TEST(BlockfileCommand, ImportTurnsABitcoindBlocksDirectoryIntoRawFiles)
{
    const TempDir dir("serdiff-file-io");
    fs::create_directories(dir / "blocks");
    std::mt19937_64 rng{8};
    const Key key = random_key(rng);
    write_bytes(dir / "blocks" / "xor.dat", Bytes(reinterpret_cast<const uint8_t*>(key.data()),
                                                  reinterpret_cast<const uint8_t*>(key.data()) + 8));
    std::vector<Bytes> blocks;
    for (int file_number = 0; file_number < 2; ++file_number) {
        char name[32];
        std::snprintf(name, sizeof name, "blk%05d.dat", file_number);
        optimized::AutoFile file{open_at(dir / "blocks" / name, "wb", 0), key};
        optimized::BufferedWriter writer{file};
        for (int i = 0; i < 2; ++i) {
            blocks.push_back(reference::encode_block(make_block(rng)));
            optimized::write_block_record(writer, kMainnet, blocks.back());
        }
        writer.close();
        std::ofstream(dir / "blocks" / name, std::ios::binary | std::ios::app) << std::string(1000, '\0');
    }
    write_bytes(dir / "blocks" / "rev00000.dat", Bytes(100, 7));  // undo files are not blocks: ignored
    int status = 0;
    run_cli("blockfile import --out " + (dir / "imported").string() + " " + (dir / "blocks").string(),
            dir / "import.txt", status);
    const Bytes log = read_bytes(dir / "import.txt.err");
    ASSERT_EQ(status, 0) << std::string(log.begin(), log.end());
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir / "imported")) {
        (void)entry;
        ++files;
    }
    EXPECT_EQ(files, blocks.size());
    for (const Bytes& block : blocks) {
        const std::string hash = model::hash_to_hex(crypto::sha256d(std::span{block}.first(80)));
        EXPECT_EQ(read_bytes(dir / "imported" / (hash + ".raw")), block);
    }
    EXPECT_NE(std::string(log.begin(), log.end()).find("imported 4 blocks"), std::string::npos);
}

}  // namespace
}  // namespace serdiff
