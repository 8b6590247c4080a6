// Optimized file obfuscation: XOR with an 8-byte key at absolute file positions, 8 bytes per step.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "serialize/planted.h"

namespace serdiff::optimized {

// The 8-byte key of a block directory (bitcoind's xor.dat); all zero means no obfuscation.
using ObfuscationKey = std::array<std::byte, 8>;

inline bool is_zero_key(const ObfuscationKey& key)
{
    uint64_t word;
    std::memcpy(&word, key.data(), sizeof word);
    return word == 0;
}

// XORs `data`, which sits at absolute position `file_offset` of its file, with key[position % 8].
// OPTIMIZATIONS.md row 12 (batched XOR): the key is rotated once to the start offset and applied a
// 64-bit word at a time through memcpy (any alignment, no endianness assumption), then the tail.
inline void obfuscate(std::span<std::byte> data, uint64_t file_offset, const ObfuscationKey& key)
{
    if (data.empty() || is_zero_key(key)) return;
    std::array<std::byte, 8> rotated;
    const size_t shift = file_offset % 8;
    for (size_t i = 0; i < 8; ++i) rotated[i] = key[(shift + i) % 8];
    uint64_t key_word;
    std::memcpy(&key_word, rotated.data(), sizeof key_word);

    std::byte* cursor = data.data();
    size_t remaining = data.size();
    // Four words per iteration lets the compiler keep them in one SIMD register where it can.
    while (remaining >= 32) {
        uint64_t words[4];
        std::memcpy(words, cursor, sizeof words);
        words[0] ^= key_word;
        words[1] ^= key_word;
        words[2] ^= key_word;
        words[3] ^= key_word;
        std::memcpy(cursor, words, sizeof words);
        cursor += 32;
        remaining -= 32;
    }
    while (remaining >= 8) {
        uint64_t word;
        std::memcpy(&word, cursor, sizeof word);
        word ^= key_word;
        std::memcpy(cursor, &word, sizeof word);
        cursor += 8;
        remaining -= 8;
    }
    // Every 8-byte step keeps the key phase, so the tail starts at rotated[0].
    for (size_t i = 0; i < remaining; ++i) cursor[i] ^= SERDIFF_PLANTED(xor_tail_key_phase) ? key[i] : rotated[i];
}

}  // namespace serdiff::optimized
