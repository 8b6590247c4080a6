// The seam between the harness and the code under test (the "subject"): what every subject-generic target
// and helper calls instead of naming serialize/. Each subject defines these once (subjects/<name>/), and each
// fuzz binary links exactly one: serdiff_fuzz_* the serdiff subject (serialize/), core_fuzz_* Bitcoin Core's
// own source (subjects/core/, docs/core.md). The reference side is the same for every subject.
#pragma once

#include <cstdint>
#include <optional>

#include "model/codec_table.h"

namespace serdiff::subject {

// "serdiff" or "core": what this binary's reports call the side under test.
const char* name();

// The subject's codecs for every type of model/codec_table.h; .side is name().
const model::CodecTable& codec_table();

// Where a subject's code departs from docs/format.md on purpose (docs/divergences.md lists each with an
// input), the harness compares it against the rule the subject keeps, and nowhere else.
struct Divergences {
    // Set when the subject reads a block locator's version and drops it, writing this constant instead.
    std::optional<int32_t> locator_version_written;
};
const Divergences& divergences();

}  // namespace serdiff::subject
