// Edge tables: every boundary of the format, checked on both implementations against bytes, values and
// errors written here from SEMANTICS.md and docs/format.md (never computed by either implementation).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "differential/reference/primitives.h"
#include "differential/reference/reference.h"
#include "serialize/serialize.h"
#include "serialize/streams.h"
#include "tests/test_util.h"

namespace serdiff::test {
namespace {

namespace errors = model::errors;
using model::IntKind;

// ---------------------------------------------------------------------------------------------------
// CompactSize

struct CompactSizeCase {
    uint64_t value;
    const char* encoding;
};

// Both sides of every prefix boundary, MAX_SIZE and the largest value.
const CompactSizeCase kCompactSizeBoundaries[] = {
    {0, "00"},
    {0xfc, "fc"},
    {0xfd, "fdfd00"},
    {0xffff, "fdffff"},
    {0x10000, "fe00000100"},
    {model::kMaxSize, "fe00000002"},
    {model::kMaxSize + 1, "fe01000002"},
    {0xffffffff, "feffffffff"},
    {0x100000000, "ff0000000001000000"},
    {std::numeric_limits<uint64_t>::max(), "ffffffffffffffffff"},
};

TEST(CompactSize, EncodesEveryBoundary)
{
    for (const Implementation* impl : kImplementations) {
        for (const CompactSizeCase& c : kCompactSizeBoundaries) {
            EXPECT_EQ(to_hex(impl->encode_compact_size(c.value)), c.encoding) << impl->side << " value " << c.value;
        }
    }
}

TEST(CompactSize, DecodesEveryBoundaryWithoutRangeCheck)
{
    for (const Implementation* impl : kImplementations) {
        for (const CompactSizeCase& c : kCompactSizeBoundaries) {
            const Bytes input = hex(c.encoding);
            EXPECT_TRUE(decodes_to(impl->decode_compact_size(input, false), c.value, input.size()))
                << impl->side << " input " << c.encoding;
        }
    }
}

TEST(CompactSize, RangeCheckAcceptsUpToMaxSizeOnly)
{
    for (const Implementation* impl : kImplementations) {
        for (const CompactSizeCase& c : kCompactSizeBoundaries) {
            const Bytes input = hex(c.encoding);
            const auto decoded = impl->decode_compact_size(input, true);
            if (c.value <= model::kMaxSize) {
                EXPECT_TRUE(decodes_to(decoded, c.value, input.size())) << impl->side << " input " << c.encoding;
            } else {
                EXPECT_TRUE(fails_with(decoded, errors::kSizeTooLarge)) << impl->side << " input " << c.encoding;
            }
        }
    }
}

TEST(CompactSize, RejectsNonCanonicalFormsBeforeTheRange)
{
    // Each value fits a shorter prefix; the last one is also above MAX_SIZE, and non-canonical wins.
    const char* const inputs[] = {
        "fd0000",           "fdfc00",           "fe00000000",         "feffff0000",
        "ff0000000000000000", "ffffffffff00000000", "ff0000000400000000",
    };
    for (const Implementation* impl : kImplementations) {
        for (const char* input : inputs) {
            for (bool range_check : {true, false}) {
                EXPECT_TRUE(fails_with(impl->decode_compact_size(hex(input), range_check), errors::kNonCanonical))
                    << impl->side << " input " << input << " range_check " << range_check;
            }
        }
    }
}

TEST(CompactSize, TruncatedFormsAreEndOfData)
{
    const char* const inputs[] = {"", "fd", "fdff", "fe", "feffffff", "ff", "ffffffffffffffff"};
    for (const Implementation* impl : kImplementations) {
        for (const char* input : inputs) {
            for (bool range_check : {true, false}) {
                EXPECT_TRUE(fails_with(impl->decode_compact_size(hex(input), range_check), errors::kEndOfData))
                    << impl->side << " input '" << input << "' range_check " << range_check;
            }
        }
    }
}

TEST(CompactSize, ConsumesOnlyItsOwnBytes)
{
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(decodes_to(impl->decode_compact_size(hex("fc fd"), true), uint64_t{0xfc}, 1)) << impl->side;
        EXPECT_TRUE(decodes_to(impl->decode_compact_size(hex("fdfd00 ff"), true), uint64_t{0xfd}, 3)) << impl->side;
    }
}

// ---------------------------------------------------------------------------------------------------
// VarInt

uint64_t max_of(IntKind kind)
{
    const int bits = model::int_kind_bytes(kind) * 8 - (model::int_kind_signed(kind) ? 1 : 0);
    return bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
}

TEST(VarInt, ExamplesFromSemantics)
{
    const CompactSizeCase examples[] = {{0, "00"},      {127, "7f"},    {128, "8000"},
                                        {255, "807f"}, {16511, "ff7f"}, {16512, "808000"}};
    for (const Implementation* impl : kImplementations) {
        for (IntKind kind : model::kAllIntKinds) {
            for (const CompactSizeCase& c : examples) {
                if (c.value > max_of(kind)) continue;
                const Bytes input = hex(c.encoding);
                EXPECT_EQ(to_hex(impl->encode_varint(c.value, kind)), c.encoding)
                    << impl->side << " " << model::int_kind_name(kind) << " value " << c.value;
                EXPECT_TRUE(decodes_to(impl->decode_varint(input, kind), c.value, input.size()))
                    << impl->side << " " << model::int_kind_name(kind) << " input " << c.encoding;
            }
        }
    }
}

struct VarIntLimit {
    IntKind kind;
    const char* max_encoding;       // the largest value of the type: decodes
    const char* next_encoding;      // the encoding of max + 1: fails at the pre-shift check
    const char* continued_maximum;  // reaches max with the continuation bit set: fails at the +1 check
};

const VarIntLimit kVarIntLimits[] = {
    {IntKind::U8, "807f", "8100", "80ff"},
    {IntKind::U16, "82fe7f", "82ff00", "82feff"},
    {IntKind::U32, "8efefefe7f", "8efefeff00", "8efefefeff"},
    {IntKind::U64, "80fefefefefefefefe7f", "80fefefefefefefeff00", "80fefefefefefefefeff"},
    {IntKind::I8, "7f", "8000", "ff"},
    {IntKind::I16, "80fe7f", "80ff00", "80feff"},
    {IntKind::I32, "86fefefe7f", "86fefeff00", "86fefefeff"},
    {IntKind::I64, "fefefefefefefefe7f", "fefefefefefefeff00", "fefefefefefefefeff"},
};

TEST(VarInt, LargestValueOfEachTypeRoundTrips)
{
    for (const Implementation* impl : kImplementations) {
        for (const VarIntLimit& limit : kVarIntLimits) {
            const Bytes input = hex(limit.max_encoding);
            EXPECT_EQ(to_hex(impl->encode_varint(max_of(limit.kind), limit.kind)), limit.max_encoding)
                << impl->side << " " << model::int_kind_name(limit.kind);
            EXPECT_TRUE(decodes_to(impl->decode_varint(input, limit.kind), max_of(limit.kind), input.size()))
                << impl->side << " " << model::int_kind_name(limit.kind);
        }
    }
}

TEST(VarInt, OverflowOfEachTypeIsSizeTooLarge)
{
    for (const Implementation* impl : kImplementations) {
        for (const VarIntLimit& limit : kVarIntLimits) {
            EXPECT_TRUE(fails_with(impl->decode_varint(hex(limit.next_encoding), limit.kind), errors::kSizeTooLarge))
                << impl->side << " " << model::int_kind_name(limit.kind) << " input " << limit.next_encoding;
            // The continued maximum is rejected before any further byte is needed: no end-of-data.
            EXPECT_TRUE(
                fails_with(impl->decode_varint(hex(limit.continued_maximum), limit.kind), errors::kSizeTooLarge))
                << impl->side << " " << model::int_kind_name(limit.kind) << " input " << limit.continued_maximum;
        }
    }
}

TEST(VarInt, TruncatedIsEndOfData)
{
    for (const Implementation* impl : kImplementations) {
        for (IntKind kind : model::kAllIntKinds) {
            EXPECT_TRUE(fails_with(impl->decode_varint(hex(""), kind), errors::kEndOfData)) << impl->side;
            EXPECT_TRUE(fails_with(impl->decode_varint(hex("80"), kind), errors::kEndOfData)) << impl->side;
        }
        EXPECT_TRUE(fails_with(impl->decode_varint(hex("ffff"), IntKind::U64), errors::kEndOfData)) << impl->side;
        EXPECT_TRUE(decodes_to(impl->decode_varint(hex("ff7f 00"), IntKind::U64), uint64_t{16511}, 2)) << impl->side;
    }
}

// ---------------------------------------------------------------------------------------------------
// The reference Reader's sticky first error (differential/reference/primitives.h): no read throws, the first
// error stays, a read after it returns zero without moving, and every loop over a claimed count stops on it.

TEST(ReferenceReader, FirstErrorStaysAndLaterReadsDoNotMove)
{
    const Bytes input = hex("fd fc00 07 08");  // a non-canonical CompactSize, then two bytes
    reference::Reader reader(input);
    EXPECT_EQ(reader.read_compactsize(), 0u);
    ASSERT_TRUE(reader.failed());
    EXPECT_STREQ(reader.error(), errors::kNonCanonical);
    EXPECT_EQ(reader.position(), 3u);
    EXPECT_EQ(reader.read_byte(), 0u) << "a read after the error returned a byte";
    EXPECT_EQ(reader.read_uint(1), 0u);
    reader.skip(1);
    EXPECT_EQ(reader.position(), 3u) << "a read after the error moved the cursor";
    reader.fail(errors::kEndOfData);
    EXPECT_STREQ(reader.error(), errors::kNonCanonical) << "a later error replaced the first";
}

TEST(ReferenceReader, EveryLoopOverAClaimedCountStopsAtTheFirstError)
{
    // MAX_SIZE claimed (fe00000002), then two u32 elements: the third element's read is the first failure,
    // and no element reader may run after it (each loop counts its calls).
    const Bytes input = hex("fe00000002 01000000 02000000");
    size_t calls = 0;
    auto read_u32 = [&calls](reference::Reader& in) {
        ++calls;
        return static_cast<uint32_t>(in.read_uint(4));
    };
    auto read_u8 = [](reference::Reader& in) { return in.read_byte(); };
    const auto loop_stops = [&](auto read_loop, std::span<const uint8_t> data, const char* loop) {
        calls = 0;
        reference::Reader reader(data);
        read_loop(reader);
        EXPECT_STREQ(reader.error(), errors::kEndOfData) << loop;
        EXPECT_EQ(calls, 3u) << loop << " called its element reader after the error";
    };
    loop_stops([&](reference::Reader& r) { r.read_vector<uint32_t>(read_u32); }, input, "read_vector");
    loop_stops([&](reference::Reader& r) { r.read_set<uint32_t>(read_u32); }, input, "read_set");
    loop_stops([&](reference::Reader& r) { r.read_map<uint32_t, uint8_t>(read_u32, read_u8); },
               hex("fe00000002 01000000 07 02000000 08"), "read_map");
    loop_stops([&](reference::Reader& r) { r.read_array<uint32_t>(model::kMaxSize, read_u32); },
               std::span<const uint8_t>(input).subspan(5), "read_array");

    // A witness stack claiming MAX_SIZE items with one present: end of data, and the stack holds at most
    // the item read and the one that failed.
    const Bytes witness_tx = hex("02000000 0001 01" + std::string(64, '0') + "00000000 00 ffffffff 00 fe00000002 0101");
    reference::Reader reader(witness_tx);
    const model::Transaction tx = reference::read_transaction(reader, true);
    EXPECT_STREQ(reader.error(), errors::kEndOfData);
    ASSERT_EQ(tx.inputs.size(), 1u);
    EXPECT_LE(tx.inputs[0].witness.size(), 2u) << "the witness stack kept reading after the error";
    const auto decoded = reference::decode_transaction(witness_tx, true);
    EXPECT_FALSE(decoded.ok);
    EXPECT_EQ(decoded.error, errors::kEndOfData);
}

// bool: the facades have no bool entry point, so each side's own stream layer is used.

// An empty write() is a no-op on every in-memory writer, wherever the writer stands: its span's data() may be null,
// which memcpy must not be given even for no bytes (UBSan's nonnull check; VectorWriter did, inside its vector,
// found by primitive_stream's empty write).
TEST(Writers, EmptyWriteWritesNothingAnywhere)
{
    const std::span<const std::byte> nothing;
    for (size_t position : {0, 1, 3, 4, 6}) {
        Bytes bytes = hex("a0a1a2a3");
        optimized::VectorWriter writer(bytes, position);
        writer.write(nothing);
        EXPECT_EQ(writer.position(), position) << "VectorWriter at " << position;
        EXPECT_EQ(to_hex(bytes), position <= 4 ? "a0a1a2a3" : std::string("a0a1a2a3") + std::string(2 * (position - 4), '0'))
            << "VectorWriter at " << position;
    }
    optimized::DataStream stream;
    stream.write(nothing);
    EXPECT_TRUE(stream.empty());
    Bytes target(2);
    optimized::SpanWriter span_writer{std::span<uint8_t>(target)};
    span_writer.write(nothing);
    EXPECT_EQ(span_writer.position(), 0u);
}

TEST(Bool, AnyNonZeroByteReadsTrueAndWritesAsOne)
{
    const struct {
        const char* input;
        bool value;
    } cases[] = {{"00", false}, {"01", true}, {"02", true}, {"80", true}, {"ff", true}};
    for (const auto& c : cases) {
        const Bytes input = hex(c.input);
        optimized::SpanReader optimized_stream(input);
        bool optimized_value = !c.value;
        optimized::Unserialize(optimized_stream, optimized_value);
        EXPECT_EQ(optimized_value, c.value) << "optimized input " << c.input;
        reference::Reader reference_stream(input);
        EXPECT_EQ(reference_stream.read_bool(), c.value) << "reference input " << c.input;
    }
    // So 02 does not round-trip: true is written as 01.
    for (bool value : {false, true}) {
        Bytes optimized_bytes;
        optimized::VectorWriter optimized_writer(optimized_bytes, 0);
        optimized::Serialize(optimized_writer, value);
        EXPECT_EQ(to_hex(optimized_bytes), value ? "01" : "00");
        reference::Writer reference_writer;
        reference_writer.write_bool(value);
        EXPECT_EQ(to_hex(reference_writer.out), value ? "01" : "00");
    }
    // An empty input is end of data on both.
    const Bytes empty;
    optimized::SpanReader optimized_empty(empty);
    bool ignored = false;
    try {
        optimized::Unserialize(optimized_empty, ignored);
        ADD_FAILURE() << "optimized read a bool from no bytes";
    } catch (const optimized::SerializeError& e) {
        EXPECT_STREQ(e.what(), errors::kEndOfData);
    }
    reference::Reader reference_empty(empty);
    EXPECT_FALSE(reference_empty.read_bool());
    ASSERT_TRUE(reference_empty.failed()) << "reference read a bool from no bytes";
    EXPECT_STREQ(reference_empty.error(), errors::kEndOfData);
}

// ---------------------------------------------------------------------------------------------------
// Transactions

const std::string kVersion2 = "02000000";
const std::string kLockTime1000 = "e8030000";
// prevout (32 x 0x11, index 1), scriptSig OP_TRUE, sequence 0xfffffffe.
const std::string kInput = std::string(64, '1') + "01000000" + "0151" + "feffffff";
const std::string kSecondInput = std::string(64, '2') + "00000000" + "00" + "ffffffff";
// 1 BTC to OP_TRUE.
const std::string kOutput = "00e1f50500000000" "0151";
const std::string kLegacyTx = kVersion2 + "01" + kInput + "01" + kOutput + kLockTime1000;
// Witness stack of the input: two items, 0xaa and an empty item.
const std::string kWitnessTx = kVersion2 + "0001" + "01" + kInput + "01" + kOutput + "02" "01aa" "00" + kLockTime1000;

model::TxIn expected_input()
{
    model::TxIn input;
    input.prevout.hash.bytes.fill(0x11);
    input.prevout.n = 1;
    input.script_sig = {0x51};
    input.sequence = 0xfffffffe;
    return input;
}

model::Transaction expected_legacy_tx()
{
    model::Transaction tx;
    tx.version = 2;
    tx.inputs = {expected_input()};
    tx.outputs = {model::TxOut{100'000'000, {0x51}}};
    tx.lock_time = 1000;
    return tx;
}

model::Transaction expected_witness_tx()
{
    model::Transaction tx = expected_legacy_tx();
    tx.inputs[0].witness = {{0xaa}, {}};
    return tx;
}

TEST(Transaction, LegacyDecodesAndRoundTripsWithAndWithoutWitnessAllowed)
{
    const Bytes input = hex(kLegacyTx);
    for (const Implementation* impl : kImplementations) {
        for (bool allow_witness : {true, false}) {
            EXPECT_TRUE(decodes_to(impl->transaction.decode(input, allow_witness), expected_legacy_tx(), input.size()))
                << impl->side << " allow_witness " << allow_witness;
            EXPECT_EQ(to_hex(impl->transaction.encode(expected_legacy_tx(), allow_witness)), kLegacyTx)
                << impl->side << " allow_witness " << allow_witness;
        }
    }
    for (bool allow_witness : {true, false})
        EXPECT_EQ(optimized::size_transaction(expected_legacy_tx(), allow_witness), input.size());
}

TEST(Transaction, WitnessDecodesAndEncodesPerAllowWitness)
{
    const Bytes input = hex(kWitnessTx);
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(decodes_to(impl->transaction.decode(input, true), expected_witness_tx(), input.size())) << impl->side;
        EXPECT_EQ(to_hex(impl->transaction.encode(expected_witness_tx(), true)), kWitnessTx) << impl->side;
        // Without witness the stacks are simply not written.
        EXPECT_EQ(to_hex(impl->transaction.encode(expected_witness_tx(), false)), kLegacyTx) << impl->side;
    }
    EXPECT_EQ(optimized::size_transaction(expected_witness_tx(), true), input.size());
    EXPECT_EQ(optimized::size_transaction(expected_witness_tx(), false), hex(kLegacyTx).size());
}

TEST(Transaction, OnlyOneInputNeedsAWitness)
{
    const std::string tx_hex = kVersion2 + "0001" + "02" + kInput + kSecondInput + "01" + kOutput +
                               "00" + "0201bb0100" + kLockTime1000;
    model::Transaction expected = expected_legacy_tx();
    model::TxIn second;
    second.prevout.hash.bytes.fill(0x22);
    second.sequence = 0xffffffff;
    second.witness = {{0xbb}, {0x00}};
    expected.inputs.push_back(second);
    const Bytes input = hex(tx_hex);
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(decodes_to(impl->transaction.decode(input, true), expected, input.size())) << impl->side;
        EXPECT_EQ(to_hex(impl->transaction.encode(expected, true)), tx_hex) << impl->side;
    }
    EXPECT_EQ(optimized::size_transaction(expected, true), input.size());
}

TEST(Transaction, WitnessFlagWithAllStacksEmptyIsSuperfluous)
{
    const std::string one_input = kVersion2 + "0001" + "01" + kInput + "01" + kOutput + "00" + kLockTime1000;
    const std::string two_inputs =
        kVersion2 + "0001" + "02" + kInput + kSecondInput + "01" + kOutput + "00" "00" + kLockTime1000;
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(fails_with(impl->transaction.decode(hex(one_input), true), errors::kSuperfluousWitness))
            << impl->side;
        EXPECT_TRUE(fails_with(impl->transaction.decode(hex(two_inputs), true), errors::kSuperfluousWitness))
            << impl->side;
    }
}

TEST(Transaction, UnknownFlagBitsAreUnknownOptionalData)
{
    // Flag 2: no witness bit, so no stacks are read; the bit is left over.
    const std::string flag2 = kVersion2 + "0002" + "01" + kInput + "01" + kOutput + kLockTime1000;
    // Flag 3 with a real witness: the witness bit is consumed, bit 1 is left over.
    const std::string flag3 = kVersion2 + "0003" + "01" + kInput + "01" + kOutput + "0101aa" + kLockTime1000;
    // Flag 0x80, the highest bit alone.
    const std::string flag80 = kVersion2 + "0080" + "01" + kInput + "01" + kOutput + kLockTime1000;
    // Flag 3 with empty stacks: the superfluous-witness check comes first.
    const std::string flag3_empty = kVersion2 + "0003" + "01" + kInput + "01" + kOutput + "00" + kLockTime1000;
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(fails_with(impl->transaction.decode(hex(flag2), true), errors::kUnknownOptionalData)) << impl->side;
        EXPECT_TRUE(fails_with(impl->transaction.decode(hex(flag3), true), errors::kUnknownOptionalData)) << impl->side;
        EXPECT_TRUE(fails_with(impl->transaction.decode(hex(flag80), true), errors::kUnknownOptionalData))
            << impl->side;
        EXPECT_TRUE(fails_with(impl->transaction.decode(hex(flag3_empty), true), errors::kSuperfluousWitness))
            << impl->side;
    }
}

TEST(Transaction, EmptyInputsWithZeroFlagIsTheEmptyTransaction)
{
    // version, 00 (no inputs), 00 (flag 0: no outputs read), lock_time; a trailing byte is left unread.
    const std::string tx_hex = kVersion2 + "00" "00" + kLockTime1000;
    const Bytes input = hex(tx_hex + "ff");
    model::Transaction expected;
    expected.version = 2;
    expected.lock_time = 1000;
    for (const Implementation* impl : kImplementations) {
        for (bool allow_witness : {true, false}) {
            EXPECT_TRUE(decodes_to(impl->transaction.decode(input, allow_witness), expected, 10))
                << impl->side << " allow_witness " << allow_witness;
            EXPECT_EQ(to_hex(impl->transaction.encode(expected, allow_witness)), tx_hex) << impl->side;
        }
    }
    EXPECT_EQ(optimized::size_transaction(expected, true), 10u);
}

TEST(Transaction, MarkerBytesWithWitnessNotAllowedAreReadAsOutputs)
{
    // Without witness: 00 is an empty input vector and 01 the output count.
    const std::string tx_hex = kVersion2 + "00" "01" + "0100000000000000" "00" + "00000000";
    const Bytes input = hex(tx_hex);
    model::Transaction expected;
    expected.version = 2;
    expected.outputs = {model::TxOut{1, {}}};
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(decodes_to(impl->transaction.decode(input, false), expected, input.size())) << impl->side;
        // With witness the 01 is a flag, and 13 bytes cannot hold an input.
        EXPECT_TRUE(fails_with(impl->transaction.decode(input, true), errors::kEndOfData)) << impl->side;
    }
}

TEST(Transaction, SegwitBytesWithWitnessNotAllowedParseAsGarbageOutputs)
{
    // 00 = no inputs, 01 = one output whose amount is the input count byte and 7 bytes of the prevout
    // hash, its script the next 17 hash bytes (length 0x11), the lock time the 4 hash bytes after.
    model::Transaction expected;
    expected.version = 2;
    expected.outputs = {model::TxOut{0x1111111111111101, Bytes(17, 0x11)}};
    expected.lock_time = 0x11111111;
    for (const Implementation* impl : kImplementations)
        EXPECT_TRUE(decodes_to(impl->transaction.decode(hex(kWitnessTx), false), expected, 36)) << impl->side;
}

TEST(Transaction, EveryTruncationIsEndOfData)
{
    for (const std::string& whole : {kLegacyTx, kWitnessTx}) {
        const Bytes bytes = hex(whole);
        for (size_t length = 0; length < bytes.size(); ++length) {
            const std::span<const uint8_t> prefix(bytes.data(), length);
            for (const Implementation* impl : kImplementations) {
                EXPECT_TRUE(fails_with(impl->transaction.decode(prefix, true), errors::kEndOfData))
                    << impl->side << " prefix of " << length << " bytes of " << whole;
            }
        }
    }
    const Bytes legacy = hex(kLegacyTx);
    for (size_t length = 0; length < legacy.size(); ++length)
        for (const Implementation* impl : kImplementations)
            EXPECT_TRUE(fails_with(impl->transaction.decode(std::span(legacy.data(), length), false), errors::kEndOfData))
                << impl->side << " prefix of " << length << " bytes, witness not allowed";
}

TEST(Transaction, LengthsAreCanonicalAndRangeChecked)
{
    // scriptSig length 1 written as fd 01 00.
    const std::string non_canonical_script =
        kVersion2 + "01" + std::string(64, '1') + "01000000" + "fd010051" + "feffffff" + "01" + kOutput + kLockTime1000;
    // input count MAX_SIZE + 1.
    const std::string too_many_inputs = kVersion2 + "fe01000002";
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(fails_with(impl->transaction.decode(hex(non_canonical_script), true), errors::kNonCanonical))
            << impl->side;
        EXPECT_TRUE(fails_with(impl->transaction.decode(hex(too_many_inputs), true), errors::kSizeTooLarge))
            << impl->side;
    }
}

// ---------------------------------------------------------------------------------------------------
// Header, block, locator

const std::string kHeaderHex = "01000000" + std::string(64, 'a') + std::string(64, 'b') + "29ab5f49" +
                               "ffff001d" + "1dac2b7c";

model::BlockHeader expected_header()
{
    model::BlockHeader header;
    header.version = 1;
    header.prev_block.bytes.fill(0xaa);
    header.merkle_root.bytes.fill(0xbb);
    header.time = 0x495fab29;
    header.bits = 0x1d00ffff;
    header.nonce = 0x7c2bac1d;
    return header;
}

TEST(Header, EightyBytesRoundTripAndTruncationFails)
{
    const Bytes input = hex(kHeaderHex);
    ASSERT_EQ(input.size(), 80u);
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(decodes_to(impl->block_header.decode(input), expected_header(), 80)) << impl->side;
        EXPECT_EQ(to_hex(impl->block_header.encode(expected_header())), kHeaderHex) << impl->side;
        EXPECT_TRUE(fails_with(impl->block_header.decode(std::span(input.data(), 79)), errors::kEndOfData)) << impl->side;
    }
    EXPECT_EQ(optimized::size_header(expected_header()), 80u);
}

TEST(Block, HeaderAndTransactionsWithWitness)
{
    const std::string block_hex = kHeaderHex + "02" + kLegacyTx + kWitnessTx;
    model::Block expected;
    expected.header = expected_header();
    expected.transactions = {expected_legacy_tx(), expected_witness_tx()};
    const Bytes input = hex(block_hex);
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(decodes_to(impl->block.decode(input), expected, input.size())) << impl->side;
        EXPECT_EQ(to_hex(impl->block.encode(expected)), block_hex) << impl->side;
        EXPECT_TRUE(fails_with(impl->block.decode(hex(kHeaderHex)), errors::kEndOfData)) << impl->side;
    }
    EXPECT_EQ(optimized::size_block(expected), input.size());
}

TEST(Locator, VersionAndHashes)
{
    const std::string locator_hex = "70110100" "02" + std::string(64, 'c') + std::string(64, 'd');
    model::BlockLocator expected;
    expected.version = 70000;
    expected.have.resize(2);
    expected.have[0].bytes.fill(0xcc);
    expected.have[1].bytes.fill(0xdd);
    const Bytes input = hex(locator_hex);
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(decodes_to(impl->block_locator.decode(input), expected, input.size())) << impl->side;
        EXPECT_EQ(to_hex(impl->block_locator.encode(expected)), locator_hex) << impl->side;
        EXPECT_TRUE(fails_with(impl->block_locator.decode(std::span(input.data(), input.size() - 1)), errors::kEndOfData))
            << impl->side;
    }
    EXPECT_EQ(optimized::size_locator(expected), input.size());
}

// ---------------------------------------------------------------------------------------------------
// Undo data

// secp256k1's generator: x, its even y and the odd y of its negation.
const std::string kGeneratorX = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
const std::string kGeneratorEvenY = "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8";
const std::string kGeneratorOddY = "b7c52588d95c3b9aa25b0403f1eef75702e84bb7597aabe663b82f6f04ef2777";
const std::string kHash20 = std::string(40, '2');
const std::string kP2pkhScript = "76a914" + kHash20 + "88ac";

// A block undo with one tx undo holding one coin whose fields are given as hex.
std::string one_coin_undo(const std::string& code, const std::string& amount, const std::string& script)
{
    return "01" "01" + code + amount + script;
}

model::BlockUndo undo_of(model::Coin coin)
{
    model::BlockUndo undo;
    undo.txundo.resize(1);
    undo.txundo[0].prevouts = {std::move(coin)};
    return undo;
}

model::Coin coin(int64_t amount, const Bytes& script, uint32_t height = 0, bool coinbase = false)
{
    model::Coin result;
    result.out.value = amount;
    result.out.script_pubkey = script;
    result.height = height;
    result.coinbase = coinbase;
    return result;
}

// Decodes `undo_hex` on both sides to `expected`, and re-encodes `expected` to `reencoded_hex`.
void check_undo(const std::string& undo_hex, const model::BlockUndo& expected, const std::string& reencoded_hex)
{
    const Bytes input = hex(undo_hex);
    for (const Implementation* impl : kImplementations) {
        EXPECT_TRUE(decodes_to(impl->block_undo.decode(input), expected, input.size())) << impl->side << " " << undo_hex;
        EXPECT_EQ(to_hex(impl->block_undo.encode(expected)), reencoded_hex) << impl->side;
    }
    EXPECT_EQ(optimized::size_block_undo(expected), hex(reencoded_hex).size());
}

TEST(Undo, AmountCompressionTable)
{
    struct AmountCase {
        int64_t amount;
        const char* compressed_varint;  // VarInt(CompressAmount(amount))
    };
    const AmountCase cases[] = {
        {0, "00"},                    // 0
        {1, "01"},                    // 1
        {2, "0b"},                    // 11
        {9, "51"},                    // 81
        {10, "02"},                   // 2
        {50, "2a"},                   // 42
        {100, "03"},                  // 3
        {1234, "d55d"},               // 11101
        {1'000'000, "07"},            // 0.01 BTC: 7
        {100'000'000, "09"},          // 1 BTC: 9
        {123'456'789, "8390e7ea3d"},  // 1111111101
        {5'000'000'000, "32"},        // 50 BTC: 50
        {2'100'000'000'000'000, "8980dd40"},  // 21M BTC: 21000000
    };
    for (const AmountCase& c : cases) {
        SCOPED_TRACE(c.amount);
        const std::string undo_hex = one_coin_undo("00", c.compressed_varint, "00" + kHash20);
        check_undo(undo_hex, undo_of(coin(c.amount, hex(kP2pkhScript))), undo_hex);
    }
}

TEST(Undo, HeightCoinbaseAndTheIgnoredVarInt)
{
    // height 100, coinbase: code 201 = VarInt 80 49, then the legacy VarInt written as 00.
    const std::string written = one_coin_undo("8049" "00", "09", "00" + kHash20);
    check_undo(written, undo_of(coin(100'000'000, hex(kP2pkhScript), 100, true)), written);
    // A non-zero ignored VarInt decodes the same and re-encodes as 00.
    check_undo(one_coin_undo("8049" "8000", "09", "00" + kHash20),
               undo_of(coin(100'000'000, hex(kP2pkhScript), 100, true)), written);
    // height 0, coinbase: code 1, and no ignored VarInt.
    const std::string height0 = one_coin_undo("01", "09", "00" + kHash20);
    check_undo(height0, undo_of(coin(100'000'000, hex(kP2pkhScript), 0, true)), height0);
    // height 700000: code 1400000 = VarInt d4 b8 40.
    const std::string tall = one_coin_undo("d4b840" "00", "09", "00" + kHash20);
    check_undo(tall, undo_of(coin(100'000'000, hex(kP2pkhScript), 700'000, false)), tall);
}

TEST(Undo, EachSpecialScriptForm)
{
    struct ScriptCase {
        const char* name;
        std::string compressed;
        std::string script;
    };
    const std::string hash_33 = std::string(40, '3');
    const std::string x_44 = std::string(64, '4');
    const std::string x_55 = std::string(64, '5');
    const ScriptCase cases[] = {
        {"tag 0 P2PKH", "00" + kHash20, kP2pkhScript},
        {"tag 1 P2SH", "01" + hash_33, "a914" + hash_33 + "87"},
        {"tag 2 P2PK compressed even", "02" + x_44, "2102" + x_44 + "ac"},
        {"tag 3 P2PK compressed odd", "03" + x_55, "2103" + x_55 + "ac"},
        {"tag 4 P2PK uncompressed even y", "04" + kGeneratorX, "4104" + kGeneratorX + kGeneratorEvenY + "ac"},
        {"tag 5 P2PK uncompressed odd y", "05" + kGeneratorX, "4104" + kGeneratorX + kGeneratorOddY + "ac"},
        {"raw OP_TRUE", "07" "51", "51"},
        {"raw empty", "06", ""},
    };
    for (const ScriptCase& c : cases) {
        SCOPED_TRACE(c.name);
        const std::string undo_hex = one_coin_undo("00", "09", c.compressed);
        check_undo(undo_hex, undo_of(coin(100'000'000, hex(c.script))), undo_hex);
    }
}

TEST(Undo, TruncatedSpecialFormsAreEndOfData)
{
    const std::string truncated[] = {
        one_coin_undo("00", "09", "00" + std::string(38, '2')),
        one_coin_undo("00", "09", "04" + kGeneratorX.substr(0, 62)),
        one_coin_undo("00", "09", "0751").substr(0, 10),
        one_coin_undo("00", "09", ""),
        one_coin_undo("8049", "", ""),
    };
    for (const std::string& undo_hex : truncated)
        for (const Implementation* impl : kImplementations)
            EXPECT_TRUE(fails_with(impl->block_undo.decode(hex(undo_hex)), errors::kEndOfData))
                << impl->side << " " << undo_hex;
}

TEST(Undo, NonMinimalFormsDecodeButReencodeShorter)
{
    // A P2PKH script written the long way (VarInt 31 = 25 + 6) re-encodes as tag 0.
    check_undo(one_coin_undo("00", "09", "1f" + kP2pkhScript), undo_of(coin(100'000'000, hex(kP2pkhScript))),
               one_coin_undo("00", "09", "00" + kHash20));
}

TEST(Undo, TagFourWithXNotOnTheCurveIsAnEmptyScript)
{
    // x = 0: 0^3 + 7 is not a square modulo p, so there is no such point; the script stays empty and
    // re-encodes as the raw empty script (VarInt 6).
    check_undo(one_coin_undo("00", "09", "04" + std::string(64, '0')), undo_of(coin(100'000'000, {})),
               one_coin_undo("00", "09", "06"));
    check_undo(one_coin_undo("00", "09", "05" + std::string(62, '0') + "05"), undo_of(coin(100'000'000, {})),
               one_coin_undo("00", "09", "06"));
}

TEST(Undo, UncompressedKeyNotOnTheCurveIsWrittenRaw)
{
    // 67-byte P2PK whose key (x = 0) is not a valid point: VarInt(67 + 6) = 49, then the script.
    const std::string script = "4104" + std::string(128, '0') + "ac";
    const std::string undo_hex = one_coin_undo("00", "09", "49" + script);
    check_undo(undo_hex, undo_of(coin(100'000'000, hex(script))), undo_hex);
}

TEST(Undo, OversizeScriptBecomesOpReturn)
{
    // Exactly MAX_SCRIPT_SIZE (10,000) bytes: VarInt(10006) = cd 16, kept as is.
    const std::string largest = std::string(20'000, 'a');
    const std::string kept = one_coin_undo("00", "09", "cd16" + largest);
    check_undo(kept, undo_of(coin(100'000'000, hex(largest))), kept);
    // 10,001 bytes: VarInt(10007) = cd 17; skipped, the script is OP_RETURN, which re-encodes raw.
    const std::string skipped = one_coin_undo("00", "09", "cd17" + std::string(20'002, 'a'));
    check_undo(skipped, undo_of(coin(100'000'000, hex("6a"))), one_coin_undo("00", "09", "076a"));
    // The skipped bytes must be there.
    const std::string short_skip = one_coin_undo("00", "09", "cd17" + std::string(200, 'a'));
    for (const Implementation* impl : kImplementations)
        EXPECT_TRUE(fails_with(impl->block_undo.decode(hex(short_skip)), errors::kEndOfData)) << impl->side;
}

TEST(Undo, TwoTxUndosWithSeveralCoins)
{
    const std::string undo_hex = "02" "02" "00" "09" "00" + kHash20 + "8049" "00" "32" "0751" + "00";
    model::BlockUndo expected;
    expected.txundo.resize(2);
    expected.txundo[0].prevouts = {coin(100'000'000, hex(kP2pkhScript)), coin(5'000'000'000, hex("51"), 100, true)};
    check_undo(undo_hex, expected, undo_hex);
}

}  // namespace
}  // namespace serdiff::test
