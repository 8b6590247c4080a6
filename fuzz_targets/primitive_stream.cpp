// Target primitive_stream: a typed operation program through every optimized writer and reader vs the reference.
#include "differential/stream_program.h"
#include "fuzz_targets/registry.h"

SERDIFF_FUZZ_TARGET(primitive_stream, .max_len = 4096)
{
    serdiff::differential::check_stream_program(serdiff::differential::parse_stream_program(input), input);
}
