// In-memory files (memfd) for the file-layer fuzz targets: real FILE* semantics without disk or fsync.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "model/model.h"

namespace serdiff::differential {

// One memfd per role, created once and reused (truncated) by every fuzz input. Each open() is a new open
// file description (via /proc/self/fd), so several FILE*s on the same MemoryFile keep separate offsets.
class MemoryFile {
public:
    explicit MemoryFile(const char* name);
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;
    ~MemoryFile();

    // Empties the file.
    void clear();
    // Replaces the contents.
    void assign(std::span<const uint8_t> bytes);
    // Every byte of the file.
    model::Bytes contents() const;
    // A FILE* on it in `mode` ("rb", "wb", ...), positioned at `start` (a gap before it reads as zeros).
    // The caller hands it to an AutoFile/FileWriter/FileReader, which owns it.
    std::FILE* open(const char* mode, uint64_t start) const;

private:
    int descriptor_;
    std::string path_;
};

}  // namespace serdiff::differential
