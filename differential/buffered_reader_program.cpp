// The buffered_reader program (file_programs.h): one obfuscated file read through the subject's BufferedReader
// and AutoFile and the reference FileReader, byte reads, spans and skips, every value and position compared.
// Compiled once per subject (subject_streams.h); the format of the program is in docs/targets.md.
#include <string>
#include <vector>

#include "differential/compare.h"
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

template <typename Reader>
Trace trace_reads(Reader& reader, const std::vector<ReadStep>& steps)
{
    Trace trace;
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
            trace.back() += " @" + std::to_string(reader.position());
        }
    } catch (const subject::ReadError& error) {
        trace.push_back("error: " + subject::read_error_text(error));
    } catch (const reference::ReadError& error) {
        trace.push_back(std::string("error: ") + error.what());
    }
    return trace;
}

}  // namespace

void check_buffered_reader_program(std::span<const uint8_t> input)
{
    ProgramInput in(input);
    const auto [buffer_request, buffer] = read_buffer_size(in);
    const uint64_t start = in.byte() % 24;
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
    subject::AutoFile direct{file.open("rb", start), key};
    compare_traces("buffered_reader AutoFile", trace_reads(direct, steps), expected, input);
}

}  // namespace serdiff::differential
