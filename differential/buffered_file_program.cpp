// The buffered_file program (file_programs.h): one obfuscated file read through the subject's BufferedFile (Core's
// streams.h BufferedFile, which LoadExternalBlockFile reads -reindex and -loadblock files with) and the reference
// BufferedFileModel: reads, Unserialize through operator>>, CompactSizes, byte searches, rewinds, limits and skips,
// every value, position and error compared, then eof() and how far the file itself was read. Compiled once per
// subject (subject_streams.h); the format of the program is in docs/targets.md.
#include <array>
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "differential/compare.h"
#include "differential/file_programs.h"
#include "differential/memory_file.h"
#include "differential/program_input.h"
#include "differential/reference/buffered_file.h"
#include "differential/reference/file_io.h"
#include "differential/reference/reference.h"
#include "subject_streams.h"

namespace serdiff::differential {

namespace {

using model::Bytes;

struct FileStep {
    enum Kind { Read, Byte, U32, Magic, CompactSize, FindByte, SetPosition, SetLimit, SkipTo, Eof, Count } kind;
    uint8_t argument = 0;  // a length byte, the byte searched for, or a position byte
    size_t size = 0;       // Read: the length
};

// Where a position byte points from `position` (docs/targets.md "Program formats"): SetPosition back by t & 0x7f
// for t ≥ 0x80 (not below 0), else ahead by t; SetLimit none for 0xff, else t − 16 from the position (below it when
// t < 16, not below 0); SkipTo ahead by t.
uint64_t set_position_target(uint64_t position, uint8_t t)
{
    if (t >= 0x80) return position - std::min<uint64_t>(position, t & 0x7f);
    return position + t;
}
std::optional<uint64_t> set_limit_target(uint64_t position, uint8_t t)
{
    if (t == 0xff) return std::nullopt;
    return t >= 16 ? position + (t - 16) : position - std::min<uint64_t>(position, 16 - t);
}

// The reference's side with the subject's names: the model's reads, and what Unserialize and ReadCompactSize read
// through them (one read for the first byte, one for the rest, as serialize.h reads a CompactSize).
struct ReferenceFile {
    reference::BufferedFileModel model;
    uint64_t position() const { return model.position(); }
    bool eof() const { return model.eof(); }
    void read(std::span<std::byte> destination)
    {
        const Bytes bytes = model.read(destination.size());
        std::copy(bytes.begin(), bytes.end(), reinterpret_cast<uint8_t*>(destination.data()));
    }
    uint64_t read_compact_size()
    {
        Bytes bytes = model.read(1);
        const size_t rest = bytes[0] < 0xfd ? 0 : bytes[0] == 0xfd ? 2 : bytes[0] == 0xfe ? 4 : 8;
        const Bytes tail = model.read(rest);
        bytes.insert(bytes.end(), tail.begin(), tail.end());
        const model::Decoded<uint64_t> decoded = reference::decode_compactsize(bytes);
        if (!decoded.ok) throw reference::ReadError(decoded.error);
        return decoded.value;
    }
    template <size_t N>
    std::array<uint8_t, N> read_bytes()
    {
        std::array<uint8_t, N> out;
        read(std::as_writable_bytes(std::span(out)));
        return out;
    }
    void skip_to(uint64_t target) { model.skip_to(target); }
    bool set_position(uint64_t target) { return model.set_position(target); }
    bool set_limit(std::optional<uint64_t> limit) { return model.set_limit(limit); }
    void find_byte(std::byte value) { model.find_byte(std::to_integer<uint8_t>(value)); }
};

template <typename File>
uint64_t read_compact_size(File& file)
{
    if constexpr (requires { file.read_compact_size(); })
        return file.read_compact_size();
    else
        return subject::ReadCompactSize(file);
}

// A u32 (little endian) and a 4-byte array (LoadExternalBlockFile's network magic): the subject's through its
// operator>>, the reference's from its own bytes.
template <typename File>
uint32_t read_u32(File& file)
{
    if constexpr (std::is_same_v<File, ReferenceFile>) {
        const auto bytes = file.template read_bytes<4>();
        return bytes[0] | bytes[1] << 8 | bytes[2] << 16 | uint32_t{bytes[3]} << 24;
    } else {
        uint32_t value = 0;
        file >> value;
        return value;
    }
}
template <typename File>
uint8_t read_u8(File& file)
{
    if constexpr (std::is_same_v<File, ReferenceFile>) {
        return file.template read_bytes<1>()[0];
    } else {
        uint8_t value = 0;
        file >> value;
        return value;
    }
}
template <typename File>
std::array<uint8_t, 4> read_magic(File& file)
{
    if constexpr (std::is_same_v<File, ReferenceFile>) {
        return file.template read_bytes<4>();
    } else {
        std::array<uint8_t, 4> value{};
        file >> value;
        return value;
    }
}

// One line per step: what it returned (or the error it threw; the file stays usable after one, as
// LoadExternalBlockFile goes on after a bad record), then the position.
template <typename File>
Trace trace_steps(File& file, const std::vector<FileStep>& steps)
{
    Trace trace;
    for (const FileStep& step : steps) {
        std::string line;
        try {
            switch (step.kind) {
            case FileStep::Read: {
                Bytes out(step.size);
                file.read(std::as_writable_bytes(std::span(out)));
                line = "read " + model::to_hex(out);
                break;
            }
            case FileStep::Byte: line = "u8 " + std::to_string(read_u8(file)); break;
            case FileStep::U32: line = "u32 " + std::to_string(read_u32(file)); break;
            case FileStep::Magic: {
                const std::array<uint8_t, 4> magic = read_magic(file);
                line = "magic " + model::to_hex(magic.data(), magic.size());
                break;
            }
            case FileStep::CompactSize: line = "compact size " + std::to_string(read_compact_size(file)); break;
            case FileStep::FindByte:
                file.find_byte(std::byte{step.argument});
                line = "find " + std::to_string(step.argument);
                break;
            case FileStep::SetPosition: {
                const uint64_t target = set_position_target(file.position(), step.argument);
                line = "set position " + std::to_string(target) + (file.set_position(target) ? " true" : " false");
                break;
            }
            case FileStep::SetLimit: {
                const std::optional<uint64_t> limit = set_limit_target(file.position(), step.argument);
                line = "set limit " + (limit ? std::to_string(*limit) : std::string("none")) +
                       (file.set_limit(limit) ? " true" : " false");
                break;
            }
            case FileStep::SkipTo: {
                const uint64_t target = file.position() + step.argument;
                line = "skip to " + std::to_string(target);
                file.skip_to(target);
                break;
            }
            case FileStep::Eof: line = file.eof() ? "eof true" : "eof false"; break;
            case FileStep::Count: break;
            }
        } catch (const subject::ReadError& error) {
            line += " error: " + subject::read_error_text(error);
        } catch (const reference::ReadError& error) {
            line += " error: " + std::string(error.what());
        }
        trace.push_back(line + " @" + std::to_string(file.position()));
    }
    trace.push_back(file.eof() ? "end: eof true" : "end: eof false");
    return trace;
}

}  // namespace

void check_buffered_file_program(std::span<const uint8_t> input)
{
    ProgramInput in(input);
    const uint64_t buffer_size = 1 + in.byte() % kMaxBufferedFileBuffer;
    const uint8_t rewind_byte = in.byte();
    const uint64_t rewind = rewind_byte == 0xff ? buffer_size : rewind_byte % buffer_size;
    const uint64_t start = in.byte() % 24;
    const std::array<std::byte, 8> key = read_file_key(in);
    const Bytes stored = in.payload(static_cast<size_t>(in.number_at_most(kMaxBufferedFileBytes)));
    std::vector<FileStep> steps;
    while (!in.exhausted() && steps.size() < kMaxFileOperations) {
        FileStep step{static_cast<FileStep::Kind>(in.byte() % FileStep::Count)};
        if (step.kind == FileStep::Read) step.size = buffer_relative_length(in.byte(), static_cast<size_t>(buffer_size));
        if (step.kind >= FileStep::FindByte && step.kind <= FileStep::SkipTo) step.argument = in.byte();
        steps.push_back(step);
    }

    // The bytes the BufferedFile reads: the file's from `start` on (none when it starts past the end), de-obfuscated
    // at their file offsets.
    Bytes plain(stored.size() > start ? stored.begin() + static_cast<ptrdiff_t>(start) : stored.end(), stored.end());
    reference::obfuscate(std::as_writable_bytes(std::span(plain)), start, key);

    const auto label = [&] {
        return "buffered_file BufferedFile (buffer " + std::to_string(buffer_size) + ", rewind " + std::to_string(rewind) +
               ", start " + std::to_string(start) + ")";
    };
    Trace expected;
    try {
        ReferenceFile reference_file{reference::BufferedFileModel(plain, buffer_size, rewind)};
        expected = trace_steps(reference_file, steps);
        expected.push_back("file read to " + std::to_string(start + reference_file.model.source_position()));
    } catch (const reference::ReadError& error) {
        expected = {std::string("construction error: ") + error.what()};
    }

    static MemoryFile file("serdiff-buffered-file");
    file.assign(stored);
    subject::AutoFile source{file.open("rb", start), key};
    Trace actual;
    try {
        subject::BufferedFile buffered(source, buffer_size, rewind);
        actual = trace_steps(buffered, steps);
        actual.push_back("file read to " + std::to_string(source.position()));
    } catch (const subject::ReadError& error) {
        actual = {"construction error: " + subject::read_error_text(error)};
    }
    compare_traces(label, actual, expected, input);
}

}  // namespace serdiff::differential
