// Typed stream programs (target primitive_stream): one list of typed operations written to every optimized
// writer and the reference Writer, then read back, possibly as other types, through every optimized reader
// and the reference Reader. The byte format is documented in docs/targets.md ("Program formats").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/model.h"

namespace serdiff::differential {

// Every operation; the enumerator's value is its opcode (byte & 0x7f, modulo kStreamOperationCount).
enum class StreamOperation : uint8_t {
    U8, U16, U32, U64, U16BigEndian, U32BigEndian, U64BigEndian, I8, I16, I32, I64,
    CustomWidth,    // CustomUintFormatter<1..8, little/big endian>
    Bool,
    CompactSize,
    VarInt,         // any model::IntKind
    RawBytes,       // a span, no length prefix (any length, 0 and 1 included)
    ByteVector,     // std::vector<uint8_t>
    String,         // std::string
    LimitedString,  // written as a string, read through LimitedString<kStreamStringLimit>
    Prevector,      // prevector<28, uint8_t>, CScript's shape
    IntegerVector,  // std::vector<uint32_t> (VectorFormatter, up to 255 elements: crosses the 0xfd count)
    ByteArray,      // std::array<uint8_t, 32>
    IntegerArray,   // std::array<uint16_t, 3>
    Pair,           // std::pair<uint32_t, std::string>
    Map,            // std::map<uint16_t, uint8_t>
    Set,            // std::set<uint32_t>
    PairListAsMap,  // written as std::vector<std::pair<uint16_t, uint8_t>> (duplicate keys), read as the Map
    ListAsSet,      // written as std::vector<uint32_t> (duplicates), read as the Set
    Skip,           // written as raw bytes, read with ignore(n)
    Flush,          // flushes the file writers; writes and reads nothing
};
inline constexpr size_t kStreamOperationCount = static_cast<size_t>(StreamOperation::Flush) + 1;
const char* stream_operation_name(StreamOperation operation);

// Named bounds on everything a program's input can make large.
inline constexpr size_t kMaxStreamOperations = 64;
// Large payloads (past 64 KiB, up to across the 5,000,000-byte allocation chunk) only when the program's
// header asks for them, so most programs stay small and fast and also run on the file streams.
inline constexpr size_t kMaxStreamOperationBytes = 4096;
inline constexpr size_t kMaxStreamProgramBytes = 64 * 1024;
inline constexpr size_t kMaxLargeStreamOperationBytes = 5'000'064;
inline constexpr size_t kMaxLargeStreamProgramBytes = 5'250'000;
inline constexpr size_t kMaxStreamFileProgramBytes = 64 * 1024;  // file writers/readers run below this
inline constexpr size_t kMaxStreamContainerElements = 16;        // maps, sets, pair lists
inline constexpr size_t kStreamStringLimit = 16;

struct StreamStep {
    StreamOperation write = StreamOperation::U8;
    StreamOperation read = StreamOperation::U8;  // differs from `write` when the program reads another type
    uint64_t number = 0;                         // integers, CompactSize, VarInt
    int width = 8;                               // CustomWidth: 1..8 bytes
    bool big_endian = false;                     // CustomWidth
    model::IntKind kind = model::IntKind::U64;   // VarInt
    // How the read interprets the bytes: the write's own shape, or (when `read` differs) its own.
    int read_width = 8;
    bool read_big_endian = false;
    bool range_check = true;  // CompactSize reads
    model::IntKind read_kind = model::IntKind::U64;
    uint64_t read_count = 0;  // RawBytes and Skip reads
    model::Bytes bytes;                          // byte payloads; Pair's string
    std::vector<uint32_t> integers;              // IntegerVector, IntegerArray, Set, ListAsSet; Pair's first
    std::vector<std::pair<uint16_t, uint8_t>> pairs;  // Map, PairListAsMap
};

struct StreamProgram {
    std::vector<StreamStep> steps;
    size_t writer_buffer_size = 1;  // BufferedWriter, 1..32
    size_t reader_buffer_size = 1;  // BufferedReader, 1..32
    model::Bytes vector_writer_initial;  // what the VectorWriter's vector holds before writing
    size_t vector_writer_position = 0;   // where it starts writing (past the end pads with zeros)
    uint64_t file_start = 0;             // file writers/readers start at this offset
    std::array<std::byte, 8> key{};      // obfuscation key of the file streams
    size_t truncate_tail = 0;            // bytes cut from the end before reading back
    bool large_payloads = false;         // payload limits kMaxLarge* instead of kMax* (see parse)
    size_t corrupt_offset = 0;           // 0: none; else the byte (offset − 1) % size is XORed with 0x80
    size_t payload_bytes = 0;            // total of the steps' byte payloads
};

// Parses fuzz bytes into a program (never fails; every loop and size is bounded by the limits above).
StreamProgram parse_stream_program(std::span<const uint8_t> input);

// Writes the program to DataStream, VectorWriter, SizeComputer, SpanWriter, AutoFile, BufferedWriter and
// the reference Writer/FileWriter and compares bytes, sizes and positions; then reads the (truncated,
// corrupted) bytes back through DataStream, SpanReader, AutoFile, BufferedReader and the reference Reader
// and compares every value, position and the error that ends the read. Any difference aborts with a report.
void check_stream_program(const StreamProgram& program, std::span<const uint8_t> input);

}  // namespace serdiff::differential
