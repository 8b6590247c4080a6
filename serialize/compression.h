// Undo-data compression of the optimized serializer: amounts (CompressAmount) and scripts (six special
// forms), as formatters, plus the Coin undo formatter built from them (docs/format.md "Undo data").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "crypto/crypto.h"
#include "model/model.h"
#include "serialize/serialize.h"

namespace serdiff::optimized {

// Strips up to nine trailing decimal zeros and folds the last digit (all arithmetic wraps on u64).
constexpr uint64_t CompressAmount(uint64_t amount) noexcept
{
    if (amount == 0) return 0;
    int exponent = 0;
    while ((amount % 10) == 0 && exponent < 9) {
        amount /= 10;
        ++exponent;
    }
    if (exponent < 9) {
        const uint64_t last_digit = amount % 10;
        amount /= 10;
        return 1 + (amount * 9 + last_digit - 1) * 10 + exponent;
    }
    return 1 + (amount - 1) * 10 + 9;
}

constexpr uint64_t DecompressAmount(uint64_t compressed) noexcept
{
    if (compressed == 0) return 0;
    compressed -= 1;
    int exponent = static_cast<int>(compressed % 10);
    compressed /= 10;
    uint64_t amount;
    if (exponent < 9) {
        const uint64_t last_digit = compressed % 9 + 1;
        compressed /= 9;
        amount = compressed * 10 + last_digit;
    } else {
        amount = compressed + 1;
    }
    while (exponent > 0) {
        amount *= 10;
        --exponent;
    }
    return amount;
}

// Script opcodes the special forms are made of.
inline constexpr uint8_t kOpDup = 0x76;
inline constexpr uint8_t kOpHash160 = 0xa9;
inline constexpr uint8_t kOpEqualVerify = 0x88;
inline constexpr uint8_t kOpCheckSig = 0xac;
inline constexpr uint8_t kOpEqual = 0x87;
inline constexpr uint8_t kOpReturn = 0x6a;
inline constexpr unsigned kSpecialScriptForms = 6;

// Payload bytes after the tag of special form `tag` (< 6).
constexpr size_t special_script_payload_size(unsigned tag) noexcept { return tag < 2 ? 20 : 32; }

// A special form: tag byte then payload, at most 33 bytes.
struct CompressedScript {
    std::array<uint8_t, 33> bytes{};
    size_t size = 0;
};

// Fills `out` when `script` has one of the six special forms; false otherwise.
inline bool CompressScript(std::span<const uint8_t> script, CompressedScript& out)
{
    const size_t size = script.size();
    if (size == 25 && script[0] == kOpDup && script[1] == kOpHash160 && script[2] == 20 &&
        script[23] == kOpEqualVerify && script[24] == kOpCheckSig) {
        out.bytes[0] = 0x00;
        std::memcpy(&out.bytes[1], &script[3], 20);
        out.size = 21;
        return true;
    }
    if (size == 23 && script[0] == kOpHash160 && script[1] == 20 && script[22] == kOpEqual) {
        out.bytes[0] = 0x01;
        std::memcpy(&out.bytes[1], &script[2], 20);
        out.size = 21;
        return true;
    }
    if (size == 35 && script[0] == 33 && script[34] == kOpCheckSig && (script[1] == 0x02 || script[1] == 0x03)) {
        std::memcpy(&out.bytes[0], &script[1], 33);
        out.size = 33;
        return true;
    }
    if (size == 67 && script[0] == 65 && script[66] == kOpCheckSig && script[1] == 0x04 &&
        crypto::pubkey_is_fully_valid(script.subspan(1, 65))) {
        out.bytes[0] = static_cast<uint8_t>(0x04 | (script[65] & 0x01));
        std::memcpy(&out.bytes[1], &script[2], 32);
        out.size = 33;
        return true;
    }
    return false;
}

// Rebuilds the script of special form `tag` from its payload. A tag-4/5 x that is not on the curve
// leaves `script` empty, as Core ignores that failure.
inline void DecompressScript(unsigned tag, std::span<const uint8_t> payload, model::Script& script)
{
    script.clear();
    switch (tag) {
    case 0:
        script.resize(SERDIFF_PLANTED(p2pkh_script_one_short) ? 24 : 25);
        script[0] = kOpDup;
        script[1] = kOpHash160;
        script[2] = 20;
        std::memcpy(&script[3], payload.data(), 20);
        script[23] = kOpEqualVerify;
        script[24] = kOpCheckSig;
        return;
    case 1:
        script.resize(23);
        script[0] = kOpHash160;
        script[1] = 20;
        std::memcpy(&script[2], payload.data(), 20);
        script[22] = kOpEqual;
        return;
    case 2:
    case 3:
        script.resize(35);
        script[0] = 33;
        script[1] = static_cast<uint8_t>(tag);
        std::memcpy(&script[2], payload.data(), 32);
        script[34] = kOpCheckSig;
        return;
    default: {  // 4 and 5: uncompressed key stored as its compressed form
        std::array<uint8_t, 33> compressed;
        compressed[0] = static_cast<uint8_t>(tag - 2);
        std::memcpy(&compressed[1], payload.data(), 32);
        std::array<uint8_t, 65> uncompressed;
        if (!crypto::decompress_pubkey(compressed, uncompressed)) return;
        script.resize(67);
        script[0] = 65;
        std::memcpy(&script[1], uncompressed.data(), 65);
        script[66] = kOpCheckSig;
        return;
    }
    }
}

// Amount as VarInt(CompressAmount(uint64(amount))).
struct AmountCompressionFormatter {
    template <WriteStream S>
    static void Ser(S& s, int64_t amount)
    {
        WriteVarInt<VarIntMode::Unsigned, uint64_t>(s, CompressAmount(static_cast<uint64_t>(amount)));
    }
    template <ReadStream S>
    static void Unser(S& s, int64_t& amount)
    {
        amount = static_cast<int64_t>(DecompressAmount(ReadVarInt<VarIntMode::Unsigned, uint64_t>(s)));
    }
};

// Script as a special form (tag + payload) or VarInt(size + 6) then the bytes.
struct ScriptCompressionFormatter {
    template <WriteStream S>
    static void Ser(S& s, const model::Script& script)
    {
        CompressedScript compressed;
        if (CompressScript(script, compressed)) {
            s.write(std::as_bytes(std::span<const uint8_t>(compressed.bytes.data(), compressed.size)));
            return;
        }
        WriteVarInt<VarIntMode::Unsigned, uint32_t>(s, static_cast<uint32_t>(script.size() + kSpecialScriptForms));
        if (!script.empty()) s.write(std::as_bytes(std::span<const uint8_t>(script)));
    }
    template <ReadStream S>
    static void Unser(S& s, model::Script& script)
    {
        const uint32_t code = ReadVarInt<VarIntMode::Unsigned, uint32_t>(s);
        if (code < kSpecialScriptForms) {
            std::array<uint8_t, 32> payload;
            const size_t payload_size = special_script_payload_size(code);
            s.read(std::as_writable_bytes(std::span<uint8_t>(payload.data(), payload_size)));
            DecompressScript(code, std::span<const uint8_t>(payload.data(), payload_size), script);
            return;
        }
        const size_t size = code - kSpecialScriptForms;
        if (size > model::kMaxScriptSize) {
            // Overly long scripts are skipped and replaced by a short unspendable one.
            s.ignore(size);
            script.assign(1, kOpReturn);
            return;
        }
        script.resize(size);
        if (size != 0) s.read(std::as_writable_bytes(std::span<uint8_t>(script)));
    }
};

// One spent output in undo data: VarInt(height * 2 + coinbase), a legacy VarInt when height > 0 (written
// as 0, read and ignored), then the compressed amount and script.
struct CoinUndoFormatter {
    template <WriteStream S>
    static void Ser(S& s, const model::Coin& coin)
    {
        const uint32_t code = SERDIFF_PLANTED(undo_height_code_signed) ? planted::signed_height_code(coin.height, coin.coinbase) : coin.height * uint32_t{2} + (coin.coinbase ? 1u : 0u);
        WriteVarInt<VarIntMode::Unsigned, uint32_t>(s, code);
        if (coin.height > 0) s.write_byte(std::byte{0});  // OPTIMIZATIONS.md row 1: VarInt(0) is one byte
        AmountCompressionFormatter::Ser(s, coin.out.value);
        ScriptCompressionFormatter::Ser(s, coin.out.script_pubkey);
    }
    template <ReadStream S>
    static void Unser(S& s, model::Coin& coin)
    {
        const uint32_t code = ReadVarInt<VarIntMode::Unsigned, uint32_t>(s);
        coin.height = code >> 1;
        coin.coinbase = (code & 1) != 0;
        if (coin.height > 0) ReadVarInt<VarIntMode::Unsigned, uint32_t>(s);
        AmountCompressionFormatter::Unser(s, coin.out.value);
        ScriptCompressionFormatter::Unser(s, coin.out.script_pubkey);
    }
};

}  // namespace serdiff::optimized
