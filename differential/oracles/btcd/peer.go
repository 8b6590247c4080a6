// btcd's wire codec (github.com/btcsuite/btcd/wire/v2) behind serdiff's peer C ABI, built as a c-archive.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/..
#define SERDIFF_PEER_ABI_TYPES_ONLY
#include <stdlib.h>
#include <string.h>
#include "peer_abi.h"
*/
import "C"

import (
	"bytes"
	"fmt"
	"time"
	"unsafe"

	"github.com/btcsuite/btcd/wire/v2"
)

const (
	peerOK            = C.SERDIFF_PEER_OK
	peerInternalError = C.SERDIFF_PEER_INTERNAL_ERROR
)

func setError(out *C.serdiff_peer_result, message string) {
	limit := len(out.error) - 1
	if len(message) > limit {
		message = message[:limit]
	}
	for i := 0; i < len(message); i++ {
		out.error[i] = C.char(message[i])
	}
	out.error[len(message)] = 0
}

func reset(out *C.serdiff_peer_result) {
	out.accepted = 0
	out.consumed = 0
	out.reencoded = nil
	out.reencoded_len = 0
	out.error[0] = 0
}

// run decodes a prefix of the input with decode, re-encodes with encode and fills out; a Go panic
// (a bug in the peer) is recovered and reported as an internal error instead of killing the process.
func run(data *C.uint8_t, size C.size_t, out *C.serdiff_peer_result,
	decode func(*bytes.Reader) error, encode func(*bytes.Buffer) error) (status C.int) {
	reset(out)
	defer func() {
		if recovered := recover(); recovered != nil {
			setError(out, fmt.Sprintf("panic inside btcd: %v", recovered))
			status = peerInternalError
		}
	}()
	input := C.GoBytes(unsafe.Pointer(data), C.int(size))
	reader := bytes.NewReader(input)
	if err := decode(reader); err != nil {
		setError(out, err.Error())
		return peerOK
	}
	var buffer bytes.Buffer
	if err := encode(&buffer); err != nil {
		setError(out, "re-encoding failed: "+err.Error())
		return peerInternalError
	}
	encoded := buffer.Bytes()
	// One spare byte keeps the pointer non-NULL for an empty encoding; the C side frees it.
	reencoded := C.malloc(C.size_t(len(encoded) + 1))
	if len(encoded) > 0 {
		C.memcpy(reencoded, unsafe.Pointer(&encoded[0]), C.size_t(len(encoded)))
	}
	out.accepted = 1
	out.consumed = C.size_t(len(input) - reader.Len())
	out.reencoded = (*C.uint8_t)(reencoded)
	out.reencoded_len = C.size_t(len(encoded))
	return peerOK
}

// serdiff_peer_btcd_decode_tx reads a transaction in btcd's witness encoding, or its base encoding
// when allow_witness is 0, and re-encodes it the same way.
//
//export serdiff_peer_btcd_decode_tx
func serdiff_peer_btcd_decode_tx(data *C.uint8_t, size C.size_t, allowWitness C.int, out *C.serdiff_peer_result) C.int {
	encoding := wire.BaseEncoding
	if allowWitness != 0 {
		encoding = wire.WitnessEncoding
	}
	var tx wire.MsgTx
	return run(data, size, out,
		func(r *bytes.Reader) error { return tx.BtcDecode(r, 0, encoding) },
		func(w *bytes.Buffer) error { return tx.BtcEncode(w, 0, encoding) })
}

// serdiff_peer_btcd_decode_block reads a block (transactions with witness) and re-encodes it.
//
//export serdiff_peer_btcd_decode_block
func serdiff_peer_btcd_decode_block(data *C.uint8_t, size C.size_t, out *C.serdiff_peer_result) C.int {
	var block wire.MsgBlock
	return run(data, size, out,
		func(r *bytes.Reader) error { return block.Deserialize(r) },
		func(w *bytes.Buffer) error { return block.Serialize(w) })
}

// benchSink keeps each decoded block reachable, so the compiler cannot drop the decode.
var benchSink *wire.MsgBlock

// serdiff_peer_btcd_bench_block times `iterations` block decodes (a fresh MsgBlock each) or encodes of one
// decoded block into a reused bytes.Buffer, with time.Now/time.Since (monotonic). Garbage collection
// that runs on another core during the loop is not counted; the GC assists inside the loop are.
//
//export serdiff_peer_btcd_bench_block
func serdiff_peer_btcd_bench_block(data *C.uint8_t, size C.size_t, iterations C.uint64_t, mode C.int,
	totalNs *C.uint64_t) (status C.int) {
	defer func() {
		if recovered := recover(); recovered != nil {
			status = peerInternalError
		}
	}()
	if totalNs == nil || (size != 0 && data == nil) {
		return peerInternalError
	}
	if mode != C.SERDIFF_PEER_BENCH_DECODE && mode != C.SERDIFF_PEER_BENCH_ENCODE {
		return C.SERDIFF_PEER_UNSUPPORTED
	}
	input := C.GoBytes(unsafe.Pointer(data), C.int(size))
	reader := bytes.NewReader(input)
	var block wire.MsgBlock
	if err := block.Deserialize(reader); err != nil || reader.Len() != 0 {
		return peerInternalError
	}
	var buffer bytes.Buffer
	buffer.Grow(len(input))
	if err := block.Serialize(&buffer); err != nil || !bytes.Equal(buffer.Bytes(), input) {
		return peerInternalError
	}
	count := uint64(iterations)
	start := time.Now()
	if mode == C.SERDIFF_PEER_BENCH_DECODE {
		for i := uint64(0); i < count; i++ {
			reader.Reset(input)
			decoded := new(wire.MsgBlock)
			if err := decoded.Deserialize(reader); err != nil {
				return peerInternalError
			}
			benchSink = decoded
		}
	} else {
		for i := uint64(0); i < count; i++ {
			buffer.Reset()
			if err := block.Serialize(&buffer); err != nil {
				return peerInternalError
			}
		}
	}
	*totalNs = C.uint64_t(time.Since(start).Nanoseconds())
	benchSink = nil
	return peerOK
}

// A c-archive needs a main package; the C program's main is the one that runs.
func main() {}
