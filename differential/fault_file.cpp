// FaultFile: the fopencookie functions.
#include "differential/fault_file.h"

#include <stdio_ext.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#include <sanitizer/msan_interface.h>
#define SERDIFF_FAULT_FILE_MSAN 1
#endif
#endif

namespace serdiff::differential {

namespace {

ssize_t fault_write(void* cookie, const char* buffer, size_t size)
{
    auto& file = *static_cast<FaultFile*>(cookie);
#ifdef SERDIFF_FAULT_FILE_MSAN
    // glibc copied these bytes into its stdio buffer with its own, uninstrumented memcpy; MSan's fwrite
    // interceptor already checked them as initialized on the way in.
    __msan_unpoison(buffer, size);
#endif
    size_t accepted = size;
    if (file.write_failed) {
        errno = file.error_number ? file.error_number : EIO;
        return -1;
    }
    if ((file.fault == Fault::short_write || file.fault == Fault::io_error) && file.position + size > file.fault_offset) {
        // fopencookie(3): a write function reports an error by returning 0, never a negative value.
        if (file.fault == Fault::io_error) {
            errno = file.error_number ? file.error_number : EIO;
            if (file.write_returns_minus_one) {
                file.write_failed = true;
                return -1;
            }
            return 0;
        }
        accepted = file.position < file.fault_offset ? file.fault_offset - file.position : 0;
        errno = file.error_number ? file.error_number : ENOSPC;
    }
    if (file.data.size() < file.position + accepted) file.data.resize(file.position + accepted);
    if (accepted > 0) std::memcpy(file.data.data() + file.position, buffer, accepted);
    file.position += accepted;
    return static_cast<ssize_t>(accepted);
}

ssize_t fault_read(void* cookie, char* buffer, size_t size)
{
    auto& file = *static_cast<FaultFile*>(cookie);
    size_t available = file.position < file.data.size() ? file.data.size() - file.position : 0;
    if (file.fault == Fault::io_error && file.position + std::min(size, available) > file.fault_offset) {
        errno = file.error_number ? file.error_number : EIO;
        return -1;
    }
    available = std::min(available, size);
    if (available > 0) std::memcpy(buffer, file.data.data() + file.position, available);
    file.position += available;
    return static_cast<ssize_t>(available);
}

int fault_seek(void* cookie, off64_t* offset, int whence)
{
    auto& file = *static_cast<FaultFile*>(cookie);
    if (file.fault == Fault::unseekable) {
        errno = ESPIPE;
        return -1;
    }
    if (whence == SEEK_END && file.fault == Fault::seek_end_error) {
        errno = file.error_number ? file.error_number : EIO;
        return -1;
    }
    if (whence == SEEK_CUR && file.fault == Fault::tell_after_seek_end_error && file.after_seek_end) {
        file.after_seek_end = false;  // only the query right after the seek to the end fails
        errno = file.error_number ? file.error_number : EIO;
        return -1;
    }
    const int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? static_cast<int64_t>(file.position)
                                                                     : static_cast<int64_t>(file.data.size());
    if (base + *offset < 0) {
        errno = EINVAL;
        return -1;
    }
    file.position = static_cast<uint64_t>(base + *offset);
    *offset = static_cast<off64_t>(file.position);
    file.after_seek_end = whence == SEEK_END;
    return 0;
}

int fault_close(void* cookie)
{
    static_cast<FaultFile*>(cookie)->closed = true;
    return 0;
}

}  // namespace

std::FILE* open_fault_file(FaultFile& file, const char* mode, bool stdio_buffered)
{
    std::FILE* stream = fopencookie(&file, mode, {fault_read, fault_write, fault_seek, fault_close});
    if (!stream) throw std::runtime_error("fopencookie failed");
    if (!stdio_buffered) setvbuf(stream, nullptr, _IONBF, 0);
    // One thread uses the stream: no stdio lock per call (libFuzzer's threads make glibc lock every fgetc).
    __fsetlocking(stream, FSETLOCKING_BYCALLER);
    return stream;
}

}  // namespace serdiff::differential
