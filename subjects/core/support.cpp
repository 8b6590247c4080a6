// The few definitions Core's serialization files need from the rest of its node, provided by the harness so
// that no more of Core than its serialization code is built (docs/core.md "What is built").
#include <cstdio>
#include <cstdlib>
#include <source_location>
#include <string_view>

#include <secp256k1.h>

#include <pubkey.h>
#include <util/fs_helpers.h>
#if __has_include(<util/log.h>)
#define SERDIFF_CORE_HAS_UTIL_LOG 1
#include <util/log.h>
#endif

// AutoFile::Commit and AutoFile::Truncate call these; no target truncates through AutoFile, and a commit only
// needs the bytes handed to the file (the harness never needs them on disk). A tree block_store runs on compiles
// Core's own util/fs_helpers.cpp instead (CMakeLists.txt), with its FileCommit renamed: Core's fflush and fdatasync
// for every file that has a descriptor, the flush alone for the harness's cookie FILEs (differential/fault_file.h),
// which have none to sync.
#ifndef SERDIFF_CORE_BUILDS_NODE
bool FileCommit(FILE* file) { return std::fflush(file) == 0; }
bool TruncateFile(FILE*, unsigned int) { return false; }
#else
bool serdiff_core_file_commit(FILE* file);
bool FileCommit(FILE* file)
{
    if (fileno(file) < 0) return std::fflush(file) == 0;
    return serdiff_core_file_commit(file);
}
#endif

#ifdef SERDIFF_CORE_HAS_UTIL_LOG
namespace util::log {
// AutoFile's destructor logs a failed close: the harness compares the close itself, so the log line is dropped.
bool ShouldLog(Category, Level) { return false; }
void Log(Entry) {}
}  // namespace util::log
#endif
// A tree without util/log.h (Core before 2026-02) logs through logging.h's LogInstance(): subjects/core/CMakeLists.txt
// compiles the tree's own logging.cpp (and util/fs.cpp, util/string.cpp) for it; nothing is printed, as no
// category is enabled and nothing starts the logger.

// Core's Assume/Assert failure: a broken invariant in Core's code is a finding, so it aborts like any mismatch.
#if !defined(SERDIFF_CORE_ASSERTION_FAIL_TAKES_SOURCE_LOCATION) || SERDIFF_CORE_ASSERTION_FAIL_TAKES_SOURCE_LOCATION
void assertion_fail(const std::source_location& location, std::string_view assertion)
{
    std::fprintf(stderr, "Bitcoin Core assertion failed: %s:%u %s: %.*s\n", location.file_name(),
                 static_cast<unsigned>(location.line()), location.function_name(), static_cast<int>(assertion.size()),
                 assertion.data());
    std::abort();
}
#else
// Before Core took a std::source_location there (2025), the file, line and function came one by one.
void assertion_fail(std::string_view file, int line, std::string_view function, std::string_view assertion)
{
    std::fprintf(stderr, "Bitcoin Core assertion failed: %.*s:%d %.*s: %.*s\n", static_cast<int>(file.size()),
                 file.data(), line, static_cast<int>(function.size()), function.data(),
                 static_cast<int>(assertion.size()), assertion.data());
    std::abort();
}
#endif

// compressor.cpp's two uses of an EC key, written against libsecp256k1's public API (Debian's library, the one
// serdiff's crypto/ uses) instead of building Core's pubkey.cpp and its bundled libsecp256k1 (whose symbols
// would clash with that library's in one binary). Same contract: parse the key as it is; Decompress() re-encodes
// it uncompressed.
bool CPubKey::IsFullyValid() const
{
    if (!IsValid()) return false;
    secp256k1_pubkey point;
    return secp256k1_ec_pubkey_parse(secp256k1_context_static, &point, vch, size()) == 1;
}

bool CPubKey::Decompress()
{
    if (!IsValid()) return false;
    secp256k1_pubkey point;
    if (!secp256k1_ec_pubkey_parse(secp256k1_context_static, &point, vch, size())) return false;
    unsigned char uncompressed[SIZE];
    size_t length = SIZE;
    secp256k1_ec_pubkey_serialize(secp256k1_context_static, uncompressed, &length, &point, SECP256K1_EC_UNCOMPRESSED);
    Set(uncompressed, uncompressed + length);
    return true;
}
