// The planted-bug hook: SERDIFF_PLANTED(name) is a constant expression, true only in a build that plants the
// bug `name` (PLANTED=name in make; -DSERDIFF_PLANTED_BUG=name in CMake) and false in every other build, so
// each hook compiles to the correct code alone. The bugs, their detectors and what those must report are
// listed once, in tests/planted/bugs.tsv; the code that is wrong on purpose is in tests/planted/defects.h.
#pragma once

#include <string_view>

#include "tests/planted/defects.h"

#ifdef SERDIFF_PLANTED_BUG
#define SERDIFF_PLANTED_STRINGIFY(name) #name
#define SERDIFF_PLANTED_NAME(name) SERDIFF_PLANTED_STRINGIFY(name)
// The planted bug's name, as a string (the definition is a bare identifier).
inline constexpr std::string_view kSerdiffPlantedBug = SERDIFF_PLANTED_NAME(SERDIFF_PLANTED_BUG);
#define SERDIFF_PLANTED(name) (kSerdiffPlantedBug == std::string_view{#name})
#else
#define SERDIFF_PLANTED(name) false
#endif
