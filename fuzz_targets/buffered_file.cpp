// Target buffered_file: reads, searches, rewinds, limits and skips on one obfuscated file through BufferedFile (Core's
// rewindable buffer of LoadExternalBlockFile) and AutoFile vs the reference BufferedFileModel.
#include "differential/file_programs.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(buffered_file, .max_len = 4096)
{
    serdiff::differential::check_buffered_file_program(input);
}
