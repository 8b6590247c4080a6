// Between serdiff's model types and Bitcoin Core's, and Core's errors as model::errors (convert.h).
#include "subjects/core/convert.h"

#include <algorithm>
#include <ios>
#include <string_view>
#include <typeinfo>

#include "differential/observe.h"

namespace serdiff::core_subject {

CScript to_core(const model::Script& script) { return CScript(script.begin(), script.end()); }
model::Script from_core(const CScript& script)
{
    return model::Script(std::span<const uint8_t>(script.data(), script.size()));
}

uint256 to_core(const model::uint256& hash) { return uint256(std::span<const unsigned char>(hash.bytes)); }
model::uint256 from_core(const uint256& hash)
{
    model::uint256 out;
    std::copy(hash.begin(), hash.end(), out.bytes.begin());
    return out;
}

CTxOut to_core(const model::TxOut& out) { return CTxOut(out.value, to_core(out.script_pubkey)); }
model::TxOut from_core(const CTxOut& out) { return {out.nValue, from_core(out.scriptPubKey)}; }

CScriptWitness to_core(const model::WitnessStack& witness)
{
    CScriptWitness out;
    out.stack.reserve(witness.size());
    for (const auto item : witness) out.stack.emplace_back(item.begin(), item.end());
    return out;
}

CMutableTransaction to_core(const model::Transaction& tx)
{
    CMutableTransaction out;
    out.version = tx.version;
    out.nLockTime = tx.lock_time;
    out.vin.reserve(tx.inputs.size());
    for (const model::TxIn& in : tx.inputs) {
        CTxIn& core = out.vin.emplace_back(COutPoint(Txid::FromUint256(to_core(in.prevout.hash)), in.prevout.n),
                                           to_core(in.script_sig), in.sequence);
        core.scriptWitness = to_core(in.witness);
    }
    out.vout.reserve(tx.outputs.size());
    for (const model::TxOut& txout : tx.outputs) out.vout.push_back(to_core(txout));
    return out;
}

namespace {
template <typename CoreTransaction>
model::Transaction transaction_from_core(const CoreTransaction& tx)
{
    model::Transaction out;
    out.version = tx.version;
    out.lock_time = tx.nLockTime;
    out.inputs.reserve(tx.vin.size());
    for (const CTxIn& in : tx.vin) {
        model::TxIn& model_in = out.inputs.emplace_back();
        model_in.prevout = {from_core(in.prevout.hash.ToUint256()), in.prevout.n};
        model_in.script_sig = from_core(in.scriptSig);
        model_in.sequence = in.nSequence;
        size_t witness_bytes = 0;
        for (const auto& item : in.scriptWitness.stack)
            witness_bytes += model::compact_size_length(item.size()) + item.size();
        model_in.witness.reserve(witness_bytes);
        for (const auto& item : in.scriptWitness.stack) model_in.witness.push_back(std::span<const uint8_t>(item));
    }
    out.outputs.reserve(tx.vout.size());
    for (const CTxOut& txout : tx.vout) out.outputs.push_back(from_core(txout));
    return out;
}
}  // namespace

model::Transaction from_core(const CTransaction& tx) { return transaction_from_core(tx); }
model::Transaction from_core(const CMutableTransaction& tx) { return transaction_from_core(tx); }

CBlockHeader to_core(const model::BlockHeader& header)
{
    CBlockHeader out;
    out.nVersion = header.version;
    out.hashPrevBlock = to_core(header.prev_block);
    out.hashMerkleRoot = to_core(header.merkle_root);
    out.nTime = header.time;
    out.nBits = header.bits;
    out.nNonce = header.nonce;
    return out;
}
model::BlockHeader from_core(const CBlockHeader& header)
{
    return {header.nVersion, from_core(header.hashPrevBlock), from_core(header.hashMerkleRoot),
            header.nTime,    header.nBits,                    header.nNonce};
}

CBlock to_core(const model::Block& block)
{
    CBlock out(to_core(block.header));
    out.vtx.reserve(block.transactions.size());
    for (const model::Transaction& tx : block.transactions) out.vtx.push_back(MakeTransactionRef(to_core(tx)));
    return out;
}
model::Block from_core(const CBlock& block)
{
    model::Block out{from_core(static_cast<const CBlockHeader&>(block)), {}};
    out.transactions.reserve(block.vtx.size());
    for (const CTransactionRef& tx : block.vtx) out.transactions.push_back(from_core(*tx));
    return out;
}

CBlockUndo to_core(const model::BlockUndo& undo)
{
    CBlockUndo out;
    out.vtxundo.reserve(undo.txundo.size());
    for (const model::TxUndo& tx_undo : undo.txundo) {
        CTxUndo& core = out.vtxundo.emplace_back();
        core.vprevout.reserve(tx_undo.prevouts.size());
        for (const model::Coin& coin : tx_undo.prevouts)
            core.vprevout.emplace_back(to_core(coin.out), static_cast<int>(coin.height), coin.coinbase);
    }
    return out;
}
model::BlockUndo from_core(const CBlockUndo& undo)
{
    model::BlockUndo out;
    out.txundo.reserve(undo.vtxundo.size());
    for (const CTxUndo& core : undo.vtxundo) {
        model::TxUndo& tx_undo = out.txundo.emplace_back();
        tx_undo.prevouts.reserve(core.vprevout.size());
        for (const Coin& coin : core.vprevout)
            tx_undo.prevouts.push_back(  // fCoinBase: a one-bit field, unsigned int in older trees
                {from_core(coin.out), static_cast<uint32_t>(coin.nHeight), static_cast<bool>(coin.fCoinBase)});
    }
    return out;
}

// same() is the adapter's bookkeeping, not Core's code: it is compiled without coverage instrumentation, so its
// loops and comparisons add no edges or features that would make libFuzzer keep inputs for the adapter's sake.
#if defined(__clang__)
#define SERDIFF_CORE_NOT_COVERED __attribute__((no_sanitize("coverage"), flatten))
#else
#define SERDIFF_CORE_NOT_COVERED
#endif

namespace {
SERDIFF_CORE_NOT_COVERED bool same_bytes(std::span<const uint8_t> value, std::span<const uint8_t> core) { return std::ranges::equal(value, core); }
SERDIFF_CORE_NOT_COVERED bool same(const model::Script& value, const CScript& core)
{
    return same_bytes(std::span<const uint8_t>(value.data(), value.size()),
                      std::span<const uint8_t>(core.data(), core.size()));
}
SERDIFF_CORE_NOT_COVERED bool same(const model::uint256& value, const uint256& core)
{
    return same_bytes(value.bytes, std::span<const uint8_t>(core.data(), core.size()));
}
SERDIFF_CORE_NOT_COVERED bool same(const model::TxOut& value, const CTxOut& core)
{
    return value.value == core.nValue && same(value.script_pubkey, core.scriptPubKey);
}
SERDIFF_CORE_NOT_COVERED bool same(const model::WitnessStack& value, const CScriptWitness& core)
{
    if (value.size() != core.stack.size()) return false;
    auto item = core.stack.begin();
    for (const auto value_item : value)
        if (!same_bytes(value_item, *item++)) return false;
    return true;
}
template <typename CoreTransaction>
SERDIFF_CORE_NOT_COVERED bool same_transaction(const model::Transaction& value, const CoreTransaction& core)
{
    if (value.version != core.version || value.lock_time != core.nLockTime || value.inputs.size() != core.vin.size() ||
        value.outputs.size() != core.vout.size())
        return false;
    for (size_t i = 0; i < value.inputs.size(); ++i) {
        const model::TxIn& in = value.inputs[i];
        const CTxIn& core_in = core.vin[i];
        if (!same(in.prevout.hash, core_in.prevout.hash.ToUint256()) || in.prevout.n != core_in.prevout.n ||
            in.sequence != core_in.nSequence || !same(in.script_sig, core_in.scriptSig) ||
            !same(in.witness, core_in.scriptWitness))
            return false;
    }
    for (size_t i = 0; i < value.outputs.size(); ++i)
        if (!same(value.outputs[i], core.vout[i])) return false;
    return true;
}
}  // namespace

SERDIFF_CORE_NOT_COVERED bool same(const model::Transaction& value, const CMutableTransaction& core)
{
    return same_transaction(value, core);
}

SERDIFF_CORE_NOT_COVERED bool same(const model::Block& value, const CBlock& core)
{
    const model::BlockHeader& header = value.header;
    if (header.version != core.nVersion || !same(header.prev_block, core.hashPrevBlock) ||
        !same(header.merkle_root, core.hashMerkleRoot) || header.time != core.nTime || header.bits != core.nBits ||
        header.nonce != core.nNonce || value.transactions.size() != core.vtx.size())
        return false;
    for (size_t i = 0; i < value.transactions.size(); ++i)
        if (!core.vtx[i] || !same_transaction(value.transactions[i], *core.vtx[i])) return false;
    return true;
}

SERDIFF_CORE_NOT_COVERED bool same(const model::BlockUndo& value, const CBlockUndo& core)
{
    if (value.txundo.size() != core.vtxundo.size()) return false;
    for (size_t t = 0; t < value.txundo.size(); ++t) {
        const std::vector<model::Coin>& coins = value.txundo[t].prevouts;
        const std::vector<Coin>& core_coins = core.vtxundo[t].vprevout;
        if (coins.size() != core_coins.size()) return false;
        for (size_t c = 0; c < coins.size(); ++c)
            if (coins[c].height != static_cast<uint32_t>(core_coins[c].nHeight) ||
                coins[c].coinbase != core_coins[c].fCoinBase || !same(coins[c].out, core_coins[c].out))
                return false;
    }
    return true;
}

std::string error_text(const std::exception& error)
{
    const std::string_view what = error.what();
    // The seam maps Core's wording onto serdiff's (below), so a HEAD that throws another type or text than its BASE
    // maps alike: the raw type and text are observed for the HEAD-vs-BASE comparison (differential/observe.h).
    if (differential::observing()) {
        thread_local std::string raw;  // reused: no allocation per exception once it has grown
        raw.assign(typeid(error).name());
        raw += ": ";
        raw += what;
        differential::observe_text("Core's exception before the seam maps it (type: what())", raw);
    }
    if (dynamic_cast<const std::ios_base::failure*>(&error)) {
        // std::ios_base::failure appends the error code's text (": iostream error"); Core's text comes first.
        const auto has = [what](std::string_view text) { return what.find(text) != std::string_view::npos; };
        if (has("): end of data") || has(": end of file")) return model::errors::kEndOfData;
        if (has("non-canonical ReadCompactSize()")) return model::errors::kNonCanonical;
        // BufferedFile's refusals (streams.h): a read past SetLimit's limit, a rewind not below the buffer size.
        if (has("Attempt to position past buffer limit")) return model::errors::kPastReadLimit;
        if (has("Rewind limit must be less than buffer size")) return model::errors::kRewindNotBelowBuffer;
        // CompactSizeFormatter's refusal of a value past its integer type (Core's COMPACTSIZE) is serdiff's "size
        // too large" (docs/format.md "Errors").
        if (has("ReadCompactSize(): size too large") || has("ReadVarInt(): size too large") ||
            has("CompactSize exceeds limit of type"))
            return model::errors::kSizeTooLarge;
        for (const char* same : {model::errors::kSuperfluousWitness, model::errors::kUnknownOptionalData,
                                 model::errors::kStringLimit})
            if (what.starts_with(same)) return same;
    }
    return "Bitcoin Core: " + std::string(what);
}

}  // namespace serdiff::core_subject
