#include "differential/reference/bits.h"

#include <vector>

namespace serdiff::reference {
namespace {

bool bit_count_ok(int nbits) { return nbits >= 0 && nbits <= 64; }

void append_bits(std::vector<bool>& bits, uint64_t value, int nbits)
{
    for (int i = nbits - 1; i >= 0; --i) bits.push_back(((value >> i) & 1) != 0);
}

void pad_to_byte(std::vector<bool>& bits)
{
    while (bits.size() % 8 != 0) bits.push_back(false);
}

}  // namespace

model::BitWriteResult bit_write(std::span<const model::BitOp> ops)
{
    model::BitWriteResult result;
    std::vector<bool> bits;
    for (size_t i = 0; i < ops.size(); ++i) {
        const model::BitOp& op = ops[i];
        if (op.kind == model::BitOp::Kind::kBits) {
            if (!bit_count_ok(op.nbits)) {
                result.refused_at = i;
                break;
            }
            append_bits(bits, op.value, op.nbits);
        } else if (op.kind == model::BitOp::Kind::kGolombRice) {
            // Quotient in unary (that many one bits, then a zero bit), then the remainder in rice_parameter bits.
            const uint64_t quotient = op.value >> op.rice_parameter;
            for (uint64_t q = 0; q < quotient; ++q) bits.push_back(true);
            bits.push_back(false);
            append_bits(bits, op.value, op.rice_parameter);
        } else {
            pad_to_byte(bits);
        }
    }
    pad_to_byte(bits);
    for (size_t at = 0; at < bits.size(); at += 8) {
        uint8_t byte = 0;
        for (size_t bit = 0; bit < 8; ++bit) byte = static_cast<uint8_t>((byte << 1) | (bits[at + bit] ? 1 : 0));
        result.bytes.push_back(byte);
    }
    return result;
}

model::BitReadResult bit_read(std::span<const uint8_t> bytes, std::span<const model::BitOp> ops)
{
    model::BitReadResult result;
    const uint64_t total = uint64_t{bytes.size()} * 8;
    uint64_t position = 0;  // the next bit
    auto bit_at = [&](uint64_t at) { return ((bytes[at / 8] >> (7 - at % 8)) & 1) != 0; };
    auto read_bits = [&](int nbits, uint64_t& value) {
        if (position + static_cast<uint64_t>(nbits) > total) return false;
        value = 0;
        for (int i = 0; i < nbits; ++i) value = (value << 1) | (bit_at(position++) ? 1 : 0);
        return true;
    };
    for (size_t i = 0; i < ops.size(); ++i) {
        const model::BitOp& op = ops[i];
        if (op.kind == model::BitOp::Kind::kBits) {
            if (!bit_count_ok(op.nbits)) {
                result.stopped_at = i;
                result.out_of_range = true;
                return result;
            }
            uint64_t value = 0;
            if (!read_bits(op.nbits, value)) {
                result.stopped_at = i;
                return result;
            }
            result.values.push_back(value);
        } else if (op.kind == model::BitOp::Kind::kGolombRice) {
            uint64_t quotient = 0;
            while (true) {
                if (position >= total) {
                    result.stopped_at = i;
                    return result;
                }
                if (!bit_at(position++)) break;
                ++quotient;
            }
            uint64_t remainder = 0;
            if (!read_bits(op.rice_parameter, remainder)) {
                result.stopped_at = i;
                return result;
            }
            // The quotient's high bits shifted out wrap, as in Core's unsigned (q << P) + r.
            const uint64_t kept = quotient & (~uint64_t{0} >> op.rice_parameter);  // the bits that survive the shift
            result.values.push_back((kept << op.rice_parameter) + remainder);
        } else {
            position = (position + 7) / 8 * 8;  // a new reader starts at the stream's next byte
        }
    }
    return result;
}

}  // namespace serdiff::reference
