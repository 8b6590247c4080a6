// Target buffered_reader: byte/span/ignore programs on one obfuscated file through BufferedReader and AutoFile vs the reference FileReader.
#include "differential/file_programs.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(buffered_reader, .max_len = 2048)
{
    serdiff::differential::check_buffered_reader_program(input);
}
