// Target buffered_writer: byte/span/CompactSize/u32/flush programs through BufferedWriter and AutoFile vs the reference FileWriter.
#include "differential/file_programs.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(buffered_writer, .max_len = 4096)
{
    serdiff::differential::check_buffered_writer_program(input);
}
