// Each object type's optimized and reference codec paired up, with the round-trip rules of docs/format.md.
#pragma once

#include "differential/object_check.h"
#include "model/codec_table.h"
#include "model/model.h"

namespace serdiff::differential {

// The optimized and reference entries of model/codec_table.h paired, with each type's round-trip rules.
const CodecPair<model::Transaction>& transaction_codec(bool allow_witness);
#define SERDIFF_DECLARE_CODEC_PAIR(name, Type, stem) const CodecPair<model::Type>& name##_codec();
SERDIFF_OBJECT_TYPES(SERDIFF_DECLARE_CODEC_PAIR)
#undef SERDIFF_DECLARE_CODEC_PAIR

// Amounts in [0, 2^56) survive CompressAmount/DecompressAmount exactly (larger or negative ones may
// wrap in the u64 arithmetic); scripts above MAX_SCRIPT_SIZE come back as OP_RETURN.
bool undo_value_survives_round_trip(const model::BlockUndo& undo);

}  // namespace serdiff::differential
