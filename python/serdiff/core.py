"""Bitcoin Core as a fourth implementation: libbitcoinkernel.so from the pinned py-bitcoinkernel wheel, via ctypes.

Core's C API decodes transactions (with witness only), blocks and block headers: accepted or rejected (no
message), and Core's re-encoding. It ignores trailing bytes and reports no consumed count, so the count is
measured as in differential/oracles/core/peer.cpp: Core reads front to back, so a prefix decodes exactly when
it is at least as long as what Core consumes; the re-encoding's length is confirmed (that prefix decodes, one
byte less does not), else a binary search finds the shortest prefix that decodes.
"""
from __future__ import annotations

import ctypes
import importlib.metadata
import importlib.util
import os
import re
from pathlib import Path

KINDS = ("transaction", "header", "block")
_WRITE_BYTES = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)


class NotInstalled(Exception):
    """py-bitcoinkernel is not in this interpreter (the only reason Core may be skipped rather than fail)."""


def pinned_version(requirements: Path) -> str:
    """The version differential/oracles/core/requirements.txt pins."""
    match = re.search(r"py-bitcoinkernel==(\S+)", requirements.read_text())
    if not match:
        raise RuntimeError(f"{requirements} pins no py-bitcoinkernel version")
    return match.group(1)


def _library_path(requirements: Path) -> str:
    overridden = os.environ.get("SERDIFF_CORE_LIBRARY")
    if overridden:
        return overridden
    spec = importlib.util.find_spec("pbk")
    if spec is None or not spec.submodule_search_locations:
        raise NotInstalled("py-bitcoinkernel is not installed in this interpreter "
                           "(python/build.sh installs it with differential/oracles/core/install.sh)")
    installed = importlib.metadata.version("py-bitcoinkernel")
    if installed != pinned_version(requirements):
        raise RuntimeError(f"py-bitcoinkernel {installed} is installed, not the pinned {pinned_version(requirements)}")
    return str(Path(list(spec.submodule_search_locations)[0]) / "_libs" / "libbitcoinkernel.so")


class Core:
    """decode(kind, data) -> ("accepted", consumed, reencoded) or ("rejected",)."""

    def __init__(self, requirements: Path):
        self.path = _library_path(requirements)
        library = ctypes.CDLL(self.path)
        self._create, self._destroy, self._encode = {}, {}, {}
        for kind, prefix in (("transaction", "btck_transaction"), ("block", "btck_block"),
                             ("header", "btck_block_header")):
            create = getattr(library, prefix + "_create")
            create.restype, create.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_size_t]
            destroy = getattr(library, prefix + "_destroy")
            destroy.restype, destroy.argtypes = None, [ctypes.c_void_p]
            self._create[kind], self._destroy[kind] = create, destroy
        for kind, prefix in (("transaction", "btck_transaction"), ("block", "btck_block")):
            to_bytes = getattr(library, prefix + "_to_bytes")
            to_bytes.restype, to_bytes.argtypes = ctypes.c_int, [ctypes.c_void_p, _WRITE_BYTES, ctypes.c_void_p]
            self._encode[kind] = self._callback_encoder(to_bytes)
        header_to_bytes = library.btck_block_header_to_bytes
        header_to_bytes.restype, header_to_bytes.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]

        def encode_header(handle):
            buffer = ctypes.create_string_buffer(80)
            if header_to_bytes(handle, buffer) != 0:
                raise RuntimeError("btck_block_header_to_bytes failed")
            return buffer.raw

        self._encode["header"] = encode_header
        library.btck_logging_disable.restype, library.btck_logging_disable.argtypes = None, []
        library.btck_logging_disable()

    @staticmethod
    def _callback_encoder(to_bytes):
        def encode(handle):
            out = bytearray()

            def write(pointer, size, _user_data):
                out.extend(ctypes.string_at(pointer, size))
                return 0

            if to_bytes(handle, _WRITE_BYTES(write), None) != 0:
                raise RuntimeError("Core's serializer reported a failed write")
            return bytes(out)
        return encode

    def _decodes(self, kind: str, data: bytes, length: int) -> bool:
        handle = self._create[kind](data, length)  # reads only the first `length` bytes
        if not handle:
            return False
        self._destroy[kind](handle)
        return True

    def decode(self, kind: str, data: bytes):
        handle = self._create[kind](data, len(data))
        if not handle:
            return ("rejected",)
        try:
            encoded = self._encode[kind](handle)
        finally:
            self._destroy[kind](handle)
        guess = len(encoded)
        if 1 <= guess <= len(data) and self._decodes(kind, data, guess) and not self._decodes(kind, data, guess - 1):
            return ("accepted", guess, encoded)
        low, high = 0, len(data)
        while low < high:
            middle = (low + high) // 2
            if self._decodes(kind, data, middle):
                high = middle
            else:
                low = middle + 1
        return ("accepted", high, encoded)


def load(requirements: Path) -> Core | None:
    """Core, or None when py-bitcoinkernel is not installed (NotInstalled's message says so). Any other
    failure (another version installed, the library not loading, a function missing) raises."""
    try:
        return Core(requirements)
    except NotInstalled:
        return None


def not_installed_reason() -> str:
    return ("py-bitcoinkernel is not installed in this interpreter (python/build.sh installs it with "
            "differential/oracles/core/install.sh)")
