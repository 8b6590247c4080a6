// Target block_store: block and undo records written on both sides, the file damaged, then scanned and read on both sides.
#include "differential/file_programs.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(block_store, .max_len = 16384)
{
    serdiff::differential::check_block_store_program(input);
}
