"""One interface over the three implementations (optimized, reference, spec), keyed by encoded kind."""
from __future__ import annotations

from serdiff import spec_codec
from serdiff.model import INT_KINDS

# Every kind an implementation encodes: name -> (facade function suffix, extra positional arguments).
OBJECT_KINDS = {
    "transaction": ("transaction", (True,)),
    "transaction-nowitness": ("transaction", (False,)),
    "header": ("header", ()),
    "block": ("block", ()),
    "locator": ("locator", ()),
    "block_undo": ("block_undo", ()),
}
SCALAR_KINDS = ("compactsize", "compactsize-unchecked") + tuple(f"varint-{kind}" for kind in INT_KINDS)
KINDS = tuple(OBJECT_KINDS) + SCALAR_KINDS


class Implementation:
    """encode/decode/size for every kind, over a module with the codec.h facade functions."""

    def __init__(self, name: str, module, has_size_computer: bool):
        self.name = name
        self.module = module
        self.has_size_computer = has_size_computer

    def __repr__(self):
        return f"<{self.name}>"

    def encode(self, kind: str, value) -> bytes:
        if kind.startswith("compactsize"):
            return self.module.encode_compactsize(value)
        if kind.startswith("varint-"):
            return self.module.encode_varint(value, kind.removeprefix("varint-"))
        suffix, extra = OBJECT_KINDS[kind]
        return getattr(self.module, "encode_" + suffix)(value, *extra)

    def decode(self, kind: str, data: bytes):
        if kind.startswith("compactsize"):
            return self.module.decode_compactsize(data, kind == "compactsize")
        if kind.startswith("varint-"):
            return self.module.decode_varint(data, kind.removeprefix("varint-"))
        suffix, extra = OBJECT_KINDS[kind]
        return getattr(self.module, "decode_" + suffix)(data, *extra)

    def size(self, kind: str, value) -> int | None:
        """The implementation's own size computation, or None where it has none for this kind."""
        if not self.has_size_computer or kind not in OBJECT_KINDS:
            return None
        suffix, extra = OBJECT_KINDS[kind]
        return getattr(self.module, "size_" + suffix)(value, *extra)


def spec() -> Implementation:
    return Implementation("spec", spec_codec, has_size_computer=False)


def native() -> tuple[Implementation, Implementation]:
    """The optimized and reference C++ implementations (needs the compiled extension)."""
    from serdiff import _native
    return (Implementation("optimized", _native.optimized, has_size_computer=True),
            Implementation("reference", _native.reference, has_size_computer=False))


def all_implementations() -> tuple[Implementation, ...]:
    return native() + (spec(),)
