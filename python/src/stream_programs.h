// Binds the stream operation programs (primitive level) into the optimized and reference submodules.
#pragma once

#include <nanobind/nanobind.h>

void bind_stream_programs(nanobind::module_ optimized_module, nanobind::module_ reference_module);

// Binds check_fuzz_stream_program (and MismatchError): runs a primitive_stream fuzz target program
// (differential/stream_program.h, docs/targets.md) and raises MismatchError with the report on a difference.
void bind_fuzz_stream_programs(nanobind::module_ module);
