//! rust-bitcoin's consensus decoder behind serdiff's peer C ABI (differential/oracles/peer_abi.h).

use std::hint::black_box;
use std::os::raw::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use bitcoin::consensus::encode::{deserialize, deserialize_partial, serialize, Decodable, Encodable};
use bitcoin::{Block, Transaction};

const OK: c_int = 0;
const UNSUPPORTED: c_int = 1;
const INTERNAL_ERROR: c_int = 2;

const BENCH_DECODE: c_int = 0;
const BENCH_ENCODE: c_int = 1;

/// Mirrors `serdiff_peer_result` field for field.
#[repr(C)]
pub struct PeerResult {
    accepted: c_int,
    consumed: usize,
    reencoded: *mut u8,
    reencoded_len: usize,
    error: [c_char; 128],
}

extern "C" {
    // The C side frees `reencoded` with free(), so it must come from malloc().
    fn malloc(size: usize) -> *mut u8;
}

fn set_error(out: &mut PeerResult, message: &str) {
    let bytes = message.as_bytes();
    let length = bytes.len().min(out.error.len() - 1);
    for (slot, byte) in out.error.iter_mut().zip(&bytes[..length]) {
        *slot = *byte as c_char;
    }
    out.error[length] = 0;
}

fn set_reencoded(out: &mut PeerResult, bytes: &[u8]) -> Result<(), ()> {
    // malloc(0) may return NULL; one spare byte keeps a non-NULL pointer for an empty encoding.
    let buffer = unsafe { malloc(bytes.len() + 1) };
    if buffer.is_null() {
        return Err(());
    }
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer, bytes.len()) };
    out.reencoded = buffer;
    out.reencoded_len = bytes.len();
    Ok(())
}

fn reset(out: &mut PeerResult) {
    out.accepted = 0;
    out.consumed = 0;
    out.reencoded = std::ptr::null_mut();
    out.reencoded_len = 0;
    out.error[0] = 0;
}

/// Decodes a prefix of the input as `T`, re-encodes it, and fills `out`; panics become INTERNAL_ERROR.
fn decode_into<T: Decodable + Encodable>(data: *const u8, size: usize, out: *mut PeerResult) -> c_int {
    if out.is_null() {
        return INTERNAL_ERROR;
    }
    let out = unsafe { &mut *out };
    reset(out);
    let input: &[u8] = if size == 0 { &[] } else { unsafe { std::slice::from_raw_parts(data, size) } };
    let outcome = catch_unwind(AssertUnwindSafe(|| match deserialize_partial::<T>(input) {
        Ok((value, consumed)) => Ok((serialize(&value), consumed)),
        Err(error) => Err(error.to_string()),
    }));
    match outcome {
        Ok(Ok((reencoded, consumed))) => {
            if set_reencoded(out, &reencoded).is_err() {
                set_error(out, "out of memory copying the re-encoding");
                return INTERNAL_ERROR;
            }
            out.accepted = 1;
            out.consumed = consumed;
            OK
        }
        Ok(Err(message)) => {
            set_error(out, &message);
            OK
        }
        Err(_) => {
            set_error(out, "panic inside rust-bitcoin");
            INTERNAL_ERROR
        }
    }
}

/// Transaction from bytes; rust-bitcoin always reads the witness form, so allow_witness = 0 is UNSUPPORTED.
#[no_mangle]
pub extern "C" fn serdiff_peer_rust_bitcoin_decode_tx(
    data: *const u8,
    size: usize,
    allow_witness: c_int,
    out: *mut PeerResult,
) -> c_int {
    if allow_witness == 0 {
        if !out.is_null() {
            let out = unsafe { &mut *out };
            reset(out);
            set_error(out, "rust-bitcoin has no witness-free transaction decoding");
        }
        return UNSUPPORTED;
    }
    decode_into::<Transaction>(data, size, out)
}

/// Block (header, then transactions with witness) from bytes.
#[no_mangle]
pub extern "C" fn serdiff_peer_rust_bitcoin_decode_block(data: *const u8, size: usize, out: *mut PeerResult) -> c_int {
    decode_into::<Block>(data, size, out)
}

/// Times `iterations` block decodes (a fresh `Block` each, dropped inside the loop) or encodes of one
/// decoded block into a reused `Vec`, with `Instant` (monotonic); the result goes to `total_ns`.
#[no_mangle]
pub extern "C" fn serdiff_peer_rust_bitcoin_bench_block(
    data: *const u8,
    size: usize,
    iterations: u64,
    mode: c_int,
    total_ns: *mut u64,
) -> c_int {
    if total_ns.is_null() || (size != 0 && data.is_null()) {
        return INTERNAL_ERROR;
    }
    if mode != BENCH_DECODE && mode != BENCH_ENCODE {
        return UNSUPPORTED;
    }
    let input: &[u8] = if size == 0 { &[] } else { unsafe { std::slice::from_raw_parts(data, size) } };
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Option<u64> {
        let block: Block = deserialize(input).ok()?;
        let mut buffer: Vec<u8> = Vec::with_capacity(input.len());
        block.consensus_encode(&mut buffer).ok()?;
        if buffer != input {
            return None;
        }
        let start = Instant::now();
        if mode == BENCH_DECODE {
            for _ in 0..iterations {
                let decoded: Block = deserialize(black_box(input)).ok()?;
                black_box(&decoded);
            }
        } else {
            for _ in 0..iterations {
                buffer.clear();
                black_box(&block).consensus_encode(&mut buffer).ok()?;
                black_box(&buffer);
            }
        }
        Some(start.elapsed().as_nanos() as u64)
    }));
    match outcome {
        Ok(Some(nanoseconds)) => {
            unsafe { *total_ns = nanoseconds };
            OK
        }
        _ => INTERNAL_ERROR,
    }
}
