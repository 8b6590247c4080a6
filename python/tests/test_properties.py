"""Differential properties over the three implementations (optimized, reference, pure-Python spec)."""
from hypothesis import assume, given, note
from hypothesis import strategies as st

from serdiff import _native, implementations, spec_codec, strategies

OPTIMIZED, REFERENCE = implementations.native()
SPEC = implementations.spec()
ALL = (OPTIMIZED, REFERENCE, SPEC)

# Half the examples go to the six object kinds: the scalar kinds are small and quickly covered.
kinds = st.one_of(st.sampled_from(tuple(implementations.OBJECT_KINDS)), st.sampled_from(implementations.SCALAR_KINDS))


def encode_everywhere(kind, value):
    return {implementation.name: implementation.encode(kind, value) for implementation in ALL}


@given(kind=kinds, data=st.data())
def test_three_implementations_encode_identically(kind, data):
    value = data.draw(strategies.values(kind), label="value")
    encodings = encode_everywhere(kind, value)
    note({name: encoded.hex() if len(encoded) < 400 else f"{len(encoded)} bytes" for name, encoded in encodings.items()})
    assert encodings["optimized"] == encodings["spec"]
    assert encodings["reference"] == encodings["spec"]


@given(kind=kinds, data=st.data())
def test_decode_of_encode_is_identity_on_every_implementation(kind, data):
    value = data.draw(strategies.values(kind), label="value")
    assume(strategies.survives_round_trip(kind, value))
    for implementation in ALL:
        encoded = implementation.encode(kind, value)
        decoded = implementation.decode(kind, encoded)
        assert decoded.outcome() == ("accepted", len(encoded), value), implementation.name


@given(kind=kinds, data=st.data())
def test_size_equals_encoded_length(kind, data):
    value = data.draw(strategies.values(kind), label="value")
    for implementation in ALL:
        size = implementation.size(kind, value)
        if size is not None:
            assert size == len(implementation.encode(kind, value)), implementation.name


@given(kind=kinds, data=st.data())
def test_all_implementations_agree_on_arbitrary_bytes(kind, data):
    encoded = data.draw(strategies.decode_inputs(kind), label="input")
    outcomes = {implementation.name: implementation.decode(kind, encoded).outcome() for implementation in ALL}
    assert outcomes["optimized"] == outcomes["spec"]
    assert outcomes["reference"] == outcomes["spec"]


def test_every_bound_encoder_is_covered_by_a_kind():
    covered = {"encode_" + suffix for suffix, _ in implementations.OBJECT_KINDS.values()}
    covered |= {"encode_compactsize", "encode_varint"}
    for module in (OPTIMIZED.module, REFERENCE.module, SPEC.module):
        assert {name for name in dir(module) if name.startswith("encode_")} <= covered, module


@given(program=strategies.write_programs())
def test_stream_programs_write_identical_bytes(program):
    expected = spec_codec.write_program(program)
    assert OPTIMIZED.module.write_program(program, "datastream") == expected
    assert OPTIMIZED.module.write_program(program, "vectorwriter") == expected
    assert REFERENCE.module.write_program(program) == expected
    assert OPTIMIZED.module.size_program(program) == len(expected)


@given(program=strategies.write_programs(), initial=st.binary(max_size=40), data=st.data())
def test_vectorwriter_overwrites_then_appends_like_the_spec(program, initial, data):
    position = data.draw(st.integers(0, len(initial) + 3), label="position")
    expected = spec_codec.write_program(program, initial, position)
    assert OPTIMIZED.module.write_program(program, "vectorwriter", initial, position) == expected


@given(program=strategies.write_programs())
def test_stream_programs_read_back_what_they_wrote(program):
    written = spec_codec.write_program(program)
    reads = strategies.read_back_program(program)
    expected = ([argument for _, argument in program], "", len(written))
    assert spec_codec.read_program(written, reads) == expected
    assert OPTIMIZED.module.read_program(written, reads, "datastream") == expected
    assert OPTIMIZED.module.read_program(written, reads, "spanreader") == expected
    assert REFERENCE.module.read_program(written, reads) == expected


@given(program=strategies.read_programs(), data=st.data())
def test_stream_programs_agree_on_arbitrary_bytes(program, data):
    encoded = data.draw(st.one_of(st.binary(max_size=80),
                                  strategies.write_programs().map(spec_codec.write_program).flatmap(strategies.mutated)),
                        label="input")
    expected = spec_codec.read_program(encoded, program)
    assert OPTIMIZED.module.read_program(encoded, program, "datastream") == expected
    assert OPTIMIZED.module.read_program(encoded, program, "spanreader") == expected
    assert REFERENCE.module.read_program(encoded, program) == expected


@given(program=st.one_of(st.binary(max_size=160), strategies.fuzz_stream_programs()))
def test_fuzz_target_stream_programs_agree(program):
    """The primitive_stream fuzz target's own check (differential/stream_program.h) on Hypothesis-drawn
    programs: every optimized writer/reader against the reference; MismatchError carries the report."""
    note(f"program ({len(program)} bytes): {program.hex()}")
    _native.check_fuzz_stream_program(program)
