// The reference primitive streams: a byte-at-a-time Writer and a bounds-checked Reader cursor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/model.h"

namespace serdiff::reference {

using model::Bytes;

// Thrown by the reference FileReader (file_io.h) at the end of a file; what() is exactly one of model::errors.
// (The memory Reader below records its errors instead: Reader::error().)
class ReadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Appends the serialization of each value to `out`, one byte at a time.
// Violated preconditions (a value that does not fit its width or kind) throw std::invalid_argument.
class Writer {
public:
    Bytes out;

    // One raw byte.
    void write_byte(uint8_t value);
    // Unsigned integer in `width_bytes` (1..8) bytes, little- or big-endian; value must fit the width.
    void write_uint(uint64_t value, int width_bytes, bool big_endian = false);
    // Signed two's-complement little-endian integer of 1, 2, 4 or 8 bytes; value must fit the width.
    void write_int(int64_t value, int width_bytes);
    // One byte, 0 or 1.
    void write_bool(bool value);
    // CompactSize in its canonical 1/3/5/9-byte form.
    void write_compactsize(uint64_t value);
    // Bitcoin Core's MSB base-128 VarInt; value must be representable in `kind` (non-negative if signed).
    void write_varint(uint64_t value, model::IntKind kind);
    // Raw bytes, no length prefix (fixed arrays of bytes, hashes).
    void write_bytes(std::span<const uint8_t> bytes);
    // 32 raw bytes.
    void write_uint256(const model::uint256& hash);
    // CompactSize length, then the bytes (vector, prevector or string of bytes).
    void write_byte_vector(std::span<const uint8_t> bytes);
    // Same encoding as write_byte_vector.
    void write_string(std::string_view text);

    // CompactSize count, then each element through write_element(Writer&, const Element&); name Element: write_vector<T>(v, f).
    template <typename Element, typename WriteElement>
    void write_vector(std::span<const Element> elements, WriteElement write_element)
    {
        write_compactsize(elements.size());
        for (const Element& element : elements) write_element(*this, element);
    }
    // Elements only, no count (fixed-size arrays).
    template <typename Element, typename WriteElement>
    void write_array(std::span<const Element> elements, WriteElement write_element)
    {
        for (const Element& element : elements) write_element(*this, element);
    }
    // First, then second.
    template <typename First, typename Second, typename WriteFirst, typename WriteSecond>
    void write_pair(const std::pair<First, Second>& pair, WriteFirst write_first, WriteSecond write_second)
    {
        write_first(*this, pair.first);
        write_second(*this, pair.second);
    }
    // CompactSize count, then each (key, value) pair in the map's (sorted) order.
    template <typename Key, typename Value, typename WriteKey, typename WriteValue>
    void write_map(const std::map<Key, Value>& map, WriteKey write_key, WriteValue write_value)
    {
        write_compactsize(map.size());
        for (const auto& [key, value] : map) {
            write_key(*this, key);
            write_value(*this, value);
        }
    }
    // CompactSize count, then each key in the set's (sorted) order.
    template <typename Key, typename WriteKey>
    void write_set(const std::set<Key>& set, WriteKey write_key)
    {
        write_compactsize(set.size());
        for (const Key& key : set) write_key(*this, key);
    }
};

// A cursor over `data` with a sticky first error. A read that fails records its model::errors message and
// returns zero (or an empty value); every later read then returns zero without moving, and every loop below
// stops, so a decoder reads straight through and looks at error() once at the end. No read throws: a rejected
// input costs no exception (one throw and catch is several µs under ASan, and fuzzing rejects most inputs).
// A fixed-width read, a CompactSize payload, a skip and each byte-vector chunk either complete or
// fail without moving the cursor (as Bitcoin Core's streams do); bytes read before them stay consumed.
// Preconditions of the caller (an integer width outside the allowed set) still throw std::invalid_argument.
class Reader {
public:
    explicit Reader(std::span<const uint8_t> data) : data_(data) {}

    // Bytes consumed so far.
    size_t position() const { return position_; }
    // Bytes left to read.
    size_t remaining() const { return data_.size() - position_; }
    // True when every byte has been consumed.
    bool at_end() const { return position_ == data_.size(); }

    // True once a read (or fail) has recorded an error.
    bool failed() const { return error_ != nullptr; }
    // The first error (one of model::errors), or nullptr.
    const char* error() const { return error_; }
    // Records `message` (one of model::errors) unless an earlier error is recorded: the first error wins.
    void fail(const char* message)
    {
        if (error_ == nullptr) error_ = message;
    }

    // One raw byte.
    uint8_t read_byte();
    // Unsigned integer of `width_bytes` (1..8) bytes, little- or big-endian.
    uint64_t read_uint(int width_bytes, bool big_endian = false);
    // Signed two's-complement little-endian integer of 1, 2, 4 or 8 bytes, sign-extended.
    int64_t read_int(int width_bytes);
    // One byte; any non-zero byte is true.
    bool read_bool();
    // CompactSize; rejects non-canonical forms, then (with range_check) values above model::kMaxSize.
    uint64_t read_compactsize(bool range_check = true);
    // VarInt into an integer of `kind` ("size too large" on overflow); signed kinds are non-negative.
    uint64_t read_varint(model::IntKind kind);
    // Exactly `count` raw bytes, no length prefix.
    Bytes read_bytes(size_t count);
    // Consumes `count` bytes without keeping them.
    void skip(size_t count);
    // 32 raw bytes.
    model::uint256 read_uint256();
    // CompactSize length, then the bytes, read in chunks of at most model::kMaxVectorAllocate bytes.
    Bytes read_byte_vector();
    // Same encoding and chunking as read_byte_vector.
    std::string read_string();
    // As read_string, but a length above `limit` fails with "String length limit exceeded".
    std::string read_limited_string(size_t limit);

    // CompactSize count, then elements from read_element(Reader&); capacity grows only with the elements
    // actually read, so a huge claimed count allocates nothing ahead of the data.
    template <typename Element, typename ReadElement>
    std::vector<Element> read_vector(ReadElement read_element)
    {
        const uint64_t count = read_compactsize(true);
        std::vector<Element> elements;
        while (!failed() && elements.size() < count) elements.push_back(read_element(*this));
        return elements;
    }
    // Exactly `count` elements, no count prefix (fixed-size arrays).
    template <typename Element, typename ReadElement>
    std::vector<Element> read_array(size_t count, ReadElement read_element)
    {
        std::vector<Element> elements;
        for (size_t index = 0; index < count && !failed(); ++index) elements.push_back(read_element(*this));
        return elements;
    }
    // First, then second.
    template <typename First, typename Second, typename ReadFirst, typename ReadSecond>
    std::pair<First, Second> read_pair(ReadFirst read_first, ReadSecond read_second)
    {
        First first = read_first(*this);
        Second second = read_second(*this);
        return {std::move(first), std::move(second)};
    }
    // CompactSize count, then (key, value) pairs; a duplicate key keeps the first value.
    template <typename Key, typename Value, typename ReadKey, typename ReadValue>
    std::map<Key, Value> read_map(ReadKey read_key, ReadValue read_value)
    {
        const uint64_t count = read_compactsize(true);
        std::map<Key, Value> map;
        for (uint64_t index = 0; index < count && !failed(); ++index) {
            Key key = read_key(*this);
            Value value = read_value(*this);
            map.emplace(std::move(key), std::move(value));  // emplace does not overwrite: first wins
        }
        return map;
    }
    // CompactSize count, then keys; a duplicate key is dropped.
    template <typename Key, typename ReadKey>
    std::set<Key> read_set(ReadKey read_key)
    {
        const uint64_t count = read_compactsize(true);
        std::set<Key> set;
        for (uint64_t index = 0; index < count && !failed(); ++index) set.insert(read_key(*this));
        return set;
    }

private:
    // True when no error is recorded and `count` more bytes are available; else records "end of data"
    // (unless an error is already recorded) and returns false.
    bool require(size_t count);
    // The next byte, unchecked: only after require() covered it.
    uint8_t take() { return data_[position_++]; }
    // Reads `length` bytes chunk by chunk, growing `out` only by a chunk whose bytes are present.
    void read_chunked(uint64_t length, Bytes& out);

    std::span<const uint8_t> data_;
    size_t position_ = 0;
    const char* error_ = nullptr;
};

}  // namespace serdiff::reference
