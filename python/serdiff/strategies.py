"""Hypothesis strategies for every model type, biased to the edges of every encoding and limit."""
from __future__ import annotations

from hypothesis import strategies as st

from serdiff import spec_codec
from serdiff.model import (INT_KIND_MAX, MAX_SCRIPT_SIZE, MAX_SIZE, Block, BlockHeader, BlockLocator, BlockUndo,
                           Coin, OutPoint, Transaction, TxIn, TxOut, TxUndo)

U32_MAX = 0xFFFF_FFFF
U64_MAX = 0xFFFF_FFFF_FFFF_FFFF
MAX_MONEY = 21_000_000 * 100_000_000


def _around(*points: int) -> list[int]:
    return sorted({value for point in points for value in (point - 1, point, point + 1)})


def _edge_integers(minimum: int, maximum: int, edges) -> st.SearchStrategy[int]:
    """Mostly the values at and beside each edge that fit [minimum, maximum], sometimes any value."""
    fitting = [value for value in edges if minimum <= value <= maximum] + [minimum, maximum]
    # Smallest magnitude first: Hypothesis shrinks a sampled value towards the front of the list.
    return st.one_of(st.sampled_from(sorted(set(fitting), key=lambda value: (abs(value), value))),
                     st.integers(minimum, maximum))


# Where CompactSize changes form (1/3/5/9 bytes) and where the range check starts.
COMPACTSIZE_EDGES = _around(0, 0xFC, 0xFD, 0xFFFF, 0x1_0000, U32_MAX, 0x1_0000_0000, MAX_SIZE) + [U64_MAX]


def _varint_group_edges() -> list[int]:
    """The largest value of each VarInt length and its successor: 127/128, 16511/16512, ..."""
    edges, largest = [], 0x7F
    while largest <= U64_MAX:
        edges += [largest, largest + 1]
        largest = (largest + 1) * 128 + 0x7F
    return edges


VARINT_EDGES = _varint_group_edges()
INTEGER_FIELD_EDGES = _around(0, 0x7F, 0xFF, 0xFFFF, 0x7FFF_FFFF, U32_MAX, 1 << 63) + [U64_MAX]


def compactsize_values() -> st.SearchStrategy[int]:
    return _edge_integers(0, U64_MAX, COMPACTSIZE_EDGES)


def varint_values(kind: str) -> st.SearchStrategy[int]:
    maximum = INT_KIND_MAX[kind]
    return _edge_integers(0, maximum, VARINT_EDGES + _around(maximum)[:2])


def uint32s() -> st.SearchStrategy[int]:
    return _edge_integers(0, U32_MAX, INTEGER_FIELD_EDGES)


def int32s() -> st.SearchStrategy[int]:
    return _edge_integers(-(1 << 31), (1 << 31) - 1, INTEGER_FIELD_EDGES + [-1, -(1 << 31)])


def int64s() -> st.SearchStrategy[int]:
    return _edge_integers(-(1 << 63), (1 << 63) - 1, INTEGER_FIELD_EDGES + [-1, -(1 << 63), MAX_MONEY])


def hashes() -> st.SearchStrategy[bytes]:
    return st.one_of(st.sampled_from([bytes(32), b"\xff" * 32]), st.binary(min_size=32, max_size=32))


def _long_bytes(sizes) -> st.SearchStrategy[bytes]:
    """Byte strings of the given (large) sizes, repeating a short drawn pattern to keep examples small."""
    return st.builds(lambda size, pattern: (pattern * (size // len(pattern) + 1))[:size],
                     st.sampled_from(sizes), st.binary(min_size=1, max_size=4))


def byte_strings(long_sizes=(252, 253, 254)) -> st.SearchStrategy[bytes]:
    """Empty, one byte, short, and the CompactSize-edge lengths."""
    return st.one_of(st.just(b""), st.binary(min_size=1, max_size=1), st.binary(max_size=40), _long_bytes(long_sizes))


def _many(element: st.SearchStrategy, max_few: int, many=(253,)) -> st.SearchStrategy[tuple]:
    """None, one, a few, or many copies of one element (many crosses the 0xfd CompactSize edge cheaply)."""
    # The count 1 first in the "many" branch gives the shrinker a path from 253 copies down to one.
    return st.one_of(st.lists(element, max_size=max_few).map(tuple),
                     st.builds(lambda item, count: (item,) * count, element, st.sampled_from((1, *many))))


def witness_stacks() -> st.SearchStrategy[tuple]:
    return st.one_of(st.just(()), _many(byte_strings(), 4, many=(253,)))


def tx_ins(with_witness: bool = True) -> st.SearchStrategy[TxIn]:
    return st.builds(TxIn, st.builds(OutPoint, hashes(), uint32s()), byte_strings(), uint32s(),
                     witness_stacks() if with_witness else st.just(()))


def tx_outs() -> st.SearchStrategy[TxOut]:
    return st.builds(TxOut, int64s(), byte_strings())


def transactions(with_witness: bool = True) -> st.SearchStrategy[Transaction]:
    return st.builds(Transaction, uint32s(), _many(tx_ins(with_witness), 3), _many(tx_outs(), 3), uint32s())


def headers() -> st.SearchStrategy[BlockHeader]:
    return st.builds(BlockHeader, int32s(), hashes(), hashes(), uint32s(), uint32s(), uint32s())


def blocks() -> st.SearchStrategy[Block]:
    return st.builds(Block, headers(), st.lists(transactions(), max_size=3).map(tuple))


def locators() -> st.SearchStrategy[BlockLocator]:
    return st.builds(BlockLocator, int32s(), _many(hashes(), 4, many=(253, 300)))


def _valid_uncompressed_key(x: int, odd: bool) -> bytes:
    """The first point on the curve at or after x (about half of all x are on it)."""
    while True:
        key = spec_codec.decompress_point(3 if odd else 2, x % spec_codec.SECP256K1_P)
        if key is not None:
            return key
        x += 1


def undo_scripts() -> st.SearchStrategy[bytes]:
    """Each special form of undo script compression, near misses of them, and every size edge."""
    digest20 = st.binary(min_size=20, max_size=20)
    x32 = st.binary(min_size=32, max_size=32)
    valid_key = st.builds(_valid_uncompressed_key, st.integers(0, (1 << 256) - 1), st.booleans())
    special = st.one_of(
        st.builds(lambda h: b"\x76\xa9\x14" + h + b"\x88\xac", digest20),                       # P2PKH
        st.builds(lambda h: b"\xa9\x14" + h + b"\x87", digest20),                                # P2SH
        st.builds(lambda p, x: b"\x21" + bytes([p]) + x + b"\xac", st.sampled_from([2, 3]), x32),  # P2PK compressed
        st.builds(lambda key: b"\x41" + key + b"\xac", valid_key),                               # P2PK uncompressed
    )
    near_misses = st.one_of(
        st.builds(lambda p, x: b"\x21" + bytes([p]) + x + b"\xac", st.sampled_from([0, 1, 4, 5, 6]), x32),
        st.builds(lambda x, y: b"\x41\x04" + x + y + b"\xac", x32, x32),  # almost never a point on the curve
        st.builds(lambda script, index, value: script[:index] + bytes([value]) + script[index + 1:],
                  special, st.integers(0, 66), st.integers(0, 255)),
    )
    return st.one_of(special, near_misses, byte_strings(long_sizes=(252, 253, MAX_SCRIPT_SIZE, MAX_SCRIPT_SIZE + 1)))


def coin_heights() -> st.SearchStrategy[int]:
    return _edge_integers(0, (1 << 31) - 1, VARINT_EDGES)


def coins(amounts=None) -> st.SearchStrategy[Coin]:
    amounts = amounts or st.one_of(int64s(), st.sampled_from([10**k for k in range(16)] + [MAX_MONEY]))
    return st.builds(Coin, st.builds(TxOut, amounts, undo_scripts()), coin_heights(), st.booleans())


def block_undos(amounts=None) -> st.SearchStrategy[BlockUndo]:
    tx_undo = st.builds(TxUndo, st.lists(coins(amounts), max_size=3).map(tuple))
    return st.builds(BlockUndo, st.lists(tx_undo, max_size=3).map(tuple))


def values(kind: str) -> st.SearchStrategy:
    """Any value of an encoded kind (see serdiff.implementations.KINDS)."""
    if kind.startswith("compactsize"):
        return compactsize_values()
    if kind.startswith("varint-"):
        return varint_values(kind.removeprefix("varint-"))
    return {
        "transaction": transactions,
        "transaction-nowitness": lambda: transactions(with_witness=False),
        "header": headers,
        "block": blocks,
        "locator": locators,
        "block_undo": block_undos,
    }[kind]()


def _round_trip_amount(amount: int) -> bool:
    return spec_codec.decompress_amount(spec_codec.compress_amount(amount)) == amount


def _script_survives_undo(script: bytes) -> bool:
    return spec_codec.read_compressed_script(spec_codec.Reader(spec_codec.compress_script(script))) == script


def survives_round_trip(kind: str, value) -> bool:
    """Whether docs/format.md promises decode(encode(value)) == value (the exceptions are format facts)."""
    def transaction_survives(tx: Transaction) -> bool:
        # With witness allowed, an empty input vector is read as the witness marker: only no outputs survive.
        return bool(tx.inputs) or not tx.outputs

    if kind == "compactsize":
        return value <= MAX_SIZE  # larger values are rejected by the range check
    if kind == "transaction":
        return transaction_survives(value)
    if kind == "block":
        return all(transaction_survives(tx) for tx in value.transactions)
    if kind == "block_undo":
        # Amount compression wraps for huge and negative amounts; oversized scripts come back as OP_RETURN.
        return all(_round_trip_amount(coin.out.value) and _script_survives_undo(coin.out.script_pubkey)
                   for tx_undo in value.txundo for coin in tx_undo.prevouts)
    return True


def mutated(data: bytes) -> st.SearchStrategy[bytes]:
    """A valid encoding changed a little: truncated, a byte replaced, bytes inserted or appended."""
    position = st.integers(0, len(data))
    return st.one_of(
        st.just(data),
        st.builds(lambda end: data[:end], position),
        st.builds(lambda at, value: data[:at] + bytes([value]) + data[at + 1:], position, st.integers(0, 255)),
        st.builds(lambda at, extra: data[:at] + extra + data[at:], position, st.binary(min_size=1, max_size=9)),
    )


def decode_inputs(kind: str) -> st.SearchStrategy[bytes]:
    """Bytes to decode: random, CompactSize/VarInt-shaped prefixes, and mutations of real encodings."""
    interesting_prefixes = st.sampled_from([b"", b"\x00", b"\x00\x01", b"\xfd", b"\xfe", b"\xff", b"\x80", b"\x04",
                                            b"\x05", b"\xfd\xfc\x00", b"\xfe\xff\xff\x00\x00"])
    raw = st.one_of(st.binary(max_size=120),
                    st.builds(lambda prefix, rest: prefix + rest, interesting_prefixes, st.binary(max_size=60)))
    encoded = values(kind).map(lambda value: spec_codec_encode(kind, value)).flatmap(mutated)
    return st.one_of(raw, encoded)


def spec_codec_encode(kind: str, value) -> bytes:
    from serdiff.implementations import spec
    return spec().encode(kind, value)


# --- stream operation programs ---

FIXED_WIDTH_RANGES = {"u8": (0, 0xFF), "u16": (0, 0xFFFF), "u32": (0, U32_MAX), "u64": (0, U64_MAX),
                      "u16be": (0, 0xFFFF), "u32be": (0, U32_MAX), "u64be": (0, U64_MAX),
                      "i8": (-0x80, 0x7F), "i16": (-0x8000, 0x7FFF), "i32": (-(1 << 31), (1 << 31) - 1),
                      "i64": (-(1 << 63), (1 << 63) - 1)}


def write_steps() -> st.SearchStrategy[tuple]:
    """One write step of a stream program: every primitive, with edge values."""
    fixed = [st.tuples(st.just(name), _edge_integers(low, high, INTEGER_FIELD_EDGES + [-1, low]))
             for name, (low, high) in FIXED_WIDTH_RANGES.items()]
    varints = [st.tuples(st.just(f"varint-{kind}"), varint_values(kind)) for kind in INT_KIND_MAX]
    return st.one_of(*fixed, *varints, st.tuples(st.just("bool"), st.booleans()),
                     st.tuples(st.just("compactsize"), compactsize_values()),
                     st.tuples(st.just("bytes"), byte_strings()), st.tuples(st.just("byte_vector"), byte_strings()))


def write_programs() -> st.SearchStrategy[tuple]:
    return st.lists(write_steps(), max_size=12).map(tuple)


def read_back_program(program) -> tuple:
    """The read steps that read what `program` wrote (compactsize range check only where it passes)."""
    def read_step(name, argument):
        if name == "compactsize":
            return name, argument <= MAX_SIZE
        if name == "bytes":
            return name, len(argument)
        return name, None
    return tuple(read_step(name, argument) for name, argument in program)


def read_programs() -> st.SearchStrategy[tuple]:
    """Read steps for arbitrary bytes: every primitive, counts and skips near the data's size."""
    names = list(FIXED_WIDTH_RANGES) + [f"varint-{kind}" for kind in INT_KIND_MAX] + ["bool", "byte_vector"]
    step = st.one_of(st.tuples(st.sampled_from(names), st.none()),
                     st.tuples(st.just("compactsize"), st.booleans()),
                     st.tuples(st.sampled_from(["bytes", "skip"]), st.one_of(st.integers(0, 40),
                                                                            st.sampled_from([0xFFFF, U64_MAX]))))
    return st.lists(step, max_size=10).map(tuple)


# The primitive_stream fuzz target's opcodes (differential/stream_program.h, docs/targets.md), in enum order.
FUZZ_STREAM_OPERATIONS = ("u8", "u16", "u32", "u64", "u16be", "u32be", "u64be", "i8", "i16", "i32", "i64",
                          "custom_width", "bool", "compact_size", "varint", "raw_bytes", "byte_vector", "string",
                          "limited_string", "prevector", "integer_vector", "byte_array", "integer_array", "pair",
                          "map", "set", "pair_list_as_map", "list_as_set", "skip", "flush")


@st.composite
def fuzz_stream_programs(draw) -> bytes:
    """A well-formed primitive_stream program: the 15 header bytes, then operations (an opcode, optionally
    with a different read type, shape byte and count, then argument bytes). Large payloads are left to the
    raw-bytes strategy (they run ~100 times slower)."""
    header = bytes([draw(st.integers(0, 31)),
                    draw(st.integers(0, 31)),
                    draw(st.integers(0, 63)),
                    draw(st.integers(0, 72)),
                    draw(st.integers(0, 23))])
    header += draw(st.one_of(st.just(bytes(8)), st.binary(min_size=8, max_size=8)))
    header += bytes([draw(st.integers(0, 15)),
                     draw(st.one_of(st.just(0), st.integers(1, 255)))])
    operations = b""
    for _ in range(draw(st.integers(0, 12))):
        opcode = draw(st.integers(0, len(FUZZ_STREAM_OPERATIONS) - 1))
        name = FUZZ_STREAM_OPERATIONS[opcode]
        # The arguments' layout depends on the operation (parse_step_arguments); arbitrary bytes of a
        # plausible length keep most steps aligned, and a misaligned one is still a valid program.
        arguments = draw(st.binary(max_size=24))
        redirect = b""
        if draw(st.booleans()):
            opcode |= 0x80
            redirect = bytes([draw(st.integers(0, len(FUZZ_STREAM_OPERATIONS) - 1)),
                              draw(st.integers(0, 255)),
                              draw(st.integers(0, 63))])
        operations += bytes([opcode]) + arguments + redirect
    return header + operations
