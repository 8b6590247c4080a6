// Allocation bound: a few bytes claiming a huge vector or byte string must fail at end-of-data having
// allocated in proportion to the input, not to the claim, measured with a counting global operator new on both
// implementations. The codec facades decode from memory, which knows how many bytes it holds (a file stream
// may allocate one 5,000,000-byte chunk first, as Core's does); the fuzz targets decode from memory, and a
// fuzzer's claims are mostly false.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>

#include "tests/test_util.h"

// MSan's runtime defines the global operator new strongly (ASan's are weak), so the counting operators
// cannot be linked into an MSan build; the asan-ubsan and gcc CI jobs measure the bound.
#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#define SERDIFF_OPERATOR_NEW_OWNED_BY_SANITIZER 1
#endif
#endif

namespace {

// Counting is switched on only around one decode call; the rest of the binary allocates uncounted.
std::atomic<bool> g_counting{false};
std::atomic<size_t> g_total_bytes{0};
std::atomic<size_t> g_peak_single{0};
std::atomic<size_t> g_allocations{0};

#ifndef SERDIFF_OPERATOR_NEW_OWNED_BY_SANITIZER
void note_allocation(size_t size)
{
    if (!g_counting.load(std::memory_order_relaxed)) return;
    g_total_bytes.fetch_add(size, std::memory_order_relaxed);
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    size_t peak = g_peak_single.load(std::memory_order_relaxed);
    while (size > peak && !g_peak_single.compare_exchange_weak(peak, size, std::memory_order_relaxed)) {
    }
}

void* counted_allocate(size_t size)
{
    note_allocation(size);
    // malloc stays the real allocator, so ASan still sees and checks every block.
    return std::malloc(size == 0 ? 1 : size);
}
#endif

}  // namespace

#ifndef SERDIFF_OPERATOR_NEW_OWNED_BY_SANITIZER

// Replacing the global operators is allowed by the standard and by ASan; the aligned forms are left to
// the library (they are never used for byte or object vectors here).
void* operator new(std::size_t size)
{
    if (void* pointer = counted_allocate(size)) return pointer;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size)
{
    if (void* pointer = counted_allocate(size)) return pointer;
    throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_allocate(size); }
// Out of line: inlined, gcc 12 pairs the free() with the caller's operator new and warns
// -Wmismatched-new-delete, not seeing that this operator new is malloc.
[[gnu::noinline]] void operator delete(void* pointer) noexcept { std::free(pointer); }
[[gnu::noinline]] void operator delete[](void* pointer) noexcept { std::free(pointer); }
[[gnu::noinline]] void operator delete(void* pointer, std::size_t) noexcept { std::free(pointer); }
[[gnu::noinline]] void operator delete[](void* pointer, std::size_t) noexcept { std::free(pointer); }
[[gnu::noinline]] void operator delete(void* pointer, const std::nothrow_t&) noexcept { std::free(pointer); }
[[gnu::noinline]] void operator delete[](void* pointer, const std::nothrow_t&) noexcept { std::free(pointer); }
#endif

namespace serdiff::test {
namespace {

struct AllocationMeasurement {
    size_t total_bytes = 0;
    size_t peak_single = 0;
    size_t allocations = 0;
};

// Runs `decode` with counting on and returns what it allocated.
template <typename Decode>
AllocationMeasurement measure(Decode&& decode)
{
    g_total_bytes = 0;
    g_peak_single = 0;
    g_allocations = 0;
    g_counting = true;
    decode();
    g_counting = false;
    return {g_total_bytes.load(), g_peak_single.load(), g_allocations.load()};
}

// All allocations together, for inputs under 100 bytes: far below one chunk. The optimized side fails a byte
// payload or witness item the input cannot hold before allocating it and reserves no more vector elements than
// bytes left; the reference grows a vector only with the elements read.
constexpr size_t kTotalBound = 64 * 1024;

struct HugeClaim {
    const char* name;
    std::string input_hex;
    // Decodes the input with one implementation and returns its error ("" on success).
    std::function<std::string(const Implementation&, std::span<const uint8_t>)> decode;
};

template <typename T>
std::string error_of(const Decoded<T>& decoded)
{
    return decoded.ok ? "" : decoded.error;
}

const std::string kVersion = "01000000";
const std::string kPrevout = std::string(64, '1') + "00000000";
const std::string kClaim32MiB = "fe00000002";  // CompactSize 0x02000000 = MAX_SIZE, passes the range check
const std::string kClaim4MB = "fe00093d00";    // 4,000,000: within one chunk, so read in one piece
const std::string kHeader = std::string(160, '0');

std::vector<HugeClaim> huge_claims()
{
    auto transaction = [](const Implementation& impl, std::span<const uint8_t> data) {
        return error_of(impl.transaction.decode(data, true));
    };
    auto block = [](const Implementation& impl, std::span<const uint8_t> data) {
        return error_of(impl.block.decode(data));
    };
    auto locator = [](const Implementation& impl, std::span<const uint8_t> data) {
        return error_of(impl.block_locator.decode(data));
    };
    auto block_undo = [](const Implementation& impl, std::span<const uint8_t> data) {
        return error_of(impl.block_undo.decode(data));
    };
    return {
        {"tx scriptSig claiming 32 MiB", kVersion + "01" + kPrevout + kClaim32MiB + "abcd", transaction},
        {"tx scriptPubKey claiming 32 MiB",
         kVersion + "01" + kPrevout + "00" + "ffffffff" + "01" + "0000000000000000" + kClaim32MiB + "ab", transaction},
        {"witness item claiming 32 MiB",
         kVersion + "0001" + "01" + kPrevout + "00" + "ffffffff" + "00" + "01" + kClaim32MiB + "ab", transaction},
        {"tx scriptSig claiming 4,000,000 B", kVersion + "01" + kPrevout + kClaim4MB + "abcd", transaction},
        {"witness item claiming 4,000,000 B",
         kVersion + "0001" + "01" + kPrevout + "00" + "ffffffff" + "00" + "01" + kClaim4MB + "ab", transaction},
        {"tx with 2^25 inputs", kVersion + kClaim32MiB + kPrevout, transaction},
        {"tx with 2^25 outputs", kVersion + "01" + kPrevout + "00" + "ffffffff" + kClaim32MiB + "0000000000000000",
         transaction},
        {"witness stack of 2^25 items", kVersion + "0001" + "01" + kPrevout + "00" + "ffffffff" + "00" + kClaim32MiB,
         transaction},
        {"block with 2^25 transactions", kHeader + kClaim32MiB + kVersion, block},
        {"locator with 2^25 hashes", kVersion + kClaim32MiB + std::string(64, 'e'), locator},
        {"block undo with 2^25 tx undos", kClaim32MiB + "00", block_undo},
        {"tx undo with 2^25 coins", "01" + kClaim32MiB + "00", block_undo},
    };
}

TEST(AllocationBound, HugeClaimsFromMemoryFailAtEndOfDataAllocatingLittle)
{
#ifdef SERDIFF_OPERATOR_NEW_OWNED_BY_SANITIZER
    GTEST_SKIP() << "operator new cannot be replaced under MSan";
#endif
    for (const HugeClaim& claim : huge_claims()) {
        const Bytes input = hex(claim.input_hex);
        for (const Implementation* impl : kImplementations) {
            std::string error;
            const AllocationMeasurement measured = measure([&] { error = claim.decode(*impl, input); });
            std::printf("[allocation] %-9s %-34s input %3zu B: peak single %8zu B, total %8zu B, %3zu allocations\n",
                        impl->side, claim.name, input.size(), measured.peak_single, measured.total_bytes,
                        measured.allocations);
            EXPECT_EQ(error, model::errors::kEndOfData) << impl->side << " " << claim.name;
            EXPECT_LE(measured.total_bytes, kTotalBound) << impl->side << " " << claim.name;
        }
    }
}

// The counter itself works: a real 100,000-byte scriptSig shows up as an allocation at least that big.
TEST(AllocationBound, CounterSeesARealLargeScript)
{
#ifdef SERDIFF_OPERATOR_NEW_OWNED_BY_SANITIZER
    GTEST_SKIP() << "operator new cannot be replaced under MSan";
#endif
    const std::string tx_hex = kVersion + "01" + kPrevout + "fea0860100" + std::string(200'000, '5') + "ffffffff" +
                               "00" + "00000000";
    const Bytes input = hex(tx_hex);
    for (const Implementation* impl : kImplementations) {
        std::string error = "not run";
        const AllocationMeasurement measured =
            measure([&] { error = error_of(impl->transaction.decode(input, true)); });
        EXPECT_EQ(error, "") << impl->side;
        EXPECT_GE(measured.peak_single, 100'000u) << impl->side;
    }
}

}  // namespace
}  // namespace serdiff::test
