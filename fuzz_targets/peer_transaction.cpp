// Target peer_transaction: optimized vs reference exactly, then every linked peer's verdict against the reference.
#include "differential/codecs.h"
#include "fuzz_targets/registry.h"
#ifdef SERDIFF_WITH_PEERS
#include "differential/oracles/fuzz_check.h"
#endif

SERDIFF_FUZZ_TARGET(peer_transaction, .max_len = 65536, .real_data_seeds = true,
                    .afl_unsupported = "Go/Python peers hang in AFL++'s forked children",
                    .libfuzzer_flags = "-entropic_scale_per_exec_time=1")  // as transaction
{
    serdiff::differential::check_decode_round_trip(serdiff::differential::transaction_codec(true), input);
    serdiff::differential::check_decode_round_trip(serdiff::differential::transaction_codec(false), input);
#ifdef SERDIFF_WITH_PEERS  // defined by differential/oracles/CMakeLists.txt when the peers are built
    serdiff::oracles::check_peers(serdiff::oracles::ObjectKind::transaction, input, true);
    serdiff::oracles::check_peers(serdiff::oracles::ObjectKind::transaction, input, false);
#endif
}
