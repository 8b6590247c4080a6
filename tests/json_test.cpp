// model/json.h's string quoting, byte for byte: the CLI's `inspect` output and mismatch reports carry their error
// texts and peer names through it. The CLI tests parse that output, and a parser reads "\u0061" as "a", so only
// the exact text shows an escape where none belongs.
#include <gtest/gtest.h>

#include <string>

#include "model/json.h"

namespace serdiff::test {
namespace {

using model::json_quote;

TEST(Json, QuoteEscapesQuotesBackslashesAndControlCharactersOnly)
{
    EXPECT_EQ(json_quote(""), "\"\"");
    EXPECT_EQ(json_quote("end of data: 0-9 A-Z ~"), "\"end of data: 0-9 A-Z ~\"");
    EXPECT_EQ(json_quote("a\"b\\c\nd\te"), "\"a\\\"b\\\\c\\nd\\te\"");
    // Every other byte below 0x20 as \u00XX, the NUL included; 0x20 and 0x7f are printed as they are.
    EXPECT_EQ(json_quote(std::string("\x00\x01\x1f\r", 4)), "\"\\u0000\\u0001\\u001f\\u000d\"");
    EXPECT_EQ(json_quote("\x20\x7f"), "\" \x7f\"");
    // Bytes from 0x80 up pass through unchanged (UTF-8 stays UTF-8): char is signed here, and a negative char
    // printed with %04x into the 8-byte buffer would come out as a cut-off \ufffff.
    EXPECT_EQ(json_quote("caf\xc3\xa9 \xff"), "\"caf\xc3\xa9 \xff\"");
}

}  // namespace
}  // namespace serdiff::test
