// MemoryFile: a memfd reopened through /proc/self/fd so each FILE* has its own offset.
#include "differential/memory_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <stdio_ext.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

namespace serdiff::differential {

namespace {
[[noreturn]] void fail(const std::string& what)
{
    // A broken harness, not a finding: the message says which system call failed.
    throw std::runtime_error("MemoryFile: " + what + ": " + std::strerror(errno));
}
}  // namespace

MemoryFile::MemoryFile(const char* name) : descriptor_(memfd_create(name, MFD_CLOEXEC))
{
    if (descriptor_ < 0) fail("memfd_create");
    path_ = "/proc/self/fd/" + std::to_string(descriptor_);
}

MemoryFile::~MemoryFile() { ::close(descriptor_); }

void MemoryFile::clear()
{
    if (ftruncate(descriptor_, 0) != 0) fail("ftruncate");
}

void MemoryFile::assign(std::span<const uint8_t> bytes)
{
    clear();
    size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t step = pwrite(descriptor_, bytes.data() + written, bytes.size() - written,
                                    static_cast<off_t>(written));
        if (step <= 0) fail("pwrite");
        written += static_cast<size_t>(step);
    }
}

model::Bytes MemoryFile::contents() const
{
    const off_t size = lseek(descriptor_, 0, SEEK_END);
    if (size < 0) fail("lseek");
    model::Bytes out(static_cast<size_t>(size));
    size_t done = 0;
    while (done < out.size()) {
        const ssize_t step = pread(descriptor_, out.data() + done, out.size() - done, static_cast<off_t>(done));
        if (step <= 0) fail("pread");
        done += static_cast<size_t>(step);
    }
    return out;
}

std::FILE* MemoryFile::open(const char* mode, uint64_t start) const
{
    std::FILE* file = std::fopen(path_.c_str(), mode);
    if (!file) fail("fopen " + path_);
    // One thread uses the stream: no stdio lock per call (libFuzzer's threads make glibc lock every fgetc).
    __fsetlocking(file, FSETLOCKING_BYCALLER);
    if (fseeko(file, static_cast<off_t>(start), SEEK_SET) != 0) {
        std::fclose(file);
        fail("fseeko");
    }
    return file;
}

}  // namespace serdiff::differential
