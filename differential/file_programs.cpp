// The block_store program of the serdiff subject: parsing from fuzz bytes, running it on both sides, comparing.
// buffered_reader's and buffered_writer's programs are buffered_{reader,writer}_program.cpp (every subject).
#include "differential/file_programs.h"

#include <algorithm>
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
#include "serialize/model_formats.h"
#include "serialize/serialize.h"
#include "serialize/streams.h"

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

// docs/format.md "What a failed read leaves": a witness stack read from a file that fails inside an item of at most
// one chunk holds the items read and that item, the bytes the file delivered, then zeros (Core's
// vector<vector<unsigned char>> read); from memory serdiff fails the item before allocating it. Bytes of the
// block file, from an offset the program chooses, are read as a witness stack from memory and from a file: the same
// error (or the same stack), and from the file the memory read's items plus that item.
bool parse_compact_size(std::span<const uint8_t> bytes, size_t& at, uint64_t& value)
{
    if (at >= bytes.size()) return false;
    const uint8_t first = bytes[at];
    const size_t prefix = first < 0xfd ? 1 : first == 0xfd ? 3 : first == 0xfe ? 5 : 9;
    if (prefix > bytes.size() - at) return false;
    value = first;
    if (prefix > 1) {
        value = 0;
        for (size_t b = prefix - 1; b >= 1; --b) value = value << 8 | bytes[at + b];
    }
    const uint64_t least = prefix == 1 ? 0 : prefix == 3 ? 0xfd : prefix == 5 ? 0x10000 : 0x100000000;
    if (value < least || value > 0x02000000) return false;
    at += prefix;
    return true;
}

void check_witness_stack_from_file(std::span<const uint8_t> bytes, std::span<const uint8_t> input)
{
    static MemoryFile file("serdiff-witness-stack");
    file.assign(Bytes(bytes.begin(), bytes.end()));
    model::WitnessStack from_memory, from_file;
    std::string memory_error = "(no error)", file_error = "(no error)";
    try {
        optimized::SpanReader reader(bytes);
        optimized::Unserialize(reader, from_memory);
    } catch (const optimized::SerializeError& error) {
        memory_error = error.what();
    }
    try {
        optimized::AutoFile in{file.open("rb", 0), Key{}};
        optimized::Unserialize(in, from_file);
    } catch (const optimized::SerializeError& error) {
        file_error = error.what();
    }
    // Where the read stops: an item whose payload the bytes cannot hold (its length and where it starts), if any.
    size_t at = 0;
    uint64_t count = 0, length = 0;
    bool item_in_progress = false;
    if (parse_compact_size(bytes, at, count)) {
        for (uint64_t i = 0; i < count && parse_compact_size(bytes, at, length); ++i) {
            if (length > bytes.size() - at) {
                item_in_progress = length <= 5'000'000;
                break;
            }
            at += static_cast<size_t>(length);
        }
    }
    const auto memory_items = from_memory.encoded_items(), file_items = from_file.encoded_items();
    bool as_contract = memory_error == file_error;
    if (as_contract && item_in_progress && memory_error != "(no error)") {
        const auto last = from_file.empty() ? model::WitnessStack::Item{} : from_file[from_file.size() - 1];
        const auto delivered = bytes.subspan(at);
        size_t same = 0;
        while (same < last.size() && same < delivered.size() && last[same] == delivered[same]) ++same;
        as_contract = from_file.size() == from_memory.size() + 1 && last.size() == length &&
                      std::equal(memory_items.begin(), memory_items.end(), file_items.begin()) &&
                      std::all_of(last.begin() + static_cast<std::ptrdiff_t>(same), last.end(), [](uint8_t b) { return b == 0; });
    } else if (as_contract) {
        as_contract = from_file.size() == from_memory.size() &&
                      std::equal(memory_items.begin(), memory_items.end(), file_items.begin(), file_items.end());
    }
    if (!as_contract)
        report_mismatch("block_store witness stack from a file", "the stack or the error differs from docs/format.md's",
                        "from memory: " + std::to_string(from_memory.size()) + " items, \"" + memory_error +
                            "\"; from a file: " + std::to_string(from_file.size()) + " items, \"" + file_error + "\"" +
                            (item_in_progress ? "; the item in progress claims " + std::to_string(length) + " bytes, " +
                                                    std::to_string(bytes.size() - at) + " there"
                                              : std::string()),
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
    check_witness_stack_from_file(std::span<const uint8_t>(stored).subspan(std::min<size_t>(extra_offset, stored.size())),
                                  input);
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
