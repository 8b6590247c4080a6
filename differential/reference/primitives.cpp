// The reference primitive streams, written byte at a time from SEMANTICS.md and docs/format.md.
#include "differential/reference/primitives.h"

#include <algorithm>
#include <limits>

namespace serdiff::reference {

namespace {

// Largest value a VarInt may decode to for `kind` (the signed maximum for signed kinds).
uint64_t varint_max(model::IntKind kind)
{
    switch (kind) {
    case model::IntKind::U8: return std::numeric_limits<uint8_t>::max();
    case model::IntKind::U16: return std::numeric_limits<uint16_t>::max();
    case model::IntKind::U32: return std::numeric_limits<uint32_t>::max();
    case model::IntKind::U64: return std::numeric_limits<uint64_t>::max();
    case model::IntKind::I8: return std::numeric_limits<int8_t>::max();
    case model::IntKind::I16: return std::numeric_limits<int16_t>::max();
    case model::IntKind::I32: return std::numeric_limits<int32_t>::max();
    case model::IntKind::I64: return std::numeric_limits<int64_t>::max();
    }
    throw std::invalid_argument("unknown IntKind");
}

void check_uint_width(int width_bytes)
{
    if (width_bytes < 1 || width_bytes > 8) throw std::invalid_argument("unsigned width must be 1..8 bytes");
}

void check_int_width(int width_bytes)
{
    if (width_bytes != 1 && width_bytes != 2 && width_bytes != 4 && width_bytes != 8)
        throw std::invalid_argument("signed width must be 1, 2, 4 or 8 bytes");
}

}  // namespace

// ---- Writer ----

void Writer::write_byte(uint8_t value) { out.push_back(value); }

void Writer::write_uint(uint64_t value, int width_bytes, bool big_endian)
{
    check_uint_width(width_bytes);
    if (width_bytes < 8 && (value >> (8 * width_bytes)) != 0)
        throw std::invalid_argument("value does not fit the unsigned width");
    for (int index = 0; index < width_bytes; ++index) {
        const int shift = big_endian ? 8 * (width_bytes - 1 - index) : 8 * index;
        write_byte(static_cast<uint8_t>(value >> shift));
    }
}

void Writer::write_int(int64_t value, int width_bytes)
{
    check_int_width(width_bytes);
    if (width_bytes < 8) {
        const int64_t limit = int64_t{1} << (8 * width_bytes - 1);
        if (value < -limit || value >= limit) throw std::invalid_argument("value does not fit the signed width");
    }
    // Two's complement: the low bytes of the value converted to unsigned.
    const uint64_t bits = static_cast<uint64_t>(value);
    for (int index = 0; index < width_bytes; ++index) write_byte(static_cast<uint8_t>(bits >> (8 * index)));
}

void Writer::write_bool(bool value) { write_byte(value ? 1 : 0); }

void Writer::write_compactsize(uint64_t value)
{
    if (value < 0xfd) {
        write_byte(static_cast<uint8_t>(value));
    } else if (value <= 0xffff) {
        write_byte(0xfd);
        write_uint(value, 2);
    } else if (value <= 0xffffffff) {
        write_byte(0xfe);
        write_uint(value, 4);
    } else {
        write_byte(0xff);
        write_uint(value, 8);
    }
}

void Writer::write_varint(uint64_t value, model::IntKind kind)
{
    if (value > varint_max(kind)) throw std::invalid_argument("value not representable in the VarInt kind");
    // Groups are produced least significant first, then emitted in reverse.
    uint8_t groups[10];
    int last = 0;
    uint64_t rest = value;
    groups[0] = static_cast<uint8_t>(rest & 0x7f);
    while (rest > 0x7f) {
        rest = (rest >> 7) - 1;  // each continuation group is stored minus one
        ++last;
        groups[last] = static_cast<uint8_t>((rest & 0x7f) | 0x80);
    }
    for (int index = last; index >= 0; --index) write_byte(groups[index]);
}

void Writer::write_bytes(std::span<const uint8_t> bytes)
{
    for (uint8_t byte : bytes) write_byte(byte);
}

void Writer::write_uint256(const model::uint256& hash) { write_bytes(hash.bytes); }

void Writer::write_byte_vector(std::span<const uint8_t> bytes)
{
    write_compactsize(bytes.size());
    write_bytes(bytes);
}

void Writer::write_string(std::string_view text)
{
    write_compactsize(text.size());
    for (char character : text) write_byte(static_cast<uint8_t>(character));
}

// ---- Reader ----

bool Reader::require(size_t count)
{
    if (failed()) return false;
    if (count > remaining()) {
        fail(model::errors::kEndOfData);
        return false;
    }
    return true;
}

uint8_t Reader::read_byte() { return require(1) ? take() : 0; }

uint64_t Reader::read_uint(int width_bytes, bool big_endian)
{
    check_uint_width(width_bytes);
    if (!require(static_cast<size_t>(width_bytes))) return 0;
    uint64_t value = 0;
    for (int index = 0; index < width_bytes; ++index) {
        const uint64_t byte = take();
        const int shift = big_endian ? 8 * (width_bytes - 1 - index) : 8 * index;
        value |= byte << shift;
    }
    return value;
}

int64_t Reader::read_int(int width_bytes)
{
    check_int_width(width_bytes);
    const uint64_t bits = read_uint(width_bytes);
    if (width_bytes == 8) return static_cast<int64_t>(bits);
    const uint64_t sign_bit = uint64_t{1} << (8 * width_bytes - 1);
    if ((bits & sign_bit) == 0) return static_cast<int64_t>(bits);
    // Negative: subtract 2^(8*width) without leaving the int64 range.
    return static_cast<int64_t>(bits - sign_bit) - static_cast<int64_t>(sign_bit);
}

bool Reader::read_bool() { return read_byte() != 0; }

uint64_t Reader::read_compactsize(bool range_check)
{
    if (!require(1)) return 0;
    const uint8_t prefix = take();
    uint64_t value = prefix;
    if (prefix >= 0xfd) {
        // 0xfd, 0xfe, 0xff: a 2-, 4- or 8-byte value follows, which must not fit the shorter forms.
        const int width = prefix == 0xfd ? 2 : prefix == 0xfe ? 4 : 8;
        const uint64_t smallest = prefix == 0xfd ? 0xfd : prefix == 0xfe ? 0x10000 : 0x100000000;
        value = read_uint(width);
        if (failed()) return 0;
        if (value < smallest) {
            fail(model::errors::kNonCanonical);
            return 0;
        }
    }
    if (range_check && value > model::kMaxSize) {
        fail(model::errors::kSizeTooLarge);
        return 0;
    }
    return value;
}

uint64_t Reader::read_varint(model::IntKind kind)
{
    const uint64_t max = varint_max(kind);
    uint64_t value = 0;
    while (require(1)) {
        const uint8_t byte = take();
        if (value > (max >> 7)) break;  // the shift would overflow
        value = (value << 7) | (byte & 0x7f);
        if ((byte & 0x80) == 0) return value;
        if (value == max) break;  // the +1 would overflow
        value += 1;
    }
    fail(model::errors::kSizeTooLarge);  // no effect after require's "end of data"
    return 0;
}

Bytes Reader::read_bytes(size_t count)
{
    Bytes bytes;
    if (!require(count)) return bytes;
    bytes.resize(count);  // sized once, then filled a byte at a time (no per-byte capacity check)
    for (size_t index = 0; index < count; ++index) bytes[index] = take();
    return bytes;
}

void Reader::skip(size_t count)
{
    if (require(count)) position_ += count;
}

model::uint256 Reader::read_uint256()
{
    model::uint256 hash;
    if (!require(32)) return hash;
    for (uint8_t& byte : hash.bytes) byte = take();
    return hash;
}

void Reader::read_chunked(uint64_t length, Bytes& out)
{
    uint64_t done = 0;
    while (done < length) {
        const size_t chunk = static_cast<size_t>(std::min<uint64_t>(length - done, model::kMaxVectorAllocate));
        if (!require(chunk)) return;  // checked before growing, so a false length never allocates
        const size_t start = out.size();
        out.reserve(start + chunk);  // exactly this much: resize alone may double a vector that holds data
        out.resize(start + chunk);
        for (size_t index = 0; index < chunk; ++index) out[start + index] = take();
        done += chunk;
    }
}

Bytes Reader::read_byte_vector()
{
    const uint64_t length = read_compactsize(true);
    Bytes bytes;
    read_chunked(length, bytes);
    return bytes;
}

std::string Reader::read_string()
{
    const Bytes bytes = read_byte_vector();
    return std::string(bytes.begin(), bytes.end());
}

std::string Reader::read_limited_string(size_t limit)
{
    const uint64_t length = read_compactsize(true);
    if (length > limit) {
        fail(model::errors::kStringLimit);
        return {};
    }
    Bytes bytes;
    read_chunked(length, bytes);
    return std::string(bytes.begin(), bytes.end());
}

}  // namespace serdiff::reference
