// Target block_undo: coins with VarInt codes, compressed amounts and scripts, decoded and compared on both sides.
#include "differential/codecs.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(block_undo, .max_len = 65536, .codec = "block_undo")
{
    serdiff::differential::check_decode_round_trip(serdiff::differential::block_undo_codec(), input);
}
