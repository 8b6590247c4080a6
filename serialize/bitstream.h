// Bit streams, as Bitcoin Core's BitStreamWriter/BitStreamReader (streams.h) and Golomb-Rice coding
// (util/golombrice.h, BIP 158 block filters): bits most significant first, the last partial byte padded with zero
// bits. Optimized: the writer keeps pending bits in a 64-bit word and takes a write of up to 64 bits in two pieces
// instead of a byte at a time; the Golomb-Rice writer emits a quotient below 64 and its terminating zero in one
// write; the reader counts a unary quotient's one bits a byte at a time (std::countl_one).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>

#include "serialize/planted.h"

namespace serdiff::optimized {

template <typename Stream>
class BitStreamWriter {
public:
    explicit BitStreamWriter(Stream& stream) : stream_(stream) {}
    BitStreamWriter(const BitStreamWriter&) = delete;
    BitStreamWriter& operator=(const BitStreamWriter&) = delete;
    ~BitStreamWriter() { Flush(); }

    // Writes the `nbits` low bits of `data`, most significant first; std::out_of_range outside 0..64.
    void Write(uint64_t data, int nbits)
    {
        if (nbits < 0 || nbits > 64) throw std::out_of_range("nbits must be between 0 and 64");
        if (nbits > 32) {  // at most 7 bits are pending: two pieces of at most 32 bits keep them within a word
            Put(data >> (SERDIFF_PLANTED(bit_writer_high_piece_shift) ? 31 : 32), nbits - 32);
            nbits = 32;
        }
        Put(data, nbits);
    }

    // Writes the pending bits as one byte, padded with zero bits; nothing when none are pending.
    void Flush()
    {
        if (count_ == 0) return;
        Emit(static_cast<uint8_t>(pending_ << (8 - count_)));
        pending_ = 0;
        count_ = 0;
    }

private:
    void Put(uint64_t bits, int n)  // n <= 32
    {
        if (n == 0) return;
        pending_ = (pending_ << n) | (bits & ((uint64_t{1} << n) - 1));
        count_ += n;
        while (count_ >= 8) {
            count_ -= 8;
            Emit(static_cast<uint8_t>(pending_ >> count_));
        }
        pending_ &= (uint64_t{1} << count_) - 1;
    }
    void Emit(uint8_t byte) { stream_ << byte; }

    Stream& stream_;
    uint64_t pending_ = 0;  // the low count_ bits are pending, the oldest highest
    int count_ = 0;         // 0..7 between calls
};

template <typename Stream>
class BitStreamReader {
public:
    explicit BitStreamReader(Stream& stream) : stream_(stream) {}

    // Reads `nbits` bits into the low bits of the result; std::out_of_range outside 0..64, the stream's end-of-data
    // error when it runs out.
    uint64_t Read(int nbits)
    {
        if (nbits < 0 || nbits > 64) throw std::out_of_range("nbits must be between 0 and 64");
        uint64_t data = 0;
        while (nbits > 0) {
            if (count_ == 0) Load();
            const int take = std::min(count_, nbits);  // at most 8
            data = (data << take) | ((buffer_ >> (count_ - take)) & ((1u << take) - 1));
            count_ -= take;
            nbits -= take;
        }
        return data;
    }

    // Reads one bits up to and including the first zero bit; returns how many one bits there were.
    uint64_t ReadUnary()
    {
        uint64_t ones = 0;
        while (true) {
            if (count_ == 0) Load();
            // The unread bits at the top of a byte, zeros below them: the leading ones stop inside the unread bits.
            const int run = std::countl_one(static_cast<uint8_t>(buffer_ << (8 - count_)));
            if (run < count_) {
                count_ -= run + 1;
                return ones + static_cast<uint64_t>(run);
            }
            ones += static_cast<uint64_t>(count_);
            count_ = 0;
        }
    }

private:
    void Load()
    {
        uint8_t byte;
        stream_ >> byte;
        buffer_ = byte;
        count_ = 8;
    }

    Stream& stream_;
    unsigned buffer_ = 0;  // the last byte read; its low count_ bits are unread
    int count_ = 0;
};

// Golomb-Rice coding with parameter P (0..63): the quotient x >> P in unary (that many one bits, then a zero bit),
// then the remainder in P bits.
template <typename Stream>
void GolombRiceEncode(BitStreamWriter<Stream>& writer, uint8_t P, uint64_t x)
{
    uint64_t q = x >> P;
    while (q >= 64) {
        writer.Write(~uint64_t{0}, 64);
        q -= 64;
    }
    writer.Write(((uint64_t{1} << q) - 1) << 1, static_cast<int>(q) + 1);  // q ones and the zero, q + 1 <= 64
    writer.Write(x, P);
}

template <typename Stream>
uint64_t GolombRiceDecode(BitStreamReader<Stream>& reader, uint8_t P)
{
    const uint64_t q = reader.ReadUnary();
    const uint64_t r = reader.Read(P);
    return ((q & (~uint64_t{0} >> P)) << P) + r;  // (q << P) + r, the high bits of a long quotient wrapping away
}

}  // namespace serdiff::optimized
