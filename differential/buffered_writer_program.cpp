// The buffered_writer program (file_programs.h): bytes, single bytes, CompactSizes, u32s, flushes and closes
// written through the subject's BufferedWriter and AutoFile and the reference FileWriter, every position and the
// files compared; then, in fault mode, each writer again on a FILE* that fails. Compiled once per subject
// (subject_streams.h). The subject declares its file-error contract there (kFileErrorsLatch, kFileDestructorsClose,
// ...): serdiff's is docs/file-io.md's, Core's is what its callers rely on (docs/core.md "buffered_writer on
// Core"); each is checked in full. The program format is in docs/targets.md.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "differential/compare.h"
#include "differential/fault_file.h"
#include "differential/file_programs.h"
#include "differential/memory_file.h"
#include "differential/observe.h"
#include "differential/program_input.h"
#include "differential/reference/file_io.h"
#include "differential/reference/reference.h"
#include "subject_streams.h"

namespace serdiff::differential {

namespace {

using model::Bytes;
using Key = std::array<std::byte, 8>;

struct WriteStep {
    enum Kind { Byte, Span, Flush, CompactSize, U32, Close, Count } kind;
    Bytes bytes;  // what the step writes (the reference's encoding for the typed steps)
    uint64_t number = 0;
};

// One byte: through the writer's one-byte fast path where it has one (serialize/'s does; Core's streams write a
// one-byte span).
template <typename Writer>
void write_one(Writer& writer, std::byte value)
{
    if constexpr (requires { writer.write_byte(value); }) writer.write_byte(value);
    else writer.write(std::span<const std::byte>(&value, 1));
}

template <typename Writer>
void apply_write(Writer& writer, const WriteStep& step)
{
    switch (step.kind) {
    case WriteStep::Byte: write_one(writer, std::byte{step.bytes[0]}); break;
    case WriteStep::Span: writer.write(std::as_bytes(std::span(step.bytes))); break;
    case WriteStep::Flush: writer.flush(); break;
    case WriteStep::CompactSize: subject::WriteCompactSize(writer, step.number); break;
    case WriteStep::U32: subject::Serialize(writer, static_cast<uint32_t>(step.number)); break;
    case WriteStep::Close: writer.close(); break;
    case WriteStep::Count: break;
    }
}

// Fault mode: the same steps on a FILE* that fails from a byte offset on (differential/fault_file.h).
struct FaultRun {
    bool reported = false;              // some write/flush/close threw
    size_t first_error_step = 0;
    std::string first_error;
    bool later_call_succeeded = false;  // a call after the first error did not throw
    uint64_t acknowledged = 0;          // the position after the last successful flush()/close()
    std::string position_told;          // unseekable mode: what position() gave instead of a position-unknown error
};

// `make_and_run(FILE*, run)` builds a writer over the faulty FILE* and hands it with the steps to `run`, which
// applies the steps up to the first Close and then close(), every call caught. The writer (and its AutoFile)
// is destroyed before the file is checked, as a crashed program's would be.
// A subject whose errors latch (kFileErrorsLatch) goes on calling after the first error: every later call must
// fail. One whose errors do not (Core: a caller stops at the exception and releases the file) is stopped at the
// first error and its file closed with close_file(), without flushing what the writer still holds.
// `flush_acknowledges`: whether the writer's flush() promises that the bytes reached the file (Core's BufferedWriter
// flush() only hands them to its AutoFile, which may hold them in stdio's buffer).
// `position_known` false (the unseekable mode): nothing is acknowledged by position; instead position() is asked
// after construction and after every successful call and must throw a position-unknown error (else position_told).
template <typename MakeAndRun>
FaultRun run_with_fault(FaultFile& file, bool stdio_buffered, uint64_t start, bool flush_acknowledges,
                        const MakeAndRun& make_and_run, bool position_known = true)
{
    FaultRun run;
    run.acknowledged = start;
    make_and_run(open_fault_file(file, "wb", stdio_buffered), [&](auto& writer, const std::vector<WriteStep>& steps) {
        const auto ask_position = [&] {
            if (position_known || !run.position_told.empty()) return;
            try {
                run.position_told = "position " + std::to_string(writer.position());
            } catch (const std::exception& error) {
                if (!says_position_unknown(error.what())) run.position_told = std::string("error \"") + error.what() + "\"";
            }
        };
        ask_position();
        const auto call = [&](size_t index, bool acknowledges, const auto& action) {
            try {
                action();
            } catch (const std::runtime_error& error) {
                if (!run.reported) {
                    run.reported = true;
                    run.first_error_step = index;
                    run.first_error = error.what();
                }
                return;
            }
            if (run.reported) run.later_call_succeeded = true;
            else if (acknowledges && position_known) run.acknowledged = writer.position();
            if (!run.reported) ask_position();
        };
        // The steps up to the first Close, then close(): what follows a close is the fault-free run's business.
        size_t i = 0;
        for (; i < steps.size() && steps[i].kind != WriteStep::Close && (subject::kFileErrorsLatch || !run.reported); ++i)
            if (steps[i].kind != WriteStep::Count)
                call(i, flush_acknowledges && steps[i].kind == WriteStep::Flush, [&] { apply_write(writer, steps[i]); });
        if (subject::kFileErrorsLatch || !run.reported) call(i, true, [&] { writer.close(); });
        if constexpr (!subject::kFileErrorsLatch) {
            // After an error (a close() that failed in its flush included) the caller releases the file.
            if (run.reported) {
                try {
                    if constexpr (requires { writer.close_file(); }) writer.close_file();
                    else writer.close();  // the reference's
                } catch (const std::runtime_error&) {
                }
            }
        }
    });
    return run;
}

// What a writer did under a fault beyond what the reference comparison pins down (the file is only checked to be a
// prefix holding the acknowledged bytes; the step and words of the first error are the subject's own): recorded
// for the comparison of HEAD with BASE (differential/observe.h), which must find them equal.
void observe_fault_run(const std::string& label, const FaultRun& run, const FaultFile& file)
{
    if (!observing()) return;
    observe([&] { return label + ": the file after the fault"; }, file.data);
    observe_number([&] { return label + ": the step of the first error (" + run.first_error + ")"; },
                   run.reported ? run.first_error_step : UINT64_MAX);
    observe_text([&] { return label + ": the first error's words"; }, run.first_error);
    observe_number([&] { return label + ": bytes acknowledged"; }, run.acknowledged);
}

// What every writer must do when the file fails from `fault_offset` on: report it exactly when it cost
// bytes, fail every later call (where errors latch), and leave a prefix of the right bytes holding at least what
// a successful flush()/close() acknowledged.
void check_fault_run(const std::string& name, const FaultRun& run, const FaultFile& file, const Bytes& wanted,
                     uint64_t fault_offset, const std::string& setting, std::span<const uint8_t> input)
{
    const std::string label = "buffered_writer fault mode: " + name + " (" + setting + ")";
    observe_fault_run(label, run, file);
    const bool costs_bytes = fault_offset < wanted.size();
    if (run.reported != costs_bytes)
        report_mismatch(label, costs_bytes ? "a write fault went unreported" : "an error without a fault",
                        run.reported ? "first error at step " + std::to_string(run.first_error_step) + ": " + run.first_error
                                     : "every call succeeded; the file holds " + std::to_string(file.data.size()) +
                                           " of " + std::to_string(wanted.size()) + " bytes",
                        input);
    if (run.later_call_succeeded)
        report_mismatch(label, "a call succeeded after a write error",
                        "first error at step " + std::to_string(run.first_error_step) + ": " + run.first_error, input);
    const Bytes& got = file.data;
    const bool prefix = got.size() <= wanted.size() && std::equal(got.begin(), got.end(), wanted.begin());
    if (!prefix || got.size() > fault_offset)
        report_mismatch(label, "the file is not a prefix of the right bytes",
                        "the file holds " + std::to_string(got.size()) + " bytes, the fault is at " +
                            std::to_string(fault_offset) + "; " + describe_byte_difference(got, wanted, "file", "right bytes"),
                        input);
    if (got.size() < run.acknowledged)
        report_mismatch(label, "acknowledged bytes are missing from the file",
                        "a successful flush()/close() acknowledged " + std::to_string(run.acknowledged) +
                            " bytes; the file holds " + std::to_string(got.size()),
                        input);
}

// Where the BufferedWriter may write into a file already closed (Core's, from its destructor: the subject counts
// those writes and drops them), there must be none unless a flush failed before.
template <typename MakeLabel>
void check_writes_after_close(const MakeLabel& label, bool flush_failed, std::span<const uint8_t> input)
{
    if constexpr (!subject::kFileDestructorsClose) {
        const size_t writes = subject::buffered_writes_after_close();
        if (writes > 0 && !flush_failed)
            report_mismatch(label(), "the BufferedWriter wrote after its file was closed",
                            std::to_string(writes) + " write(s) of a buffer that close() had flushed", input);
    }
}

// The I/O error of the fault mode reported the raw way: the cookie's write returns −1 (as write(2) does) and every
// later write fails. On an unbuffered FILE* glibc's fwrite then returns the full count with the error flag set
// (docs/file-io.md, "glibc facts"): only ferror tells. The AutoFile and the BufferedWriter must still report the
// fault exactly when it cost bytes; the AutoFile at the same step and with the same message as the reference (both
// meet it in the same fwrite). Kills a write_obfuscated that trusts fwrite's count (serialize/file.h `written !=
// size || ferror` made `&&`).
template <typename Faulty>
void check_write_reporting_minus_one(const std::vector<WriteStep>& steps, const Bytes& expected, uint64_t start,
                                     const Key& key, size_t writer_size, const Faulty& faulty, const std::string& fault_setting,
                                     std::span<const uint8_t> input)
{
    const auto raw_faulty = [&] {
        FaultFile file = faulty();
        file.write_returns_minus_one = true;
        return file;
    };
    FaultFile direct_file = raw_faulty(), buffered_file = raw_faulty(), reference_file = raw_faulty();
    const FaultRun direct = run_with_fault(direct_file, false, start, true, [&](std::FILE* stream, const auto& run) {
        subject::AutoFile file{stream, key};
        run(file, steps);
    });
    const FaultRun buffered = run_with_fault(buffered_file, false, start, true, [&](std::FILE* stream, const auto& run) {
        subject::AutoFile file{stream, key};
        subject::BufferedWriter writer{file, writer_size};
        run(writer, steps);
    });
    const FaultRun reference = run_with_fault(reference_file, false, start, true, [&](std::FILE* stream, const auto& run) {
        reference::FileWriter writer{stream, key};
        run(writer, steps);
    });
    const std::string setting = fault_setting + ", the write reports -1";
    const uint64_t fault_offset = direct_file.fault_offset;
    check_fault_run("reference FileWriter", reference, reference_file, expected, fault_offset, setting, input);
    check_fault_run("BufferedWriter", buffered, buffered_file, expected, fault_offset, setting, input);
    check_fault_run("AutoFile", direct, direct_file, expected, fault_offset, setting, input);
    if (direct.reported && reference.reported &&
        (direct.first_error_step != reference.first_error_step || direct.first_error != reference.first_error))
        report_mismatch("buffered_writer fault mode (" + setting + ")", "the first error differs",
                        "AutoFile at step " + std::to_string(direct.first_error_step) + ": \"" + direct.first_error +
                            "\"; reference at step " + std::to_string(reference.first_error_step) + ": \"" +
                            reference.first_error + "\"",
                        input);
}

// A BufferedWriter made over an AutoFile that already failed (a write, byte or flush through the AutoFile itself met
// the fault), closed with nothing buffered: close() must throw and still release the FILE (docs/file-io.md, "Sticky
// failure"). Kills a write_buffer that, with nothing buffered, still hands the failed AutoFile an empty write, whose
// throw then skips the AutoFile's close (serialize/file.h `if (m_used == 0) return;` deleted).
template <typename Faulty>
void check_buffered_writer_over_failed_file(const std::vector<WriteStep>& steps, const Key& key, size_t writer_size,
                                            const Faulty& faulty, bool stdio_buffered, const std::string& setting,
                                            std::span<const uint8_t> input)
{
    FaultFile file = faulty();
    subject::AutoFile failed{open_fault_file(file, "wb", stdio_buffered), key};
    size_t failed_at = steps.size();
    for (size_t i = 0; i < steps.size() && steps[i].kind != WriteStep::Close; ++i) {
        if (steps[i].kind == WriteStep::Count) continue;
        try {
            apply_write(failed, steps[i]);
        } catch (const std::runtime_error&) {
            failed_at = i;
            break;
        }
    }
    if (failed_at == steps.size()) return;  // the AutoFile met the fault only at close(), or not at all
    std::string error = "(no error)";
    {
        subject::BufferedWriter writer{failed, writer_size};
        try {
            writer.close();
        } catch (const std::runtime_error& e) {
            error = e.what();
        }
    }
    if (error == "(no error)" || !file.closed)
        report_mismatch("buffered_writer fault mode: BufferedWriter over a failed AutoFile (" + setting + ")",
                        error == "(no error)" ? "close() succeeded after the AutoFile's write error"
                                              : "close() left the FILE open",
                        "the AutoFile failed at step " + std::to_string(failed_at) + "; the BufferedWriter's close() threw \"" +
                            error + "\"",
                        input);
}

// Unseekable mode (start byte kUnseekableStartByte): the three writers again, the steps up to the first Close and then
// close(), on a FILE* that cannot tell its position (Fault::unseekable), so the AutoFile's position is unknown
// (docs/file-io.md, as Core's AutoFile). Every position() must throw a position-unknown error. A zero key writes the
// bytes as they are and nothing fails. Under a key nothing may reach the file: the AutoFile and the reference refuse
// the first step that writes a byte (same step; a position-unknown error), the BufferedWriter at the latest at the
// next flush() or close() that must write its buffer; after the refusal every call fails where errors latch.
void check_unseekable_writes(const std::vector<WriteStep>& steps, const Key& key, size_t writer_size, size_t buffer,
                             bool stdio_buffered, std::span<const uint8_t> input)
{
    const bool keyed = std::any_of(key.begin(), key.end(), [](std::byte value) { return value != std::byte{0}; });
    Bytes plain;  // what the steps before the first Close write
    std::optional<size_t> first_byte_step, refusal_deadline;
    size_t close_step = steps.size();
    for (size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].kind == WriteStep::Close) {
            close_step = i;
            break;
        }
        plain.insert(plain.end(), steps[i].bytes.begin(), steps[i].bytes.end());
        if (!first_byte_step && !steps[i].bytes.empty()) first_byte_step = i;
        if (first_byte_step && !refusal_deadline && steps[i].kind == WriteStep::Flush) refusal_deadline = i;
    }
    if (!refusal_deadline) refusal_deadline = close_step;
    const std::string setting = std::string(keyed ? "keyed" : "zero key") + (stdio_buffered ? ", stdio buffered" : ", stdio unbuffered") +
                                ", buffer " + std::to_string(buffer);
    const auto unseekable = [] {
        FaultFile file;
        file.fault = Fault::unseekable;
        return file;
    };
    FaultFile buffered_file = unseekable(), direct_file = unseekable(), reference_file = unseekable();
    if constexpr (!subject::kFileDestructorsClose) subject::buffered_writes_after_close() = 0;
    const FaultRun buffered = run_with_fault(buffered_file, stdio_buffered, 0, subject::kBufferedWriterFlushReachesFile,
                                             [&](std::FILE* stream, const auto& run) {
                                                 subject::AutoFile file{stream, key};
                                                 subject::BufferedWriter writer{file, writer_size};
                                                 run(writer, steps);
                                             }, false);
    check_writes_after_close([&] { return "buffered_writer unseekable: BufferedWriter (" + setting + ")"; }, buffered.reported,
                             input);
    const FaultRun direct = run_with_fault(direct_file, stdio_buffered, 0, true, [&](std::FILE* stream, const auto& run) {
        subject::AutoFile file{stream, key};
        run(file, steps);
    }, false);
    const FaultRun reference = run_with_fault(reference_file, stdio_buffered, 0, true, [&](std::FILE* stream, const auto& run) {
        reference::FileWriter writer{stream, key};
        run(writer, steps);
    }, false);
    const bool refused = keyed && first_byte_step.has_value();
    const Bytes wanted = keyed ? Bytes{} : plain;
    const auto check = [&](const std::string& name, const FaultRun& run, const FaultFile& file) {
        const std::string label = "buffered_writer unseekable: " + name + " (" + setting + ")";
        if (!run.position_told.empty())
            report_mismatch(label, "position() did not throw a position-unknown error", run.position_told, input);
        const std::string first = run.reported ? "first error at step " + std::to_string(run.first_error_step) + ": " + run.first_error
                                               : "every call succeeded";
        if (run.reported != refused || (run.reported && !says_position_unknown(run.first_error)))
            report_mismatch(label, refused ? "a keyed write with the position unknown was not refused" : "an error writing",
                            first + (refused ? "; step " + std::to_string(*first_byte_step) + " is the first to write a byte" : ""),
                            input);
        if (run.later_call_succeeded) report_mismatch(label, "a call succeeded after the refusal", first, input);
        observe_fault_run(label, run, file);
        compare_bytes([&] { return label + " file"; }, file.data, wanted, input);
    };
    check("reference FileWriter", reference, reference_file);
    check("AutoFile", direct, direct_file);
    check("BufferedWriter", buffered, buffered_file);
    if (refused && direct.reported && reference.reported &&
        (direct.first_error_step != reference.first_error_step ||
         (subject::kFileErrorsWordedAsReference && direct.first_error != reference.first_error)))
        report_mismatch("buffered_writer unseekable (" + setting + ")", "the AutoFile's refusal differs from the reference's",
                        "AutoFile at step " + std::to_string(direct.first_error_step) + ": \"" + direct.first_error +
                            "\"; reference at step " + std::to_string(reference.first_error_step) + ": \"" +
                            reference.first_error + "\"",
                        input);
    if (refused && buffered.reported &&
        (buffered.first_error_step < *first_byte_step || buffered.first_error_step > *refusal_deadline))
        report_mismatch("buffered_writer unseekable: BufferedWriter (" + setting + ")", "the refusal comes at the wrong step",
                        "at step " + std::to_string(buffered.first_error_step) + ": \"" + buffered.first_error +
                            "\"; the first byte is written at step " + std::to_string(*first_byte_step) +
                            ", the buffer must be written by step " + std::to_string(*refusal_deadline),
                        input);
}

// Buffer byte kDefaultBufferByte (file_programs.h): a BufferedWriter built without a size must hold what docs/file-io.md
// says it defaults to, 1 MiB: the steps' bytes up to the first close (flushes left out) and filler to 1 MiB - 1 bytes
// reach nothing in the file; then one byte more, close(), and the file and every position must be the reference
// FileWriter's for the same bytes. Skipped where the subject's BufferedWriter takes a size only (Core's wrapper).
template <typename Writer>
void check_default_buffered_writer(const std::vector<WriteStep>& steps, uint64_t start, const Key& key,
                                   std::span<const uint8_t> input)
{
    if constexpr (requires(subject::AutoFile& file) { Writer{file}; }) {
        constexpr size_t kDocumentedDefault = 1024 * 1024;
        static MemoryFile buffered_file("serdiff-default-buffered-writer");
        static MemoryFile reference_file("serdiff-default-reference-writer");
        subject::AutoFile target{buffered_file.open("wb", start), key};
        Writer writer{target};
        reference::FileWriter expected{reference_file.open("wb", start), key};
        const Bytes before = buffered_file.contents();
        const auto positions = [&](const char* when) {
            if (writer.position() != expected.position())
                report_mismatch("buffered_writer BufferedWriter (default buffer size)", "position after a write differs",
                                std::string(when) + ": BufferedWriter " + std::to_string(writer.position()) + ", reference " +
                                    std::to_string(expected.position()),
                                input);
        };
        size_t written = 0;
        for (const WriteStep& step : steps) {
            if (step.kind == WriteStep::Close) break;
            if (step.kind == WriteStep::Flush || step.kind == WriteStep::Count) continue;
            apply_write(writer, step);
            expected.write(std::as_bytes(std::span(step.bytes)));
            written += step.bytes.size();
            positions("after a step");
        }
        Bytes filler(kDocumentedDefault - 1 - std::min(written, kDocumentedDefault - 1));
        for (size_t i = 0; i < filler.size(); ++i) filler[i] = static_cast<uint8_t>(i * 7 + (i >> 9));
        writer.write(std::as_bytes(std::span(filler)));
        expected.write(std::as_bytes(std::span(filler)));
        positions("after the filler");
        if (buffered_file.contents() != before)
            report_mismatch("buffered_writer BufferedWriter (default buffer size)",
                            "bytes reached the file before its 1 MiB buffer was full",
                            std::to_string(written + filler.size()) + " bytes written, the file changed", input);
        const std::byte last{0x5a};
        write_one(writer, last);
        expected.write(std::span<const std::byte>(&last, 1));
        positions("after the last byte");
        writer.close();
        expected.close();
        compare_bytes("buffered_writer BufferedWriter (default buffer size) file after close()", buffered_file.contents(),
                      reference_file.contents(), input);
    }
}

// An empty write reaches no FILE: on a FILE whose error flag is already set (reading a write-only stream sets it) the
// AutoFile's write of nothing must succeed, with a zero key and with a key, its position unchanged (Core's fwrites 0
// bytes and checks only the count; serialize/'s returns before the FILE). Neither side depends on the input: run once
// per process (once_per_process). close() afterwards is not compared (serialize/'s reports the flag there).
void check_empty_write_on_flagged_file(std::span<const uint8_t> input)
{
    static MemoryFile file("serdiff-flagged-writer");
    for (const Key& key : {Key{}, Key{std::byte{7}, std::byte{1}, std::byte{0}, std::byte{0x80}, std::byte{2}, std::byte{3},
                                     std::byte{4}, std::byte{5}}}) {
        std::FILE* stream = file.open("wb", 0);
        const std::string label = std::string("buffered_writer AutoFile over a FILE whose error flag is set (") +
                                  (key == Key{} ? "zero key" : "keyed") + ")";
        if (std::fgetc(stream) != EOF || !std::ferror(stream)) {
            std::fclose(stream);
            report_mismatch(label, "reading a write-only FILE did not set its error flag", "(the check needs it)", input);
        }
        subject::AutoFile direct{stream, key};
        const std::string error = error_of<std::runtime_error>([&] { direct.write(std::span<const std::byte>{}); });
        const uint64_t position = direct.position();
        (void)error_of<std::runtime_error>([&] { direct.close(); });
        if (error != "(no error)" || position != 0)
            report_mismatch(label, "an empty write failed or moved the position",
                            "write: " + error + "; position " + std::to_string(position), input);
    }
}

}  // namespace

void check_buffered_writer_program(std::span<const uint8_t> input)
{
    ProgramInput in(input);
    const auto [buffer_request, buffer] = read_buffer_size(in);
    // A subject whose BufferedWriter takes no 0-byte buffer (Core's drops every write: docs/core.md "Findings")
    // gets the 1 byte serdiff's makes of it.
    const size_t writer_size = subject::kBufferedWriterTakesZeroSize ? buffer_request : buffer;
    const uint8_t start_byte = in.byte();
    const uint64_t start = start_byte % 24;
    const Key key = read_file_key(in);
    // Flags: bit 0 set = let the destructors write what is pending (else close()); bits 1-2 = 1: the file
    // cannot be opened, 2: a short write, 3: an I/O error from a byte offset on (fault mode, after the
    // fault-free comparison; then the offset and the errno); bit 3: stdio buffering on the faulty FILE*.
    const uint8_t flags = in.byte();
    const bool close_explicitly = (flags & 1) == 0;
    const bool open_failure = ((flags >> 1) & 3) == 1;
    const Fault fault = ((flags >> 1) & 3) == 2 ? Fault::short_write : ((flags >> 1) & 3) == 3 ? Fault::io_error : Fault::none;
    const bool stdio_buffered = (flags & 8) != 0;
    const uint64_t fault_number = fault == Fault::none ? 0 : in.number();
    constexpr int kErrorNumbers[] = {EIO, ENOSPC, EPERM, EFBIG};  // EPERM is 1: a sealed memfd's write
    const int error_number = fault == Fault::none ? 0 : kErrorNumbers[in.byte() % 4];
    std::vector<WriteStep> steps;
    size_t total = 0;
    while (!in.exhausted() && steps.size() < kMaxFileOperations && total < kMaxFileProgramBytes) {
        WriteStep step{static_cast<WriteStep::Kind>(in.byte() % WriteStep::Count), {}, 0};
        switch (step.kind) {
        case WriteStep::Byte: step.bytes = {in.byte()}; break;
        case WriteStep::Span: step.bytes = in.payload(buffer_relative_length(in.byte(), buffer)); break;
        case WriteStep::Flush: case WriteStep::Close: case WriteStep::Count: break;
        case WriteStep::CompactSize:
            step.number = in.number();
            step.bytes = reference::encode_compactsize(step.number);
            break;
        case WriteStep::U32: {
            step.number = in.raw().integral<uint32_t>();
            reference::Writer writer;
            writer.write_uint(step.number, 4);
            step.bytes = writer.out;
            break;
        }
        }
        total += step.bytes.size();
        steps.push_back(std::move(step));
    }

    once_per_process([&] { check_empty_write_on_flagged_file(input); });
    // Built only when a report needs it (a label string per input costs on this hot path).
    const auto buffer_label = [&] { return "buffered_writer (buffer " + std::to_string(buffer) + ")"; };
    static MemoryFile buffered_file("serdiff-buffered-writer");
    static MemoryFile direct_file("serdiff-direct-writer");
    static MemoryFile reference_file("serdiff-reference-writer");
    if constexpr (!subject::kFileDestructorsClose) subject::buffered_writes_after_close() = 0;
    {
        subject::AutoFile buffered_target{buffered_file.open("wb", start), key};
        std::optional<subject::BufferedWriter> buffered(std::in_place, buffered_target, writer_size);
        subject::AutoFile direct{direct_file.open("wb", start), key};
        reference::FileWriter expected{reference_file.open("wb", start), key};
        bool closed = false;
        // After close(): every call of the AutoFile and the reference fails, and so does every BufferedWriter
        // call that would reach the file (a write that fits its buffer is only buffered); nothing reaches it.
        // A subject whose BufferedWriter may not be used once its file is closed (Core's) is not called then; one
        // whose second close() is a no-op (Core's) may succeed in it.
        const auto after_close = [&](size_t i, const char* writer, bool may_succeed, const auto& action) {
            try {
                action();
            } catch (const std::runtime_error&) {
                return;
            }
            if (!may_succeed)
                report_mismatch(buffer_label(), "a call succeeded after close()", std::string(writer) + ", step " + std::to_string(i),
                                input);
        };
        for (size_t i = 0; i < steps.size(); ++i) {
            if (closed) {
                const WriteStep& step = steps[i];
                if (step.kind == WriteStep::Count) continue;
                const bool only_buffered = step.kind != WriteStep::Flush && step.kind != WriteStep::Close;
                if constexpr (subject::kBufferedWriterUsableAfterClose)
                    after_close(i, "BufferedWriter", only_buffered, [&] { apply_write(*buffered, step); });
                after_close(i, "AutoFile", step.kind == WriteStep::Close && !subject::kSecondCloseFails,
                            [&] { apply_write(direct, step); });
                after_close(i, "reference", false, [&] {
                    if (step.kind == WriteStep::Flush) expected.flush();
                    else if (step.kind == WriteStep::Close) expected.close();
                    else expected.write(std::as_bytes(std::span(step.bytes)));
                });
                continue;
            }
            apply_write(*buffered, steps[i]);
            apply_write(direct, steps[i]);
            if (steps[i].kind == WriteStep::Flush) expected.flush();
            else if (steps[i].kind == WriteStep::Close) expected.close();
            else expected.write(std::as_bytes(std::span(steps[i].bytes)));
            if (steps[i].kind == WriteStep::Close) {
                closed = true;
                continue;
            }
            if (buffered->position() != expected.position() || direct.position() != expected.position())
                report_mismatch(buffer_label(), "position after a write differs",
                                "after step " + std::to_string(i) + ": BufferedWriter " +
                                    std::to_string(buffered->position()) + ", AutoFile " +
                                    std::to_string(direct.position()) + ", reference " +
                                    std::to_string(expected.position()),
                                input);
        }
        if (close_explicitly && !closed) {
            buffered->close();
            direct.close();
            expected.close();
        } else if (!closed) {
            // The destructors: serdiff's write what is pending and close the file. Core's BufferedWriter destructor
            // flushes into the AutoFile, whose caller must then fclose() it (~AutoFile only asserts that it did).
            buffered.reset();
            if constexpr (!subject::kFileDestructorsClose) {
                buffered_target.close();
                direct.close();
            }
        }
        buffered.reset();
    }
    check_writes_after_close(buffer_label, false, input);
    const Bytes wanted = reference_file.contents();
    const char* how = close_explicitly ? " after close()" : " after the destructors";
    compare_bytes([&] { return buffer_label() + " BufferedWriter file" + how; }, buffered_file.contents(), wanted, input);
    compare_bytes([&] { return std::string("buffered_writer AutoFile file") + how; }, direct_file.contents(), wanted,
                  input);
    if (open_failure) {
        const std::string writer_error = error_of<std::runtime_error>([&] { reference::FileWriter writer{nullptr, key}; });
        const std::string reader_error = error_of<std::runtime_error>([&] { reference::FileReader reader{nullptr, key}; });
        if constexpr (subject::kAutoFileRefusesNullFile) {
            // A FILE* that could not be opened (null) is reported by the constructor, with the same message.
            const std::string subject_error = error_of<std::runtime_error>([&] { subject::AutoFile file{nullptr, key}; });
            if (subject_error != writer_error || writer_error != reader_error || writer_error == "(no error)")
                report_mismatch("buffered_writer open failure", "the error for a file that could not be opened differs",
                                "AutoFile: " + subject_error + "; reference FileWriter: " + writer_error +
                                    "; reference FileReader: " + reader_error,
                                input);
        } else {
            // An AutoFile over a null FILE* is a null AutoFile (Core's): every write through it or a BufferedWriter
            // on it must fail.
            const std::string direct_error = error_of<std::runtime_error>([&] {
                subject::AutoFile file{nullptr, key};
                write_one(file, std::byte{0});
            });
            const std::string buffered_error = error_of<std::runtime_error>([&] {
                subject::AutoFile file{nullptr, key};
                subject::BufferedWriter writer{file, 1};
                write_one(writer, std::byte{0});  // fills the 1-byte buffer: flushed into the null file
            });
            if (direct_error == "(no error)" || buffered_error == "(no error)" || writer_error == "(no error)" ||
                writer_error != reader_error)
                report_mismatch("buffered_writer open failure", "a write to a file that could not be opened succeeded",
                                "AutoFile: " + direct_error + "; BufferedWriter: " + buffered_error +
                                    "; reference FileWriter: " + writer_error + "; reference FileReader: " + reader_error,
                                input);
        }
    }
    if (start_byte == kUnseekableStartByte) check_unseekable_writes(steps, key, writer_size, buffer, stdio_buffered, input);
    if (!input.empty() && input[0] == kDefaultBufferByte) check_default_buffered_writer<subject::BufferedWriter>(steps, start, key, input);
    if (fault == Fault::none) return;

    // Fault mode: each writer again, on a file that fails from an offset in [start, end of the bytes]. The
    // faulty files begin with the start gap's zeros (the memfd has none when nothing was written).
    Bytes expected = wanted;
    if (expected.size() < start) expected.resize(start, 0);
    const uint64_t fault_offset = start + fault_number % (expected.size() - start + 1);
    const std::string setting = std::string(fault == Fault::short_write ? "short write" : "I/O error") + " (" +
                                std::strerror(error_number) + ") at byte " +
                                std::to_string(fault_offset) + " of " + std::to_string(expected.size()) +
                                (stdio_buffered ? ", stdio buffered" : ", stdio unbuffered") + ", buffer " +
                                std::to_string(buffer);
    const auto faulty = [&] {
        FaultFile file;
        file.data.assign(start, 0);
        file.position = start;
        file.fault = fault;
        file.fault_offset = fault_offset;
        file.error_number = error_number;
        return file;
    };
    FaultFile buffered_faulty = faulty(), direct_faulty = faulty(), reference_faulty = faulty();
    if constexpr (!subject::kFileDestructorsClose) subject::buffered_writes_after_close() = 0;
    const FaultRun buffered_run = run_with_fault(buffered_faulty, stdio_buffered, start, subject::kBufferedWriterFlushReachesFile, [&](std::FILE* stream, const auto& run) {
        subject::AutoFile file{stream, key};
        subject::BufferedWriter writer{file, writer_size};
        run(writer, steps);
    });
    check_writes_after_close([&] { return "buffered_writer fault mode: BufferedWriter (" + setting + ")"; },
                             buffered_run.reported, input);
    const FaultRun direct_run = run_with_fault(direct_faulty, stdio_buffered, start, true, [&](std::FILE* stream, const auto& run) {
        subject::AutoFile file{stream, key};
        run(file, steps);
    });
    const FaultRun reference_run = run_with_fault(reference_faulty, stdio_buffered, start, true, [&](std::FILE* stream, const auto& run) {
        reference::FileWriter writer{stream, key};
        run(writer, steps);
    });
    check_fault_run("reference FileWriter", reference_run, reference_faulty, expected, fault_offset, setting, input);
    check_fault_run("BufferedWriter", buffered_run, buffered_faulty, expected, fault_offset, setting, input);
    check_fault_run("AutoFile", direct_run, direct_faulty, expected, fault_offset, setting, input);
    // Unbuffered, the AutoFile and the reference meet the fault in the same call: same step, and where the subject
    // words its errors as the reference does (kFileErrorsWordedAsReference), same message. Stdio-buffered, their
    // write calls reach the file at other points, but where both first fail at the same step (e.g. both at close(),
    // when stdio's buffer held everything) the message must be the same.
    const bool same_step = direct_run.first_error_step == reference_run.first_error_step;
    const bool same_message = !subject::kFileErrorsWordedAsReference || direct_run.first_error == reference_run.first_error;
    if (direct_run.reported && reference_run.reported && (!stdio_buffered || same_step) && (!same_step || !same_message))
        report_mismatch("buffered_writer fault mode (" + setting + ")", same_step ? "the first error differs" : "the first error comes at another step",
                        "AutoFile at step " + std::to_string(direct_run.first_error_step) + ": \"" + direct_run.first_error +
                            "\"; reference at step " + std::to_string(reference_run.first_error_step) + ": \"" +
                            reference_run.first_error + "\"",
                        input);
    if constexpr (subject::kFileErrorsLatch) {
        // docs/file-io.md's contract (serdiff's): checked where Core's AutoFile keeps another (docs/core.md).
        if (fault == Fault::io_error && !stdio_buffered)
            check_write_reporting_minus_one(steps, expected, start, key, writer_size, faulty, setting, input);
        check_buffered_writer_over_failed_file(steps, key, writer_size, faulty, stdio_buffered, setting, input);
    }
}

}  // namespace serdiff::differential
