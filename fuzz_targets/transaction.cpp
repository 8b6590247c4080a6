// Target transaction: decode arbitrary bytes with and without witness on both sides; round-trip what decodes.
#include "differential/codecs.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(transaction, .max_len = 65536, .codec = "transaction", .real_data_seeds = true)
{
    serdiff::differential::check_decode_round_trip(serdiff::differential::transaction_codec(true), input);
    serdiff::differential::check_decode_round_trip(serdiff::differential::transaction_codec(false), input);
}
