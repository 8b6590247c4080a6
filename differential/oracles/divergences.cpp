// The allow-list of known peer divergences (see docs/divergences.md, produced by serdiff_peer_check --table).
#include "differential/oracles/divergences.h"

#include <vector>

#include "differential/reference/reference.h"

namespace serdiff::oracles {

namespace {

using model::Bytes;

// Where each transaction the reference read (or failed to read) starts; the last one is where a
// rejected input failed.
std::vector<size_t> transaction_starts(const Observation& observation)
{
    if (observation.kind == ObjectKind::transaction) return {0};
    std::vector<size_t> starts;
    reference::Reader reader(observation.input);
    reference::read_header(reader);
    const uint64_t count = reader.read_compactsize();
    for (uint64_t i = 0; i < count && !reader.failed(); ++i) {
        starts.push_back(reader.position());
        reference::read_transaction(reader, true);
    }
    return starts;
}

// The two bytes after the version of the transaction starting at `start` (marker and flag), if present.
bool marker_and_flag(const Observation& observation, size_t start, uint8_t& marker, uint8_t& flag)
{
    if (start + 6 > observation.input.size()) return false;
    marker = observation.input[start + 4];
    flag = observation.input[start + 5];
    return true;
}

bool witness_allowed(const Observation& observation)
{
    return observation.allow_witness || observation.kind == ObjectKind::block;
}

bool reference_only_accepts(const Observation& observation)
{
    return observation.reference.accepted && !observation.peer_verdict.accepted;
}

bool peer_only_accepts(const Observation& observation)
{
    return !observation.reference.accepted && observation.peer_verdict.accepted;
}

bool peer_error_mentions(const Observation& observation, std::string_view text)
{
    return observation.peer_verdict.error.find(text) != std::string::npos;
}

// Some transaction is written `version 00 00`: no inputs, a zero flag, no outputs (Core reads it).
bool has_zero_flag_transaction(const Observation& observation)
{
    if (!witness_allowed(observation)) return false;
    for (size_t start : transaction_starts(observation)) {
        uint8_t marker = 0, flag = 0;
        if (marker_and_flag(observation, start, marker, flag) && marker == 0 && flag == 0) return true;
    }
    return false;
}

// The transaction the reference failed on starts `version 00 <flag>` with the given flag test.
template <typename FlagTest>
bool failing_transaction_flag(const Observation& observation, FlagTest flag_test)
{
    const std::vector<size_t> starts = transaction_starts(observation);
    uint8_t marker = 0, flag = 0;
    return witness_allowed(observation) && !starts.empty() &&
           marker_and_flag(observation, starts.back(), marker, flag) && marker == 0 && flag_test(flag);
}

size_t compactsize_length(uint64_t value) { return value < 0xfd ? 1 : value <= 0xffff ? 3 : value <= 0xffffffff ? 5 : 9; }

// rust-bitcoin keeps one input's whole witness (items with their length prefixes) under MAX_VEC_SIZE.
bool has_witness_over_4mb(const Observation& observation)
{
    for (const model::Transaction& tx : observation.reference.transactions)
        for (const model::TxIn& input : tx.inputs) {
            size_t total = 0;
            for (const model::WitnessStack::Item item : input.witness) total += compactsize_length(item.size()) + item.size();
            if (total > 4'000'000) return true;
        }
    return false;
}

// btcd reads every script and witness item with a 4,000,000-byte cap, into one 4 MiB slab per transaction.
bool has_script_over_btcd_limits(const Observation& observation)
{
    for (const model::Transaction& tx : observation.reference.transactions) {
        size_t total = 0;
        auto count = [&](std::span<const uint8_t> script) {
            total += script.size();
            return script.size() > 4'000'000;
        };
        bool oversized = false;
        for (const model::TxIn& input : tx.inputs) {
            oversized |= count(input.script_sig);
            for (const model::WitnessStack::Item item : input.witness) oversized |= count(item);
        }
        for (const model::TxOut& output : tx.outputs) oversized |= count(output.script_pubkey);
        if (oversized || total > (size_t{1} << 22)) return true;
    }
    return false;
}

Bytes from_hex(const std::string& hex)
{
    Bytes bytes;
    model::from_hex(hex, bytes);
    return bytes;
}

// Hex of `count` zero bytes (an all-zero prevout, amount or lock_time).
std::string zero_bytes(size_t count) { return std::string(2 * count, '0'); }

void append_u32(Bytes& out, uint32_t value)
{
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

// A version-1 transaction, one input whose scriptSig has `script_length` bytes (CompactSize `length_prefix`),
// one empty output, lock_time 0. With `witness_item_length`, the script is empty and the input instead
// carries one witness item of that many bytes.
Bytes one_input_transaction(const Bytes& length_prefix, size_t script_length, size_t witness_item_length = 0)
{
    Bytes tx;
    append_u32(tx, 1);
    if (witness_item_length > 0) tx.insert(tx.end(), {0x00, 0x01});
    tx.push_back(0x01);
    tx.insert(tx.end(), 36, 0x00);  // prevout
    tx.insert(tx.end(), length_prefix.begin(), length_prefix.end());
    tx.insert(tx.end(), script_length, 0x51);
    append_u32(tx, 0xffffffff);
    tx.insert(tx.end(), {0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x00});  // one output: amount 0, empty script
    if (witness_item_length > 0) {
        model::Bytes prefix = reference::encode_compactsize(witness_item_length);
        tx.push_back(0x01);
        tx.insert(tx.end(), prefix.begin(), prefix.end());
        tx.insert(tx.end(), witness_item_length, 0x51);
    }
    append_u32(tx, 0);
    return tx;
}

constexpr size_t kAboveMaxSize = 0x02000001;
constexpr size_t kAbovePeerItemLimit = 4'000'001;

const AllowedDivergence kAllowList[] = {
    // Core reads `00 00` after the version as "no inputs, flag 0, no outputs"; rust-bitcoin treats
    // the zero-input marker as always introducing a segwit flag and refuses flag 0 on purpose.
    {"rust-bitcoin", "rejects a transaction with no inputs and a zero segwit flag (`00 00`) that Core reads as empty",
     "rust-bitcoin/rust-bitcoin#5460 (0-input 0-output transactions; intentional, see rust-bitcoin/rust-bitcoin#219 "
     "and rust-bitcoin/rust-bitcoincore-rpc#197)",
     ObjectKind::transaction, "version 1, `00 00`, lock_time 0",
     [] { return from_hex("01000000000000000000"); },
     [](const Observation& o) {
         return reference_only_accepts(o) && peer_error_mentions(o, "unsupported segwit version: 0") &&
                has_zero_flag_transaction(o);
     }},
    // btcd's MsgTx decoder requires the flag after a zero marker to be exactly 0x01.
    {"btcd", "rejects a transaction with no inputs and a zero segwit flag (`00 00`) that Core reads as empty",
     "btcsuite/btcd wire/v2 msgtx.go btcDecode: \"At the moment, the flag MUST be WitnessFlag (0x01)\" "
     "(segwit support, btcsuite/btcd#656)",
     ObjectKind::transaction, "version 1, `00 00`, lock_time 0",
     [] { return from_hex("01000000000000000000"); },
     [](const Observation& o) {
         return reference_only_accepts(o) && peer_error_mentions(o, "witness tx but flag byte is 00") &&
                has_zero_flag_transaction(o);
     }},
    // rust-bitcoin raises "witness flag set but no witnesses present" only when there are inputs, so a
    // segwit-flagged transaction whose input vector is empty decodes (its deliberate zero-input rule).
    {"rust-bitcoin", "accepts a segwit-flagged transaction with an empty input vector (Core: Superfluous witness record)",
     "rust-bitcoin/rust-bitcoin#2681 (maintainer: zero-input transactions are a deliberate deviation from Core)",
     ObjectKind::transaction, "version 1, `00 01`, 0 inputs, 0 outputs, lock_time 0",
     [] { return from_hex("010000000001000000000000"); },
     [](const Observation& o) {
         return peer_only_accepts(o) && o.reference.error == model::errors::kSuperfluousWitness &&
                failing_transaction_flag(o, [](uint8_t flag) { return flag == 1; });
     }},
    // python-bitcoinlib reads the witnesses after `00 01` without checking that any is non-empty.
    {"python-bitcoinlib", "accepts a segwit flag whose witnesses are all empty (Core: Superfluous witness record)",
     "petertodd/python-bitcoinlib#221 (flagbyte == 1 but wit.is_null()), open fix petertodd/python-bitcoinlib#250",
     ObjectKind::transaction, "version 1, `00 01`, 1 input with an empty witness, 1 output, lock_time 0",
     [] {
         return from_hex("01000000" "0001" "01" + zero_bytes(36) + "00" "ffffffff" "01" + zero_bytes(8) + "00" +
                         "00" "00000000");
     },
     [](const Observation& o) {
         return peer_only_accepts(o) && o.reference.error == model::errors::kSuperfluousWitness &&
                failing_transaction_flag(o, [](uint8_t flag) { return flag == 1; });
     }},
    // python-bitcoinlib only takes `00 01` as the segwit marker; `00 <other>` is re-read as a legacy
    // transaction with no inputs and <other> outputs, where Core reads flag bits it does not know.
    {"python-bitcoinlib", "reads `00 <flag>` with a flag other than 0 or 1 as a legacy transaction with no inputs",
     "petertodd/python-bitcoinlib#220 (CTransaction.deserialize allows flagbytes != 1)",
     ObjectKind::transaction, "version 1, `00 02`, two empty outputs (read by Core as flag 2), lock_time 0",
     [] { return from_hex("01000000" "0002" + zero_bytes(9) + zero_bytes(9) + "00000000"); },
     [](const Observation& o) {
         return peer_only_accepts(o) && failing_transaction_flag(o, [](uint8_t flag) { return flag > 1; });
     }},
    // python-bitcoinlib's VarIntSerializer reads any of the four forms for any value.
    {"python-bitcoinlib", "accepts a non-canonical CompactSize (and re-encodes it canonically)",
     "petertodd/python-bitcoinlib#216 (enforce canonical encoding and MAX_SIZE in VarIntSerializer, open)",
     ObjectKind::transaction, "a legacy transaction whose input count 1 is written `fd 01 00`",
     [] {
         return from_hex("01000000" "fd0100" + zero_bytes(36) + "00" "ffffffff" "01" + zero_bytes(8) + "00" +
                         "00000000");
     },
     [](const Observation& o) { return peer_only_accepts(o) && o.reference.error == model::errors::kNonCanonical; }},
    // rust-bitcoin 0.32.9 added Core's MAX_SIZE range check to VarInt decoding; 0.32.10 reverted it.
    {"rust-bitcoin", "accepts a CompactSize length above MAX_SIZE (0x02000000) when the bytes are there",
     "rust-bitcoin/rust-bitcoin#6182 (revert of the 0.32.9 range check rust-bitcoin/rust-bitcoin#5921, backport of "
     "rust-bitcoin/rust-bitcoin#5697; reported as rust-bitcoin/rust-bitcoin#6138)",
     ObjectKind::transaction, "a legacy transaction whose scriptSig has 0x02000001 bytes (33.5 MB input)",
     [] { return one_input_transaction(from_hex("fe01000002"), kAboveMaxSize); },
     [](const Observation& o) { return peer_only_accepts(o) && o.reference.error == model::errors::kSizeTooLarge; }},
    // rust-bitcoin's Witness decoder caps one input's witness at MAX_VEC_SIZE = 4,000,000 bytes.
    {"rust-bitcoin", "rejects an input whose witness holds more than 4,000,000 bytes (Core: up to MAX_SIZE per item)",
     "docs.rs/bitcoin/0.32 consensus::encode::MAX_VEC_SIZE, applied in Witness::consensus_decode "
     "(see rust-bitcoin/rust-bitcoin#1362)",
     ObjectKind::transaction, "a segwit transaction, one input with one 4,000,001-byte witness item",
     [] { return one_input_transaction(from_hex("00"), 0, kAbovePeerItemLimit); },
     [](const Observation& o) {
         return reference_only_accepts(o) && peer_error_mentions(o, "allocation of oversized vector") &&
                has_witness_over_4mb(o);
     }},
    // btcd's readScriptBuf caps every script and witness item at maxWitnessItemSize = 4,000,000 bytes
    // (raised from 11,000 after the 2022 incident), and a transaction's scripts share one 4 MiB slab.
    {"btcd", "rejects a script or witness item above 4,000,000 bytes, or a transaction with over 4 MiB of scripts",
     "btcsuite/btcd#1896 (maxWitnessItemSize = 4_000_000, reported as btcsuite/btcd#1897); wire/v2 msgtx.go "
     "scriptSlabSize = 1 << 22",
     ObjectKind::transaction, "a legacy transaction whose scriptSig has 4,000,001 bytes",
     [] { return one_input_transaction(from_hex("fe01093d00"), kAbovePeerItemLimit); },
     [](const Observation& o) {
         return reference_only_accepts(o) &&
                (peer_error_mentions(o, "larger than the max allowed size") ||
                 peer_error_mentions(o, "exceeds remaining buffer capacity")) &&
                has_script_over_btcd_limits(o);
     }},
};

}  // namespace

std::span<const AllowedDivergence> allowed_divergences() { return kAllowList; }

const AllowedDivergence* explain(const Observation& observation)
{
    for (const AllowedDivergence& entry : kAllowList)
        if (observation.peer == entry.peer && entry.explains(observation)) return &entry;
    return nullptr;
}

}  // namespace serdiff::oracles
