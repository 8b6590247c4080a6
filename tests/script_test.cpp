// model::Script: bytes inline up to kInlineBytes, one heap block beyond. Each operation is checked against
// std::vector<uint8_t> on both sides of the inline limit, including the cases a small buffer gets wrong:
// moves of inline and heap scripts, shrinking on the heap, and assigning a script its own bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <utility>
#include <vector>

#include "model/model.h"

#ifdef SERDIFF_MODEL_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace serdiff::test {
namespace {

using model::Bytes;
using model::Script;

Bytes pattern(size_t size, uint8_t salt)
{
    Bytes out(size);
    for (size_t i = 0; i < size; ++i) out[i] = static_cast<uint8_t>(salt + 7 * i);
    return out;
}

Bytes as_bytes(const Script& script) { return Bytes(script.begin(), script.end()); }

constexpr size_t kLimit = Script::kInlineBytes;
const size_t kSizes[] = {0, 1, kLimit - 1, kLimit, kLimit + 1, 2 * kLimit + 3, 10'000};

TEST(Script, HoldsTheBytesItWasGivenOnBothSidesOfTheInlineLimit)
{
    for (size_t size : kSizes) {
        const Bytes bytes = pattern(size, 3);
        const Script script(bytes);
        EXPECT_EQ(script.size(), size);
        EXPECT_EQ(script.empty(), size == 0);
        EXPECT_EQ(as_bytes(script), bytes) << size;
        EXPECT_GE(script.capacity(), size);
        EXPECT_EQ(script.capacity() == kLimit, size <= kLimit) << "inline exactly up to the limit, size " << size;
        EXPECT_EQ(script, Script(bytes));
        if (size > 0) {
            EXPECT_NE(script, Script(pattern(size, 4)));
        }
        EXPECT_NE(script, Script(pattern(size + 1, 3)));
    }
}

TEST(Script, CopiesAndMovesKeepTheBytesAndLeaveTheSourceEmpty)
{
    for (size_t size : kSizes) {
        const Bytes bytes = pattern(size, 9);
        Script original(bytes);
        Script copy = original;
        EXPECT_EQ(as_bytes(copy), bytes);
        EXPECT_EQ(as_bytes(original), bytes);
        Script moved = std::move(original);
        EXPECT_EQ(as_bytes(moved), bytes) << size;
        EXPECT_TRUE(original.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
        Script target(pattern(kLimit + 5, 1));  // on the heap before: its block must be freed, not leaked
        target = std::move(moved);
        EXPECT_EQ(as_bytes(target), bytes);
        Script assigned(pattern(3, 2));
        assigned = copy;
        EXPECT_EQ(as_bytes(assigned), bytes);
        const Script& same = assigned;
        assigned = same;  // self-assignment keeps the bytes
        EXPECT_EQ(as_bytes(assigned), bytes);
    }
}

TEST(Script, ResizeZeroFillsGrowthAndKeepsThePrefixLikeAVector)
{
    for (size_t from : kSizes) {
        for (size_t to : kSizes) {
            Script script(pattern(from, 5));
            Bytes expected = pattern(from, 5);
            script.resize(to);
            expected.resize(to);
            EXPECT_EQ(as_bytes(script), expected) << from << " -> " << to;
        }
    }
}

TEST(Script, PushBackAssignAndClearBehaveLikeAVector)
{
    Script script;
    Bytes expected;
    for (size_t i = 0; i < 3 * kLimit; ++i) {
        script.push_back(static_cast<uint8_t>(i));
        expected.push_back(static_cast<uint8_t>(i));
        ASSERT_EQ(as_bytes(script), expected) << i;
    }
    script.assign(7, 0x6a);
    EXPECT_EQ(as_bytes(script), Bytes(7, 0x6a));
    script.clear();
    EXPECT_TRUE(script.empty());
    EXPECT_EQ(Script({0x51, 0x52}), Script(Bytes{0x51, 0x52}));
}

TEST(Script, AssigningItsOwnBytesKeepsThemWhenTheScriptMustGrow)
{
    for (size_t size : {size_t{5}, kLimit, kLimit + 9}) {
        Script script(pattern(size, 11));
        const Bytes before = as_bytes(script);
        script.assign(std::span<const uint8_t>(script.data(), script.size()));
        EXPECT_EQ(as_bytes(script), before);
        script.reserve(4 * kLimit);  // the bytes move to a bigger block
        EXPECT_EQ(as_bytes(script), before);
        script.assign(std::span<const uint8_t>(script.data() + 1, script.size() - 1));  // a suffix of itself
        EXPECT_EQ(as_bytes(script), Bytes(before.begin() + 1, before.end()));
    }
}

#ifdef SERDIFF_MODEL_ASAN
// Under AddressSanitizer the bytes past size() are poisoned (inline and on the heap), so an overflow inside the
// buffer's capacity is reported; without it a small buffer would hide the planted defect p2pkh_script_one_short.
// Reports the first byte whose poisoning is wrong (one failure per step, not one per byte).
void expect_poisoned_past_size(const Script& script, const char* step)
{
    const uint8_t* data = script.data();
    for (size_t i = 0; i < script.capacity(); ++i) {
        const bool poisoned = __asan_address_is_poisoned(data + i) != 0;
        if (poisoned != (i >= script.size())) {
            ADD_FAILURE() << step << ": byte " << i << (poisoned ? " poisoned" : " not poisoned") << " at size "
                          << script.size() << ", capacity " << script.capacity();
            return;
        }
    }
}

TEST(Script, UnderAddressSanitizerTheBytesPastTheSizeArePoisoned)
{
    for (size_t from : kSizes) {
        for (size_t to : kSizes) {
            Script script(pattern(from, 5));
            expect_poisoned_past_size(script, "built");
            script.resize(to);
            expect_poisoned_past_size(script, "resized");
            script.push_back(1);
            expect_poisoned_past_size(script, "pushed");
            Script moved(std::move(script));
            expect_poisoned_past_size(moved, "moved to");
            expect_poisoned_past_size(script, "moved from");  // NOLINT(bugprone-use-after-move)
            script = moved;
            expect_poisoned_past_size(script, "copied");
            script.clear();
            expect_poisoned_past_size(script, "cleared");
        }
    }
    // A destroyed inline script leaves its memory plain: the next object built there must not see poison.
    alignas(Script) unsigned char raw[sizeof(Script)];
    auto* script = new (raw) Script(pattern(3, 1));
    script->~Script();
    for (size_t i = 0; i < sizeof raw; ++i) ASSERT_EQ(__asan_address_is_poisoned(raw + i), 0) << i;
}
#endif

}  // namespace
}  // namespace serdiff::test
