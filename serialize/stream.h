// The stream contract every optimized stream meets, and the error the optimized side throws.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

namespace serdiff::optimized {

// Thrown for malformed input; what() is exactly one of model::errors (see docs/format.md).
struct SerializeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A writer takes spans, plus a one-byte fast path (OPTIMIZATIONS.md row 1).
template <typename S>
concept WriteStream = requires(S& s, std::span<const std::byte> bytes, std::byte one) {
    s.write(bytes);
    s.write_byte(one);
};

// A reader fills spans (throwing SerializeError("end of data") when short), with a one-byte fast
// path (row 5), and can skip bytes.
template <typename S>
concept ReadStream = requires(S& s, std::span<std::byte> bytes, size_t n) {
    s.read(bytes);
    { s.read_byte() } -> std::same_as<std::byte>;
    s.ignore(n);
};

}  // namespace serdiff::optimized
