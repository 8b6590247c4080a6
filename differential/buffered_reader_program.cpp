// The buffered_reader program (file_programs.h): one obfuscated file read through the subject's BufferedReader
// and AutoFile and the reference FileReader, byte reads, spans and skips, every value and position compared.
// Compiled once per subject (subject_streams.h); the format of the program is in docs/targets.md.
#include <string>
#include <vector>

#include "differential/compare.h"
#include "differential/fault_file.h"
#include "differential/file_programs.h"
#include "differential/memory_file.h"
#include "differential/program_input.h"
#include "differential/reference/file_io.h"
#include "subject_streams.h"

namespace serdiff::differential {

namespace {

using model::Bytes;

struct ReadStep {
    enum Kind { Byte, Span, Ignore, Position, Count } kind;
    size_t size = 0;
};

// One byte: through the stream's one-byte fast path where it has one (serialize/'s and the reference's do;
// Core's streams read a one-byte span).
template <typename Reader>
std::byte read_one(Reader& reader)
{
    if constexpr (requires { reader.read_byte(); }) {
        return reader.read_byte();
    } else {
        std::byte value{};
        reader.read(std::span(&value, 1));
        return value;
    }
}

// Unseekable mode: a position-unknown error (every subject words it its own way) is "position unknown".
std::string unseekable_text(const std::string& text)
{
    return says_position_unknown(text) ? "position unknown" : text;
}

// The position after a step: a number, or where it is unknown (unseekable mode) what position() throws.
template <typename Reader>
std::string position_text(Reader& reader, bool positions_known)
{
    if (positions_known) return std::to_string(reader.position());
    try {
        return std::to_string(reader.position());
    } catch (const std::exception& error) {
        return "(" + unseekable_text(error.what()) + ")";
    }
}

// How a read that failed with an I/O error ends a read-fault program's trace.
const std::string kReadFailedLine = "error: read failed";

// Unseekable mode, what a buffered reader over the reference does: it fills its buffer with de-obfuscated bytes, so a
// skip needs the position as a read does (it reads and drops), and an empty read does not reach the file.
struct BufferedReference {
    reference::FileReader& reader;
    std::byte read_byte() { return reader.read_byte(); }
    void read(std::span<std::byte> bytes)
    {
        if (!bytes.empty()) reader.read(bytes);
    }
    void ignore(size_t count)
    {
        for (size_t i = 0; i < count; ++i) reader.read_byte();
    }
    uint64_t position() const { return reader.position(); }
};

// read_errors (read-fault mode): a file error ends the program too, "read failed" in every subject's wording
// (says_read_failed) recorded as kReadFailedLine.
template <typename Reader>
Trace trace_reads(Reader& reader, const std::vector<ReadStep>& steps, bool positions_known = true, bool read_errors = false)
{
    Trace trace;
    const auto ended_by = [&](std::string text) {
        if (read_errors && says_read_failed(text)) return trace.push_back(kReadFailedLine);
        trace.push_back("error: " + (positions_known ? text : unseekable_text(text)));
    };
    try {
        for (const ReadStep& step : steps) {
            switch (step.kind) {
            case ReadStep::Byte: trace.push_back("byte " + std::to_string(std::to_integer<int>(read_one(reader)))); break;
            case ReadStep::Span: {
                Bytes out(step.size);
                reader.read(std::as_writable_bytes(std::span(out)));
                trace.push_back("read " + model::to_hex(out));
                break;
            }
            case ReadStep::Ignore: reader.ignore(step.size); trace.push_back("ignore " + std::to_string(step.size)); break;
            case ReadStep::Position: trace.push_back("position"); break;
            case ReadStep::Count: break;
            }
            trace.back() += " @" + position_text(reader, positions_known);
        }
    } catch (const subject::ReadError& error) {
        ended_by(subject::read_error_text(error));
    } catch (const reference::ReadError& error) {
        ended_by(error.what());
    } catch (const std::runtime_error& error) {
        // A file error (serdiff's and the reference's position-unknown refusal, "read failed") ends an unseekable or
        // a read-fault program only.
        if (positions_known && !read_errors) throw;
        ended_by(error.what());
    }
    return trace;
}

// A seek by `delta` bytes from the position: relative (SEEK_CUR) where the file has one (Core's AutoFile through the
// wrapper's seek_relative), else seek() to the position plus delta (serdiff's AutoFile, the reference FileReader).
template <typename File>
void seek_by(File& file, int64_t delta)
{
    if constexpr (requires { file.seek_relative(delta); })
        file.seek_relative(delta);
    else
        file.seek(static_cast<uint64_t>(static_cast<int64_t>(file.position()) + delta));
}

// The file's own positioning, with positions known: size() (the position left where it was), then seek() to each
// target and one byte read there, de-obfuscated with the key at that position, then size() again. Core's size() is
// seek(0, SEEK_END), ftell and a seek back (src/streams.cpp AutoFile::seek/size); serdiff's and the reference's
// use fseeko/ftello. A read at or past the end records the error, the position after it too.
template <typename File>
Trace trace_seeks(File& file, const std::vector<uint64_t>& targets)
{
    Trace trace;
    const auto size_text = [&] { return "size " + std::to_string(file.size()) + " @" + std::to_string(file.position()); };
    const auto read_text = [&] {
        try {
            return " byte " + std::to_string(std::to_integer<int>(read_one(file)));
        } catch (const subject::ReadError& error) {
            return " (" + subject::read_error_text(error) + ")";
        } catch (const reference::ReadError& error) {
            return " (" + std::string(error.what()) + ")";
        }
    };
    // size() leaves the file where it was: the next byte read is the one at the position (separate statements: the
    // operands of + are evaluated in no fixed order).
    std::string first = size_text();
    first += read_text();
    trace.push_back(first + " @" + std::to_string(file.position()));
    for (const uint64_t target : targets) {
        file.seek(target);
        std::string text = "seek " + std::to_string(target) + " @" + std::to_string(file.position());
        text += read_text();
        trace.push_back(text + " @" + std::to_string(file.position()));
        // One byte back and read again, then one forward: a seek relative to the position where the subject has one
        // (Core's seek(offset, SEEK_CUR)), else a seek to the position plus the offset.
        if (file.position() >= 1) {
            seek_by(file, -1);
            text = "seek -1 @" + std::to_string(file.position()) + read_text();
            seek_by(file, 1);
            trace.push_back(text + " seek +1 @" + std::to_string(file.position()));
        }
    }
    trace.push_back(size_text());
    return trace;
}

// seek() and size() on the direct AutoFile against the reference FileReader (trace_seeks): to the middle of the
// stored bytes, the start of the file, the program's start, the end and past it. Where the subject's AutoFile takes
// a null FILE* (Core's null AutoFile, a file that could not be opened), its seek() and size() must throw, and not
// a position-unknown error (a null AutoFile's position is unknown too: Core's size() checks for null first).
void check_seek_and_size(const MemoryFile& file, uint64_t start, size_t stored_size, const std::array<std::byte, 8>& key,
                         std::span<const uint8_t> input)
{
    const std::vector<uint64_t> targets{stored_size / 2, 0, start, stored_size, stored_size + 1 + start};
    reference::FileReader reference_file{file.open("rb", start), key};
    const Trace expected = trace_seeks(reference_file, targets);
    subject::AutoFile subject_file{file.open("rb", start), key};
    compare_traces("buffered_reader AutoFile seek/size", trace_seeks(subject_file, targets), expected, input);
    // A seek to the end that fails, and one whose ftell right after fails (Fault::seek_end_error and
    // tell_after_seek_end_error): size() must throw on both sides (each words it its own way), the position it
    // reports afterwards unchanged.
    for (const Fault fault : {Fault::seek_end_error, Fault::tell_after_seek_end_error}) {
        const auto faulty = [&] {
            FaultFile faulty_file;
            faulty_file.data = model::Bytes(stored_size, 0x5a);
            faulty_file.fault = fault;
            return faulty_file;
        };
        FaultFile reference_fault = faulty(), subject_fault = faulty();
        const auto size_fails = [](auto& reader) {
            Trace trace;
            try {
                trace.push_back("size " + std::to_string(reader.size()));
            } catch (const std::exception&) {
                trace.push_back("size: error");
            }
            trace.push_back("@" + std::to_string(reader.position()));
            return trace;
        };
        reference::FileReader reference_reader{open_fault_file(reference_fault, "rb", true), key};
        subject::AutoFile subject_faulty{open_fault_file(subject_fault, "rb", true), key};
        compare_traces(fault == Fault::seek_end_error ? "buffered_reader AutoFile size() when the seek to the end fails"
                                                      : "buffered_reader AutoFile size() when ftell after the seek to the end fails",
                       size_fails(subject_faulty), size_fails(reference_reader), input);
    }
    if constexpr (!subject::kAutoFileRefusesNullFile) {
        subject::AutoFile null_file{nullptr, key};
        const std::string seek_error = error_of([&] { null_file.seek(0); });
        const std::string size_error = error_of([&] { null_file.size(); });
        // Each must say what is wrong: the file is not open (not that its position is unknown, which it also is).
        if (seek_error == "(no error)" || size_error == "(no error)" || says_position_unknown(seek_error) ||
            says_position_unknown(size_error))
            report_mismatch("buffered_reader null AutoFile",
                            "seek() or size() on a file that could not be opened did not fail as a null file",
                            "seek: " + seek_error + "; size: " + size_error, input);
    }
}

// Unseekable mode (start byte kUnseekableStartByte): the stored bytes read again through a FILE* that cannot tell
// its position. Every position() must throw; a zero key reads as before; under a key the AutoFile (and the reference)
// must refuse every read, an empty one included, and still skip, and the BufferedReader refuse what reaches the file.
void check_unseekable_reads(const Bytes& stored, const std::array<std::byte, 8>& key, size_t buffer_request, size_t buffer,
                            const std::vector<ReadStep>& steps, std::span<const uint8_t> input)
{
    const auto unseekable = [&] {
        FaultFile file;
        file.data = stored;
        file.fault = Fault::unseekable;
        return file;
    };
    FaultFile reference_file = unseekable(), buffered_reference_file = unseekable(), buffered_file = unseekable(),
              direct_file = unseekable();
    Trace expected, expected_buffered;
    {
        reference::FileReader reference_reader{open_fault_file(reference_file, "rb", true), key};
        expected = trace_reads(reference_reader, steps, false);
    }
    {
        reference::FileReader reference_reader{open_fault_file(buffered_reference_file, "rb", true), key};
        BufferedReference buffered_reference{reference_reader};
        expected_buffered = trace_reads(buffered_reference, steps, false);
    }
    {
        subject::AutoFile source{open_fault_file(buffered_file, "rb", true), key};
        subject::BufferedReader reader{source, buffer_request};
        compare_traces([&] { return "buffered_reader unseekable BufferedReader (buffer " + std::to_string(buffer) + ")"; },
                       trace_reads(reader, steps, false), expected_buffered, input);
    }
    subject::AutoFile direct{open_fault_file(direct_file, "rb", true), key};
    compare_traces("buffered_reader unseekable AutoFile", trace_reads(direct, steps, false), expected, input);

    // size() cannot restore an unknown position and must say so; seek() reaches the FILE*, which refuses it.
    FaultFile reference_seek_file = unseekable(), seek_file = unseekable();
    const auto seek_and_size = [](auto& file) {
        Trace trace{"size: " + unseekable_text(error_of([&] { file.size(); }))};
        trace.push_back(std::string("seek: ") + (error_of([&] { file.seek(0); }) == "(no error)" ? "(no error)" : "error"));
        trace.push_back("size: " + unseekable_text(error_of([&] { file.size(); })));
        return trace;
    };
    reference::FileReader reference_reader{open_fault_file(reference_seek_file, "rb", true), key};
    subject::AutoFile subject_file{open_fault_file(seek_file, "rb", true), key};
    compare_traces("buffered_reader unseekable AutoFile seek/size", seek_and_size(subject_file),
                   seek_and_size(reference_reader), input);
}

// Read-fault mode (start byte kReadFaultStartByte): the stored bytes read again from a FILE whose reads fail with
// EIO from an offset on (Fault::io_error: a read that would reach it delivers nothing; the offset is the key's first
// two bytes, little endian, modulo the stored size), stdio buffered and unbuffered. An I/O error must end the program
// as "read failed", never as the end of the data or as success: the AutoFile's at the step where the reference's
// does (both read what the caller asks for), a BufferedReader's there or at an earlier step (its read-ahead may
// reach the offset first), every step before it the same. The position after the error is not compared
// (docs/format.md "What a failed read leaves").
void check_read_faults(const Bytes& stored, const std::array<std::byte, 8>& key, size_t buffer_request, size_t buffer,
                       const std::vector<ReadStep>& steps, std::span<const uint8_t> input)
{
    if (stored.empty()) return;
    const uint64_t fault_offset = (std::to_integer<uint64_t>(key[0]) | std::to_integer<uint64_t>(key[1]) << 8) % stored.size();
    for (const bool stdio_buffered : {true, false}) {
        const auto faulty = [&] {
            FaultFile file;
            file.data = stored;
            file.fault = Fault::io_error;
            file.fault_offset = fault_offset;
            return file;
        };
        const auto setting = [&] {
            return std::string(stdio_buffered ? "stdio buffered" : "stdio unbuffered") + ", reads failing from offset " +
                   std::to_string(fault_offset);
        };
        FaultFile reference_file = faulty(), direct_file = faulty(), buffered_file = faulty();
        Trace expected;
        {
            reference::FileReader reference_reader{open_fault_file(reference_file, "rb", stdio_buffered), key};
            expected = trace_reads(reference_reader, steps, true, true);
        }
        {
            subject::AutoFile direct{open_fault_file(direct_file, "rb", stdio_buffered), key};
            compare_traces([&] { return "buffered_reader AutoFile (" + setting() + ")"; },
                           trace_reads(direct, steps, true, true), expected, input);
        }
        subject::AutoFile source{open_fault_file(buffered_file, "rb", stdio_buffered), key};
        subject::BufferedReader reader{source, buffer_request};
        const Trace actual = trace_reads(reader, steps, true, true);
        Trace allowed = expected;
        if (!actual.empty() && actual.back() == kReadFailedLine && actual.size() <= expected.size()) {
            allowed.resize(actual.size());  // failed at an earlier step than the reference: its read-ahead
            allowed.back() = kReadFailedLine;
        }
        compare_traces([&] { return "buffered_reader BufferedReader (buffer " + std::to_string(buffer) + ", " + setting() + ")"; },
                       actual, allowed, input);
    }
}

// A reader that, each time its position is asked for (after every step of trace_reads), also notes where its AutoFile
// is: how far the reader has read ahead.
template <typename Reader>
struct ReadAhead {
    Reader& reader;
    subject::AutoFile& source;
    Trace file_positions{};
    std::byte read_byte() { return reader.read_byte(); }
    void read(std::span<std::byte> bytes) { reader.read(bytes); }
    void ignore(size_t count) { reader.ignore(count); }
    uint64_t position()
    {
        file_positions.push_back("AutoFile at " + std::to_string(source.position()));
        return reader.position();
    }
};

// Buffer byte kDefaultBufferByte (file_programs.h): the steps through a BufferedReader built without a size, against
// the reference's trace; then how far it read its AutoFile against a reader built with the documented default, 16 KiB
// (docs/file-io.md "Buffer sizes": a default reader is one of 16,384 bytes, read-ahead included). Skipped where the
// subject's BufferedReader takes a size only (Core's wrapper).
template <typename Reader>
void check_default_buffered_reader(const MemoryFile& file, uint64_t start, const std::array<std::byte, 8>& key,
                                   const std::vector<ReadStep>& steps, const Trace& expected, std::span<const uint8_t> input)
{
    if constexpr (requires(subject::AutoFile& source) { Reader{source}; }) {
        static constexpr size_t kDocumentedDefault = 16 * 1024;
        subject::AutoFile source{file.open("rb", start), key};
        Reader reader{source};
        ReadAhead<Reader> watched{reader, source};
        compare_traces("buffered_reader BufferedReader (default buffer size)", trace_reads(watched, steps), expected, input);
        subject::AutoFile sized_source{file.open("rb", start), key};
        Reader sized{sized_source, kDocumentedDefault};
        ReadAhead<Reader> sized_watched{sized, sized_source};
        (void)trace_reads(sized_watched, steps);
        compare_traces("buffered_reader BufferedReader (default buffer size): its AutoFile after each step, against a "
                       "16 KiB reader's",
                       watched.file_positions, sized_watched.file_positions, input);
    }
}

}  // namespace

void check_buffered_reader_program(std::span<const uint8_t> input)
{
    ProgramInput in(input);
    const auto [buffer_request, buffer] = read_buffer_size(in);
    const uint8_t start_byte = in.byte();
    const uint64_t start = start_byte % 24;
    const std::array<std::byte, 8> key = read_file_key(in);
    const Bytes stored = in.payload(static_cast<size_t>(in.number_at_most(kMaxFileProgramBytes)));
    std::vector<ReadStep> steps;
    while (!in.exhausted() && steps.size() < kMaxFileOperations) {
        ReadStep step{static_cast<ReadStep::Kind>(in.byte() % ReadStep::Count), 0};
        if (step.kind == ReadStep::Span || step.kind == ReadStep::Ignore) step.size = buffer_relative_length(in.byte(), buffer);
        steps.push_back(step);
    }

    static MemoryFile file("serdiff-buffered-reader");
    file.assign(stored);
    reference::FileReader reference_reader{file.open("rb", start), key};
    const Trace expected = trace_reads(reference_reader, steps);
    {
        subject::AutoFile source{file.open("rb", start), key};
        subject::BufferedReader reader{source, buffer_request};
        compare_traces([&] { return "buffered_reader BufferedReader (buffer " + std::to_string(buffer) + ", start " +
                                    std::to_string(start) + ")"; },
                       trace_reads(reader, steps), expected, input);
    }
    if (!input.empty() && input[0] == kDefaultBufferByte)
        check_default_buffered_reader<subject::BufferedReader>(file, start, key, steps, expected, input);
    subject::AutoFile direct{file.open("rb", start), key};
    compare_traces("buffered_reader AutoFile", trace_reads(direct, steps), expected, input);
    // A closed AutoFile refuses a read and a skip (serdiff's: "file is closed"; Core's fclose() leaves a null AutoFile,
    // whose read and ignore throw "file handle is nullptr"), never handing its null FILE* to stdio.
    direct.close();
    const std::string read_error = error_of([&] {
        std::byte byte[1];
        direct.read(std::span<std::byte>(byte));
    });
    const std::string skip_error = error_of([&] { direct.ignore(1); });
    if (read_error == "(no error)" || skip_error == "(no error)")
        report_mismatch("buffered_reader AutoFile after close()", "a read or a skip of the closed file did not fail",
                        "read: " + read_error + "; skip: " + skip_error, input);
    check_seek_and_size(file, start, stored.size(), key, input);
    if (start_byte == kUnseekableStartByte) check_unseekable_reads(stored, key, buffer_request, buffer, steps, input);
    if (start_byte == kReadFaultStartByte) check_read_faults(stored, key, buffer_request, buffer, steps, input);
}

}  // namespace serdiff::differential
