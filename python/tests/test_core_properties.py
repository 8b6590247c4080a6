"""Bitcoin Core (libbitcoinkernel, serdiff.core) as a fourth implementation where its C API can answer:
transactions with witness, block headers and blocks. Core gives accept/reject and its re-encoding; the
consumed count is measured (serdiff.core). It must agree with the spec codec (and so with optimized and
reference, which test_properties.py holds to the spec) on every input."""
from pathlib import Path

import pytest
from hypothesis import assume, given, note
from hypothesis import strategies as st

from serdiff import core, implementations, spec_codec, strategies

REQUIREMENTS = Path(__file__).resolve().parents[2] / "differential" / "oracles" / "core" / "requirements.txt"
# Skipped only when py-bitcoinkernel is not installed at all; installed but unusable is an error.
CORE = core.load(REQUIREMENTS)
pytestmark = pytest.mark.skipif(CORE is None, reason=f"Bitcoin Core peer unavailable: {core.not_installed_reason()}")
SPEC = implementations.spec()
OPTIMIZED, REFERENCE = implementations.native()
# serdiff's kind -> Core's (the transaction kind with witness; Core has no witness-free decoder).
CORE_KINDS = {"transaction": "transaction", "header": "header", "block": "block"}
kinds = st.sampled_from(tuple(CORE_KINDS))


def expected_from(implementation, kind, data):
    """What Core must answer, from another implementation's decode: its accept/reject, consumed, re-encoding."""
    decoded = implementation.decode(kind, data)
    if not decoded.ok:
        return ("rejected",)
    return ("accepted", decoded.consumed, implementation.encode(kind, decoded.value))


@given(kind=kinds, data=st.data())
def test_core_agrees_with_every_implementation_on_arbitrary_bytes(kind, data):
    encoded = data.draw(strategies.decode_inputs(kind), label="input")
    answer = CORE.decode(CORE_KINDS[kind], encoded)
    note(f"core: {answer[0]} {answer[1:2]}")
    for implementation in (SPEC, OPTIMIZED, REFERENCE):
        assert answer == expected_from(implementation, kind, encoded), implementation.name


@given(kind=kinds, data=st.data())
def test_core_reads_every_encoding_back_byte_for_byte(kind, data):
    value = data.draw(strategies.values(kind), label="value")
    assume(strategies.survives_round_trip(kind, value))
    encoded = SPEC.encode(kind, value)
    trailing = data.draw(st.binary(max_size=8), label="trailing")
    # Trailing bytes are ignored by Core's C API; the measured consumed count leaves them out.
    assert CORE.decode(CORE_KINDS[kind], encoded + trailing) == ("accepted", len(encoded), encoded)


def test_core_is_the_pinned_library():
    assert CORE.path.endswith("libbitcoinkernel.so")
    assert core.pinned_version(REQUIREMENTS) == "0.1.0a5"


def test_core_measures_consumed_without_trailing_bytes_and_rejects_truncations():
    empty = bytes.fromhex("01000000" "00" "00" "00000000")  # version 1, `00 00`, lock_time 0: Core reads it empty
    assert CORE.decode("transaction", empty + b"\xff\x00") == ("accepted", len(empty), empty)
    segwit = bytes.fromhex("02000000" "0001" "01" + "aa" * 32 + "01000000" "00" "fdffffff"
                           "01" "e803000000000000" "0151" "01" "0101" "00000000")
    assert CORE.decode("transaction", segwit) == ("accepted", len(segwit), segwit)
    for end in range(len(segwit)):
        assert CORE.decode("transaction", segwit[:end]) == ("rejected",), end
    # A flag with no witness, and a non-canonical CompactSize: Core's rules, as the reference's.
    superfluous = bytes.fromhex("01000000" "0001" "01" + "00" * 36 + "00" "ffffffff" "01" + "00" * 8 + "00" "00"
                                "00000000")
    assert CORE.decode("transaction", superfluous) == ("rejected",)
    assert not spec_codec.decode_transaction(superfluous, True).ok


def test_consumed_falls_back_to_the_shortest_decoding_prefix():
    """When the re-encoding's length is not what Core read (never seen with Core; planted here by padding the
    re-encoding), the binary search over prefix lengths still finds the exact consumed count."""
    empty = bytes.fromhex("01000000" "00" "00" "00000000")
    real = CORE._encode["transaction"]
    CORE._encode["transaction"] = lambda handle: real(handle) + b"\x00\x00\x00"
    try:
        assert CORE.decode("transaction", empty + bytes(20)) == ("accepted", len(empty), empty + b"\x00\x00\x00")
    finally:
        CORE._encode["transaction"] = real
