// Target transaction: decode arbitrary bytes with and without witness on both sides; round-trip what decodes.
#include "differential/codecs.h"
#include "fuzz_targets/registry.h"

// A claimed script or witness length makes the optimized reader allocate (and zero) up to 5,000,000 bytes
// before it finds the input short: the engine favours the inputs that run fast (see primitive_stream).
SERDIFF_FUZZ_TARGET(transaction, .max_len = 65536, .codec = "transaction", .real_data_seeds = true,
                    .libfuzzer_flags = "-entropic_scale_per_exec_time=1")
{
    serdiff::differential::check_decode_round_trip(serdiff::differential::transaction_codec(true), input);
    serdiff::differential::check_decode_round_trip(serdiff::differential::transaction_codec(false), input);
}
