// The serdiff CLI (SERDIFF_CLI) run as a process: `inspect` JSON fields and exit statuses
// (0 agree, 1 decoding error, 2 usage).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/test_util.h"

namespace serdiff::test {
namespace {

const std::string kSmallestBlock =
    "mainnet-413567-0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069.raw";

TEST(Cli, InspectBlockFileBothAgree)
{
    if (!have_data()) GTEST_SKIP() << "real data directory " << data_dir() << " is absent";
    const std::filesystem::path path = data_dir() / "blocks" / kSmallestBlock;
    const Bytes bytes = read_file_bytes(path);
    const CliRun run = run_cli("inspect block '" + path.string() + "'");
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const JsonValue result = parse_json(run.out);
    EXPECT_TRUE(result["agree"].boolean);
    EXPECT_EQ(result["difference"].text, "");
    for (const char* side_name : {"optimized", "reference"}) {
        SCOPED_TRACE(side_name);
        const JsonValue& side = result[side_name];
        EXPECT_TRUE(side["ok"].boolean);
        EXPECT_FALSE(side.has("error"));
        EXPECT_EQ(side["consumed"].text, std::to_string(bytes.size()));
        EXPECT_EQ(side["size"].text, std::to_string(bytes.size()));
        EXPECT_TRUE(side["reencoded_hex"].text == model::to_hex(bytes));
        EXPECT_EQ(side["value"]["transactions"].items.size(), 1'557u);
        EXPECT_EQ(side["value"]["header"]["version"].text, "4");
    }
}

TEST(Cli, InspectBlockFromStdinWithOneImplementation)
{
    if (!have_data()) GTEST_SKIP() << "real data directory " << data_dir() << " is absent";
    const std::filesystem::path path = data_dir() / "blocks" / kSmallestBlock;
    const CliRun run = run_cli("inspect block --impl reference - < '" + path.string() + "'");
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const JsonValue side = parse_json(run.out);
    EXPECT_FALSE(side.has("agree"));
    EXPECT_TRUE(side["ok"].boolean);
    EXPECT_EQ(side["consumed"].text, "999887");
}

TEST(Cli, InspectHexInputs)
{
    {
        const CliRun run = run_cli("inspect compactsize --hex fdfd00");
        ASSERT_EQ(run.exit_status, 0) << run.err;
        const JsonValue result = parse_json(run.out);
        EXPECT_TRUE(result["agree"].boolean);
        EXPECT_EQ(result["optimized"]["value"].text, "253");
        EXPECT_EQ(result["optimized"]["consumed"].text, "3");
        EXPECT_EQ(result["reference"]["reencoded_hex"].text, "fdfd00");
        EXPECT_EQ(result["reference"]["size"].text, "3");
    }
    {
        // Above MAX_SIZE: rejected by default, accepted without the range check.
        EXPECT_EQ(run_cli("inspect compactsize --hex fe01000002").exit_status, 1);
        const CliRun run = run_cli("inspect compactsize --no-range-check --hex fe01000002");
        ASSERT_EQ(run.exit_status, 0) << run.err;
        EXPECT_EQ(parse_json(run.out)["optimized"]["value"].text, "33554433");
    }
    {
        const CliRun run = run_cli("inspect varint --int u16 --hex 82fe7f");
        ASSERT_EQ(run.exit_status, 0) << run.err;
        EXPECT_EQ(parse_json(run.out)["reference"]["value"].text, "65535");
    }
    {
        // Empty inputs, zero flag, lock time 1000: the empty transaction, one trailing byte unread.
        const CliRun run = run_cli("inspect tx --impl optimized --hex 020000000000e8030000ff");
        ASSERT_EQ(run.exit_status, 0) << run.err;
        const JsonValue side = parse_json(run.out);
        EXPECT_EQ(side["consumed"].text, "10");
        EXPECT_EQ(side["size"].text, "10");
        EXPECT_EQ(side["value"]["lock_time"].text, "1000");
        EXPECT_TRUE(side["value"]["inputs"].items.empty());
    }
    {
        const CliRun run = run_cli("inspect header --hex " + std::string(160, '0'));
        ASSERT_EQ(run.exit_status, 0) << run.err;
        EXPECT_EQ(parse_json(run.out)["optimized"]["size"].text, "80");
    }
    {
        // One transaction's undo, two coins with empty scripts: height 1 from a coinbase (code 1*2+1), height 2 not
        // (code 2*2); each: the code, the ignored version VarInt 0, amount 0, script size 6 + 0 (raw, empty).
        const CliRun run = run_cli("inspect block_undo --hex 01020300000604000006");
        ASSERT_EQ(run.exit_status, 0) << run.err;
        const JsonValue result = parse_json(run.out);
        EXPECT_TRUE(result["agree"].boolean);
        for (const char* side_name : {"optimized", "reference"}) {
            SCOPED_TRACE(side_name);
            const JsonValue& coins = result[side_name]["value"]["txundo"].items.at(0)["prevouts"];
            ASSERT_EQ(coins.items.size(), 2u);
            for (size_t i = 0; i < 2; ++i) {
                EXPECT_EQ(coins.items[i]["height"].text, std::to_string(i + 1));
                EXPECT_EQ(coins.items[i]["coinbase"].kind, JsonValue::Kind::Bool);
                EXPECT_EQ(coins.items[i]["coinbase"].boolean, i == 0);
            }
        }
    }
}

TEST(Cli, DecodingErrorsExitOneWithJson)
{
    const struct {
        const char* arguments;
        const char* error;
    } cases[] = {
        {"inspect tx --hex 0200", "end of data"},
        {"inspect compactsize --hex fd0000", "non-canonical"},
        {"inspect varint --int u8 --hex 8100", "size too large"},
        {"inspect tx-nowitness --hex ''", "end of data"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.arguments);
        const CliRun run = run_cli(c.arguments);
        EXPECT_EQ(run.exit_status, 1) << run.err;
        const JsonValue result = parse_json(run.out);
        EXPECT_TRUE(result["agree"].boolean);
        for (const char* side_name : {"optimized", "reference"}) {
            EXPECT_FALSE(result[side_name]["ok"].boolean);
            EXPECT_EQ(result[side_name]["error"].text, c.error);
        }
    }
    const CliRun single = run_cli("inspect locator --impl optimized --hex 01000000");
    EXPECT_EQ(single.exit_status, 1);
    EXPECT_EQ(parse_json(single.out)["error"].text, "end of data");
}

TEST(Cli, BadUsageExitsTwoWithAMessage)
{
    const char* const cases[] = {
        "bogus-command",
        "inspect",
        "inspect nosuchtype --hex 00",
        "inspect tx --hex zz",
        "inspect tx --hex abc",
        "inspect tx /nonexistent/serdiff/input.bin",
        "inspect tx",
        "inspect tx --impl sideways --hex 00",
        "inspect varint --int u128 --hex 00",
        "inspect tx --int u8 --hex 00",
        "inspect tx --no-range-check --hex 00",
        "inspect tx --hex 00 --hex 00",
        "inspect tx --frobnicate --hex 00",
        "inspect block --no-witness --hex 00",
        "inspect tx-nowitness --impl all --hex 00 --no-range-check",
    };
    for (const char* arguments : cases) {
        SCOPED_TRACE(arguments);
        const CliRun run = run_cli(arguments);
        EXPECT_EQ(run.exit_status, 2);
        EXPECT_TRUE(run.out.empty()) << run.out;
        EXPECT_NE(run.err.find("usage"), std::string::npos) << run.err;
    }
}

TEST(Cli, TypesAreTheCodecTableNamesAndTheShortSpellingsMeanTheSame)
{
    // Every name of model::kTypeNames is a TYPE; the short spellings decode exactly as the names they stand for.
    const std::string header = " --hex " + std::string(160, '0');
    const struct {
        std::string canonical, alias;
    } pairs[] = {
        {"inspect compact_size --hex fdfd00", "inspect compactsize --hex fdfd00"},
        {"inspect transaction --hex 020000000000e8030000", "inspect tx --hex 020000000000e8030000"},
        {"inspect transaction --no-witness --hex 0200000000000000000000",
         "inspect tx-nowitness --hex 0200000000000000000000"},
        {"inspect block_header" + header, "inspect header" + header},
        {"inspect block_locator --hex 0100000000", "inspect locator --hex 0100000000"},
        {"inspect block_undo --hex 00", "inspect blockundo --hex 00"},
    };
    for (const auto& pair : pairs) {
        SCOPED_TRACE(pair.canonical);
        const CliRun canonical = run_cli(pair.canonical), alias = run_cli(pair.alias);
        EXPECT_EQ(canonical.exit_status, 0) << canonical.err;
        EXPECT_EQ(canonical.out, alias.out);
    }
    // No inputs, then 01: without witness one output (8-byte amount, empty script) and the lock time; with
    // witness 01 is the flag, then no inputs, no outputs and a witness record with nothing in it.
    const std::string tx = " --hex 02000000" "00" "01" "0000000000000000" "00" "00000000";
    const CliRun no_witness = run_cli("inspect transaction --no-witness" + tx);
    EXPECT_EQ(no_witness.exit_status, 0) << no_witness.out;
    EXPECT_EQ(parse_json(no_witness.out)["reference"]["consumed"].text, "19");
    const CliRun witness = run_cli("inspect transaction" + tx);
    EXPECT_EQ(witness.exit_status, 1) << witness.out;
    EXPECT_EQ(parse_json(witness.out)["reference"]["error"].text, "Superfluous witness record");
}

TEST(Cli, HelpPrintsUsage)
{
    for (const char* arguments : {"", "help", "--help", "inspect --help"}) {
        SCOPED_TRACE(arguments);
        const CliRun run = run_cli(arguments);
        EXPECT_EQ(run.exit_status, 0);
        EXPECT_NE(run.out.find("usage: serdiff"), std::string::npos) << run.out;
    }
}

TEST(Cli, InspectAllShowsEveryPeerWithTheAllowListEntryThatExplainsIt)
{
    // No inputs and a zero segwit flag: Core (and the reference) read an empty transaction; rust-bitcoin
    // and btcd reject it, and the allow-list names why.
    const CliRun run = run_cli("inspect tx --impl all --hex 01000000000000000000");
    if (run.exit_status == 2 && run.err.find("SERDIFF_PEERS=OFF") != std::string::npos)
        GTEST_SKIP() << "serdiff was built without the peers: " << run.err;
    ASSERT_EQ(run.exit_status, 0) << run.err;
    const JsonValue result = parse_json(run.out);
    EXPECT_TRUE(result["agree"].boolean);
    EXPECT_FALSE(result["peers_unexplained"].boolean);
    const JsonValue& rust = result["peers"]["rust-bitcoin"];
    EXPECT_FALSE(rust["agrees_with_reference"].boolean);
    EXPECT_NE(rust["explained_by"].text.find("rust-bitcoin#5460"), std::string::npos) << run.out;
    EXPECT_TRUE(result["peers"]["python-bitcoinlib"]["agrees_with_reference"].boolean);
}

TEST(Cli, InspectAllIsOnlyForTypesThePeersDecode)
{
    const CliRun run = run_cli("inspect header --impl all --hex 00");
    EXPECT_EQ(run.exit_status, 2);
}

}  // namespace
}  // namespace serdiff::test
