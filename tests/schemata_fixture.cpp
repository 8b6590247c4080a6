// ctest mutate_schemata's program (tests/schemata_test.py): a little of every construct the mutants of
// serialization code touch. Each mutant of this file is compiled as written and run, and run again in the one
// schemata build with SERDIFF_MUTANT chosen; the two must print the same and exit the same.
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

constexpr uint64_t MAX_SIZE = 0x02000000;

constexpr unsigned SizeOfCompact(uint64_t n)
{
    if (n < 253) return 1;
    else if (n <= 0xFFFF) return 3;
    else if (n <= 0xFFFFFFFF) return 5;
    return 9;
}

static_assert(SizeOfCompact(300) == 3);

struct Writer {
    std::vector<unsigned char> bytes;
    int flushes{0};
    void Put(unsigned char c) { bytes.push_back(c); }
    void PutN(uint64_t v, int n)
    {
        for (int i = 0; i < n; ++i) {
            Put(static_cast<unsigned char>(v >> (8 * i)));
        }
    }
};

template <typename W>
void WriteCompact(W& w, uint64_t n)
{
    if (n < 253) {
        w.Put(static_cast<unsigned char>(n));
    } else if (n <= 0xFFFF) {
        w.Put(253);
        w.PutN(n, 2);
    } else if (n <= 0xFFFFFFFF) {
        w.Put(254);
        w.PutN(n, 4);
    } else {
        w.Put(255);
        w.PutN(n, 8);
    }
}

uint64_t ReadCompact(const std::vector<unsigned char>& b, size_t& pos, bool range_check)
{
    if (pos >= b.size()) throw std::runtime_error("end of data");
    const unsigned char first = b[pos++];
    uint64_t value = 0;
    int width = 0;
    switch (first) {
    case 253: width = 2; break;
    case 254: width = 4; break;
    case 255: width = 8; break;
    default: return first;
    }
    if (pos + width > b.size()) throw std::runtime_error("end of data");
    for (int i = 0; i < width; ++i) {
        value |= uint64_t{b[pos + i]} << (8 * i);
    }
    pos += width;
    if (value < 253 || (width == 4 && value <= 0xFFFF) || (width == 8 && value <= 0xFFFFFFFF)) {
        throw std::runtime_error("non-canonical");
    }
    if (range_check && value > MAX_SIZE) throw std::runtime_error("too large");
    return value;
}

unsigned VarIntLength(uint64_t n)
{
    unsigned length = 0;
    while (true) {
        ++length;
        if (n <= 0x7F) break;
        n = (n >> 7) - 1;
    }
    return length;
}

int main()
{
    const uint64_t values[] = {0, 1, 252, 253, 254, 0xFFFF, 0x10000, 0xFFFFFFFF, 0x100000000ULL, 0x02000001};
    std::string out;
    for (uint64_t v : values) {
        Writer w;
        WriteCompact(w, v);
        size_t pos = 0;
        try {
            const uint64_t back = ReadCompact(w.bytes, pos, true);
            out += std::to_string(back) + ":" + std::to_string(pos);
        } catch (const std::exception& e) {
            out += e.what();
        }
        out += "/" + std::to_string(w.bytes.size()) + "/" + std::to_string(SizeOfCompact(v)) + "/" +
               std::to_string(VarIntLength(v)) + " ";
    }
    std::printf("%s\n", out.c_str());
    return out.size() % 7;
}
