// Thin wrappers over well-kept libraries (OpenSSL libcrypto, libsecp256k1) for hashing and key
// decompression; shared by both implementations because they are not serialization code.
#pragma once

#include <cstdint>
#include <span>

#include "model/model.h"

namespace serdiff::crypto {

// Double SHA-256 (Bitcoin's hash for block hashes and undo checksums), in serialization byte order.
model::uint256 sha256d(std::span<const uint8_t> data);
// Double SHA-256 of a || b without concatenating them first.
model::uint256 sha256d(std::span<const uint8_t> a, std::span<const uint8_t> b);

// True when `key` (65 bytes, 0x04 prefix) is a point on secp256k1 (Bitcoin Core's IsFullyValid).
bool pubkey_is_fully_valid(std::span<const uint8_t> key);
// Restores the 65-byte uncompressed key from a 33-byte compressed one; false when x is not on the curve.
bool decompress_pubkey(std::span<const uint8_t, 33> compressed, std::span<uint8_t, 65> uncompressed);

}  // namespace serdiff::crypto
