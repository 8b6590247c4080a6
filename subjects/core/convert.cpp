// Between serdiff's model types and Bitcoin Core's, and Core's errors as model::errors (convert.h).
#include "subjects/core/convert.h"

#include <ios>
#include <string_view>

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

CMutableTransaction to_core(const model::Transaction& tx)
{
    CMutableTransaction out;
    out.version = tx.version;
    out.nLockTime = tx.lock_time;
    out.vin.reserve(tx.inputs.size());
    for (const model::TxIn& in : tx.inputs) {
        CTxIn& core = out.vin.emplace_back(COutPoint(Txid::FromUint256(to_core(in.prevout.hash)), in.prevout.n),
                                           to_core(in.script_sig), in.sequence);
        for (const auto item : in.witness) core.scriptWitness.stack.emplace_back(item.begin(), item.end());
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
    for (const model::TxUndo& tx_undo : undo.txundo) {
        CTxUndo& core = out.vtxundo.emplace_back();
        for (const model::Coin& coin : tx_undo.prevouts)
            core.vprevout.emplace_back(to_core(coin.out), static_cast<int>(coin.height), coin.coinbase);
    }
    return out;
}
model::BlockUndo from_core(const CBlockUndo& undo)
{
    model::BlockUndo out;
    for (const CTxUndo& core : undo.vtxundo) {
        model::TxUndo& tx_undo = out.txundo.emplace_back();
        for (const Coin& coin : core.vprevout)
            tx_undo.prevouts.push_back({from_core(coin.out), static_cast<uint32_t>(coin.nHeight), coin.fCoinBase});
    }
    return out;
}

std::string error_text(const std::exception& error)
{
    const std::string_view what = error.what();
    if (dynamic_cast<const std::ios_base::failure*>(&error)) {
        // std::ios_base::failure appends the error code's text (": iostream error"); Core's text comes first.
        const auto has = [what](std::string_view text) { return what.find(text) != std::string_view::npos; };
        if (has("): end of data") || has(": end of file")) return model::errors::kEndOfData;
        if (has("non-canonical ReadCompactSize()")) return model::errors::kNonCanonical;
        if (has("ReadCompactSize(): size too large") || has("ReadVarInt(): size too large"))
            return model::errors::kSizeTooLarge;
        for (const char* same : {model::errors::kSuperfluousWitness, model::errors::kUnknownOptionalData,
                                 model::errors::kStringLimit})
            if (what.starts_with(same)) return same;
    }
    return "Bitcoin Core: " + std::string(what);
}

}  // namespace serdiff::core_subject
