// Target block_locator: version and hash vector decoded, compared and round-tripped on both sides.
#include "differential/codecs.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(block_locator, .max_len = 16384, .codec = "locator", .real_data_seeds = true)
{
    serdiff::differential::check_decode_round_trip(serdiff::differential::locator_codec(), input);
}
