// Hex helpers, IntKind tables and the JSON printer for the model types.
#include <cstdio>
#include <sstream>

#include "model/json.h"
#include "model/model.h"

namespace serdiff::model {

int int_kind_bytes(IntKind kind)
{
    switch (kind) {
    case IntKind::U8: case IntKind::I8: return 1;
    case IntKind::U16: case IntKind::I16: return 2;
    case IntKind::U32: case IntKind::I32: return 4;
    case IntKind::U64: case IntKind::I64: return 8;
    }
    return 0;
}

bool int_kind_signed(IntKind kind)
{
    return kind == IntKind::I8 || kind == IntKind::I16 || kind == IntKind::I32 || kind == IntKind::I64;
}

const char* int_kind_name(IntKind kind)
{
    static const char* const names[] = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"};
    return names[static_cast<int>(kind)];
}

std::string to_hex(const uint8_t* data, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    std::string out(size * 2, '0');
    for (size_t i = 0; i < size; ++i) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    return out;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool from_hex(std::string_view hex, Bytes& out)
{
    if (hex.size() % 2 != 0) return false;
    Bytes result(hex.size() / 2);
    for (size_t i = 0; i < result.size(); ++i) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        result[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    out = std::move(result);
    return true;
}

std::string hash_to_hex(const uint256& hash)
{
    std::array<uint8_t, 32> reversed;
    for (size_t i = 0; i < 32; ++i) reversed[i] = hash.bytes[31 - i];
    return to_hex(reversed.data(), reversed.size());
}

std::string json_quote(std::string_view text)
{
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

namespace {
std::string hex_field(std::span<const uint8_t> bytes) { return "\"" + to_hex(bytes.data(), bytes.size()) + "\""; }

template <typename T>
std::string json_array(const std::vector<T>& items)
{
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ",";
        if constexpr (std::is_same_v<T, Bytes>) {
            out += hex_field(items[i]);
        } else {
            out += to_json(items[i]);
        }
    }
    return out + "]";
}
}  // namespace

std::string to_json(const uint256& value) { return "\"" + hash_to_hex(value) + "\""; }

std::string to_json(const OutPoint& value)
{
    return "{\"hash\":" + to_json(value.hash) + ",\"n\":" + std::to_string(value.n) + "}";
}

std::string to_json(const WitnessStack& value)
{
    std::string out = "[";
    for (const WitnessStack::Item item : value) {
        if (out.size() > 1) out += ",";
        out += "\"" + to_hex(item.data(), item.size()) + "\"";
    }
    return out + "]";
}

std::string to_json(const TxIn& value)
{
    return "{\"prevout\":" + to_json(value.prevout) + ",\"script_sig\":" + hex_field(value.script_sig) +
           ",\"sequence\":" + std::to_string(value.sequence) + ",\"witness\":" + to_json(value.witness) + "}";
}

std::string to_json(const TxOut& value)
{
    return "{\"value\":" + std::to_string(value.value) + ",\"script_pubkey\":" + hex_field(value.script_pubkey) +
           "}";
}

std::string to_json(const Transaction& value)
{
    return "{\"version\":" + std::to_string(value.version) + ",\"inputs\":" + json_array(value.inputs) +
           ",\"outputs\":" + json_array(value.outputs) + ",\"lock_time\":" + std::to_string(value.lock_time) + "}";
}

std::string to_json(const BlockHeader& value)
{
    return "{\"version\":" + std::to_string(value.version) + ",\"prev_block\":" + to_json(value.prev_block) +
           ",\"merkle_root\":" + to_json(value.merkle_root) + ",\"time\":" + std::to_string(value.time) +
           ",\"bits\":" + std::to_string(value.bits) + ",\"nonce\":" + std::to_string(value.nonce) + "}";
}

std::string to_json(const Block& value)
{
    return "{\"header\":" + to_json(value.header) + ",\"transactions\":" + json_array(value.transactions) + "}";
}

std::string to_json(const BlockLocator& value)
{
    return "{\"version\":" + std::to_string(value.version) + ",\"have\":" + json_array(value.have) + "}";
}

std::string to_json(const Coin& value)
{
    return "{\"height\":" + std::to_string(value.height) + ",\"coinbase\":" + (value.coinbase ? "true" : "false") +
           ",\"out\":" + to_json(value.out) + "}";
}

std::string to_json(const TxUndo& value) { return "{\"prevouts\":" + json_array(value.prevouts) + "}"; }

std::string to_json(const BlockUndo& value) { return "{\"txundo\":" + json_array(value.txundo) + "}"; }

}  // namespace serdiff::model
