// In-memory streams of the optimized serializer: DataStream, SpanReader, VectorWriter, SpanWriter
// (SizeComputer lives in serialize.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include "model/model.h"
#include "serialize/planted.h"
#include "serialize/serialize.h"
#include "serialize/stream.h"

namespace serdiff::optimized {

// A vector-backed stream: writes append, reads consume from a read position. The vector is grown (and
// zero-filled) geometrically ahead of the logical end, so an append is a bounds check and a memcpy instead of
// a std::vector insert per field.
class DataStream {
public:
    DataStream() = default;
    explicit DataStream(std::span<const uint8_t> initial) : buffer_(initial.begin(), initial.end()), end_(initial.size())
    {
    }

    template <size_t Extent>
    [[gnu::always_inline]] void write(std::span<const std::byte, Extent> bytes)
    {
        if constexpr (Extent == 1) {
            write_byte(bytes[0]);
        } else if (!bytes.empty()) {
            make_room(bytes.size());
            std::memcpy(buffer_.data() + end_, bytes.data(), bytes.size());
            end_ += bytes.size();
        }
    }
    // OPTIMIZATIONS.md row 1: one-byte write fast path.
    [[gnu::always_inline]] void write_byte(std::byte byte)
    {
        make_room(1);
        buffer_[end_++] = static_cast<uint8_t>(byte);
    }

    // OPTIMIZATIONS.md row 5: one templated read for fixed and dynamic extents, with a one-byte fast path.
    template <size_t Extent>
    void read(std::span<std::byte, Extent> destination)
    {
        if constexpr (Extent == 1) {
            destination[0] = read_byte();
        } else {
            if (destination.size() > end_ - read_position_) throw_serialize_error(model::errors::kEndOfData);
            if (destination.empty()) return;
            std::memcpy(destination.data(), buffer_.data() + read_position_, destination.size());
            read_position_ += destination.size();
        }
    }
    std::byte read_byte()
    {
        if (read_position_ == end_) throw_serialize_error(model::errors::kEndOfData);
        return static_cast<std::byte>(buffer_[read_position_++]);
    }
    void ignore(size_t count)
    {
        if (count > end_ - read_position_) throw_serialize_error(model::errors::kEndOfData);
        read_position_ += count;
    }

    size_t size() const noexcept { return end_ - read_position_; }  // bytes not yet read
    bool empty() const noexcept { return size() == 0; }
    std::span<const uint8_t> unread() const noexcept
    {
        return std::span<const uint8_t>(buffer_.data() + read_position_, end_ - read_position_);
    }
    size_t read_position() const noexcept { return read_position_; }
    // Everything written so far, including bytes already read.
    std::span<const uint8_t> bytes() const noexcept { return std::span<const uint8_t>(buffer_.data(), end_); }
    void reserve(size_t capacity)
    {
        if (capacity > buffer_.size()) buffer_.resize(capacity);
    }
    void clear() noexcept
    {
        end_ = 0;
        read_position_ = 0;
    }

    template <typename T>
    DataStream& operator<<(const T& object)
    {
        Serialize(*this, object);
        return *this;
    }
    template <typename T>
    DataStream& operator>>(T&& object)
    {
        Unserialize(*this, object);
        return *this;
    }

private:
    [[gnu::always_inline]] void make_room(size_t count)
    {
        if (count > buffer_.size() - end_) [[unlikely]]
            grow(count);
    }
    [[gnu::noinline]] void grow(size_t count) { buffer_.resize(std::max({end_ + count, 2 * buffer_.size(), size_t{64}})); }

    std::vector<uint8_t> buffer_;  // bytes [0, end_) are the stream; the rest is zeroed spare room
    size_t end_ = 0;
    size_t read_position_ = 0;
};

// Reads from a span it does not own; every read either completes or throws "end of data" unchanged.
class SpanReader {
public:
    explicit SpanReader(std::span<const uint8_t> data) noexcept : data_(SERDIFF_PLANTED(span_reader_dangling_copy) ? planted::freed_copy(data) : data) {}

    // OPTIMIZATIONS.md row 5: one templated read for fixed and dynamic extents, with a one-byte fast path.
    template <size_t Extent>
    void read(std::span<std::byte, Extent> destination)
    {
        if constexpr (Extent == 1) {
            destination[0] = read_byte();
        } else {
            if (destination.size() > data_.size()) throw_serialize_error(model::errors::kEndOfData);
            if (destination.empty()) return;
            std::memcpy(destination.data(), data_.data(), destination.size());
            data_ = data_.subspan(destination.size());
        }
    }
    std::byte read_byte()
    {
        if (data_.empty()) throw_serialize_error(model::errors::kEndOfData);
        const std::byte byte = static_cast<std::byte>(data_[0]);
        data_ = data_.subspan(1);
        return byte;
    }
    void ignore(size_t count)
    {
        if (count > data_.size()) throw_serialize_error(model::errors::kEndOfData);
        data_ = data_.subspan(count);
    }

    size_t size() const noexcept { return data_.size(); }  // bytes not yet read
    bool empty() const noexcept { return data_.empty(); }
    std::span<const uint8_t> unread() const noexcept { return data_; }

    template <typename T>
    SpanReader& operator>>(T&& object)
    {
        Unserialize(*this, object);
        return *this;
    }

private:
    std::span<const uint8_t> data_;
};

// Writes into an existing vector starting at `position`: overwrites what is there, appends the rest.
class VectorWriter {
public:
    // A position past the end first pads the vector with zeros up to it.
    VectorWriter(std::vector<uint8_t>& target, size_t position) : target_(target), position_(position)
    {
        if (position_ > target_.size()) target_.resize(position_);
    }

    template <size_t Extent>
    [[gnu::always_inline]] void write(std::span<const std::byte, Extent> bytes)
    {
        if constexpr (Extent == 1) {
            write_byte(bytes[0]);
        } else if (!bytes.empty()) {  // an empty span writes nothing (its data() may be null: no memcpy from it)
            const auto* first = reinterpret_cast<const uint8_t*>(bytes.data());
            const size_t count = bytes.size();
            const size_t room = target_.size() - position_;
            if (room == 0) {
                // OPTIMIZATIONS.md row 6: append fast path when writing at the end (resize + memcpy measured
                // faster than a range insert).
                if (count == 0) return;
                target_.resize(position_ + count);
                std::memcpy(target_.data() + position_, first, count);
            } else if (count <= room) {
                // Entirely inside the vector: a plain overwrite, with a constant size for fixed extents.
                if constexpr (SERDIFF_PLANTED(vector_writer_middle_inserts)) target_.insert(target_.begin() + static_cast<std::ptrdiff_t>(position_), first, first + count); else
                std::memcpy(target_.data() + position_, first, count);
            } else {
                write_across_end(first, count, room);
            }
            position_ += count;
        }
    }
    // OPTIMIZATIONS.md row 1: one-byte write fast path.
    [[gnu::always_inline]] void write_byte(std::byte byte)
    {
        if (position_ == target_.size()) target_.push_back(static_cast<uint8_t>(byte));
        else target_[position_] = static_cast<uint8_t>(byte);
        if constexpr (SERDIFF_PLANTED(vector_writer_byte_no_advance)) if (position_ + 1 < target_.size()) return;
        ++position_;
    }

    size_t position() const noexcept { return position_; }

    template <typename T>
    VectorWriter& operator<<(const T& object)
    {
        Serialize(*this, object);
        return *this;
    }

private:
    // Overwrites the `room` bytes left before the end and appends the rest; rare, so out of line.
    [[gnu::noinline]] void write_across_end(const uint8_t* first, size_t count, size_t room)
    {
        std::memcpy(target_.data() + position_, first, room);
        target_.insert(target_.end(), first + room, first + count);
    }

    std::vector<uint8_t>& target_;
    size_t position_;
};

// Writes into a caller's fixed span, e.g. a vector sized beforehand by the SizeComputer. Writing past its
// end throws std::length_error: it means the size computed beforehand was wrong, a bug, not bad input.
class SpanWriter {
public:
    explicit SpanWriter(std::span<uint8_t> target) noexcept
        : next_(target.data()), end_(target.data() + target.size()), begin_(target.data())
    {
    }

    template <size_t Extent>
    [[gnu::always_inline]] void write(std::span<const std::byte, Extent> bytes)
    {
        if constexpr (Extent == 1) {
            write_byte(bytes[0]);
        } else if (!bytes.empty()) {
            if (bytes.size() > static_cast<size_t>(end_ - next_)) throw_overflow();
            std::memcpy(next_, bytes.data(), bytes.size());
            next_ += bytes.size();
        }
    }
    // OPTIMIZATIONS.md row 1: one-byte write fast path.
    [[gnu::always_inline]] void write_byte(std::byte byte)
    {
        if (next_ == end_) throw_overflow();
        *next_++ = static_cast<uint8_t>(byte);
    }

    size_t position() const noexcept { return static_cast<size_t>(next_ - begin_); }
    size_t remaining() const noexcept { return static_cast<size_t>(end_ - next_); }

    template <typename T>
    SpanWriter& operator<<(const T& object)
    {
        Serialize(*this, object);
        return *this;
    }

private:
    [[noreturn, gnu::cold, gnu::noinline]] static void throw_overflow()
    {
        throw std::length_error("SpanWriter: write past the end of the target span");
    }

    uint8_t* next_;
    uint8_t* end_;
    uint8_t* begin_;
};

}  // namespace serdiff::optimized
