// Target size_computer: structured objects built from the input; SizeComputer == encoded length on both sides.
#include "differential/codecs.h"
#include "differential/generate.h"
#include "fuzz_targets/registry.h"

using namespace serdiff::differential;

SERDIFF_FUZZ_TARGET(size_computer, .max_len = 8192)
{
    FuzzInput fuzz(input);
    ValueGenerator generate(fuzz);
    // check_encoding compares both encodings, optimized size_*() against the length, and the re-decode.
    switch (fuzz.in_range<int>(0, 5)) {
    case 0: check_encoding(transaction_codec(true), generate.transaction(), input); break;
    case 1: check_encoding(transaction_codec(false), generate.transaction(), input); break;
    case 2: check_encoding(block_header_codec(), generate.header(), input); break;
    case 3: check_encoding(block_codec(), generate.block(), input); break;
    case 4: check_encoding(block_locator_codec(), generate.locator(), input); break;
    default: check_encoding(block_undo_codec(), generate.block_undo(), input); break;
    }
}
