// Binds the stream operation programs (primitive level) into the optimized and reference submodules.
#pragma once

#include <nanobind/nanobind.h>

void bind_stream_programs(nanobind::module_ optimized_module, nanobind::module_ reference_module);
