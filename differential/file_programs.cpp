// File-layer operation programs of the serdiff subject (buffered_writer, block_store): parsing from fuzz bytes,
// running them on both sides, comparing. buffered_reader's program is buffered_reader_program.cpp (every subject).
#include "differential/file_programs.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "differential/compare.h"
#include "differential/fault_file.h"
#include "differential/generate.h"
#include "differential/memory_file.h"
#include "differential/program_input.h"
#include "differential/reference/file_io.h"
#include "differential/reference/reference.h"
#include "serialize/block_store.h"
#include "serialize/file.h"
#include "serialize/serialize.h"

namespace serdiff::differential {

namespace {

namespace optimized = serdiff::optimized;
using model::Bytes;
using Key = std::array<std::byte, 8>;
using Magic = std::array<std::byte, 4>;
constexpr Magic kMainnetMagic{std::byte{0xf9}, std::byte{0xbe}, std::byte{0xb4}, std::byte{0xd9}};


// ----------------------------------------------------------------------------------------- buffered_writer

struct WriteStep {
    enum Kind { Byte, Span, Flush, CompactSize, U32, Close, Count } kind;
    Bytes bytes;  // what the step writes (the reference's encoding for the typed steps)
    uint64_t number = 0;
};

template <typename Writer>
void apply_write(Writer& writer, const WriteStep& step)
{
    switch (step.kind) {
    case WriteStep::Byte: writer.write_byte(std::byte{step.bytes[0]}); break;
    case WriteStep::Span: writer.write(std::as_bytes(std::span(step.bytes))); break;
    case WriteStep::Flush: writer.flush(); break;
    case WriteStep::CompactSize: optimized::WriteCompactSize(writer, step.number); break;
    case WriteStep::U32: optimized::Serialize(writer, static_cast<uint32_t>(step.number)); break;
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
};

// `make_and_run(FILE*, run)` builds a writer over the faulty FILE* and hands it with the steps to `run`, which
// applies the steps up to the first Close and then close(), every call caught. The writer (and its AutoFile)
// is destroyed before the file is checked, as a crashed program's would be.
template <typename MakeAndRun>
FaultRun run_with_fault(FaultFile& file, bool stdio_buffered, uint64_t start, const MakeAndRun& make_and_run)
{
    FaultRun run;
    run.acknowledged = start;
    make_and_run(open_fault_file(file, "wb", stdio_buffered), [&](auto& writer, const std::vector<WriteStep>& steps) {
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
            else if (acknowledges) run.acknowledged = writer.position();
        };
        // The steps up to the first Close, then close(): what follows a close is the fault-free run's business.
        size_t i = 0;
        for (; i < steps.size() && steps[i].kind != WriteStep::Close; ++i)
            if (steps[i].kind != WriteStep::Count)
                call(i, steps[i].kind == WriteStep::Flush, [&] { apply_write(writer, steps[i]); });
        call(i, true, [&] { writer.close(); });
    });
    return run;
}

// What every writer must do when the file fails from `fault_offset` on: report it exactly when it cost
// bytes, fail every later call, and leave a prefix of the right bytes holding at least what a successful
// flush()/close() acknowledged.
void check_fault_run(const std::string& name, const FaultRun& run, const FaultFile& file, const Bytes& wanted,
                     uint64_t fault_offset, const std::string& setting, std::span<const uint8_t> input)
{
    const std::string label = "buffered_writer fault mode: " + name + " (" + setting + ")";
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

// ----------------------------------------------------------------------------------------- block_store

std::string describe_record(const model::FileRecord& record)
{
    const Bytes& payload = record.payload;
    return "status " + std::string(model::to_string(record.status)) + " error \"" + record.error + "\" offset " +
           std::to_string(record.offset) + " size " + std::to_string(record.size) + " payload " +
           std::to_string(payload.size()) + " bytes " +
           model::to_hex(payload.data(), std::min<size_t>(payload.size(), 48)) + " hash " +
           model::hash_to_hex(record.hash) + " next " + std::to_string(record.next_offset) +
           (payload.size() > 48 ? " payload-sha256d " + model::hash_to_hex(crypto::sha256d(payload)) : "");
}

// Both sides return model::FileRecord: equal with ==, described only when they differ.
template <typename Label>
void compare_records(const Label& label, const std::vector<model::FileRecord>& optimized,
                     const std::vector<model::FileRecord>& reference, std::span<const uint8_t> input)
{
    if (optimized == reference) return;
    std::string optimized_text, reference_text;
    for (const auto& record : optimized) optimized_text += describe_record(record) + "\n";
    for (const auto& record : reference) reference_text += describe_record(record) + "\n";
    report_mismatch(label_text(label), "record results differ", describe_text_difference(optimized_text, reference_text), input);
}

struct UndoWritten {
    uint64_t offset;
    model::uint256 hash;
};

// The block_store program's seek fault mode (check_block_store_program): scan_block_file on each side over its
// own FaultFile holding `stored`. Both learn the file's size first, so both must throw there, with one message
// (a side that scans on without throwing shows as a message differing from the other's).
void check_block_store_seek_fault(const Bytes& stored, const Key& key, const Magic& magic, uint8_t fault_byte,
                                  std::span<const uint8_t> input)
{
    constexpr int kErrorNumbers[] = {EIO, EINVAL, ESPIPE, EOVERFLOW};
    const Fault fault = fault_byte % 3 == 1 ? Fault::seek_end_error : Fault::tell_after_seek_end_error;
    const int error_number = kErrorNumbers[fault_byte / 3 % 4];
    const auto error_of = [&](auto open_reader) -> std::string {
        FaultFile file;
        file.data = stored;
        file.fault = fault;
        file.error_number = error_number;
        try {
            auto reader = open_reader(open_fault_file(file, "rb", false));
            scan_block_file(*reader, magic);  // by ADL: optimized:: or reference::
        } catch (const std::exception& error) {
            return error.what();
        }
        return "(none: the scan returned)";
    };
    const std::string optimized_error =
        error_of([&](std::FILE* stream) { return std::make_unique<optimized::AutoFile>(stream, key); });
    const std::string reference_error =
        error_of([&](std::FILE* stream) { return std::make_unique<reference::FileReader>(stream, key); });
    if (optimized_error != reference_error)
        report_mismatch("block_store seek fault", "the error differs",
                        std::string(fault == Fault::seek_end_error ? "a seek to the end fails"
                                                                   : "the position after a seek to the end cannot be told") +
                            " (" + std::strerror(error_number) + "): optimized \"" + optimized_error +
                            "\", reference \"" + reference_error + "\"",
                        input);
}

}  // namespace

void check_buffered_writer_program(std::span<const uint8_t> input)
{
    ProgramInput in(input);
    const auto [buffer_request, buffer] = read_buffer_size(in);
    const uint64_t start = in.byte() % 24;
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

    static MemoryFile buffered_file("serdiff-buffered-writer");
    static MemoryFile direct_file("serdiff-direct-writer");
    static MemoryFile reference_file("serdiff-reference-writer");
    {
        optimized::AutoFile buffered_target{buffered_file.open("wb", start), key};
        optimized::BufferedWriter buffered{buffered_target, buffer_request};
        optimized::AutoFile direct{direct_file.open("wb", start), key};
        reference::FileWriter expected{reference_file.open("wb", start), key};
        bool closed = false;
        // After close(): every call of the AutoFile and the reference fails, and so does every BufferedWriter
        // call that would reach the file (a write that fits its buffer is only buffered); nothing reaches it.
        const auto after_close = [&](size_t i, const char* writer, bool may_succeed, const auto& action) {
            try {
                action();
            } catch (const std::runtime_error&) {
                return;
            }
            if (!may_succeed)
                report_mismatch("buffered_writer (buffer " + std::to_string(buffer) + ")", "a call succeeded after close()",
                                std::string(writer) + ", step " + std::to_string(i), input);
        };
        for (size_t i = 0; i < steps.size(); ++i) {
            if (closed) {
                const WriteStep& step = steps[i];
                if (step.kind == WriteStep::Count) continue;
                const bool only_buffered = step.kind != WriteStep::Flush && step.kind != WriteStep::Close;
                after_close(i, "BufferedWriter", only_buffered, [&] { apply_write(buffered, step); });
                after_close(i, "AutoFile", false, [&] { apply_write(direct, step); });
                after_close(i, "reference", false, [&] {
                    if (step.kind == WriteStep::Flush) expected.flush();
                    else if (step.kind == WriteStep::Close) expected.close();
                    else expected.write(std::as_bytes(std::span(step.bytes)));
                });
                continue;
            }
            apply_write(buffered, steps[i]);
            apply_write(direct, steps[i]);
            if (steps[i].kind == WriteStep::Flush) expected.flush();
            else if (steps[i].kind == WriteStep::Close) expected.close();
            else expected.write(std::as_bytes(std::span(steps[i].bytes)));
            if (steps[i].kind == WriteStep::Close) {
                closed = true;
                continue;
            }
            if (buffered.position() != expected.position() || direct.position() != expected.position())
                report_mismatch("buffered_writer (buffer " + std::to_string(buffer) + ")", "position after a write differs",
                                "after step " + std::to_string(i) + ": BufferedWriter " +
                                    std::to_string(buffered.position()) + ", AutoFile " +
                                    std::to_string(direct.position()) + ", reference " +
                                    std::to_string(expected.position()),
                                input);
        }
        if (close_explicitly && !closed) {
            buffered.close();
            direct.close();
            expected.close();
        }
    }
    const Bytes wanted = reference_file.contents();
    const char* how = close_explicitly ? " after close()" : " after the destructors";
    compare_bytes([&] { return "buffered_writer BufferedWriter file (buffer " + std::to_string(buffer) + ")" + how; },
                  buffered_file.contents(), wanted, input);
    compare_bytes([&] { return std::string("buffered_writer AutoFile file") + how; }, direct_file.contents(), wanted,
                  input);
    if (open_failure) {
        // A FILE* that could not be opened (null) is reported by the constructor, with the same message.
        const auto constructor_error = [](const auto& construct) -> std::string {
            try {
                construct();
            } catch (const std::runtime_error& error) {
                return error.what();
            }
            return "(no error)";
        };
        const std::string optimized_error = constructor_error([&] { optimized::AutoFile file{nullptr, key}; });
        const std::string writer_error = constructor_error([&] { reference::FileWriter writer{nullptr, key}; });
        const std::string reader_error = constructor_error([&] { reference::FileReader reader{nullptr, key}; });
        if (optimized_error != writer_error || writer_error != reader_error || writer_error == "(no error)")
            report_mismatch("buffered_writer open failure", "the error for a file that could not be opened differs",
                            "AutoFile: " + optimized_error + "; reference FileWriter: " + writer_error +
                                "; reference FileReader: " + reader_error,
                            input);
    }
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
    const FaultRun buffered_run = run_with_fault(buffered_faulty, stdio_buffered, start, [&](std::FILE* stream, const auto& run) {
        optimized::AutoFile file{stream, key};
        optimized::BufferedWriter writer{file, buffer_request};
        run(writer, steps);
    });
    const FaultRun direct_run = run_with_fault(direct_faulty, stdio_buffered, start, [&](std::FILE* stream, const auto& run) {
        optimized::AutoFile file{stream, key};
        run(file, steps);
    });
    const FaultRun reference_run = run_with_fault(reference_faulty, stdio_buffered, start, [&](std::FILE* stream, const auto& run) {
        reference::FileWriter writer{stream, key};
        run(writer, steps);
    });
    check_fault_run("reference FileWriter", reference_run, reference_faulty, expected, fault_offset, setting, input);
    check_fault_run("BufferedWriter", buffered_run, buffered_faulty, expected, fault_offset, setting, input);
    check_fault_run("AutoFile", direct_run, direct_faulty, expected, fault_offset, setting, input);
    // Unbuffered, the AutoFile and the reference meet the fault in the same call: same step, same message.
    // Stdio-buffered, their write calls reach the file at other points, but where both first fail at the same
    // step (e.g. both at close(), when stdio's buffer held everything) the message must be the same.
    const bool same_step = direct_run.first_error_step == reference_run.first_error_step;
    if (direct_run.reported && reference_run.reported && (!stdio_buffered || same_step) &&
        (!same_step || direct_run.first_error != reference_run.first_error))
        report_mismatch("buffered_writer fault mode (" + setting + ")", "the first error differs",
                        "AutoFile at step " + std::to_string(direct_run.first_error_step) + ": \"" + direct_run.first_error +
                            "\"; reference at step " + std::to_string(reference_run.first_error_step) + ": \"" +
                            reference_run.first_error + "\"",
                        input);
}

void check_block_store_program(std::span<const uint8_t> input)
{
    ProgramInput in(input);
    const Key key = read_file_key(in);
    const uint8_t shape = in.byte();
    const size_t buffer = 1 + shape % 64;
    const bool buffered = (shape & 0x80) == 0;  // else records go straight to the AutoFile
    // Reads use the magic written, or (rarely) another one so "wrong network magic" is reachable.
    const Magic read_magic = (shape & 0x40) ? Magic{std::byte{0x0b}, std::byte{0x11}, std::byte{0x09}, std::byte{0x07}}
                                            : kMainnetMagic;

    static MemoryFile optimized_file("serdiff-block-store-optimized");
    static MemoryFile reference_file("serdiff-block-store-reference");
    std::vector<uint64_t> block_offsets;
    std::vector<UndoWritten> undo_records;
    ValueGenerator generate(in.raw(), kMaxRecordGeneratedBytes);
    const size_t record_count = in.byte() % (kMaxRecordOperations + 1);
    {
        optimized::AutoFile file{optimized_file.open("wb", 0), key};
        std::optional<optimized::BufferedWriter> writer;
        if (buffered) writer.emplace(file, buffer);
        reference::FileWriter expected{reference_file.open("wb", 0), key};
        for (size_t i = 0; i < record_count; ++i) {
            const uint8_t kind = in.byte() % 4;
            uint64_t optimized_offset = 0, reference_offset = 0;
            if (kind == 0) {
                const model::Block block = generate.block();
                optimized_offset = writer ? optimized::write_block_record(*writer, kMainnetMagic, block)
                                          : optimized::write_block_record(file, kMainnetMagic, block);
                reference_offset = reference::write_block_record(expected, kMainnetMagic, reference::encode_block(block));
                block_offsets.push_back(reference_offset);
            } else if (kind == 1) {
                // 0..4096 bytes: an empty payload must be refused by both writers, with one error, writing nothing.
                const Bytes payload = in.payload(static_cast<size_t>(in.number_at_most(kMaxRawRecordPayload)));
                std::string optimized_error, reference_error;
                try {
                    optimized_offset = writer ? optimized::write_block_record(*writer, kMainnetMagic, std::span(payload))
                                              : optimized::write_block_record(file, kMainnetMagic, std::span(payload));
                } catch (const std::length_error& error) {
                    optimized_error = error.what();
                }
                try {
                    reference_offset = reference::write_block_record(expected, kMainnetMagic, payload);
                } catch (const std::length_error& error) {
                    reference_error = error.what();
                }
                if (optimized_error != reference_error)
                    report_mismatch("block_store write", "the error for a refused record differs",
                                    "record " + std::to_string(i) + " (" + std::to_string(payload.size()) +
                                        " bytes): optimized \"" + optimized_error + "\", reference \"" + reference_error + "\"",
                                    input);
                if (!reference_error.empty()) continue;
                block_offsets.push_back(reference_offset);
            } else {
                Bytes undo = reference::encode_block_undo(generate.block_undo());
                const model::uint256 parent = generate.hash();
                if (kind == 3) {
                    // An undo payload that decodes with 1..8 bytes left over ("trailing bytes inside the record").
                    const Bytes extra = in.payload(1 + in.byte() % 8u);
                    undo.insert(undo.end(), extra.begin(), extra.end());
                    if (extra.empty()) undo.push_back(0);  // the input ran out
                }
                optimized_offset = writer ? optimized::write_undo_record(*writer, kMainnetMagic, undo, parent)
                                          : optimized::write_undo_record(file, kMainnetMagic, undo, parent);
                reference_offset = reference::write_undo_record(expected, kMainnetMagic, undo, parent);
                undo_records.push_back({reference_offset, parent});
            }
            if (optimized_offset != reference_offset)
                report_mismatch("block_store write", "record offset differs",
                                "record " + std::to_string(i) + ": optimized " + std::to_string(optimized_offset) +
                                    ", reference " + std::to_string(reference_offset),
                                input);
        }
        if (writer) writer->close();
        else file.close();
        expected.close();
    }
    Bytes stored = reference_file.contents();
    compare_bytes(buffered ? "block_store file written through BufferedWriter" : "block_store file written through AutoFile",
                  optimized_file.contents(), stored, input);

    // Damage the file as a crash or a bad disk would.
    const size_t edits = in.byte() % (kMaxRecordFileEdits + 1);
    for (size_t i = 0; i < edits; ++i) {
        const uint8_t kind = in.byte() % 4;
        const uint64_t where = in.number();
        if (kind == 0 && !stored.empty()) stored[where % stored.size()] ^= static_cast<uint8_t>(1u << (in.byte() % 8));
        else if (kind == 1) stored.resize(static_cast<size_t>(where % (stored.size() + 1)));
        else if (kind == 2) stored.resize(stored.size() + 1 + static_cast<size_t>(where % 64), 0);  // stored zeros
        else if (kind == 3 && stored.size() >= 4) {
            const size_t at = static_cast<size_t>(where % (stored.size() - 3));
            for (size_t j = 0; j < 4; ++j) stored[at + j] = in.byte();
        }
    }
    static MemoryFile damaged("serdiff-block-store-damaged");
    damaged.assign(stored);
    optimized::AutoFile optimized_reader{damaged.open("rb", 0), key};
    reference::FileReader reference_reader{damaged.open("rb", 0), key};

    compare_records("block_store scan_block_file", optimized::scan_block_file(optimized_reader, read_magic),
                    reference::scan_block_file(reference_reader, read_magic), input);

    const uint64_t extra_offset = in.number_at_most(stored.size() + 8);
    block_offsets.push_back(extra_offset);
    for (uint64_t offset : block_offsets)
        compare_records([offset] { return "block_store read_block_record at " + std::to_string(offset); },
                        {optimized::read_block_record(optimized_reader, offset, read_magic)},
                        {reference::read_block_record(reference_reader, offset, read_magic)}, input);
    undo_records.push_back({extra_offset, generate.hash()});
    for (const UndoWritten& undo : undo_records)
        compare_records([&undo] { return "block_store read_undo_record at " + std::to_string(undo.offset); },
                        {optimized::read_undo_record(optimized_reader, undo.offset, read_magic, undo.hash)},
                        {reference::read_undo_record(reference_reader, undo.offset, read_magic, undo.hash)}, input);

    // Seek fault mode: a last byte f with f % 3 ≠ 0 scans the damaged file again through a FILE* whose seek to
    // the end (how both sides learn the file's size) fails (f % 3 = 1) or whose position cannot be told after
    // it (f % 3 = 2), with errno EIO, EINVAL, ESPIPE or EOVERFLOW (f / 3 % 4). Both must throw one message.
    const uint8_t fault_byte = in.byte();
    if (fault_byte % 3 != 0) check_block_store_seek_fault(stored, key, read_magic, fault_byte, input);
}

}  // namespace serdiff::differential
