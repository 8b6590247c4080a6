// Included before Core's flatfile.cpp (subjects/core/CMakeLists.txt): FlatFileSeq::Open's fsbridge::fopen becomes
// block_file_faults.cpp's serdiff_core_fopen, which opens the file as Core does unless block_store's fault mode has
// armed a fault on it. The standard headers that #undef fopen come first, so the rename stays to the end of the unit.
#pragma once

#include <cstdio>
#include <stdio.h>

#include <util/fs.h>

namespace fsbridge {
FILE* serdiff_core_fopen(const fs::path& path, const char* mode);
}

#define fopen serdiff_core_fopen
