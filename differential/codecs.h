// Each object type's optimized and reference codec paired up, with the round-trip rules of docs/format.md.
#pragma once

#include "differential/object_check.h"
#include "model/model.h"

namespace serdiff::differential {

const CodecPair<model::Transaction>& transaction_codec(bool allow_witness);
const CodecPair<model::BlockHeader>& header_codec();
const CodecPair<model::Block>& block_codec();
const CodecPair<model::BlockLocator>& locator_codec();
const CodecPair<model::BlockUndo>& block_undo_codec();

// Amounts in [0, 2^56) survive CompressAmount/DecompressAmount exactly (larger or negative ones may
// wrap in the u64 arithmetic); scripts above MAX_SCRIPT_SIZE come back as OP_RETURN.
bool undo_value_survives_round_trip(const model::BlockUndo& undo);

}  // namespace serdiff::differential
