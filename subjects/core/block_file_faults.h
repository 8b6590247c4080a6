// Faults on the blocks directory's files for the Core subject's block_store (docs/core-block-store.md "Faults"):
// flatfile.cpp is compiled with fopen renamed (subjects/core/CMakeLists.txt), so every file FlatFileSeq::Open opens
// comes through serdiff_core_fopen (block_file_faults.cpp). With a fault armed, the file it names opens as a FILE*
// (glibc's fopencookie) that reads and writes the real file at its own position and fails writes, or its close, as
// the fault says; every other file opens as Core opens it. TruncateFile and AllocateFileRange act on the real file's
// descriptor when Core calls them with such a FILE*; FileCommit flushes it (support.cpp: nothing to sync).
#pragma once

#include <cstdint>
#include <string>

namespace serdiff::core_subject {

enum class BlockFileFault : uint8_t {
    none,
    full_disk,      // a write reaching `offset` writes the bytes before it (a short count, ENOSPC); later ones nothing
    io_error,       // every write reaching `offset` writes nothing (EIO)
    io_error_once,  // the first write reaching `offset` writes nothing (EIO); later writes work (a passing fault)
    failing_close,  // writes work; the first fclose after a write reports EIO
};

struct BlockFileFaultPlan {
    BlockFileFault kind = BlockFileFault::none;
    std::string file_name;  // the file's name in the blocks directory, e.g. "blk00000.dat"
    uint64_t offset = 0;    // the absolute file offset the fault starts at
};

// Arms `plan` for the files opened from now on (kind none disarms) and clears what block_file_fault_hit says.
void arm_block_file_fault(const BlockFileFaultPlan& plan);

// Whether the armed fault has failed a write or a close.
bool block_file_fault_hit();

// How many writes and closes the armed fault has failed on FILE*s other than the ones FlatFileSeq::Allocate opens to
// preallocate (whose writes are advisory: Core's AllocateFileRange ignores their errors).
uint64_t block_file_record_fault_hits();

const char* block_file_fault_name(BlockFileFault kind);

}  // namespace serdiff::core_subject
