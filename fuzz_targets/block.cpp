// Target block: a header and its transactions (witness allowed) decoded, compared and round-tripped.
#include "differential/codecs.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(block, .max_len = 262144, .codec = "block", .real_data_seeds = true)
{
    serdiff::differential::check_decode_round_trip(serdiff::differential::block_codec(), input);
}
