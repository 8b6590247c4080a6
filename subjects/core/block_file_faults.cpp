// The fault FILE* of block_file_faults.h, and the file helpers Core calls with it.
#include "block_file_faults.h"

#include <fcntl.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <map>
#include <vector>

#include <util/fs.h>
#include <util/fs_helpers.h>

#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#include <sanitizer/msan_interface.h>
#define SERDIFF_BLOCK_FAULT_MSAN 1
#endif
#endif

// Core's own, renamed where util/fs_helpers.cpp is compiled (CMakeLists.txt).
bool serdiff_core_truncate_file(FILE* file, unsigned int length);
void serdiff_core_allocate_file_range(FILE* file, unsigned int offset, unsigned int length);

namespace serdiff::core_subject {
namespace {

using Fault = BlockFileFault;

struct State {
    BlockFileFaultPlan plan;
    bool hit = false;
    uint64_t record_hits = 0;  // failed writes and closes of a FILE* Core did not open to preallocate
    bool once_spent = false;  // io_error_once has failed its one write
};
State& state()
{
    static State value;
    return value;
}

// One open fault FILE*: the real file (Core's own fopen of it) and the position the cookie reads and writes at.
struct Cookie {
    FILE* real = nullptr;
    FILE* self = nullptr;  // the fault FILE* (its key in open_files)
    int fd = -1;
    uint64_t position = 0;
    bool written = false;
    bool allocating = false;  // AllocateFileRange was called with it (FlatFileSeq::Allocate's FILE*: advisory writes)
    std::vector<char> buffer;  // its stdio buffer (setvbuf with a null buffer would ignore the size asked for)
};
std::map<FILE*, Cookie*>& open_files()
{
    static std::map<FILE*, Cookie*> files;
    return files;
}
Cookie* cookie_of(FILE* file)
{
    const auto found = open_files().find(file);
    return found == open_files().end() ? nullptr : found->second;
}

ssize_t fault_write(void* opaque, const char* buffer, size_t size)
{
    auto& cookie = *static_cast<Cookie*>(opaque);
#ifdef SERDIFF_BLOCK_FAULT_MSAN
    __msan_unpoison(buffer, size);  // copied into stdio's buffer by glibc's uninstrumented memcpy
#endif
    State& s = state();
    size_t accepted = size;
    const uint64_t end = cookie.position + size;
    int error = 0;
    if (end > s.plan.offset) {
        if (s.plan.kind == Fault::full_disk) {
            accepted = cookie.position < s.plan.offset ? static_cast<size_t>(s.plan.offset - cookie.position) : 0;
            error = ENOSPC;
        } else if (s.plan.kind == Fault::io_error || (s.plan.kind == Fault::io_error_once && !s.once_spent)) {
            accepted = 0;
            error = EIO;
            s.once_spent = true;
        }
    }
    size_t done = 0;
    while (done < accepted) {
        const ssize_t n = pwrite(cookie.fd, buffer + done, accepted - done, static_cast<off_t>(cookie.position + done));
        if (n <= 0) {
            error = errno;
            break;
        }
        done += static_cast<size_t>(n);
    }
    cookie.position += done;
    if (done > 0) cookie.written = true;
    if (done < size) {
        s.hit = true;
        if (!cookie.allocating) ++s.record_hits;
        errno = error ? error : EIO;
    }
    // fopencookie(3): a write function reports an error by returning what it wrote, 0 if nothing, never -1.
    return static_cast<ssize_t>(done);
}

ssize_t fault_read(void* opaque, char* buffer, size_t size)
{
    auto& cookie = *static_cast<Cookie*>(opaque);
    const ssize_t n = pread(cookie.fd, buffer, size, static_cast<off_t>(cookie.position));
    if (n > 0) cookie.position += static_cast<uint64_t>(n);
    return n;
}

int fault_seek(void* opaque, off64_t* offset, int whence)
{
    auto& cookie = *static_cast<Cookie*>(opaque);
    int64_t base = 0;
    if (whence == SEEK_CUR) base = static_cast<int64_t>(cookie.position);
    if (whence == SEEK_END) {
        struct stat status;
        if (fstat(cookie.fd, &status) != 0) return -1;
        base = status.st_size;
    }
    if (base + *offset < 0) {
        errno = EINVAL;
        return -1;
    }
    cookie.position = static_cast<uint64_t>(base + *offset);
    *offset = static_cast<off64_t>(cookie.position);
    return 0;
}

int fault_close(void* opaque)
{
    auto* cookie = static_cast<Cookie*>(opaque);
    State& s = state();
    const bool fails = s.plan.kind == Fault::failing_close && cookie->written && !s.hit;
    const bool allocating = cookie->allocating;
    std::fclose(cookie->real);
    open_files().erase(cookie->self);
    delete cookie;  // (glibc no longer touches the stdio buffer it held once the close function runs)
    if (fails) {
        s.hit = true;
        if (!allocating) ++s.record_hits;
        errno = EIO;
        return -1;
    }
    return 0;
}

}  // namespace

void arm_block_file_fault(const BlockFileFaultPlan& plan)
{
    state() = State{.plan = plan};
}

bool block_file_fault_hit() { return state().hit; }

uint64_t block_file_record_fault_hits() { return state().record_hits; }

const char* block_file_fault_name(BlockFileFault kind)
{
    switch (kind) {
    case Fault::none: return "none";
    case Fault::full_disk: return "a full disk";
    case Fault::io_error: return "an I/O error";
    case Fault::io_error_once: return "one I/O error";
    case Fault::failing_close: return "a failing close";
    }
    return "?";
}

}  // namespace serdiff::core_subject

namespace fsbridge {
// FlatFileSeq::Open's fopen (flatfile.cpp is compiled with fopen=serdiff_core_fopen).
FILE* serdiff_core_fopen(const fs::path& path, const char* mode)
{
    using namespace serdiff::core_subject;
    const State& s = state();
    FILE* real = fsbridge::fopen(path, mode);
    if (real == nullptr || s.plan.kind == Fault::none || fs::PathToString(path.filename()) != s.plan.file_name) return real;
    auto* cookie = new Cookie{.real = real, .fd = fileno(real)};
    FILE* file = fopencookie(cookie, mode, {fault_read, fault_write, fault_seek, fault_close});
    if (file == nullptr) {
        std::fclose(real);
        delete cookie;
        return nullptr;
    }
    // The buffer a FILE* of a file on /dev/shm or ext4 gets (st_blksize), not fopencookie's BUFSIZ: the same calls
    // reach the file as without the fault. glibc ignores the size of a setvbuf without a buffer: the cookie owns one.
    struct stat status;
    cookie->buffer.resize(fstat(cookie->fd, &status) == 0 && status.st_blksize > 0 ? static_cast<size_t>(status.st_blksize) : 4096);
    setvbuf(file, cookie->buffer.data(), _IOFBF, cookie->buffer.size());
    __fsetlocking(file, FSETLOCKING_BYCALLER);
    cookie->self = file;
    open_files()[file] = cookie;
    return file;
}
}  // namespace fsbridge

// The helpers of util/fs_helpers.h that take a FILE*: Core's own for a file with a descriptor; for a fault FILE*
// (no descriptor), the same calls on the real file's.
bool TruncateFile(FILE* file, unsigned int length)
{
    if (fileno(file) >= 0) return serdiff_core_truncate_file(file, length);
    const auto* cookie = serdiff::core_subject::cookie_of(file);
    return cookie != nullptr && ftruncate(cookie->fd, length) == 0;
}

void AllocateFileRange(FILE* file, unsigned int offset, unsigned int length)
{
    using namespace serdiff::core_subject;
    auto* cookie = cookie_of(file);
    if (fileno(file) >= 0 || cookie == nullptr) return serdiff_core_allocate_file_range(file, offset, length);
    cookie->allocating = true;
    // posix_fallocate on the real file, as Core does; a full disk below the range's end refuses it (ENOSPC), and
    // Core's fallback then writes zeros through the FILE* (serdiff_core_allocate_file_range, whose posix_fallocate
    // of no descriptor fails).
    const State& s = state();
    const uint64_t end = static_cast<uint64_t>(offset) + length;
    if (!(s.plan.kind == Fault::full_disk && end > s.plan.offset) && posix_fallocate(cookie->fd, 0, static_cast<off_t>(end)) == 0) return;
    serdiff_core_allocate_file_range(file, offset, length);
}
