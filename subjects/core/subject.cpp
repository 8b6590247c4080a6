// The Core subject: Bitcoin Core's own serialize.h, streams.h and primitives/ behind the harness's seam
// (differential/subject.h). Every codec runs Core's code on Core's types through a DataStream; only the model
// conversion (convert.h) is serdiff's.
#include "differential/subject.h"

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <compressor.h>
#include <primitives/block.h>
#include <primitives/transaction.h>
#include <serialize.h>
#include <streams.h>
#include <undo.h>
#include <util/golombrice.h>
#if SERDIFF_CORE_HAS_OBFUSCATION
#include <util/obfuscation.h>
#endif

#include "differential/reference/members.h"
#include "subjects/core/convert.h"

namespace serdiff::subject {
namespace {

using core_subject::error_text;
using core_subject::from_core;
using core_subject::to_core;
using model::Bytes;
using model::Decoded;

// The adapter's own handling of a DataStream's bytes (an encoding copied out, a stream emptied before it is
// destroyed) is compiled without coverage instrumentation. DataStream's allocator is not std::allocator, so
// libstdc++ destroys its bytes one at a time, and under -fsanitize=fuzzer every byte cost a comparison hook
// (placement new's null check): 6% of size_computer's time went to destroying encodings. `flatten` inlines that
// library code here; ASan and UBSan instrument it as before. What Core does with a stream (Serialize's writes, Unserialize's reads, the clear at the end of
// a read) stays instrumented, and so does the copy of a decode's input into its stream (libstdc++ does that in an
// out-of-line function, which is instrumented wherever it is called from). Clang's spelling; other compilers get
// plain functions.
#if defined(__clang__)
#define SERDIFF_CORE_ADAPTER_COPY __attribute__((no_sanitize("coverage"), flatten, noinline))
#else
#define SERDIFF_CORE_ADAPTER_COPY
#endif

// Drops what is left in a stream before it is destroyed.
SERDIFF_CORE_ADAPTER_COPY void empty(DataStream& stream) { stream.clear(); }

// The bytes written to `stream`, which is left empty.
SERDIFF_CORE_ADAPTER_COPY Bytes take_bytes(DataStream& stream)
{
    const auto* data = reinterpret_cast<const uint8_t*>(stream.data());
    Bytes bytes(data, data + stream.size());
    stream.clear();
    return bytes;
}

// Every encode writes with Core's code into one DataStream, emptied and reused with its capacity (as Core's
// benchmarks reuse theirs): a fresh stream per encode grew by reallocation, each step copying the bytes so far.
// Encodes do not nest.
DataStream& encode_stream()
{
    static thread_local DataStream stream;
    return stream;
}
template <typename Write>
Bytes encode_with(Write write)
{
    DataStream& stream = encode_stream();
    empty(stream);  // in case an encode threw halfway
    write(stream);
    return take_bytes(stream);
}

// Decodes with Core's code from a DataStream holding `data`; `read` fills `result.value` from the stream.
template <typename T, typename Read>
Decoded<T> decode_with(std::span<const uint8_t> data, Read read)
{
    Decoded<T> result;
    DataStream stream{data};  // a stream of its own, exactly the input's size: ASan sees a read past its end
    try {
        read(stream, result.value);
        result.ok = true;
        result.consumed = data.size() - stream.size();
    } catch (const std::exception& error) {
        result.error = error_text(error);
        result.value = T{};
    }
    empty(stream);
    return result;
}

// check_encoding asks for a value's encoding and then for its size. The Core object converted for the encoding is
// kept for the size call that follows, which uses it when same() finds every field equal and drops it either way:
// converting the value a second time built every CTransaction of a block again, hashing each (Core's constructor
// computes txid and wtxid). Dropping it there keeps it from outliving the input: libFuzzer runs an input again,
// looking for a leak, when it allocates more than it frees.
template <typename Model, typename Core>
class KeptForSize
{
public:
    const Core& for_encoding(const Model& value) { return core_.emplace(to_core(value)); }

    template <typename Size>
    uint64_t size(const Model& value, Size size_of)
    {
        std::optional<Core> kept;
        kept.swap(core_);
        if (kept && core_subject::same(value, *kept)) return size_of(*kept);
        return size_of(to_core(value));
    }

private:
    std::optional<Core> core_;
};

template <typename I>
constexpr VarIntMode mode_for() noexcept
{
    return std::is_signed_v<I> ? VarIntMode::NONNEGATIVE_SIGNED : VarIntMode::DEFAULT;
}

Bytes encode_compact_size(uint64_t value)
{
    return encode_with([value](DataStream& stream) { WriteCompactSize(stream, value); });
}

Decoded<uint64_t> decode_compact_size(std::span<const uint8_t> data, bool range_check)
{
    return decode_with<uint64_t>(
        data, [range_check](DataStream& s, uint64_t& value) { value = ReadCompactSize(s, range_check); });
}

Bytes encode_varint(uint64_t value, model::IntKind kind)
{
    return model::with_int_kind(kind, [value](auto zero) {
        using I = decltype(zero);
        if (value > static_cast<uint64_t>(std::numeric_limits<I>::max()))
            throw std::out_of_range("encode_varint: value not representable in the integer kind");
        return encode_with([value](DataStream& stream) {
            WriteVarInt<DataStream, mode_for<I>(), I>(stream, static_cast<I>(value));
        });
    });
}

Decoded<uint64_t> decode_varint(std::span<const uint8_t> data, model::IntKind kind)
{
    return model::with_int_kind(kind, [data](auto zero) {
        using I = decltype(zero);
        return decode_with<uint64_t>(data, [](DataStream& s, uint64_t& value) {
            value = static_cast<uint64_t>(ReadVarInt<DataStream, mode_for<I>(), I>(s));
        });
    });
}

// Core's serialization of `object` into a DataStream, as Core writes a message or a block.
template <typename Object>
Bytes encode_core(const Object& object)
{
    return encode_with([&object](DataStream& stream) { stream << object; });
}

Decoded<model::Transaction> decode_transaction(std::span<const uint8_t> data, bool allow_witness)
{
    return decode_with<model::Transaction>(data, [allow_witness](DataStream& s, model::Transaction& tx) {
        CMutableTransaction core;
        if (allow_witness) s >> TX_WITH_WITNESS(core);
        else s >> TX_NO_WITNESS(core);
        tx = from_core(core);
    });
}
thread_local KeptForSize<model::Transaction, CMutableTransaction> kept_transaction;
Bytes encode_transaction(const model::Transaction& tx, bool allow_witness)
{
    const CMutableTransaction& core = kept_transaction.for_encoding(tx);
    return allow_witness ? encode_core(TX_WITH_WITNESS(core)) : encode_core(TX_NO_WITNESS(core));
}
uint64_t size_transaction(const model::Transaction& tx, bool allow_witness)
{
    return kept_transaction.size(tx, [allow_witness](const CMutableTransaction& core) {
        return allow_witness ? GetSerializeSize(TX_WITH_WITNESS(core)) : GetSerializeSize(TX_NO_WITNESS(core));
    });
}

Decoded<model::BlockHeader> decode_header(std::span<const uint8_t> data)
{
    return decode_with<model::BlockHeader>(data, [](DataStream& s, model::BlockHeader& header) {
        CBlockHeader core;
        s >> core;
        header = from_core(core);
    });
}
Bytes encode_header(const model::BlockHeader& header) { return encode_core(to_core(header)); }
uint64_t size_header(const model::BlockHeader& header) { return GetSerializeSize(to_core(header)); }

// Blocks always carry witness data (TX_WITH_WITNESS), as Core reads and writes them on disk and the network.
Decoded<model::Block> decode_block(std::span<const uint8_t> data)
{
    return decode_with<model::Block>(data, [](DataStream& s, model::Block& block) {
        CBlock core;
        s >> TX_WITH_WITNESS(core);
        block = from_core(core);
    });
}
thread_local KeptForSize<model::Block, CBlock> kept_block;
Bytes encode_block(const model::Block& block) { return encode_core(TX_WITH_WITNESS(kept_block.for_encoding(block))); }
uint64_t size_block(const model::Block& block)
{
    return kept_block.size(block, [](const CBlock& core) { return GetSerializeSize(TX_WITH_WITNESS(core)); });
}

// CBlockLocator reads its version into a local and drops it, and writes a constant (divergences()): 70016, the
// highest protocol version ever written to a network stream (Core's CBlockLocator::DUMMY_VERSION). The harness
// knows the number itself: taking it from Core's header would make the expectation follow a change to it.
constexpr int32_t kLocatorVersionWritten = 70016;
CBlockLocator locator_to_core(const model::BlockLocator& locator)
{
    std::vector<uint256> have;
    for (const model::uint256& hash : locator.have) have.push_back(to_core(hash));
    return CBlockLocator(std::move(have));
}
Decoded<model::BlockLocator> decode_locator(std::span<const uint8_t> data)
{
    return decode_with<model::BlockLocator>(data, [](DataStream& s, model::BlockLocator& locator) {
        CBlockLocator core;
        s >> core;
        locator.version = kLocatorVersionWritten;
        for (const uint256& hash : core.vHave) locator.have.push_back(from_core(hash));
    });
}
Bytes encode_locator(const model::BlockLocator& locator) { return encode_core(locator_to_core(locator)); }
uint64_t size_locator(const model::BlockLocator& locator) { return GetSerializeSize(locator_to_core(locator)); }

Decoded<model::BlockUndo> decode_block_undo(std::span<const uint8_t> data)
{
    return decode_with<model::BlockUndo>(data, [](DataStream& s, model::BlockUndo& undo) {
        CBlockUndo core;
        s >> core;
        undo = from_core(core);
    });
}
thread_local KeptForSize<model::BlockUndo, CBlockUndo> kept_block_undo;
Bytes encode_block_undo(const model::BlockUndo& undo) { return encode_core(kept_block_undo.for_encoding(undo)); }
uint64_t size_block_undo(const model::BlockUndo& undo)
{
    return kept_block_undo.size(undo, [](const CBlockUndo& core) { return GetSerializeSize(core); });
}

}  // namespace

const char* name() { return "core"; }

const model::CodecTable& codec_table()
{
#define SERDIFF_CORE_TABLE_ENTRY(name, Type, stem) .name = {decode_##stem, encode_##stem, size_##stem},
    static const model::CodecTable table{
        .side = "core",
        .encode_compact_size = encode_compact_size,
        .decode_compact_size = decode_compact_size,
        .encode_varint = encode_varint,
        .decode_varint = decode_varint,
        .transaction = {decode_transaction, encode_transaction, size_transaction},
        SERDIFF_OBJECT_TYPES(SERDIFF_CORE_TABLE_ENTRY)};
#undef SERDIFF_CORE_TABLE_ENTRY
    return table;
}

void obfuscate(std::span<std::byte> bytes, uint64_t offset, const std::array<std::byte, 8>& key)
{
#if SERDIFF_CORE_HAS_OBFUSCATION
    const Obfuscation obfuscation{std::span<const std::byte, Obfuscation::KEY_SIZE>(key)};
    obfuscation(bytes, static_cast<size_t>(offset));
#else
    util::Xor(bytes, key, static_cast<size_t>(offset));  // a tree before Obfuscation: its XOR (streams.h)
#endif
}

uint64_t compress_amount(uint64_t amount) { return CompressAmount(amount); }
uint64_t decompress_amount(uint64_t compressed) { return DecompressAmount(compressed); }
uint32_t special_script_size(uint32_t tag) { return GetSpecialScriptSize(tag); }

Bytes write_compressed_amount(int64_t amount)
{
    return encode_with([amount](DataStream& stream) { stream << Using<AmountCompression>(amount); });
}

Decoded<int64_t> read_compressed_amount(std::span<const uint8_t> data)
{
    return decode_with<int64_t>(data, [](DataStream& s, int64_t& amount) { s >> Using<AmountCompression>(amount); });
}

// A prevector's inline capacity N, read from its type (STATIC_SIZE is newer than some Core trees the subject builds).
template <typename>
struct InlineCapacity;
template <unsigned int N, typename T, typename Size, typename Diff>
struct InlineCapacity<::prevector<N, T, Size, Diff>> {
    static constexpr size_t value = N;
};

// Written from a CScript whose storage past its size holds stale OP_CHECKSIG bytes, as a CScript that was longer and
// shrank keeps them (prevector's resize down writes nothing): 36 inline bytes (CScriptBase's N) for a short script,
// 8 more on the heap for a longer one. OP_CHECKSIG ends every key form, so a check that reads past the size (a
// special form's last byte tested on a script one short) cannot go unseen; a fresh CScript's zeros would hide it.
Bytes write_compressed_script(const model::Script& script)
{
    CScript core = to_core(script);
    const size_t size = core.size();
    const size_t inline_bytes = InlineCapacity<CScriptBase>::value;
    const size_t grown = size + 8 <= inline_bytes ? inline_bytes : size + 8;
    core.resize(grown);
    for (size_t i = size; i < grown; ++i) core[i] = OP_CHECKSIG;
    core.resize(size);
    return encode_with([&core](DataStream& stream) { stream << Using<ScriptCompression>(core); });
}

Decoded<bool> read_compressed_script(std::span<const uint8_t> data, model::Script& script)
{
    CScript core = to_core(script);
    Decoded<bool> result = decode_with<bool>(data, [&core](DataStream& s, bool& read) {
        s >> Using<ScriptCompression>(core);
        read = true;
    });
    script = from_core(core);
    return result;
}

Bytes encode_default_header() { return encode_core(CBlockHeader{}); }
Bytes encode_default_block() { return encode_core(TX_WITH_WITNESS(CBlock{})); }

// Core writes a CScriptWitness as its stack (primitives/transaction.h: `s << tx.vin[i].scriptWitness.stack`).
Bytes encode_witness_stack(const model::WitnessStack& witness) { return encode_core(to_core(witness).stack); }
uint64_t witness_stack_size(const model::WitnessStack& witness) { return GetSerializeSize(to_core(witness).stack); }

// CTransaction's serialized size with witness: ComputeTotalSize() since Core 29, GetTotalSize() before.
template <typename Tx>
unsigned long long total_size(const Tx& tx)
{
    if constexpr (requires { tx.ComputeTotalSize(); })
        return tx.ComputeTotalSize();
    else
        return tx.GetTotalSize();
}

// CalculateOutputValue (a template of primitives/transaction.h; a tree may lack it) on `tx`, or nullopt.
template <typename Tx>
std::optional<CAmount> calculate_output_value(const Tx& tx)
{
    if constexpr (requires { CalculateOutputValue(tx); })
        return CalculateOutputValue(tx);
    else
        return std::nullopt;
}

std::optional<std::vector<std::string>> transaction_members(const model::Transaction& tx)
{
    using reference::fact;
    const CMutableTransaction mutable_tx = to_core(tx);
    const CTransaction core(mutable_tx);
    std::vector<std::string> lines;
    const size_t inputs = core.vin.size(), outputs = core.vout.size();
    for (size_t i = 0; i < inputs; ++i) {
        const CTxIn &in = core.vin[i], &next = core.vin[(i + 1) % inputs];
        const std::string at = "input " + std::to_string(i) + " ";
        lines.push_back(fact(at + "prevout null", in.prevout.IsNull()));
        lines.push_back(fact(at + "prevout < next", in.prevout < next.prevout));
        lines.push_back(fact(at + "prevout > next", next.prevout < in.prevout));
        lines.push_back(fact(at + "prevout == next", in.prevout == next.prevout));
        lines.push_back(fact(at + "prevout != next", in.prevout != next.prevout));
        lines.push_back(fact(at + "== next", in == next));
        lines.push_back(fact(at + "!= next", in != next));
    }
    for (size_t i = 0; i < outputs; ++i) {
        const CTxOut &out = core.vout[i], &next = core.vout[(i + 1) % outputs];
        const std::string at = "output " + std::to_string(i) + " ";
        lines.push_back(fact(at + "null", out.IsNull()));
        lines.push_back(fact(at + "== next", out == next));
        lines.push_back(fact(at + "!= next", out != next));
    }
    lines.push_back(fact("coinbase", core.IsCoinBase()));
    lines.push_back(fact("null", core.IsNull()));
    // CTransaction caches HasWitness; CMutableTransaction computes it: both must say the same.
    lines.push_back(core.HasWitness() == mutable_tx.HasWitness() ? fact("has witness", core.HasWitness())
                                                                 : "has witness: CTransaction and CMutableTransaction differ");
    lines.push_back(fact("total size", total_size(core)));
    try {
        lines.push_back(fact("value out", static_cast<long long>(core.GetValueOut())));
    } catch (const std::runtime_error&) {
        lines.push_back("value out: out of range");
    }
    // CalculateOutputValue adds without a check: asked only where the sum fits (a signed overflow is undefined).
    int64_t total = 0;
    bool overflow = false;
    for (const CTxOut& out : core.vout) overflow = overflow || __builtin_add_overflow(total, out.nValue, &total);
    if (overflow) {
        lines.push_back("output sum: overflows");
    } else if (const std::optional<CAmount> sum = calculate_output_value(core)) {
        lines.push_back(fact("output sum", static_cast<long long>(*sum)));
    } else {
        lines.push_back(fact("output sum", static_cast<long long>(total)));  // a tree without CalculateOutputValue
    }
    CMutableTransaction later = mutable_tx;
    later.nLockTime ^= 1;  // another lock time (a flipped low bit: no wrap at 0xffffffff)
    lines.push_back(fact("== itself", core == CTransaction(mutable_tx)));
    lines.push_back(fact("== with another lock time", core == CTransaction(later)));
    // The deserializing constructors read back what Core wrote.
    DataStream stream;
    stream << TX_WITH_WITNESS(core);
    const CTransaction read_back(deserialize, TX_WITH_WITNESS, stream);
    stream << TX_WITH_WITNESS(core);
    const CMutableTransaction read_back_mutable(deserialize, TX_WITH_WITNESS, stream);
    empty(stream);
    lines.push_back(fact("deserializing constructor gives it back",
                         from_core(read_back) == tx && from_core(read_back_mutable) == tx));
    if (inputs > 0) {
        const CTxIn& first = core.vin[0];
        const CTxIn by_outpoint(first.prevout, first.scriptSig, first.nSequence);
        const CTxIn by_txid(first.prevout.hash, first.prevout.n, first.scriptSig, first.nSequence);
        lines.push_back(fact("CTxIn constructors give input 0", by_outpoint == first && by_txid == first));
    }
    if (outputs > 0) {
        const CTxOut& first = core.vout[0];
        lines.push_back(fact("CTxOut constructor gives output 0", CTxOut(first.nValue, first.scriptPubKey) == first));
    }
    return lines;
}

std::optional<std::vector<std::string>> transaction_constants()
{
    using reference::fact;
    const CTxIn input;
    const CTxOut output;
    CTxOut set_null(5, CScript() << OP_TRUE);
    set_null.SetNull();
    COutPoint outpoint(Txid::FromUint256(uint256::ONE), 3);
    outpoint.SetNull();
    const model::Transaction default_tx = from_core(CMutableTransaction{});
    return std::vector<std::string>{
        fact("SEQUENCE_FINAL", static_cast<unsigned long long>(CTxIn::SEQUENCE_FINAL)),
        fact("MAX_SEQUENCE_NONFINAL", static_cast<unsigned long long>(CTxIn::MAX_SEQUENCE_NONFINAL)),
        fact("SEQUENCE_LOCKTIME_DISABLE_FLAG", static_cast<unsigned long long>(CTxIn::SEQUENCE_LOCKTIME_DISABLE_FLAG)),
        fact("SEQUENCE_LOCKTIME_TYPE_FLAG", static_cast<unsigned long long>(CTxIn::SEQUENCE_LOCKTIME_TYPE_FLAG)),
        fact("SEQUENCE_LOCKTIME_MASK", static_cast<unsigned long long>(CTxIn::SEQUENCE_LOCKTIME_MASK)),
        fact("SEQUENCE_LOCKTIME_GRANULARITY", static_cast<long long>(CTxIn::SEQUENCE_LOCKTIME_GRANULARITY)),
        fact("NULL_INDEX", static_cast<unsigned long long>(COutPoint::NULL_INDEX)),
        fact("CURRENT_VERSION", static_cast<unsigned long long>(CTransaction::CURRENT_VERSION)),
        fact("default input sequence", static_cast<unsigned long long>(input.nSequence)),
        fact("default input prevout null", input.prevout.IsNull()),
        fact("default output null", output.IsNull()),
        fact("default output value", static_cast<long long>(output.nValue)),
        fact("output after SetNull null", set_null.IsNull() && set_null.scriptPubKey.empty()),
        fact("outpoint after SetNull null", outpoint.IsNull()),
        fact("default transaction version", static_cast<unsigned long long>(default_tx.version)),
        fact("default transaction lock time", static_cast<unsigned long long>(default_tx.lock_time)),
    };
}

const Divergences& divergences()
{
    static const Divergences core{.locator_version_written = kLocatorVersionWritten,
                                  .compressed_script_read_keeps_old_bytes = true,
                                  .negative_varint_written = true};
    return core;
}

// Core's BitStreamWriter into a DataStream and BitStreamReader from one (util/golombrice.h for the Golomb-Rice
// codes), as blockfilter.cpp builds and reads a BIP 158 filter.
model::BitWriteResult bit_write(std::span<const model::BitOp> ops)
{
    model::BitWriteResult result;
    DataStream stream;
    size_t i = 0;
    try {
        BitStreamWriter<DataStream> writer(stream);  // Core's destructor flushes
        for (; i < ops.size(); ++i) {
            const model::BitOp& op = ops[i];
            switch (op.kind) {
            case model::BitOp::Kind::kBits: writer.Write(op.value, op.nbits); break;
            case model::BitOp::Kind::kGolombRice: GolombRiceEncode(writer, op.rice_parameter, op.value); break;
            case model::BitOp::Kind::kAlign: writer.Flush(); break;
            }
        }
    } catch (const std::out_of_range&) {
        result.refused_at = i;
    }
    result.bytes = take_bytes(stream);
    return result;
}

model::BitReadResult bit_read(std::span<const uint8_t> bytes, std::span<const model::BitOp> ops)
{
    model::BitReadResult result;
    DataStream stream{bytes};
    std::optional<BitStreamReader<DataStream>> reader{std::in_place, stream};
    for (size_t i = 0; i < ops.size(); ++i) {
        const model::BitOp& op = ops[i];
        try {
            switch (op.kind) {
            case model::BitOp::Kind::kBits: result.values.push_back(reader->Read(op.nbits)); break;
            case model::BitOp::Kind::kGolombRice: result.values.push_back(GolombRiceDecode(*reader, op.rice_parameter)); break;
            case model::BitOp::Kind::kAlign: reader.emplace(stream); break;
            }
        } catch (const std::out_of_range&) {
            result.stopped_at = i;
            result.out_of_range = true;
            break;
        } catch (const std::ios_base::failure&) {  // DataStream's "end of data"
            result.stopped_at = i;
            break;
        }
    }
    empty(stream);
    return result;
}

}  // namespace serdiff::subject
