// Two functions registered only in serdiff_allocation_bound_check (the replay driver plus this file, never a
// fuzz binary) for the ctests allocation_bound_fires and allocation_bound_spares_peers: one 20-MiB allocation
// made by serdiff's code, which the fuzz binaries' bound (fuzz_targets/registry.cpp) must abort, and the same
// inside differential::PeerAllocations, as a peer's, which it must let through.
#include <cstddef>
#include <cstdlib>

#include "differential/allocation_bound.h"
#include "fuzz_targets/registry.h"

namespace {

void allocate_20_mib()
{
    void* volatile block = std::malloc(std::size_t{20} << 20);  // volatile: the pair is not optimized away
    std::free(block);
}

}  // namespace

SERDIFF_FUZZ_TARGET(allocation_bound_serdiff_20mib)
{
    (void)input;
    allocate_20_mib();
}

SERDIFF_FUZZ_TARGET(allocation_bound_peer_20mib)
{
    (void)input;
    const serdiff::differential::PeerAllocations peer;
    allocate_20_mib();
}
