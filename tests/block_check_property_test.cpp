// Properties of crypto/block_check.h against plain references, on generated inputs (no real data needed):
//   - the merkle root and its CVE-2012-2459 mutation flag over trees with an equal pair planted at every level
//     (a duplicated subtree one or more levels above the leaves leaves no equal pair of leaves), against the tree
//     computed node by node; and a block with such a subtree through check_block and `blockfile scan --verify`;
//   - the witness commitment's output over coinbases with 0-4 commitment-shaped outputs among near misses in
//     every order (the consensus rule takes the LAST), and check_block comparing the last of several.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crypto/block_check.h"
#include "crypto/crypto.h"
#include "model/model.h"
#include "serialize/codec.h"
#include "tests/test_util.h"

namespace serdiff::test {
namespace {

// --- merkle root: a plain reference -----------------------------------------------------------------------

// Nodes at level `height` of a tree over `leaves` leaves: each level halves the one below, rounding up.
size_t level_width(size_t leaves, unsigned height)
{
    for (unsigned h = 0; h < height; ++h) leaves = (leaves + 1) / 2;
    return leaves;
}

// Node `index` of level `height`, straight from Bitcoin's definition: a leaf is its hash; any other node is
// SHA-256d(left child || right child), the right child being the left one again when the level below has no node
// there. Recursive from the root down, sharing nothing with crypto::merkle_root's level-by-level loop; `memo` keeps
// each node once computed (one slot per level and index).
using NodeMemo = std::vector<std::vector<std::optional<model::uint256>>>;
model::uint256 reference_node(const std::vector<model::uint256>& leaves, unsigned height, size_t index, NodeMemo& memo)
{
    if (height == 0) return leaves[index];
    if (memo.size() <= height) memo.resize(height + 1);
    if (memo[height].size() <= index) memo[height].resize(index + 1);
    if (memo[height][index]) return *memo[height][index];
    const model::uint256 left = reference_node(leaves, height - 1, 2 * index, memo);
    const bool right_exists = 2 * index + 1 < level_width(leaves.size(), height - 1);
    const model::uint256 right = right_exists ? reference_node(leaves, height - 1, 2 * index + 1, memo) : left;
    const model::uint256 node = crypto::sha256d(left.bytes, right.bytes);
    memo[height][index] = node;
    return node;
}

struct ReferenceRoot {
    model::uint256 root;
    bool mutated = false;
    std::string where;  // the first equal pair: "level H, nodes I and I+1"
};

// The root, and Core's mutation rule: at ANY level below the root, two equal nodes at a pair position (an even
// index and the one after it, both present) make the tree mutable.
ReferenceRoot reference_merkle(const std::vector<model::uint256>& leaves)
{
    ReferenceRoot out;
    if (leaves.empty()) return out;
    unsigned top = 0;
    while (level_width(leaves.size(), top) > 1) ++top;
    NodeMemo memo;
    out.root = reference_node(leaves, top, 0, memo);
    for (unsigned height = 0; height < top && !out.mutated; ++height) {
        const size_t width = level_width(leaves.size(), height);
        for (size_t i = 0; i + 1 < width; i += 2)
            if (reference_node(leaves, height, i, memo) == reference_node(leaves, height, i + 1, memo)) {
                out.mutated = true;
                out.where = "level " + std::to_string(height) + ", nodes " + std::to_string(i) + " and " +
                            std::to_string(i + 1);
                break;
            }
    }
    return out;
}

// Distinct leaves: leaf i is SHA-256d of (salt, i).
std::vector<model::uint256> distinct_leaves(size_t count, uint8_t salt)
{
    std::vector<model::uint256> leaves;
    for (size_t i = 0; i < count; ++i) {
        const uint8_t seed[3] = {salt, static_cast<uint8_t>(i), static_cast<uint8_t>(i >> 8)};
        leaves.push_back(crypto::sha256d(seed));
    }
    return leaves;
}

std::string describe(const std::vector<model::uint256>& leaves)
{
    // Each leaf by its first byte: enough to see the planted copy.
    std::string text = std::to_string(leaves.size()) + " leaves:";
    for (const auto& leaf : leaves) {
        char hex[4];
        std::snprintf(hex, sizeof hex, " %02x", leaf.bytes[0]);
        text += hex;
    }
    return text;
}

// crypto::merkle_root against the reference: the root (with and without the flag asked for) and the flag.
void expect_merkle_like_reference(const std::vector<model::uint256>& leaves, const std::string& what)
{
    SCOPED_TRACE(what + ": " + describe(leaves));
    const ReferenceRoot expected = reference_merkle(leaves);
    bool mutated = !expected.mutated;  // a value the call must overwrite
    EXPECT_EQ(crypto::merkle_root(leaves, &mutated), expected.root);
    EXPECT_EQ(crypto::merkle_root(leaves), expected.root);
    EXPECT_EQ(mutated, expected.mutated) << "the reference finds "
                                         << (expected.mutated ? "an equal pair at " + expected.where : "no equal pair");
}

TEST(MerkleRoot, MatchesAPlainReferenceWithAnEqualPairPlantedAtEveryLevel)
{
    size_t planted = 0, planted_above_leaves = 0, off_pair = 0;
    for (size_t count = 0; count <= 70; ++count) {
        const std::vector<model::uint256> leaves = distinct_leaves(count, 0xa5);
        expect_merkle_like_reference(leaves, "distinct leaves");
        // At every level below the root, every pair of nodes whose subtrees are both full: node i + 1's leaves
        // made a copy of node i's, so the two nodes are equal and nothing below them is. At a pair position (i
        // even) that is the mutation; one position off (i odd) it is not.
        for (unsigned height = 0; level_width(count, height) > 1; ++height) {
            const size_t span = size_t{1} << height;
            for (size_t i = 0; (i + 2) * span <= count; ++i) {
                std::vector<model::uint256> copied = leaves;
                std::copy_n(leaves.begin() + static_cast<std::ptrdiff_t>(i * span), span,
                            copied.begin() + static_cast<std::ptrdiff_t>((i + 1) * span));
                expect_merkle_like_reference(copied, "level " + std::to_string(height) + ": node " +
                                                         std::to_string(i + 1) + " a copy of node " + std::to_string(i));
                if (i % 2 == 0) {
                    ++planted;
                    planted_above_leaves += height > 0;
                    EXPECT_TRUE(reference_merkle(copied).mutated);
                } else {
                    ++off_pair;
                }
            }
        }
    }
    EXPECT_GE(planted, 500u);
    EXPECT_GE(planted_above_leaves, 200u);
    EXPECT_GE(off_pair, 400u);
}

// CVE-2012-2459 itself: a level with an odd number of nodes pairs its last node with itself, so appending a copy of
// that node's leaves gives a second transaction list with the same root. When the node's subtree is full (a list of
// odd * 2^height leaves), the copy is an equal pair at that level only: above the leaves it is no equal pair of
// leaves. The longer list must be flagged, the shorter one not.
TEST(MerkleRoot, ADuplicatedSubtreeAtAnyLevelGivesTheSameRootAndIsFlagged)
{
    size_t checked = 0;
    for (unsigned height = 0; height <= 4; ++height) {
        const size_t span = size_t{1} << height;
        for (size_t odd : {3, 5, 7}) {
            const std::vector<model::uint256> leaves = distinct_leaves(odd * span, static_cast<uint8_t>(height));
            std::vector<model::uint256> duplicated = leaves;
            duplicated.insert(duplicated.end(), leaves.end() - static_cast<std::ptrdiff_t>(span), leaves.end());
            SCOPED_TRACE(std::to_string(leaves.size()) + " leaves, the last " + std::to_string(span) + " repeated");
            bool mutated = true;
            const model::uint256 root = crypto::merkle_root(leaves, &mutated);
            EXPECT_FALSE(mutated);
            bool duplicated_mutated = false;
            EXPECT_EQ(crypto::merkle_root(duplicated, &duplicated_mutated), root);  // the collision the flag is for
            EXPECT_TRUE(duplicated_mutated) << "a subtree of " << span << " leaves repeated at level " << height;
            expect_merkle_like_reference(duplicated, "duplicated subtree");
            ++checked;
        }
    }
    EXPECT_GE(checked, 15u);
}

// --- a block whose duplicated subtree sits one level up: check_block and scan --verify -----------------------------

model::Transaction small_transaction(uint32_t n)
{
    model::Transaction tx;
    tx.version = 2;
    model::TxIn in;
    in.prevout.hash.bytes.fill(static_cast<uint8_t>(n + 1));
    in.prevout.n = n;
    in.script_sig = model::Script{0x51, static_cast<uint8_t>(n)};
    in.sequence = 0xffffffff;
    tx.inputs.push_back(in);
    tx.outputs.push_back({5000 + static_cast<int64_t>(n), model::Script{0x6a}});
    tx.lock_time = n;
    return tx;
}

std::vector<model::uint256> txids_of(const model::Block& block, bool with_witness)
{
    std::vector<model::uint256> ids;
    for (const auto& tx : block.transactions) ids.push_back(crypto::sha256d(optimized::encode_transaction(tx, with_witness)));
    return ids;
}

TEST(BlockCheck, ADuplicatedSubtreeAboveTheLeavesIsTheMutation)
{
    // Six transactions, then the last two again: leaves t0..t5 t4 t5 hold no equal pair; at level 1 the nodes
    // (t4 t5) and (t4 t5) are one.
    model::Block block;
    for (uint32_t n = 0; n < 6; ++n) block.transactions.push_back(small_transaction(n));
    block.header.version = 4;
    block.header.bits = 0x207fffff;  // regtest's limit: about every other header hash meets it
    block.header.merkle_root = crypto::merkle_root(txids_of(block, false));
    model::Block duplicated = block;
    duplicated.transactions.push_back(block.transactions[4]);
    duplicated.transactions.push_back(block.transactions[5]);
    const std::vector<model::uint256> txids = txids_of(duplicated, false), wtxids = txids_of(duplicated, true);
    ASSERT_EQ(crypto::merkle_root(txids), block.header.merkle_root);
    for (size_t i = 0; i + 1 < txids.size(); i += 2) ASSERT_NE(txids[i], txids[i + 1]);

    const model::uint256 passing_hash{};  // zero meets any valid target
    EXPECT_EQ(crypto::check_block(block, passing_hash, txids_of(block, false), txids_of(block, true)),
              std::vector<std::string>{});
    EXPECT_EQ(crypto::check_block(duplicated, passing_hash, txids, wtxids),
              std::vector<std::string>{"merkle root: duplicate transaction hashes at a pair position (CVE-2012-2459)"});

    // The same block through `serdiff blockfile scan --verify`: the header mined (nonce ground) to meet its nBits.
    Bytes raw;
    for (;; ++duplicated.header.nonce) {
        raw = optimized::encode_block(duplicated);
        if (crypto::hash_at_most(crypto::sha256d(std::span{raw}.first(80)),
                                 crypto::decode_compact_target(duplicated.header.bits).target))
            break;
    }
    TempDir dir{"serdiff-merkle-subtree"};
    std::ofstream(dir / "block.raw", std::ios::binary).write(reinterpret_cast<const char*>(raw.data()),
                                                            static_cast<std::streamsize>(raw.size()));
    const CliRun written = run_cli("blockfile write --key 0000000000000000 " + (dir / "blk00000.dat").string() + " " +
                                   (dir / "block.raw").string());
    ASSERT_EQ(written.exit_status, 0) << written.out << written.err;
    const CliRun scan = run_cli("blockfile scan --verify --key 0000000000000000 " + (dir / "blk00000.dat").string());
    EXPECT_EQ(scan.exit_status, 1) << scan.out << scan.err;
    EXPECT_NE(scan.out.find("0 error: "), std::string::npos) << scan.out << scan.err;
    EXPECT_NE(scan.out.find("CVE-2012-2459"), std::string::npos) << scan.out << scan.err;
}

// --- the witness commitment: the last commitment-shaped output ---------------------------------------------------

// BIP 141's shape, spelled out: OP_RETURN, a 36-byte push, the tag aa21a9ed, then (at least) the 32-byte commitment.
bool commitment_shaped(const model::Script& script)
{
    static const Bytes kHeader = hex("6a24aa21a9ed");
    return script.size() >= 38 && std::equal(kHeader.begin(), kHeader.end(), script.begin());
}

// The consensus rule (Core's GetWitnessCommitmentIndex): the highest index of a commitment-shaped output.
std::optional<size_t> reference_commitment_index(const model::Transaction& coinbase)
{
    for (size_t i = coinbase.outputs.size(); i > 0; --i)
        if (commitment_shaped(coinbase.outputs[i - 1].script_pubkey)) return i - 1;
    return std::nullopt;
}

// Commitment-shaped scripts (38 bytes exactly, and longer) and near misses (one byte short, each header byte
// changed, the tag as the script's second push, empty, P2WPKH), varied by `variant`.
Bytes commitment_script(size_t variant)
{
    Bytes script = hex("6a24aa21a9ed");
    for (int i = 0; i < 32; ++i) script.push_back(static_cast<uint8_t>(variant * 31 + i));
    if (variant % 3 == 1) script.push_back(0x00);  // 39 bytes: extra data after the commitment is allowed
    if (variant % 3 == 2) script.insert(script.end(), 42, 0x51);
    return script;
}
Bytes near_miss_script(size_t variant)
{
    Bytes script = commitment_script(variant);
    switch (variant % 9) {
    case 0: script.resize(37); break;  // one byte short of the commitment
    case 1: case 2: case 3: case 4: case 5: case 6: script[variant % 9 - 1] ^= 0x01; break;  // a header byte off
    case 7: script.insert(script.begin(), {0x6a, 0x01, 0x00}); break;  // the shape, but not at the start
    default: return variant % 2 ? Bytes{} : hex("0014" + std::string(40, '7'));
    }
    return script;
}

TEST(WitnessCommitment, IndexIsTheLastCommitmentShapedOutputInEveryOrder)
{
    // Every sequence of up to 7 outputs, each commitment-shaped or a near miss, with at most 4 shaped: every order
    // of 0-4 commitments among the others.
    size_t checked = 0, with_several = 0;
    for (size_t length = 0; length <= 7; ++length) {
        for (uint32_t mask = 0; mask < (1u << length); ++mask) {
            if (std::popcount(mask) > 4) continue;
            model::Transaction coinbase = small_transaction(0);
            coinbase.outputs.clear();
            std::string shape;
            for (size_t i = 0; i < length; ++i) {
                const bool shaped = (mask >> i) & 1;
                const size_t variant = checked + 7 * i;
                coinbase.outputs.push_back({0, model::Script(shaped ? commitment_script(variant) : near_miss_script(variant))});
                shape += shaped ? 'C' : '-';
                ASSERT_EQ(commitment_shaped(coinbase.outputs.back().script_pubkey), shaped) << variant;
            }
            const std::optional<size_t> expected = reference_commitment_index(coinbase);
            EXPECT_EQ(crypto::witness_commitment_index(coinbase), expected) << "outputs " << shape;
            ++checked;
            with_several += std::popcount(mask) >= 2;
        }
    }
    EXPECT_GE(checked, 200u);
    EXPECT_GE(with_several, 100u);
}

// A block with witness data whose coinbase holds several commitment-shaped outputs: the last one is checked (and
// named in the failure), whatever the others commit to.
TEST(BlockCheck, TheWitnessCommitmentCheckedIsTheLastOfSeveral)
{
    model::Block block;
    block.header.bits = 0x207fffff;
    model::Transaction coinbase = small_transaction(0);
    coinbase.inputs[0].witness.push_back(Bytes(32, 0x00));  // the reserved value
    model::Transaction spend = small_transaction(1);
    spend.inputs[0].witness.push_back(hex("30440220"));
    block.transactions = {coinbase, spend};
    const std::vector<model::uint256> txids = txids_of(block, false);
    const std::vector<model::uint256> wtxids = txids_of(block, true);
    block.header.merkle_root = crypto::merkle_root(txids);
    std::vector<model::uint256> witness_leaves = wtxids;
    witness_leaves[0] = {};
    const model::uint256 witness_root = crypto::merkle_root(witness_leaves);
    const model::uint256 commitment = crypto::sha256d(witness_root.bytes, Bytes(32, 0x00));
    auto shaped = [](const model::uint256& committed) {
        Bytes script = hex("6a24aa21a9ed");
        script.insert(script.end(), committed.bytes.begin(), committed.bytes.end());
        return model::Script(script);
    };
    model::uint256 wrong = commitment;
    wrong.bytes[0] ^= 0xff;
    const model::Script good = shaped(commitment), bad = shaped(wrong), other = model::Script{0x51};

    struct Case {
        std::vector<model::Script> outputs;
        std::optional<size_t> failing_output;  // the output a failure names, if the block must fail
    };
    const Case cases[] = {
        {{good}, std::nullopt},
        {{bad, good}, std::nullopt},
        {{bad, bad, other, good, other}, std::nullopt},
        {{bad, bad, bad, good}, std::nullopt},
        {{good, bad}, 1},
        {{other, good, good, bad, other}, 3},
        {{good, good, good, bad}, 3},
    };
    const model::uint256 passing_hash{};
    for (const Case& c : cases) {
        model::Block variant = block;
        variant.transactions[0].outputs.clear();
        for (const model::Script& script : c.outputs) variant.transactions[0].outputs.push_back({0, script});
        const std::vector<model::uint256> ids = txids_of(variant, false);
        std::vector<model::uint256> wids = txids_of(variant, true);
        variant.header.merkle_root = crypto::merkle_root(ids);
        const std::vector<std::string> failures = crypto::check_block(variant, passing_hash, ids, wids);
        SCOPED_TRACE(std::to_string(c.outputs.size()) + " outputs");
        if (!c.failing_output) {
            EXPECT_EQ(failures, std::vector<std::string>{});
        } else {
            ASSERT_EQ(failures.size(), 1u);
            EXPECT_EQ(failures[0].rfind("witness commitment: coinbase output " + std::to_string(*c.failing_output) +
                                            " commits to ",
                                        0),
                      0u)
                << failures[0];
        }
    }
}

}  // namespace
}  // namespace serdiff::test
