// Bitcoin Core's file-error contract as the buffered_writer program checks it on Core (docs/core.md "buffered_writer
// on Core"), and the finding it led to, each shown on Core's own AutoFile and BufferedWriter over a FILE* that
// fails on purpose (differential/fault_file.h). Built with the Core subject (core_file_contract_tests).
#include <array>
#include <cstddef>
#include <ios>
#include <vector>

#include <gtest/gtest.h>

#include "differential/fault_file.h"
#include "subject_streams.h"

namespace {

using serdiff::differential::Fault;
using serdiff::differential::FaultFile;
using serdiff::differential::open_fault_file;

constexpr std::array<std::byte, 8> kKey{std::byte{0x11}, std::byte{0x22}, std::byte{0x33}, std::byte{0x44},
                                        std::byte{0x55}, std::byte{0x66}, std::byte{0x77}, std::byte{0x88}};
const std::vector<std::byte> kPlain{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};

std::vector<std::byte> obfuscated(std::vector<std::byte> bytes)
{
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] ^= kKey[i % 8];
    return bytes;
}

std::vector<std::byte> as_bytes(const serdiff::model::Bytes& data)
{
    std::vector<std::byte> out;
    for (uint8_t value : data) out.push_back(std::byte{value});
    return out;
}

// A file whose every write fails (EIO) until the test clears the fault.
FaultFile failing_from_the_start()
{
    FaultFile file;
    file.fault = Fault::io_error;
    file.fault_offset = 0;
    return file;
}

// Fault-free: what the BufferedWriter holds reaches the file obfuscated at its offset, after flush + fclose.
TEST(CoreFileContract, FlushThenCloseWritesObfuscatedBytes)
{
    FaultFile file;
    serdiff::subject::AutoFile autofile{open_fault_file(file, "wb", false), kKey};
    {
        serdiff::subject::BufferedWriter writer{autofile, 8};
        writer.write(kPlain);
        writer.close();
    }
    EXPECT_EQ(as_bytes(file.data), obfuscated(kPlain));
    EXPECT_EQ(serdiff::subject::buffered_writes_after_close(), 0u);
}

// A failed write latches nothing in Core: the same AutoFile writes again once the file accepts bytes.
TEST(CoreFileContract, AWriteErrorDoesNotLatch)
{
    FaultFile file = failing_from_the_start();
    serdiff::subject::AutoFile autofile{open_fault_file(file, "wb", false), kKey};
    EXPECT_THROW(autofile.write(kPlain), std::ios_base::failure);
    file.fault = Fault::none;
    EXPECT_NO_THROW(autofile.write(kPlain));
    autofile.close();
    // The failed write left the position where it was: the second write is obfuscated from offset 0.
    EXPECT_EQ(as_bytes(file.data), obfuscated(kPlain));
}

// The finding: Core's BufferedWriter::flush keeps its buffer when the write fails, after AutoFile::write_buffer
// obfuscated it in place. Flushing again (its destructor does, while the exception unwinds) obfuscates it a second
// time: the bytes reach the file in plain text. (Had the fault persisted, the destructor's flush would have thrown
// from a noexcept destructor: std::terminate.)
TEST(CoreFileContract, ARetriedFlushWritesThePlainBytes)
{
    FaultFile file = failing_from_the_start();
    serdiff::subject::AutoFile autofile{open_fault_file(file, "wb", false), kKey};
    {
        serdiff::subject::BufferedWriter writer{autofile, 8};
        writer.write(kPlain);
        EXPECT_THROW(writer.flush(), std::ios_base::failure);
        file.fault = Fault::none;
        writer.flush();
    }
    autofile.close();
    EXPECT_EQ(as_bytes(file.data), kPlain) << "Core's BufferedWriter no longer re-obfuscates a retried buffer: "
                                              "update docs/core.md \"Findings\"";
    EXPECT_NE(as_bytes(file.data), obfuscated(kPlain));
}

// What the buffered_writer program relies on for Core: the destructor's retry of a failed buffer after the caller
// closed the file is counted by the subject's AutoFile (and dropped), not thrown from the destructor.
TEST(CoreFileContract, TheDestructorsRetryAfterCloseIsCounted)
{
    const size_t before = serdiff::subject::buffered_writes_after_close();
    FaultFile file = failing_from_the_start();
    serdiff::subject::AutoFile autofile{open_fault_file(file, "wb", false), kKey};
    {
        serdiff::subject::BufferedWriter writer{autofile, 8};
        writer.write(kPlain);
        EXPECT_THROW(writer.flush(), std::ios_base::failure);
        writer.close_file();
    }
    EXPECT_EQ(serdiff::subject::buffered_writes_after_close(), before + 1);
    EXPECT_TRUE(file.data.empty());
}

// The caller must fclose() a written AutoFile: ~AutoFile asserts it (Assume, which aborts in the Core subject's
// builds: ABORT_ON_FAILED_ASSUME, subjects/core/CMakeLists.txt), so the buffered_writer program closes every one.
TEST(CoreFileContractDeathTest, AWrittenAutoFileMustBeClosedByTheCaller)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const auto write_and_leave_open = [] {
        FaultFile file;
        serdiff::subject::AutoFile autofile{open_fault_file(file, "wb", false), kKey};
        autofile.write(kPlain);
    };
    EXPECT_DEATH(write_and_leave_open(), "Bitcoin Core assertion failed: .*IsNull");
}

// A 0-byte BufferedWriter drops every write (a finding; the buffered_writer program gives Core 1 byte instead).
TEST(CoreFileContract, AZeroByteBufferedWriterDropsWrites)
{
    FaultFile file;
    serdiff::subject::AutoFile autofile{open_fault_file(file, "wb", false), kKey};
    {
        serdiff::subject::BufferedWriter writer{autofile, 0};
        writer.write(kPlain);
        writer.close();
    }
    EXPECT_TRUE(file.data.empty());
}

}  // namespace
