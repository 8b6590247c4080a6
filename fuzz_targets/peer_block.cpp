// Target peer_block: optimized vs reference exactly, then every linked peer's verdict against the reference
// (on the input as a block, and as a header for the peers with a header decoder).
#include "differential/codecs.h"
#include "fuzz_targets/registry.h"
#ifdef SERDIFF_WITH_PEERS
#include "differential/oracles/fuzz_check.h"
#endif

SERDIFF_FUZZ_TARGET(peer_block, .max_len = 65536, .real_data_seeds = true,
                    .afl_unsupported = "Go/Python peers hang in AFL++'s forked children")
{
    serdiff::differential::check_decode_round_trip(serdiff::differential::block_codec(), input);
#ifdef SERDIFF_WITH_PEERS  // defined by differential/oracles/CMakeLists.txt when the peers are built
    serdiff::oracles::check_peers(serdiff::oracles::ObjectKind::block, input, true);
    serdiff::oracles::check_peers(serdiff::oracles::ObjectKind::header, input, true);  // Bitcoin Core's header decoder
#endif
}
