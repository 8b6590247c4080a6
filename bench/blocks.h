// The blocks the benchmarks run on: the four mainnet blocks of ../shared/data/blocks, or generated
// blocks of the same shape when that directory is absent.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/model.h"

namespace serdiff::bench {

struct BenchBlock {
    std::string label;  // the height, e.g. "413567" (a generated block: "413567-shape")
    model::Bytes bytes;  // the serialized block
    model::Block block;  // decoded once, by the reference
    bool generated = false;
};

// Reads every *.raw under data_dir/blocks (sorted by name); when there is none, generates four blocks
// with the sizes, transaction counts and witness shares of the mainnet ones. `note` says which.
std::vector<BenchBlock> load_blocks(const std::filesystem::path& data_dir, std::string& note);

}  // namespace serdiff::bench
