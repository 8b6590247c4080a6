// The byte grammar shared by the operation-program fuzz targets: numbers biased to encoding edges,
// bounded lengths and cheap payloads, plus the writer corpus_gen uses to emit seeds in the same grammar.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>

#include "differential/fuzz_input.h"
#include "model/model.h"

namespace serdiff::differential {

// Values a number byte can name directly: CompactSize width changes, VarInt 7-bit group thresholds and
// their predecessors, MAX_SIZE, the 5,000,000-byte allocation chunk, integer-type limits, buffer/key
// alignments. Index = the byte (see ProgramInput::number).
inline constexpr std::array<uint64_t, 64> kProgramEdgeValues = {
    0,          1,          2,          7,          8,          9,          15,         16,
    17,         31,         32,         33,         0x7f,       0x80,       0xfc,       0xfd,
    0xfe,       0xff,       0x100,      16511,      16512,      0x7fff,     0x8000,     0xffff,
    0x10000,    2113663,    2113664,    270549119,  270549120,  0x7fffffff, 0x80000000, 0xffffffff,
    0x100000000, 34630287487ULL, 34630287488ULL, 4432676798591ULL, 4432676798592ULL, 567382630219903ULL,
    567382630219904ULL, 72624976668147839ULL, 72624976668147840ULL, 9295997013522923647ULL,
    9295997013522923648ULL, 0x1ffffff, 0x2000000, 0x2000001, 4999999, 5000000,
    5000001,    0x7fffffffffffffffULL, 0xffffffffffffffffULL, 3, 4, 5, 6, 63,
    64,         65,         255 + 8,    1000,       4095,       4096,       4097,       20};

// Number byte t: t < 64 → kProgramEdgeValues[t]; 64 ≤ t < 0xf8 → the small value t − 64 (0..183);
// t ≥ 0xf8 → the next 8 bytes, little-endian.
inline constexpr uint8_t kFirstSmallNumberByte = 64;
inline constexpr uint8_t kFirstRawNumberByte = 0xf8;

// Reads the grammar from fuzz bytes; like FuzzInput it never fails (an exhausted input reads zeros).
class ProgramInput {
public:
    explicit ProgramInput(std::span<const uint8_t> data) : input_(data) {}

    FuzzInput& raw() { return input_; }
    bool exhausted() const { return input_.exhausted(); }
    uint8_t byte() { return input_.byte(); }

    uint64_t number()
    {
        const uint8_t selector = input_.byte();
        if (selector < kFirstSmallNumberByte) return kProgramEdgeValues[selector];
        if (selector < kFirstRawNumberByte) return selector - kFirstSmallNumberByte;
        return input_.integral<uint64_t>();
    }
    // A number folded into [0, max].
    uint64_t number_at_most(uint64_t max)
    {
        const uint64_t value = number();
        return value <= max ? value : value % (max + 1);
    }
    // `size` bytes: a salt byte, up to 32 bytes from the input, the rest a salted pattern, so a large
    // length costs the fuzzer a few bytes and the payload is still not constant.
    model::Bytes payload(size_t size)
    {
        const uint8_t salt = input_.byte();
        model::Bytes out = input_.bytes(std::min<size_t>(size, 32));
        out.resize(size);
        fill_pattern(out, salt);
        return out;
    }

private:
    // Bytes 32.. of a payload: a salted pattern, out[i] = salt + i·151 + ⌊i/256⌋ (mod 256). Within a block of
    // 256 bytes ⌊i/256⌋ is fixed, so block k is row (salt + k) mod 256 of a 256×256 table, copied with memcpy
    // (one sanitizer range check per block, not one per byte: payloads reach megabytes).
    static void fill_pattern(model::Bytes& out, uint8_t salt)
    {
        using Row = std::array<uint8_t, 256>;
        static const std::array<Row, 256> rows = [] {
            std::array<Row, 256> table{};
            for (size_t row = 0; row < 256; ++row)
                for (size_t column = 0; column < 256; ++column)
                    table[row][column] = static_cast<uint8_t>(row + column * 151);
            return table;
        }();
        for (size_t i = 32; i < out.size();) {
            const size_t column = i % 256;
            const size_t length = std::min(out.size() - i, 256 - column);
            std::memcpy(out.data() + i, rows[(salt + (i >> 8)) % 256].data() + column, length);
            i += length;
        }
    }

    FuzzInput input_;
};

// Emits bytes in the same grammar (tools/corpus_gen builds the program seeds with it).
class ProgramWriter {
public:
    model::Bytes bytes;

    ProgramWriter& byte(uint8_t value)
    {
        bytes.push_back(value);
        return *this;
    }
    ProgramWriter& raw(std::initializer_list<uint8_t> values)
    {
        bytes.insert(bytes.end(), values);
        return *this;
    }
    ProgramWriter& raw(std::span<const uint8_t> values)
    {
        bytes.insert(bytes.end(), values.begin(), values.end());
        return *this;
    }
    ProgramWriter& little_endian(uint64_t value, int width)
    {
        for (int i = 0; i < width; ++i) bytes.push_back(static_cast<uint8_t>(value >> (8 * i)));
        return *this;
    }
    // The shortest number encoding of `value` (an edge byte, a small byte, or 0xf8 + 8 bytes).
    ProgramWriter& number(uint64_t value)
    {
        for (size_t i = 0; i < kProgramEdgeValues.size(); ++i)
            if (kProgramEdgeValues[i] == value) return byte(static_cast<uint8_t>(i));
        if (value < kFirstRawNumberByte - kFirstSmallNumberByte)
            return byte(static_cast<uint8_t>(kFirstSmallNumberByte + value));
        byte(kFirstRawNumberByte);
        return little_endian(value, 8);
    }
    // A payload of `size` bytes: the salt, then exactly min(size, 32) prefix bytes (zeros after `prefix`).
    ProgramWriter& payload(size_t size, uint8_t salt, std::span<const uint8_t> prefix = {})
    {
        byte(salt);
        const size_t taken = std::min<size_t>(size, 32);
        for (size_t i = 0; i < taken; ++i) byte(i < prefix.size() ? prefix[i] : 0);
        return *this;
    }
};

}  // namespace serdiff::differential
