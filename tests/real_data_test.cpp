// Real mainnet data from SERDIFF_DATA_DIR: Bitcoin Core's 213 transaction vectors, the largest
// transactions and four blocks decode on both sides to equal objects and re-encode byte-exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace serdiff::test {
namespace {

#define SKIP_WITHOUT_DATA() \
    if (!have_data()) GTEST_SKIP() << "real data directory " << data_dir() << " is absent (see its README.md)"

// Both sides decode `bytes` completely to the same transaction, re-encode it byte-exact, and the
// optimized SizeComputer agrees with the length.
void check_transaction(const Bytes& bytes, const std::string& label)
{
    SCOPED_TRACE(label);
    const auto optimized_tx = kOptimized.transaction.decode(bytes, true);
    const auto reference_tx = kReference.transaction.decode(bytes, true);
    ASSERT_TRUE(optimized_tx.ok) << optimized_tx.error;
    ASSERT_TRUE(reference_tx.ok) << reference_tx.error;
    EXPECT_EQ(optimized_tx.consumed, bytes.size());
    EXPECT_EQ(reference_tx.consumed, bytes.size());
    EXPECT_TRUE(optimized_tx.value == reference_tx.value) << "decoded transactions differ";
    EXPECT_TRUE(kOptimized.transaction.encode(optimized_tx.value, true) == bytes) << "optimized re-encoding differs";
    EXPECT_TRUE(kReference.transaction.encode(reference_tx.value, true) == bytes) << "reference re-encoding differs";
    EXPECT_EQ(optimized::size_transaction(optimized_tx.value, true), bytes.size());
}

// The transaction hex strings of one of Bitcoin Core's tx_valid/tx_invalid files (field 1 of every
// entry that is not a one-element comment).
std::vector<std::string> vector_transactions(const std::filesystem::path& path)
{
    const JsonValue document = parse_json(read_file_text(path));
    std::vector<std::string> transactions;
    for (const JsonValue& entry : document.items) {
        if (entry.items.size() == 1) continue;
        if (entry.items.size() < 2 || entry.items[1].kind != JsonValue::Kind::String)
            throw std::runtime_error("unexpected entry in " + path.string());
        transactions.push_back(entry.items[1].text);
    }
    return transactions;
}

TEST(RealData, BitcoinCoreTransactionVectors)
{
    SKIP_WITHOUT_DATA();
    size_t checked = 0;
    for (const char* name : {"tx_valid.json", "tx_invalid.json"}) {
        const std::vector<std::string> transactions = vector_transactions(data_dir() / "vectors" / name);
        for (size_t i = 0; i < transactions.size(); ++i) {
            Bytes bytes;
            ASSERT_TRUE(model::from_hex(transactions[i], bytes)) << name << " entry " << i;
            check_transaction(bytes, std::string(name) + " transaction " + std::to_string(i));
            ++checked;
        }
    }
    // 120 valid + 93 invalid, as the data directory's README states.
    EXPECT_EQ(checked, 213u);
}

TEST(RealData, MegaTransaction)
{
    SKIP_WITHOUT_DATA();
    const Bytes bytes = read_file_bytes(data_dir() / "tx" / "megatx.bin");
    ASSERT_EQ(bytes.size(), 999'657u);
    check_transaction(bytes, "megatx.bin");
    EXPECT_EQ(kReference.transaction.decode(bytes, true).value.inputs.size(), 5'569u);
}

TEST(RealData, HugeWitnessTransaction)
{
    SKIP_WITHOUT_DATA();
    std::string text = read_file_text(data_dir() / "tx" / "huge_witness.hex");
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    Bytes bytes;
    ASSERT_TRUE(model::from_hex(text, bytes));
    check_transaction(bytes, "huge_witness.hex");
    EXPECT_TRUE(kReference.transaction.decode(bytes, true).value.has_witness());
}

TEST(RealData, MainnetBlocks)
{
    SKIP_WITHOUT_DATA();
    // Transactions and transactions with witness per height, from the data directory's README.
    const std::map<std::string, std::pair<size_t, size_t>> expected_counts = {
        {"413567", {1'557, 0}}, {"540107", {230, 104}}, {"574200", {3'315, 1'341}}, {"702861", {2'500, 2'065}}};
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::directory_iterator(data_dir() / "blocks"))
        if (entry.path().extension() == ".raw") paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    ASSERT_EQ(paths.size(), 4u);
    for (const auto& path : paths) {
        SCOPED_TRACE(path.filename().string());
        const Bytes bytes = read_file_bytes(path);
        const auto optimized_block = kOptimized.block.decode(bytes);
        const auto reference_block = kReference.block.decode(bytes);
        ASSERT_TRUE(optimized_block.ok) << optimized_block.error;
        ASSERT_TRUE(reference_block.ok) << reference_block.error;
        EXPECT_EQ(optimized_block.consumed, bytes.size());
        EXPECT_EQ(reference_block.consumed, bytes.size());
        EXPECT_TRUE(optimized_block.value == reference_block.value) << "decoded blocks differ";
        EXPECT_TRUE(kOptimized.block.encode(optimized_block.value) == bytes) << "optimized re-encoding differs";
        EXPECT_TRUE(kReference.block.encode(reference_block.value) == bytes) << "reference re-encoding differs";
        EXPECT_EQ(optimized::size_block(optimized_block.value), bytes.size());

        const std::string height = path.filename().string().substr(std::string("mainnet-").size(), 6);
        ASSERT_TRUE(expected_counts.contains(height)) << height;
        const auto& transactions = reference_block.value.transactions;
        EXPECT_EQ(transactions.size(), expected_counts.at(height).first);
        EXPECT_EQ(static_cast<size_t>(std::count_if(transactions.begin(), transactions.end(),
                                                    [](const model::Transaction& tx) { return tx.has_witness(); })),
                  expected_counts.at(height).second);
    }
}

}  // namespace
}  // namespace serdiff::test
