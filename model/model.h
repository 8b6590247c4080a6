// Plain data types of Bitcoin's consensus objects: no serialization code, only values and ==.
#pragma once

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define SERDIFF_MODEL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SERDIFF_MODEL_ASAN 1
#endif
#endif
#ifdef SERDIFF_MODEL_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace serdiff::model {

using Bytes = std::vector<uint8_t>;

// 32 raw bytes in serialization order; printed byte-reversed, as Bitcoin displays hashes.
struct uint256 {
    std::array<uint8_t, 32> bytes{};
    bool operator==(const uint256&) const = default;
    auto operator<=>(const uint256&) const = default;
};

struct OutPoint {
    uint256 hash;
    uint32_t n = 0;
    bool operator==(const OutPoint&) const = default;
};

// Bytes a CompactSize takes for `value` (1, 3, 5 or 9): what a length prefix adds to an encoded size.
constexpr size_t compact_size_length(uint64_t value)
{
    return value < 0xfd ? 1 : value <= 0xffff ? 3 : value <= 0xffffffff ? 5 : 9;
}

// A script (scriptSig, scriptPubKey): a byte string kept inline up to kInlineBytes (every standard output
// script, up to P2WSH/P2TR's 34 bytes, and the 23/35-byte scriptSigs of wrapped segwit inputs) and in one heap
// block beyond, as Bitcoin Core keeps a CScript in a prevector<28>: decoding a block allocates only for the
// longer scripts (legacy scriptSigs). It offers what a byte vector offers to the codecs and tests (size,
// data, iteration, [], resize, assign, push_back, ==, built from a Bytes); `resize_uninitialized` lets a
// reader size it without zero-filling bytes it is about to overwrite.
class Script {
public:
    using value_type = uint8_t;
    using size_type = size_t;
    using iterator = uint8_t*;
    using const_iterator = const uint8_t*;
    static constexpr size_t kInlineBytes = 40;

    Script() { annotate(storage_.inline_bytes, kInlineBytes, kInlineBytes, 0); }
    Script(std::initializer_list<uint8_t> bytes) : Script() { assign(std::span<const uint8_t>(bytes.begin(), bytes.size())); }
    Script(const Bytes& bytes) : Script() { assign(std::span<const uint8_t>(bytes)); }  // implicit: Bytes convert
    explicit Script(std::span<const uint8_t> bytes) : Script() { assign(bytes); }
    Script(size_t count, uint8_t value) : Script() { assign(count, value); }
    Script(const Script& other) : Script() { assign(std::span<const uint8_t>(other.data(), other.size())); }
    Script(Script&& other) noexcept : Script() { take(other); }
    Script& operator=(const Script& other)
    {
        assign(std::span<const uint8_t>(other.data(), other.size()));
        return *this;
    }
    Script& operator=(Script&& other) noexcept
    {
        if (this != &other) {
            release();
            take(other);
        }
        return *this;
    }
    ~Script()
    {
        release();
        annotate(storage_.inline_bytes, kInlineBytes, 0, kInlineBytes);  // the object's bytes back to plain memory
    }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_t capacity() const { return on_heap() ? heap_capacity_ : kInlineBytes; }
    uint8_t* data() { return on_heap() ? storage_.heap : storage_.inline_bytes; }
    const uint8_t* data() const { return on_heap() ? storage_.heap : storage_.inline_bytes; }
    iterator begin() { return data(); }
    iterator end() { return data() + size_; }
    const_iterator begin() const { return data(); }
    const_iterator end() const { return data() + size_; }
    uint8_t& operator[](size_t i) { return data()[i]; }
    const uint8_t& operator[](size_t i) const { return data()[i]; }

    // Capacity for `count` bytes: exactly `count` when it has to move to (or grow on) the heap.
    void reserve(size_t count)
    {
        if (count <= capacity()) return;
        if (count > UINT32_MAX) throw std::length_error("script longer than 4 GiB");
        uint8_t* grown = new uint8_t[count];
        annotate(grown, count, count, size_);
        std::copy(data(), data() + size_, grown);
        if (on_heap()) {
            annotate(storage_.heap, heap_capacity_, size_, heap_capacity_);
            delete[] storage_.heap;
        } else {
            annotate(storage_.inline_bytes, kInlineBytes, size_, kInlineBytes);  // the union now holds the pointer
        }
        storage_.heap = grown;
        heap_capacity_ = static_cast<uint32_t>(count);
    }
    // Size `count`; bytes past the old size are left for the caller to write.
    void resize_uninitialized(size_t count)
    {
        reserve(count);
        annotate(data(), capacity(), size_, count);
        size_ = static_cast<uint32_t>(count);
    }
    void resize(size_t count)
    {
        const size_t before = size_;
        resize_uninitialized(count);
        if (count > before) std::fill(data() + before, data() + count, uint8_t{0});
    }
    void clear() { resize_uninitialized(0); }
    void assign(size_t count, uint8_t value)
    {
        resize_uninitialized(count);
        std::fill(data(), data() + count, value);
    }
    void assign(std::span<const uint8_t> bytes)
    {
        const std::less<const uint8_t*> before;
        if (!bytes.empty() && !before(bytes.data(), data()) && before(bytes.data(), data() + capacity())) {
            const Bytes copy(bytes.begin(), bytes.end());  // its own bytes: growing could free them
            assign(std::span<const uint8_t>(copy));
            return;
        }
        resize_uninitialized(bytes.size());
        std::copy(bytes.begin(), bytes.end(), data());
    }
    void push_back(uint8_t value)
    {
        if (size_ == capacity()) reserve(std::max<size_t>(2 * capacity(), size_ + 1));
        resize_uninitialized(size_ + 1);
        data()[size_ - 1] = value;
    }

    bool operator==(const Script& other) const
    {
        return size_ == other.size_ && std::equal(begin(), end(), other.begin());
    }

private:
    // Under AddressSanitizer the bytes of a buffer past the script's size are poisoned, as libc++ does for
    // std::vector (container annotations): a read or write past size() but inside the 40 inline bytes or the
    // heap block's spare capacity is reported as a container-overflow instead of passing unseen (the planted
    // defect p2pkh_script_one_short depends on it). Without ASan this is empty. Invariant: the current buffer
    // is poisoned from size() to capacity(); while on the heap the inline bytes are plain (they hold the pointer).
    static void annotate([[maybe_unused]] const uint8_t* buffer, [[maybe_unused]] size_t capacity,
                         [[maybe_unused]] size_t old_size, [[maybe_unused]] size_t new_size)
    {
#ifdef SERDIFF_MODEL_ASAN
        if (old_size != new_size) {
            __sanitizer_annotate_contiguous_container(buffer, buffer + capacity, buffer + old_size, buffer + new_size);
        }
#endif
    }
    bool on_heap() const { return heap_capacity_ != 0; }
    // Frees a heap block; leaves the script empty and inline.
    void release()
    {
        if (on_heap()) {
            annotate(storage_.heap, heap_capacity_, size_, heap_capacity_);
            delete[] storage_.heap;
            heap_capacity_ = 0;
            size_ = 0;
            annotate(storage_.inline_bytes, kInlineBytes, kInlineBytes, 0);
        } else {
            clear();
        }
    }
    // Takes other's bytes (its heap block, or a copy of its inline bytes) and leaves it empty and inline.
    // This script is empty and inline before.
    void take(Script& other) noexcept
    {
        if (other.on_heap()) {
            annotate(storage_.inline_bytes, kInlineBytes, 0, kInlineBytes);
            storage_.heap = other.storage_.heap;
            annotate(other.storage_.inline_bytes, kInlineBytes, kInlineBytes, 0);
        } else {
            annotate(storage_.inline_bytes, kInlineBytes, 0, other.size_);
            std::copy(other.storage_.inline_bytes, other.storage_.inline_bytes + other.size_, storage_.inline_bytes);
            annotate(other.storage_.inline_bytes, kInlineBytes, other.size_, 0);
        }
        size_ = other.size_;
        heap_capacity_ = other.heap_capacity_;
        other.size_ = 0;
        other.heap_capacity_ = 0;
    }

    union Storage {
        uint8_t inline_bytes[kInlineBytes];
        uint8_t* heap;
    } storage_;
    uint32_t size_ = 0;
    uint32_t heap_capacity_ = 0;  // 0: the bytes are inline
};

// One input's witness: a stack of byte strings (items). As in rust-bitcoin, the items are kept in their
// wire form, back to back in one buffer: each item's CompactSize length, then its bytes. One allocation per
// stack however many items it holds; an encoder writes the buffer in one piece and the encoded size is
// known without visiting the items (docs/notes/2026-11-24-witness-stack-layout.md). Items are found by walking the length
// prefixes: iteration is linear, item(i) walks i items. This length prefix is the only encoding the model
// knows; the reference never reads it (it writes each item with its own CompactSize), so the fuzz targets
// still compare two encoders. An item is a span into the buffer, valid until the stack changes.
class WitnessStack {
public:
    using Item = std::span<const uint8_t>;

    WitnessStack() = default;
    WitnessStack(std::initializer_list<Bytes> items)
    {
        for (const Bytes& item : items) push_back(item);
    }
    WitnessStack(const WitnessStack&) = default;
    WitnessStack& operator=(const WitnessStack&) = default;
    // A moved-from stack is empty (defaulted moves would leave it a count and no items).
    WitnessStack(WitnessStack&& other) noexcept : encoded_(std::move(other.encoded_)), count_(std::exchange(other.count_, 0))
    {
        other.encoded_.clear();
    }
    WitnessStack& operator=(WitnessStack&& other) noexcept
    {
        if (this != &other) {
            encoded_ = std::move(other.encoded_);
            count_ = std::exchange(other.count_, 0);
            other.encoded_.clear();
        }
        return *this;
    }

    // Walks the items in order.
    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Item;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = Item;
        const_iterator() = default;
        explicit const_iterator(const uint8_t* at) : at_(at) {}
        Item operator*() const
        {
            const size_t prefix = prefix_length(at_[0]);
            return Item(at_ + prefix, item_length(at_, prefix));
        }
        const_iterator& operator++()
        {
            const size_t prefix = prefix_length(at_[0]);
            at_ += prefix + item_length(at_, prefix);
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator before = *this;
            ++*this;
            return before;
        }
        bool operator==(const const_iterator& other) const { return at_ == other.at_; }

    private:
        const uint8_t* at_ = nullptr;
    };
    const_iterator begin() const { return const_iterator(encoded_.data()); }
    const_iterator end() const { return const_iterator(encoded_.data() + encoded_.size()); }

    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    Item item(size_t i) const { return *std::next(begin(), static_cast<std::ptrdiff_t>(i)); }
    Item operator[](size_t i) const { return item(i); }
    // The items in wire form: each item's CompactSize length, then its bytes (without the count).
    Item encoded_items() const { return encoded_; }
    // The encoded size: the CompactSize count, then the items in wire form.
    size_t serialized_size() const { return compact_size_length(count_) + encoded_.size(); }

    void push_back(Item item)
    {
        const std::less<const uint8_t*> before;
        if (!item.empty() && !before(item.data(), encoded_.data()) && before(item.data(), encoded_.data() + encoded_.size())) {
            const Bytes copy(item.begin(), item.end());  // one of this stack's items: growing would move it
            push_back(copy);
            return;
        }
        const std::span<uint8_t> out = append(item.size());
        std::copy(item.begin(), item.end(), out.begin());
    }
    // Appends an item of `size` zero bytes (after its length prefix) and returns them, for a reader to fill.
    std::span<uint8_t> append(size_t size)
    {
        const size_t prefix = compact_size_length(size);
        const size_t begin = encoded_.size() + prefix;
        encoded_.resize(begin + size);
        uint8_t* length = encoded_.data() + begin - prefix;  // one byte, or 0xfd/0xfe/0xff then 2/4/8 bytes LE
        if (prefix == 1) {
            length[0] = static_cast<uint8_t>(size);
        } else {
            length[0] = prefix == 3 ? 0xfd : prefix == 5 ? 0xfe : 0xff;
            for (size_t b = 1; b < prefix; ++b) length[b] = static_cast<uint8_t>(uint64_t{size} >> (8 * (b - 1)));
        }
        ++count_;
        return std::span<uint8_t>(encoded_.data() + begin, size);
    }
    // Room for `bytes` bytes of wire form (length prefixes included).
    void reserve(size_t bytes) { encoded_.reserve(bytes); }
    void clear()
    {
        encoded_.clear();
        count_ = 0;
    }

    // Same items: the wire form determines them.
    bool operator==(const WitnessStack& other) const { return encoded_ == other.encoded_; }

private:
    static size_t prefix_length(uint8_t first) { return first < 0xfd ? 1 : first == 0xfd ? 3 : first == 0xfe ? 5 : 9; }
    static size_t item_length(const uint8_t* at, size_t prefix)
    {
        if (prefix == 1) return at[0];
        uint64_t length = 0;
        for (size_t b = prefix - 1; b >= 1; --b) length = length << 8 | at[b];
        return static_cast<size_t>(length);
    }

    Bytes encoded_;
    size_t count_ = 0;
};

struct TxIn {
    OutPoint prevout;
    Script script_sig;
    uint32_t sequence = 0;
    WitnessStack witness;  // serialized after all outputs, not inside the input
    bool operator==(const TxIn&) const = default;
};

struct TxOut {
    int64_t value = 0;
    Script script_pubkey;
    bool operator==(const TxOut&) const = default;
};

struct Transaction {
    uint32_t version = 0;
    std::vector<TxIn> inputs;
    std::vector<TxOut> outputs;
    uint32_t lock_time = 0;
    bool operator==(const Transaction&) const = default;
    bool has_witness() const
    {
        for (const auto& in : inputs)
            if (!in.witness.empty()) return true;
        return false;
    }
};

struct BlockHeader {
    int32_t version = 0;
    uint256 prev_block;
    uint256 merkle_root;
    uint32_t time = 0;
    uint32_t bits = 0;
    uint32_t nonce = 0;
    bool operator==(const BlockHeader&) const = default;
};

struct Block {
    BlockHeader header;
    std::vector<Transaction> transactions;
    bool operator==(const Block&) const = default;
};

// Bitcoin Core reads the version and ignores it; serdiff keeps it so re-encoding is byte-exact.
struct BlockLocator {
    int32_t version = 0;
    std::vector<uint256> have;
    bool operator==(const BlockLocator&) const = default;
};

struct Coin {
    TxOut out;
    uint32_t height = 0;  // 31 bits on the wire: code = height * 2 + coinbase
    bool coinbase = false;
    bool operator==(const Coin&) const = default;
};

struct TxUndo {
    std::vector<Coin> prevouts;
    bool operator==(const TxUndo&) const = default;
};

struct BlockUndo {
    std::vector<TxUndo> txundo;
    bool operator==(const BlockUndo&) const = default;
};

// Integer types a VarInt or a fixed-width field can be read into (the range check depends on it).
enum class IntKind : uint8_t { U8, U16, U32, U64, I8, I16, I32, I64 };
inline constexpr IntKind kAllIntKinds[] = {IntKind::U8,  IntKind::U16, IntKind::U32, IntKind::U64,
                                           IntKind::I8,  IntKind::I16, IntKind::I32, IntKind::I64};
int int_kind_bytes(IntKind kind);
bool int_kind_signed(IntKind kind);
const char* int_kind_name(IntKind kind);
// Calls `run` with a value-initialized integer of the type `kind` names (each side's VarInt codec by kind).
template <typename Run>
decltype(auto) with_int_kind(IntKind kind, Run&& run)
{
    switch (kind) {
    case IntKind::U8: return run(uint8_t{});
    case IntKind::U16: return run(uint16_t{});
    case IntKind::U32: return run(uint32_t{});
    case IntKind::U64: return run(uint64_t{});
    case IntKind::I8: return run(int8_t{});
    case IntKind::I16: return run(int16_t{});
    case IntKind::I32: return run(int32_t{});
    case IntKind::I64: return run(int64_t{});
    }
    throw std::invalid_argument("unknown IntKind");
}

// Limits from Bitcoin Core shared by the format description (SEMANTICS.md).
inline constexpr uint64_t kMaxSize = 0x02000000;              // MAX_SIZE for CompactSize with range check
inline constexpr size_t kMaxVectorAllocate = 5'000'000;       // MAX_VECTOR_ALLOCATE, bytes per growth step
inline constexpr size_t kMaxScriptSize = 10'000;              // MAX_SCRIPT_SIZE for compressed scripts
inline constexpr uint32_t kMaxBlockSerializedSize = 4'000'000;  // MAX_BLOCK_SERIALIZED_SIZE (file records)

// The error messages both implementations raise; fuzz targets compare them exactly.
namespace errors {
inline constexpr const char* kEndOfData = "end of data";
inline constexpr const char* kNonCanonical = "non-canonical";
inline constexpr const char* kSizeTooLarge = "size too large";
inline constexpr const char* kSuperfluousWitness = "Superfluous witness record";
inline constexpr const char* kUnknownOptionalData = "Unknown transaction optional data";
inline constexpr const char* kStringLimit = "String length limit exceeded";
// BufferedFile (docs/format.md "BufferedFile"): a read past the limit set, and a rewind not below the buffer size.
inline constexpr const char* kPastReadLimit = "read past the limit";
inline constexpr const char* kRewindNotBelowBuffer = "rewind limit must be less than buffer size";
}  // namespace errors

// Hex helpers used by printers, CLI and tests.
std::string to_hex(const uint8_t* data, size_t size);
inline std::string to_hex(const Bytes& bytes) { return to_hex(bytes.data(), bytes.size()); }
// Returns false on odd length or a non-hex character; whitespace is not accepted.
bool from_hex(std::string_view hex, Bytes& out);
std::string hash_to_hex(const uint256& hash);  // byte-reversed display form

}  // namespace serdiff::model
