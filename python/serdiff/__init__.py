"""serdiff: the optimized and reference C++ codecs bound for Python, plus a pure-Python spec codec."""
from serdiff.model import (Block, BlockHeader, BlockLocator, BlockUndo, Coin, Decoded, OutPoint, Transaction, TxIn,
                           TxOut, TxUndo)

__all__ = ["Block", "BlockHeader", "BlockLocator", "BlockUndo", "Coin", "Decoded", "OutPoint", "Transaction", "TxIn",
           "TxOut", "TxUndo"]
