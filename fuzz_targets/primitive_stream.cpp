// Target primitive_stream: a typed operation program through every optimized writer and reader vs the reference.
#include "differential/stream_program.h"
#include "fuzz_targets/registry.h"

// Programs with megabyte payloads run ~100x slower than the rest: the engine gives inputs energy in inverse
// proportion to their run time, so those still run (and find the 5,000,000-byte chunk) without dominating.
SERDIFF_FUZZ_TARGET(primitive_stream, .max_len = 4096, .libfuzzer_flags = "-entropic_scale_per_exec_time=1")
{
    serdiff::differential::check_stream_program(serdiff::differential::parse_stream_program(input), input);
}
