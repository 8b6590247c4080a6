// Feeds compare_bytes two encodings that differ at offset 5 so a test can check the report and the abort.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "differential/compare.h"

int main()
{
    const std::vector<uint8_t> input{0xde, 0xad, 0xbe, 0xef};
    const std::vector<uint8_t> optimized{1, 2, 3, 4, 5, 6, 7};
    const std::vector<uint8_t> reference{1, 2, 3, 4, 5, 0x66, 7, 8};
    serdiff::differential::compare_bytes("demo encode", optimized, optimized, input);  // equal: no report
    serdiff::differential::compare_bytes("demo encode", optimized, reference, input);
    std::puts("compare_bytes returned on differing bytes");
    return 0;
}
