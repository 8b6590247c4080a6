// Between serdiff's model types and Bitcoin Core's (CMutableTransaction, CBlock, CBlockUndo, ...), and Core's
// error messages mapped onto model::errors (docs/core.md "Errors").
#pragma once

#include <exception>
#include <string>

#include <primitives/block.h>
#include <primitives/transaction.h>
#include <undo.h>

#include "model/model.h"

namespace serdiff::core_subject {

CScript to_core(const model::Script& script);
model::Script from_core(const CScript& script);
uint256 to_core(const model::uint256& hash);
model::uint256 from_core(const uint256& hash);
CMutableTransaction to_core(const model::Transaction& tx);
CScriptWitness to_core(const model::WitnessStack& witness);
model::Transaction from_core(const CTransaction& tx);
model::Transaction from_core(const CMutableTransaction& tx);
CBlockHeader to_core(const model::BlockHeader& header);
model::BlockHeader from_core(const CBlockHeader& header);
CBlock to_core(const model::Block& block);
model::Block from_core(const CBlock& block);
CBlockUndo to_core(const model::BlockUndo& undo);
model::BlockUndo from_core(const CBlockUndo& undo);
CTxOut to_core(const model::TxOut& out);
model::TxOut from_core(const CTxOut& out);

// Whether `core` holds what to_core(value) builds, every field compared (no allocation, no hashing): the object
// converted for a value's encoding serves its size too when the size is asked of the same value (subject.cpp).
// A height that Coin's 31 bits cannot hold compares unequal, so such a value is converted again.
bool same(const model::Transaction& value, const CMutableTransaction& core);
bool same(const model::Block& value, const CBlock& core);
bool same(const model::BlockUndo& value, const CBlockUndo& core);

// The model::errors text for an error Core threw: Core names the function ("DataStream::read(): end of data",
// "non-canonical ReadCompactSize()"), docs/format.md only the condition. A message with no counterpart comes
// back as "Bitcoin Core: <message>", which no reference error equals, so the difference is reported.
std::string error_text(const std::exception& error);

}  // namespace serdiff::core_subject
