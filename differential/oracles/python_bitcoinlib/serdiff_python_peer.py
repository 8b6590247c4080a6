"""python-bitcoinlib's deserializer as a serdiff peer: bytes -> (accepted, consumed, reencoded, error)."""

from io import BytesIO

from bitcoin.core import CBlock, CTransaction


def _decode(cls, data):
    stream = BytesIO(data)
    try:
        value = cls.stream_deserialize(stream)
    except Exception as error:  # every exception the library raises on bad bytes is a rejection
        return (False, 0, b"", "%s: %s" % (type(error).__name__, error))
    return (True, stream.tell(), value.serialize(), "")


def decode_tx(data, allow_witness):
    """A transaction prefix of `data`; python-bitcoinlib has no witness-free mode (None = unsupported)."""
    if not allow_witness:
        return None
    return _decode(CTransaction, data)


def decode_block(data):
    """A block prefix of `data` (header, then transactions with witness)."""
    return _decode(CBlock, data)
