// Plain data types of Bitcoin's consensus objects: no serialization code, only values and ==.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

struct WitnessStack {
    std::vector<Bytes> stack;
    bool operator==(const WitnessStack&) const = default;
};

struct TxIn {
    OutPoint prevout;
    Bytes script_sig;
    uint32_t sequence = 0;
    WitnessStack witness;  // serialized after all outputs, not inside the input
    bool operator==(const TxIn&) const = default;
};

struct TxOut {
    int64_t value = 0;
    Bytes script_pubkey;
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
            if (!in.witness.stack.empty()) return true;
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
}  // namespace errors

// Hex helpers used by printers, CLI and tests.
std::string to_hex(const uint8_t* data, size_t size);
inline std::string to_hex(const Bytes& bytes) { return to_hex(bytes.data(), bytes.size()); }
// Returns false on odd length or a non-hex character; whitespace is not accepted.
bool from_hex(std::string_view hex, Bytes& out);
std::string hash_to_hex(const uint256& hash);  // byte-reversed display form

}  // namespace serdiff::model
