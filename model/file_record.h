// Result of reading one block or undo record from a file; both implementations return this shape.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/model.h"

namespace serdiff::model {

enum class RecordStatus {
    ok,
    end_of_file,   // the offset is the end of the file
    zero_padding,  // the bytes at the offset are zeros as stored (bitcoind preallocates files)
    corrupt,       // `error` says why
};

constexpr std::string_view to_string(RecordStatus status)
{
    switch (status) {
    case RecordStatus::ok: return "ok";
    case RecordStatus::end_of_file: return "end_of_file";
    case RecordStatus::zero_padding: return "zero_padding";
    case RecordStatus::corrupt: return "corrupt";
    }
    return "?";
}

struct FileRecord {
    RecordStatus status = RecordStatus::end_of_file;
    std::string error;
    uint64_t offset = 0;       // of the record's magic
    uint32_t size = 0;         // the size field, once read
    Bytes payload;             // the de-obfuscated payload when the framing is intact
    uint256 hash;              // ok blocks: sha256d of the 80-byte header; undo: the stored checksum
    uint64_t next_offset = 0;  // the following record when the framing is intact, else 0 (scan stops)

    bool operator==(const FileRecord&) const = default;
};

}  // namespace serdiff::model
