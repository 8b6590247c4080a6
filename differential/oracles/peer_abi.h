/* The C ABI every peer implementation (Bitcoin Core, rust-bitcoin, btcd, python-bitcoinlib) exports to serdiff. */
#ifndef SERDIFF_PEER_ABI_H
#define SERDIFF_PEER_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One peer's verdict on one input. `reencoded` is allocated with malloc by the peer (NULL when
 * rejected) and released with serdiff_peer_result_free; `error` holds the peer's own message. */
typedef struct serdiff_peer_result {
    int accepted;
    size_t consumed;
    uint8_t* reencoded;
    size_t reencoded_len;
    char error[128];
} serdiff_peer_result;

/* Return values of every decode function: only SERDIFF_PEER_OK carries a verdict. */
enum {
    SERDIFF_PEER_OK = 0,
    SERDIFF_PEER_UNSUPPORTED = 1, /* the peer has no such mode (e.g. no witness-free decoding) */
    SERDIFF_PEER_INTERNAL_ERROR = 2 /* the peer itself failed (panic, interpreter error): a bug */
};

/* Modes of the *_bench_block functions (bench/): time `iterations` decodes of a block from bytes into a
 * fresh object (dropped each time), or `iterations` encodes of one decoded block into a reused buffer. */
enum {
    SERDIFF_PEER_BENCH_DECODE = 0,
    SERDIFF_PEER_BENCH_ENCODE = 1,
    /* Bitcoin Core only: encode through its writer callback into a callback that keeps nothing (the cost of
     * Core's serializer plus one indirect call per write, without copying the bytes anywhere). */
    SERDIFF_PEER_BENCH_ENCODE_DISCARD = 2
};

void serdiff_peer_result_free(serdiff_peer_result* result);

/* cgo re-declares the Go exports without const, so the Go build takes only the types above. */
#ifndef SERDIFF_PEER_ABI_TYPES_ONLY
int serdiff_peer_rust_bitcoin_decode_tx(const uint8_t* data, size_t size, int allow_witness, serdiff_peer_result* out);
int serdiff_peer_rust_bitcoin_decode_block(const uint8_t* data, size_t size, serdiff_peer_result* out);
int serdiff_peer_btcd_decode_tx(const uint8_t* data, size_t size, int allow_witness, serdiff_peer_result* out);
int serdiff_peer_btcd_decode_block(const uint8_t* data, size_t size, serdiff_peer_result* out);
int serdiff_peer_python_bitcoinlib_decode_tx(const uint8_t* data, size_t size, int allow_witness, serdiff_peer_result* out);
int serdiff_peer_python_bitcoinlib_decode_block(const uint8_t* data, size_t size, serdiff_peer_result* out);
/* Bitcoin Core through libbitcoinkernel (core/peer.cpp): no witness-free mode; it alone decodes a bare header. */
int serdiff_peer_core_decode_tx(const uint8_t* data, size_t size, int allow_witness, serdiff_peer_result* out);
int serdiff_peer_core_decode_block(const uint8_t* data, size_t size, serdiff_peer_result* out);
int serdiff_peer_core_decode_header(const uint8_t* data, size_t size, serdiff_peer_result* out);

/* Benchmark entry points: the timing loop runs inside the peer with its language's monotonic clock, so
 * no FFI call is timed. The block must decode fully and re-encode to the same bytes (checked before
 * timing, else SERDIFF_PEER_INTERNAL_ERROR); *total_ns receives the time of all iterations. */
int serdiff_peer_rust_bitcoin_bench_block(const uint8_t* data, size_t size, uint64_t iterations, int mode,
                                          uint64_t* total_ns);
int serdiff_peer_btcd_bench_block(const uint8_t* data, size_t size, uint64_t iterations, int mode, uint64_t* total_ns);
int serdiff_peer_core_bench_block(const uint8_t* data, size_t size, uint64_t iterations, int mode, uint64_t* total_ns);
#endif

#ifdef __cplusplus
}
#endif

#endif
