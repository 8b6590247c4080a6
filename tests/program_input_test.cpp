// The program grammar's payloads (differential/program_input.h): the bytes a file or stream program stores.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "differential/program_input.h"

namespace {

using serdiff::differential::ProgramInput;

// A payload is the salt byte, up to 32 bytes of the input, then out[i] = salt + i·151 + ⌊i/256⌋ (mod 256):
// the table-and-memcpy fill must give exactly that, across block edges and at sizes that end mid-block.
TEST(ProgramInput, PayloadIsThePrefixThenTheSaltedPattern)
{
    for (const size_t size : {0u, 1u, 31u, 32u, 33u, 255u, 256u, 257u, 300u, 511u, 4096u, 65537u, 70000u}) {
        for (const uint8_t salt : {0, 1, 0x5a, 0xff}) {
            std::vector<uint8_t> data{salt};
            for (uint8_t i = 0; i < 40; ++i) data.push_back(static_cast<uint8_t>(0xa0 + i));
            ProgramInput in(data);
            const serdiff::model::Bytes payload = in.payload(size);
            ASSERT_EQ(payload.size(), size);
            for (size_t i = 0; i < size; ++i) {
                const uint8_t expected =
                    i < 32 ? static_cast<uint8_t>(0xa0 + i) : static_cast<uint8_t>(salt + i * 151 + (i >> 8));
                ASSERT_EQ(payload[i], expected) << "size " << size << ", salt " << int(salt) << ", byte " << i;
            }
        }
    }
}

// The prefix takes only what the input has; past its end the input reads zeros (FuzzInput never fails).
TEST(ProgramInput, PayloadPrefixPastTheInputIsZeros)
{
    const std::vector<uint8_t> data{7, 1, 2, 3};
    ProgramInput in(data);
    const serdiff::model::Bytes payload = in.payload(40);
    ASSERT_EQ(payload.size(), 40u);
    EXPECT_EQ(payload[0], 1);
    EXPECT_EQ(payload[2], 3);
    for (size_t i = 3; i < 32; ++i) EXPECT_EQ(payload[i], 0) << i;
    for (size_t i = 32; i < 40; ++i) EXPECT_EQ(payload[i], static_cast<uint8_t>(7 + i * 151)) << i;
}

}  // namespace
