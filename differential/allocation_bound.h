// Which code the fuzz binaries' allocation bound judges (fuzz_targets/registry.cpp: no single allocation over
// 16 MiB while a target runs). It is a check on serdiff's own decoders, the optimized and the reference side:
// neither may trust a claimed length before its bytes arrive. The peers (differential/oracles/: Bitcoin Core's
// kernel, rust-bitcoin, btcd, python-bitcoinlib) are other projects' code run as oracles, with their own
// allocation rules: rust-bitcoin 0.32 zero-fills 4 bytes of index space per claimed witness item (up to
// 4,000,000 items: 16 MB) and doubles the buffer past that before it finds the input short (a 532-byte input
// made it allocate 28 MB in the 2026-11-25 soak). Their allocations stay under libFuzzer's -malloc_limit_mb
// (= -rss_limit_mb, 2 GiB) only. The same exemption covers one known finding in the Core subject's own code:
// Core's Unserialize(std::string) allocates its claimed length up to MAX_SIZE (stream_program.cpp reading_string,
// docs/core.md), let pass so that fuzzing on Core goes on past it.
#pragma once

namespace serdiff::differential {

// Non-zero while this thread runs a peer. Constant-initialised thread-local storage of the executable, so the
// malloc hook can read it without allocating. Volatile: the hook reads it from inside malloc, which a compiler
// may assume reads no program state (gcc dropped the increment and decrement around a malloc without it).
inline thread_local volatile int peer_depth = 0;
// In BASE's shared object (fuzz_targets/base_entry.cpp): the fuzz binary's peer_depth, set by serdiff_base_run, so the
// binary's hook, which judges BASE's allocations too, sees BASE's exemptions. Null everywhere else.
inline volatile int* host_peer_depth = nullptr;

// While alive, this thread's allocations are a peer's (not judged by the allocation bound).
class PeerAllocations {
public:
    PeerAllocations() { depth() = depth() + 1; }
    ~PeerAllocations() { depth() = depth() - 1; }
    static volatile int& depth() { return host_peer_depth != nullptr ? *host_peer_depth : peer_depth; }
    PeerAllocations(const PeerAllocations&) = delete;
    PeerAllocations& operator=(const PeerAllocations&) = delete;
};

}  // namespace serdiff::differential
