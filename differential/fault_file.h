// A FILE* over bytes in memory that fails on purpose (glibc's fopencookie): a short write (a full disk) or
// an I/O error from a chosen byte offset on, or a seek to the end of the file that fails or after which the
// position cannot be told, or an unseekable file (a pipe: every seek fails, so no position can be told). Used by
// the buffered_writer and block_store programs' fault modes, the buffered_writer and buffered_reader programs'
// unseekable mode and by tests/fault_injection_test.cpp.
#pragma once

#include <cstdint>
#include <cstdio>

#include "model/model.h"

namespace serdiff::differential {

enum class Fault { none, short_write, io_error, seek_end_error, tell_after_seek_end_error, unseekable };

// The file behind the cookie. short_write accepts the bytes before fault_offset and reports the short
// count (ENOSPC), then accepts nothing; io_error accepts nothing of a write that would reach the offset
// (EIO), and fails a read that would. seek_end_error fails every seek relative to the end;
// tell_after_seek_end_error lets it succeed but fails the one position query (glibc's ftello: a seek by 0 from
// the current position) right after it. Both fail with EIO unless error_number says otherwise; other seeks work.
// unseekable fails every seek, a position query (ftello) included, with ESPIPE as a pipe does (glibc ignores
// ESPIPE where it syncs a read stream's position at fclose); reads and writes work.
struct FaultFile {
    model::Bytes data;
    uint64_t position = 0;
    Fault fault = Fault::none;
    uint64_t fault_offset = 0;
    int error_number = 0;  // the errno a failing call sets; 0: ENOSPC for short_write, EIO for the others
    bool after_seek_end = false;  // the last call was a seek to the end (tell_after_seek_end_error)
    // A failing write reports −1, as write(2) does, instead of the 0 fopencookie(3) asks for; from the first such
    // failure on every write fails (so the byte glibc then keeps for fclose never lands). With an unbuffered
    // stream glibc's fwrite returns the full count and only the error flag tells (docs/file-io.md).
    bool write_returns_minus_one = false;
    bool write_failed = false;  // write_returns_minus_one: a write has failed
    bool closed = false;        // the FILE* was closed (the cookie's close function ran)
};

// A FILE* on `file` (which must outlive it) in `mode`; stdio_buffered = false sets _IONBF. Throws
// std::runtime_error when fopencookie fails.
std::FILE* open_fault_file(FaultFile& file, const char* mode, bool stdio_buffered);

}  // namespace serdiff::differential
