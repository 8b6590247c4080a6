// Target block_header: the 80-byte header decoded, compared and round-tripped on both sides.
#include "differential/codecs.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(block_header, .max_len = 256, .codec = "header", .real_data_seeds = true)
{
    serdiff::differential::check_decode_round_trip(serdiff::differential::header_codec(), input);
}
