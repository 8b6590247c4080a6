"""Python model classes mirroring model/model.h: immutable values with ==, a readable repr, and hashing."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

# Integer kinds a VarInt is read into (model::IntKind), with their maximum value on the wire.
INT_KIND_MAX = {
    "u8": 0xFF, "u16": 0xFFFF, "u32": 0xFFFF_FFFF, "u64": 0xFFFF_FFFF_FFFF_FFFF,
    "i8": 0x7F, "i16": 0x7FFF, "i32": 0x7FFF_FFFF, "i64": 0x7FFF_FFFF_FFFF_FFFF,
}
INT_KINDS = tuple(INT_KIND_MAX)

MAX_SIZE = 0x0200_0000
MAX_SCRIPT_SIZE = 10_000


@dataclass(frozen=True)
class OutPoint:
    hash: bytes  # 32 bytes, serialization order
    n: int


@dataclass(frozen=True)
class TxIn:
    prevout: OutPoint
    script_sig: bytes
    sequence: int
    witness: tuple[bytes, ...] = ()  # the input's witness stack, serialized after all outputs


@dataclass(frozen=True)
class TxOut:
    value: int  # int64
    script_pubkey: bytes


@dataclass(frozen=True)
class Transaction:
    version: int  # uint32
    inputs: tuple[TxIn, ...]
    outputs: tuple[TxOut, ...]
    lock_time: int

    def has_witness(self) -> bool:
        return any(txin.witness for txin in self.inputs)

    def without_witness(self) -> Transaction:
        inputs = tuple(TxIn(i.prevout, i.script_sig, i.sequence, ()) for i in self.inputs)
        return Transaction(self.version, inputs, self.outputs, self.lock_time)


@dataclass(frozen=True)
class BlockHeader:
    version: int  # int32
    prev_block: bytes
    merkle_root: bytes
    time: int
    bits: int
    nonce: int


@dataclass(frozen=True)
class Block:
    header: BlockHeader
    transactions: tuple[Transaction, ...]


@dataclass(frozen=True)
class BlockLocator:
    version: int  # int32; Bitcoin Core ignores it on read, serdiff keeps it
    have: tuple[bytes, ...]


@dataclass(frozen=True)
class Coin:
    out: TxOut
    height: int  # 31 bits on the wire
    coinbase: bool


@dataclass(frozen=True)
class TxUndo:
    prevouts: tuple[Coin, ...]


@dataclass(frozen=True)
class BlockUndo:
    txundo: tuple[TxUndo, ...]


class Decoded(NamedTuple):
    """Result of decoding one object from a byte string (model::Decoded): value and consumed only when ok."""
    ok: bool
    error: str
    consumed: int
    value: object

    def outcome(self):
        """What every implementation must agree on: accept with (consumed, value), or the error message."""
        return ("accepted", self.consumed, self.value) if self.ok else ("rejected", self.error)
