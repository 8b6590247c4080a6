// FuzzInput: turns fuzz bytes into integers, choices and byte strings, front to back, never failing.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "model/model.h"

namespace serdiff::differential {

// Every consume call succeeds: once the input is exhausted it yields zeros and empty strings, so a
// target never needs a length check and a short input simply means "the smallest values".
class FuzzInput {
public:
    explicit FuzzInput(std::span<const uint8_t> data) : data_(data) {}

    size_t remaining() const { return data_.size() - position_; }
    bool exhausted() const { return remaining() == 0; }

    uint8_t byte() { return exhausted() ? 0 : data_[position_++]; }
    bool boolean() { return (byte() & 1) != 0; }

    // Little-endian from the next sizeof(T) bytes (zero-padded when short).
    template <std::integral T>
    T integral()
    {
        using Unsigned = std::make_unsigned_t<T>;
        Unsigned value = 0;
        for (size_t i = 0; i < sizeof(T); ++i) value = static_cast<Unsigned>(value | Unsigned{byte()} << (8 * i));
        return static_cast<T>(value);
    }

    // A value in [min, max], reading only as many bytes as the width of the range needs.
    template <std::integral T>
    T in_range(T min, T max)
    {
        using Unsigned = std::make_unsigned_t<T>;
        const uint64_t span_width = static_cast<uint64_t>(static_cast<Unsigned>(max) - static_cast<Unsigned>(min));
        uint64_t draw = 0;
        for (uint64_t covered = 0; covered < span_width && !exhausted(); covered = covered << 8 | 0xff)
            draw = draw << 8 | byte();
        const uint64_t offset = span_width == std::numeric_limits<uint64_t>::max() ? draw : draw % (span_width + 1);
        return static_cast<T>(static_cast<Unsigned>(min) + static_cast<Unsigned>(offset));
    }

    // One element of a fixed list of options.
    template <typename T, size_t N>
    const T& pick(const T (&options)[N])
    {
        return options[in_range<size_t>(0, N - 1)];
    }

    // Exactly `size` bytes: taken from the input, zero-padded when it runs out.
    model::Bytes bytes(size_t size)
    {
        model::Bytes out(size, 0);
        const size_t available = std::min(size, remaining());
        std::copy_n(data_.begin() + static_cast<std::ptrdiff_t>(position_), available, out.begin());
        position_ += available;
        return out;
    }

    // Everything not consumed yet.
    std::span<const uint8_t> rest()
    {
        auto out = data_.subspan(position_);
        position_ = data_.size();
        return out;
    }

private:
    std::span<const uint8_t> data_;
    size_t position_ = 0;
};

}  // namespace serdiff::differential
