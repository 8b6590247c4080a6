// The block_store program of the serdiff subject: parsing from fuzz bytes, running it on both sides, comparing.
// buffered_reader's and buffered_writer's programs are buffered_{reader,writer}_program.cpp (every subject).
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
