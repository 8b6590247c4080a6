// Bitcoin Core (libbitcoinkernel) as a peer: every real transaction and block of SERDIFF_DATA_DIR agrees with
// the reference (accepted, the same bytes consumed, the same re-encoding), the edges of what Core's C API
// can say (trailing bytes, truncation, no witness-free mode, headers) are answered exactly, and the CLI
// (SERDIFF_CLI) shows Core's verdict first under `inspect --impl all`, or says why Core is left out.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "differential/oracles/core/library.h"
#include "differential/oracles/divergences.h"
#include "differential/oracles/peers.h"
#include "tests/test_util.h"

namespace serdiff::test {
namespace {

using oracles::ObjectKind;
using oracles::Verdict;

const oracles::Peer& core_peer()
{
    const oracles::Peer* peer = oracles::find_peer("bitcoin-core");
    if (peer == nullptr)
        throw std::runtime_error("the Bitcoin Core peer cannot run: " + oracles::core::unavailable_reason());
    return *peer;
}

#define SKIP_WITHOUT_DATA() \
    if (!have_data()) GTEST_SKIP() << "real data directory " << data_dir() << " is absent (see its README.md)"

// Core accepts `bytes` whole (consumed = size), re-encodes them byte for byte, and agrees with the reference.
void expect_core_agrees_whole(ObjectKind kind, const Bytes& bytes, const std::string& label)
{
    SCOPED_TRACE(label);
    const Verdict reference = oracles::reference_verdict(kind, bytes, true);
    const Verdict core = oracles::peer_verdict(core_peer(), kind, bytes, true);
    ASSERT_EQ(core.status, Verdict::Status::ok) << core.error;
    ASSERT_TRUE(core.accepted) << core.error;
    EXPECT_EQ(core.consumed, bytes.size());
    EXPECT_TRUE(core.reencoded == bytes) << "Core's re-encoding differs from the input";
    EXPECT_EQ(oracles::disagreement(reference, core), "");
}

std::vector<Bytes> vector_transactions()
{
    std::vector<Bytes> transactions;
    for (const char* name : {"tx_valid.json", "tx_invalid.json"}) {
        const JsonValue document = parse_json(read_file_text(data_dir() / "vectors" / name));
        for (const JsonValue& entry : document.items) {
            if (entry.items.size() < 2) continue;
            Bytes bytes;
            if (!model::from_hex(entry.items[1].text, bytes)) throw std::runtime_error("vector is not hex");
            transactions.push_back(std::move(bytes));
        }
    }
    return transactions;
}

TEST(CorePeer, ReportsTheVersionTheLibraryWasBuiltFrom)
{
    const oracles::Peer& peer = core_peer();
    EXPECT_EQ(std::string(peer.name), "bitcoin-core");
    // "Bitcoin Core v<major>.<minor>..." read from the library itself, then the pinned wheel.
    EXPECT_EQ(std::string(peer.version).rfind("Bitcoin Core v", 0), 0u) << peer.version;
    EXPECT_NE(std::string(peer.version).find("py-bitcoinkernel 0.1.0a5"), std::string::npos) << peer.version;
    EXPECT_EQ(std::string(oracles::linked_peers().front().name), "bitcoin-core") << "Core is listed first";
}

TEST(CorePeer, AgreesOnEveryTransactionVector)
{
    SKIP_WITHOUT_DATA();
    const std::vector<Bytes> transactions = vector_transactions();
    ASSERT_EQ(transactions.size(), 213u);  // 120 valid + 93 invalid (the data directory's README)
    for (size_t i = 0; i < transactions.size(); ++i)
        expect_core_agrees_whole(ObjectKind::transaction, transactions[i], "vector " + std::to_string(i));
}

TEST(CorePeer, AgreesOnTheLargestTransactions)
{
    SKIP_WITHOUT_DATA();
    expect_core_agrees_whole(ObjectKind::transaction, read_file_bytes(data_dir() / "tx" / "megatx.bin"), "megatx.bin");
    std::string text = read_file_text(data_dir() / "tx" / "huge_witness.hex");
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    Bytes huge;
    ASSERT_TRUE(model::from_hex(text, huge));
    expect_core_agrees_whole(ObjectKind::transaction, huge, "huge_witness.hex");
}

TEST(CorePeer, AgreesOnTheFourMainnetBlocksAndTheirHeaders)
{
    SKIP_WITHOUT_DATA();
    std::vector<std::filesystem::path> blocks;
    for (const auto& entry : std::filesystem::directory_iterator(data_dir() / "blocks"))
        if (entry.path().extension() == ".raw") blocks.push_back(entry.path());
    ASSERT_EQ(blocks.size(), 4u);
    for (const auto& path : blocks) {
        const Bytes bytes = read_file_bytes(path);
        expect_core_agrees_whole(ObjectKind::block, bytes, path.filename().string());
        expect_core_agrees_whole(ObjectKind::header, Bytes(bytes.begin(), bytes.begin() + 80),
                                 path.filename().string() + " header");
    }
}

// Core's C API ignores bytes after the object; the measured consumed count leaves them out, like the reference.
TEST(CorePeer, TrailingBytesAreAcceptedAndNotCountedAsConsumed)
{
    const Bytes empty_tx = hex("01000000" "00" "00" "00000000");  // version 1, `00 00`, lock_time 0
    for (const ObjectKind kind : {ObjectKind::transaction, ObjectKind::header}) {
        const Bytes object = kind == ObjectKind::transaction ? empty_tx : repeat_byte(0x11, 80);
        const Bytes input = concat({object, hex("0102ff")});
        const Verdict reference = oracles::reference_verdict(kind, input, true);
        const Verdict core = oracles::peer_verdict(core_peer(), kind, input, true);
        ASSERT_TRUE(core.accepted) << core.error;
        EXPECT_EQ(core.consumed, object.size());
        EXPECT_TRUE(core.reencoded == object);
        EXPECT_EQ(oracles::disagreement(reference, core), "");
    }
}

// Every proper prefix of a segwit transaction is rejected by both; Core says only that it rejected.
TEST(CorePeer, EveryTruncationIsRejected)
{
    const Bytes segwit = hex("02000000" "0001" "01" + std::string(64, 'a') + "01000000" "00" "fdffffff"
                             "01" "e803000000000000" "0151" "02" "0101" "0102" "00000000");
    expect_core_agrees_whole(ObjectKind::transaction, segwit, "whole");
    for (size_t length = 0; length < segwit.size(); ++length) {
        SCOPED_TRACE(length);
        const Bytes prefix(segwit.begin(), segwit.begin() + static_cast<std::ptrdiff_t>(length));
        const Verdict core = oracles::peer_verdict(core_peer(), ObjectKind::transaction, prefix, true);
        EXPECT_FALSE(core.accepted);
        EXPECT_EQ(core.error, "rejected by btck_transaction_create");
        EXPECT_EQ(oracles::disagreement(oracles::reference_verdict(ObjectKind::transaction, prefix, true), core), "");
    }
}

// Core's rules where the other peers part from them: Core agrees with the reference on every allow-listed input.
TEST(CorePeer, AgreesWithTheReferenceOnEveryAllowListedEdge)
{
    for (const oracles::AllowedDivergence& entry : oracles::allowed_divergences()) {
        SCOPED_TRACE(entry.rule);
        const Bytes input = entry.minimal_input();
        const Verdict reference = oracles::reference_verdict(entry.kind, input, true);
        const Verdict core = oracles::peer_verdict(core_peer(), entry.kind, input, true);
        EXPECT_EQ(core.status, Verdict::Status::ok);
        EXPECT_EQ(core.accepted, reference.accepted) << core.error;
        EXPECT_EQ(oracles::disagreement(reference, core), "");
    }
}

TEST(CorePeer, HasNoWitnessFreeModeAndNoMessage)
{
    const Verdict core = oracles::peer_verdict(core_peer(), ObjectKind::transaction, hex("01000000000000000000"), false);
    EXPECT_EQ(core.status, Verdict::Status::unsupported);
    const Verdict rejected = oracles::peer_verdict(core_peer(), ObjectKind::block, hex("00"), true);
    EXPECT_FALSE(rejected.accepted);
    EXPECT_EQ(rejected.error, "rejected by btck_block_create");
}

// The comparison fires on Core's verdicts: against a reference reading the same bytes without witness (a
// different rule), a segwit transaction is a disagreement, and so is a re-encoding with one byte changed.
TEST(CorePeer, DisagreementWithCoreIsDetected)
{
    const Bytes segwit = hex("02000000" "0001" "01" + std::string(64, 'a') + "01000000" "00" "fdffffff"
                             "01" "e803000000000000" "0151" "01" "0101" "00000000");
    const Verdict core = oracles::peer_verdict(core_peer(), ObjectKind::transaction, segwit, true);
    ASSERT_TRUE(core.accepted);
    EXPECT_NE(oracles::disagreement(oracles::reference_verdict(ObjectKind::transaction, segwit, false), core), "");
    Verdict planted = oracles::reference_verdict(ObjectKind::transaction, segwit, true);
    planted.reencoded[10] ^= 1;
    EXPECT_NE(oracles::disagreement(planted, core).find("re-encoding differs at byte 10"), std::string::npos);
    planted = oracles::reference_verdict(ObjectKind::transaction, segwit, true);
    planted.consumed -= 1;
    EXPECT_NE(oracles::disagreement(planted, core).find("consumed differs"), std::string::npos);
}

TEST(CorePeer, CountsTheWriterCallsOfABlock)
{
    // One block of one coinbase-like transaction: Core writes it field by field through the callback.
    const Bytes block = concat({repeat_byte(0, 80), hex("01"), hex("01000000" "01" + std::string(72, '0') +
                                                                 "00" "ffffffff" "01" "0000000000000000" "00" "00000000")});
    ASSERT_TRUE(oracles::reference_verdict(ObjectKind::block, block, true).accepted);
    EXPECT_GT(oracles::core::block_writer_calls(block.data(), block.size()), 5u);
}

// `serdiff inspect --impl all` lists Bitcoin Core first, with its verdict on accepted, rejected and
// trailing-byte inputs; it has no witness-free mode.
TEST(CorePeerCli, InspectAllShowsBitcoinCoresVerdictFirst)
{
    struct Case {
        const char* arguments;
        const char* core_verdict;  // describe() of Core's verdict
    };
    const Case cases[] = {
        {"inspect tx --impl all --hex 01000000000000000000", "accept, 10 bytes, re-encodes 01000000000000000000"},
        {"inspect tx --impl all --hex 01000000000000000000ffff", "accept, 10 bytes, re-encodes 01000000000000000000"},
        {"inspect tx --impl all --hex 010000000000000000", "reject (rejected by btck_transaction_create)"},
        {"inspect tx --impl all --hex 01000000fd0100", "reject (rejected by btck_transaction_create)"},
        {"inspect tx-nowitness --impl all --hex 01000000000000000000", "unsupported"},
        {"inspect block --impl all --hex 00", "reject (rejected by btck_block_create)"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.arguments);
        const CliRun run = run_cli(c.arguments);
        ASSERT_NE(run.exit_status, 4) << run.out;  // no unexplained peer divergence
        const JsonValue result = parse_json(run.out);
        const JsonValue& core = result["peers"]["bitcoin-core"];
        EXPECT_EQ(core["verdict"].text, c.core_verdict) << run.out;
        EXPECT_TRUE(core["agrees_with_reference"].boolean) << run.out;
        EXPECT_EQ(core["version"].text.rfind("Bitcoin Core v", 0), 0u) << run.out;
        const size_t peers_at = run.out.find("\"peers\":{");
        ASSERT_NE(peers_at, std::string::npos);
        EXPECT_EQ(run.out.find("\"bitcoin-core\"", peers_at), peers_at + 9) << "Core first: " << run.out;
    }
}

TEST(CorePeerCli, InspectAllBlockFileShowsBitcoinCoreAgreeing)
{
    SKIP_WITHOUT_DATA();
    std::vector<std::filesystem::path> blocks;
    for (const auto& entry : std::filesystem::directory_iterator(data_dir() / "blocks"))
        if (entry.path().extension() == ".raw") blocks.push_back(entry.path());
    ASSERT_FALSE(blocks.empty());
    const std::filesystem::path path = *std::min_element(blocks.begin(), blocks.end());  // 413,567, 1 MB
    const CliRun run = run_cli("inspect block --impl all '" + path.string() + "'");
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const JsonValue result = parse_json(run.out);
    const JsonValue& core = result["peers"]["bitcoin-core"];
    EXPECT_EQ(core["verdict"].text, "accept, " + std::to_string(std::filesystem::file_size(path)) + " bytes");
    EXPECT_TRUE(core["agrees_with_reference"].boolean);
}

// Without the library (here: a path that does not exist), Core is left out with a message; the rest works.
TEST(CorePeerCli, InspectAllWithoutTheCoreLibrarySaysSoAndShowsTheOtherPeers)
{
    const CliRun run = run_cli("inspect tx --impl all --hex 01000000000000000000",
                               "SERDIFF_CORE_LIBRARY=/nonexistent/libbitcoinkernel.so");
    EXPECT_EQ(run.exit_status, 0) << run.err;
    EXPECT_NE(run.err.find("Bitcoin Core peer left out: dlopen /nonexistent/libbitcoinkernel.so"), std::string::npos)
        << run.err;
    const JsonValue result = parse_json(run.out);
    EXPECT_FALSE(result["peers"].has("bitcoin-core"));
    EXPECT_TRUE(result["peers"]["btcd"].has("verdict"));
}

}  // namespace
}  // namespace serdiff::test
