"""The pure-Python spec codec against the examples SEMANTICS.md and docs/format.md state (no extension needed)."""
import pytest

from serdiff import spec_codec
from serdiff.model import Transaction


@pytest.mark.parametrize("value, encoded", [(0, "00"), (127, "7f"), (128, "8000"), (255, "807f"), (16511, "ff7f"),
                                            (16512, "808000")])
def test_varint_examples_from_semantics(value, encoded):
    assert spec_codec.encode_varint(value).hex() == encoded
    assert spec_codec.decode_varint(bytes.fromhex(encoded)).value == value


@pytest.mark.parametrize("encoded, error", [("fdfc00", "non-canonical"), ("fe00000002", None),
                                            ("fe00000004", "size too large"), ("fe01000002", "size too large"),
                                            ("ff0000000400000000", "non-canonical"), ("fd00", "end of data")])
def test_compactsize_errors_from_format_notes(encoded, error):
    decoded = spec_codec.decode_compactsize(bytes.fromhex(encoded))
    assert (decoded.error or None) == error


def test_varint_overflow_is_size_too_large():
    assert spec_codec.decode_varint(b"\x80\x7f", "u8").value == 255
    assert spec_codec.decode_varint(b"\x81\x00", "u8").error == "size too large"  # 256
    assert spec_codec.decode_varint(b"\x80\x7f", "u16").value == 255
    assert spec_codec.decode_varint(bytes([0xff] * 10) + b"\x00", "u64").error == "size too large"


def test_amount_compression_round_trips_core_examples():
    for amount in (0, 1, 50 * 100_000_000, 21_000_000 * 100_000_000, 123_456_789):
        assert spec_codec.decompress_amount(spec_codec.compress_amount(amount)) == amount
    assert spec_codec.compress_amount(50 * 100_000_000) == 0x32  # 5e9: five, nine trailing zeros


def test_generator_point_decompresses():
    gx = 0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798
    gy = 0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8
    assert spec_codec.decompress_point(2, gx) == b"\x04" + gx.to_bytes(32, "big") + gy.to_bytes(32, "big")
    assert spec_codec.is_on_curve(gx, gy) and not spec_codec.is_on_curve(gx, gy + 1)


def test_empty_transaction_with_zero_flag_reads_no_outputs():
    decoded = spec_codec.decode_transaction(bytes.fromhex("01000000" "0000" "00000000"), True)
    assert decoded.value == Transaction(1, (), (), 0) and decoded.consumed == 10


def test_superfluous_and_unknown_witness_flags():
    one_input = "01" + "00" * 36 + "00" + "ffffffff"
    assert spec_codec.decode_transaction(bytes.fromhex("01000000" "0001" + one_input + "00" + "00" + "00000000"),
                                         True).error == "Superfluous witness record"
    assert spec_codec.decode_transaction(bytes.fromhex("01000000" "0002" + one_input + "00" + "00000000"),
                                         True).error == "Unknown transaction optional data"
