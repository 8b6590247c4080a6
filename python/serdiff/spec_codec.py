"""The third implementation: a pure-Python codec written from SEMANTICS.md and docs/format.md only.

It shares nothing with the C++ sides (not even the secp256k1 library), so it is an independent oracle.
Every decode_* returns a Decoded; every error message is one of model::errors.
"""
from __future__ import annotations

import struct

from serdiff.model import (INT_KIND_MAX, MAX_SCRIPT_SIZE, MAX_SIZE, Block, BlockHeader, BlockLocator, BlockUndo,
                           Coin, Decoded, OutPoint, Transaction, TxIn, TxOut, TxUndo)

END_OF_DATA = "end of data"
NON_CANONICAL = "non-canonical"
SIZE_TOO_LARGE = "size too large"
SUPERFLUOUS_WITNESS = "Superfluous witness record"
UNKNOWN_OPTIONAL_DATA = "Unknown transaction optional data"

U64_MASK = (1 << 64) - 1


class DecodeError(Exception):
    """Malformed input; str() is exactly the format's error message."""


# --- secp256k1, only as much as undo script compression needs (y^2 = x^3 + 7 over F_p, p % 4 == 3) ---

SECP256K1_P = 2**256 - 2**32 - 977


def is_on_curve(x: int, y: int) -> bool:
    p = SECP256K1_P
    return x < p and y < p and (y * y - x * x * x - 7) % p == 0


def decompress_point(parity_prefix: int, x: int) -> bytes | None:
    """The 65-byte uncompressed key for a compressed key 02|03 + x, or None when x is not on the curve."""
    p = SECP256K1_P
    if x >= p:
        return None
    y_squared = (pow(x, 3, p) + 7) % p
    y = pow(y_squared, (p + 1) // 4, p)  # the square root when one exists, since p % 4 == 3
    if y * y % p != y_squared:
        return None
    if (y & 1) != (parity_prefix & 1):
        y = p - y
    return b"\x04" + x.to_bytes(32, "big") + y.to_bytes(32, "big")


# --- writing ---

def encode_compactsize(value: int) -> bytes:
    if value < 0xFD:
        return bytes([value])
    if value <= 0xFFFF:
        return b"\xfd" + struct.pack("<H", value)
    if value <= 0xFFFF_FFFF:
        return b"\xfe" + struct.pack("<I", value)
    return b"\xff" + struct.pack("<Q", value)


def encode_varint(value: int, kind: str = "u64") -> bytes:
    if not 0 <= value <= INT_KIND_MAX[kind]:
        raise ValueError(f"VarInt value {value} does not fit {kind}")
    groups = [value & 0x7F]  # least significant group first; every later group is stored minus one
    while value > 0x7F:
        value = (value >> 7) - 1
        groups.append((value & 0x7F) | 0x80)
    return bytes(reversed(groups))


def _byte_vector(data: bytes) -> bytes:
    return encode_compactsize(len(data)) + data


def _encode_txin(txin: TxIn) -> bytes:
    return txin.prevout.hash + struct.pack("<I", txin.prevout.n) + _byte_vector(txin.script_sig) + \
        struct.pack("<I", txin.sequence)


def _encode_txout(txout: TxOut) -> bytes:
    return struct.pack("<q", txout.value) + _byte_vector(txout.script_pubkey)


def encode_transaction(tx: Transaction, allow_witness: bool = True) -> bytes:
    with_witness = allow_witness and tx.has_witness()
    out = [struct.pack("<I", tx.version)]
    if with_witness:
        out.append(b"\x00\x01")  # empty-input-vector marker, then flag 1
    out.append(encode_compactsize(len(tx.inputs)))
    out += [_encode_txin(txin) for txin in tx.inputs]
    out.append(encode_compactsize(len(tx.outputs)))
    out += [_encode_txout(txout) for txout in tx.outputs]
    if with_witness:
        for txin in tx.inputs:
            out.append(encode_compactsize(len(txin.witness)))
            out += [_byte_vector(item) for item in txin.witness]
    out.append(struct.pack("<I", tx.lock_time))
    return b"".join(out)


def encode_header(header: BlockHeader) -> bytes:
    return struct.pack("<i", header.version) + header.prev_block + header.merkle_root + \
        struct.pack("<III", header.time, header.bits, header.nonce)


def encode_block(block: Block) -> bytes:
    return encode_header(block.header) + encode_compactsize(len(block.transactions)) + \
        b"".join(encode_transaction(tx, True) for tx in block.transactions)


def encode_locator(locator: BlockLocator) -> bytes:
    return struct.pack("<i", locator.version) + encode_compactsize(len(locator.have)) + b"".join(locator.have)


def compress_amount(amount: int) -> int:
    n = amount & U64_MASK
    if n == 0:
        return 0
    e = 0
    while n % 10 == 0 and e < 9:
        n //= 10
        e += 1
    if e < 9:
        d = n % 10
        n //= 10
        return (1 + (n * 9 + d - 1) * 10 + e) & U64_MASK
    return (1 + (n - 1) * 10 + 9) & U64_MASK


def decompress_amount(x: int) -> int:
    if x == 0:
        return 0
    x -= 1
    e = x % 10
    x //= 10
    if e < 9:
        d = x % 9 + 1
        x //= 9
        n = (x * 10 + d) & U64_MASK
    else:
        n = (x + 1) & U64_MASK
    for _ in range(e):
        n = (n * 10) & U64_MASK
    return n


def compress_script(script: bytes) -> bytes:
    size = len(script)
    if size == 25 and script[:3] == b"\x76\xa9\x14" and script[23:] == b"\x88\xac":
        return b"\x00" + script[3:23]
    if size == 23 and script[:2] == b"\xa9\x14" and script[22] == 0x87:
        return b"\x01" + script[2:22]
    if size == 35 and script[0] == 0x21 and script[1] in (2, 3) and script[34] == 0xAC:
        return script[1:34]
    if size == 67 and script[0] == 0x41 and script[1] == 4 and script[66] == 0xAC:
        x, y = int.from_bytes(script[2:34], "big"), int.from_bytes(script[34:66], "big")
        if is_on_curve(x, y):
            return bytes([4 | (script[65] & 1)]) + script[2:34]
    return encode_varint(size + 6, "u32") + script


def _encode_coin(coin: Coin) -> bytes:
    out = encode_varint(coin.height * 2 + int(coin.coinbase), "u32")
    if coin.height > 0:
        out += b"\x00"  # the legacy VarInt that readers ignore
    return out + encode_varint(compress_amount(coin.out.value), "u64") + compress_script(coin.out.script_pubkey)


def encode_block_undo(undo: BlockUndo) -> bytes:
    out = [encode_compactsize(len(undo.txundo))]
    for txundo in undo.txundo:
        out.append(encode_compactsize(len(txundo.prevouts)))
        out += [_encode_coin(coin) for coin in txundo.prevouts]
    return b"".join(out)


# --- reading ---

class Reader:
    """A cursor over bytes; every short read raises DecodeError("end of data")."""

    def __init__(self, data: bytes):
        self.data = bytes(data)
        self.position = 0

    def take(self, count: int) -> bytes:
        if count > len(self.data) - self.position:
            raise DecodeError(END_OF_DATA)
        chunk = self.data[self.position:self.position + count]
        self.position += count
        return chunk

    def byte(self) -> int:
        return self.take(1)[0]

    def unpack(self, fmt: str) -> int:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def compactsize(self, range_check: bool = True) -> int:
        first = self.byte()
        if first < 0xFD:
            value, minimum = first, 0
        elif first == 0xFD:
            value, minimum = self.unpack("<H"), 0xFD
        elif first == 0xFE:
            value, minimum = self.unpack("<I"), 0x1_0000
        else:
            value, minimum = self.unpack("<Q"), 0x1_0000_0000
        if value < minimum:
            raise DecodeError(NON_CANONICAL)
        if range_check and value > MAX_SIZE:
            raise DecodeError(SIZE_TOO_LARGE)
        return value

    def varint(self, kind: str = "u64") -> int:
        maximum = INT_KIND_MAX[kind]
        n = 0
        while True:
            b = self.byte()
            if n > maximum >> 7:
                raise DecodeError(SIZE_TOO_LARGE)
            n = (n << 7) | (b & 0x7F)
            if not b & 0x80:
                return n
            if n == maximum:
                raise DecodeError(SIZE_TOO_LARGE)
            n += 1

    def byte_vector(self) -> bytes:
        return self.take(self.compactsize())

    def vector(self, read_element) -> tuple:
        count = self.compactsize()
        # Elements are read one at a time, so a huge claimed count fails at end of data, not in allocation.
        return tuple(read_element() for _ in range(count))


def _decode(data: bytes, read) -> Decoded:
    reader = Reader(data)
    try:
        value = read(reader)
    except DecodeError as error:
        return Decoded(False, str(error), 0, None)
    return Decoded(True, "", reader.position, value)


def _read_txin(reader: Reader) -> TxIn:
    prevout = OutPoint(reader.take(32), reader.unpack("<I"))
    return TxIn(prevout, reader.byte_vector(), reader.unpack("<I"))


def _read_txout(reader: Reader) -> TxOut:
    return TxOut(reader.unpack("<q"), reader.byte_vector())


def read_transaction(reader: Reader, allow_witness: bool = True) -> Transaction:
    version = reader.unpack("<I")
    inputs = reader.vector(lambda: _read_txin(reader))
    outputs: tuple = ()
    flags = 0
    if not inputs and allow_witness:
        flags = reader.byte()
        if flags != 0:
            inputs = reader.vector(lambda: _read_txin(reader))
            outputs = reader.vector(lambda: _read_txout(reader))
    else:
        outputs = reader.vector(lambda: _read_txout(reader))
    if flags & 1 and allow_witness:
        flags ^= 1
        stacks = [reader.vector(reader.byte_vector) for _ in inputs]
        inputs = tuple(TxIn(txin.prevout, txin.script_sig, txin.sequence, stack)
                       for txin, stack in zip(inputs, stacks))
        if not any(stacks):
            raise DecodeError(SUPERFLUOUS_WITNESS)
    if flags:
        raise DecodeError(UNKNOWN_OPTIONAL_DATA)
    return Transaction(version, inputs, outputs, reader.unpack("<I"))


def read_header(reader: Reader) -> BlockHeader:
    version = reader.unpack("<i")
    prev_block, merkle_root = reader.take(32), reader.take(32)
    time, bits, nonce = (reader.unpack("<I") for _ in range(3))
    return BlockHeader(version, prev_block, merkle_root, time, bits, nonce)


def read_block(reader: Reader) -> Block:
    header = read_header(reader)
    return Block(header, reader.vector(lambda: read_transaction(reader, True)))


def read_locator(reader: Reader) -> BlockLocator:
    version = reader.unpack("<i")
    return BlockLocator(version, reader.vector(lambda: reader.take(32)))


def read_compressed_script(reader: Reader) -> bytes:
    n = reader.varint("u32")
    if n in (0, 1):
        digest = reader.take(20)
        return b"\x76\xa9\x14" + digest + b"\x88\xac" if n == 0 else b"\xa9\x14" + digest + b"\x87"
    if n in (2, 3):
        return b"\x21" + bytes([n]) + reader.take(32) + b"\xac"
    if n in (4, 5):
        key = decompress_point(n - 2, int.from_bytes(reader.take(32), "big"))
        return b"" if key is None else b"\x41" + key + b"\xac"  # a point off the curve leaves it empty
    size = n - 6
    if size > MAX_SCRIPT_SIZE:
        reader.take(size)
        return b"\x6a"  # OP_RETURN stands in for an oversized script
    return reader.take(size)


def read_coin(reader: Reader) -> Coin:
    code = reader.varint("u32")
    height, coinbase = code >> 1, bool(code & 1)
    if height > 0:
        reader.varint("u32")  # legacy field, ignored
    amount = decompress_amount(reader.varint("u64"))
    if amount >= 1 << 63:
        amount -= 1 << 64  # stored as int64
    return Coin(TxOut(amount, read_compressed_script(reader)), height, coinbase)


def read_block_undo(reader: Reader) -> BlockUndo:
    return BlockUndo(reader.vector(lambda: TxUndo(reader.vector(lambda: read_coin(reader)))))


def decode_compactsize(data: bytes, range_check: bool = True) -> Decoded:
    return _decode(data, lambda reader: reader.compactsize(range_check))


def decode_varint(data: bytes, kind: str = "u64") -> Decoded:
    return _decode(data, lambda reader: reader.varint(kind))


def decode_transaction(data: bytes, allow_witness: bool = True) -> Decoded:
    return _decode(data, lambda reader: read_transaction(reader, allow_witness))


def decode_header(data: bytes) -> Decoded:
    return _decode(data, read_header)


def decode_block(data: bytes) -> Decoded:
    return _decode(data, read_block)


def decode_locator(data: bytes) -> Decoded:
    return _decode(data, read_locator)


def decode_block_undo(data: bytes) -> Decoded:
    return _decode(data, read_block_undo)


# --- stream operation programs: (operation, argument) steps, as serdiff._native runs them ---

_FIXED_WIDTH_FORMATS = {"u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q", "u16be": ">H", "u32be": ">I",
                        "u64be": ">Q", "i8": "<b", "i16": "<h", "i32": "<i", "i64": "<q"}


def _write_step(name: str, argument) -> bytes:
    if name in _FIXED_WIDTH_FORMATS:
        return struct.pack(_FIXED_WIDTH_FORMATS[name], argument)
    if name == "bool":
        return b"\x01" if argument else b"\x00"
    if name == "compactsize":
        return encode_compactsize(argument)
    if name.startswith("varint-"):
        return encode_varint(argument, name.removeprefix("varint-"))
    if name == "bytes":
        return bytes(argument)
    if name == "byte_vector":
        return _byte_vector(bytes(argument))
    raise ValueError(f"unknown write operation {name}")


def write_program(program, initial: bytes = b"", position: int = 0) -> bytes:
    """The bytes a program writes; with `initial`, written from `position` over it (padding with zeros first)."""
    written = b"".join(_write_step(name, argument) for name, argument in program)
    target = bytearray(initial) + bytes(max(0, position - len(initial)))
    target[position:position + len(written)] = written  # overwrites what is there, appends the rest
    return bytes(target)


def _read_step(reader: Reader, name: str, argument):
    if name in _FIXED_WIDTH_FORMATS:
        return reader.unpack(_FIXED_WIDTH_FORMATS[name])
    if name == "bool":
        return reader.byte() != 0
    if name == "compactsize":
        return reader.compactsize(bool(argument))
    if name.startswith("varint-"):
        return reader.varint(name.removeprefix("varint-"))
    if name == "bytes":
        return reader.take(argument)
    if name == "byte_vector":
        return reader.byte_vector()
    if name == "skip":
        reader.take(argument)
        return None
    raise ValueError(f"unknown read operation {name}")


def read_program(data: bytes, program) -> tuple[list, str, int]:
    """Runs read steps until the first error: (values, error or "", bytes consumed)."""
    reader = Reader(data)
    values: list = []
    try:
        for name, argument in program:
            values.append(_read_step(reader, name, argument))
    except DecodeError as error:
        return values, str(error), reader.position
    return values, "", reader.position
