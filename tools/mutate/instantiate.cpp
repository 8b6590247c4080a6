// make mutate's instantiation unit (docs/mutation.md, "Equivalence"): compiled ONLY by tools/mutate/mutate.py's
// trivial-compiler-equivalence step, never part of a binary. It instantiates every public template and member of
// serialize/ for the types the fuzz targets use, so that a mutant of code no fuzz unit instantiates (a member
// nobody calls compiles to nothing there) still changes an object file: here. A mutant whose fuzz units are all
// byte-identical but whose object of this unit differs is "survived (not reached)", reach "instantiation-only",
// not equivalent.
//
// Every function has external linkage and takes its inputs by reference, so nothing is optimized away; explicit
// instantiation definitions (`template class ...;`, `template void f<...>(...);`) are always emitted.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/model.h"
#include "serialize/block_store.h"
#include "serialize/codec.h"
#include "serialize/compression.h"
#include "serialize/file.h"
#include "serialize/model_formats.h"
#include "serialize/obfuscation.h"
#include "serialize/prevector.h"
#include "serialize/serialize.h"
#include "serialize/stream.h"
#include "serialize/streams.h"

namespace serdiff::optimized {

// ---- class templates: every non-template member -----------------------------------------------------------------
template class prevector<28, uint8_t>;   // model::Script's inline bytes, the prevector target
template class prevector<3, uint32_t>;   // the prevector target's second instance

}  // namespace serdiff::optimized

namespace serdiff::mutate_instantiate {

using namespace serdiff::optimized;
using model::Block;
using model::BlockHeader;
using model::BlockLocator;
using model::BlockUndo;
using model::Coin;
using model::OutPoint;
using model::Script;
using model::Transaction;
using model::TxIn;
using model::TxOut;
using model::TxUndo;
using model::uint256;
using model::WitnessStack;

// ---- prevector: member templates, the hidden friend, and the const accessors through a const object ---------------
template <size_t N, typename T>
size_t prevector_members(prevector<N, T>& v, const prevector<N, T>& c, const T* first, const T* last, T value)
{
    prevector<N, T> ranged(first, last);
    prevector<N, T> listed{value, value};
    prevector<N, T> copy(c);
    copy = c;
    prevector<N, T>& alias = copy;
    copy = alias;                      // self-assignment
    v.assign(first, last);
    v.insert(v.begin(), first, last);
    v.insert(v.end(), value);
    v.emplace_back(value);
    v.erase(v.begin());
    v.erase(v.begin(), v.begin() + (v.size() > 1 ? 1 : 0));
    prevector<N, T> moved(std::move(ranged));
    moved = std::move(listed);
    size_t sum = (v == c) + (copy == moved) + c.size() + c.capacity() + c.empty() + c.is_inline();
    if (!c.empty()) sum += static_cast<size_t>(c.front()) + static_cast<size_t>(c.back()) + static_cast<size_t>(c[0]);
    sum += static_cast<size_t>(*c.data()) + static_cast<size_t>(c.end() - c.begin());
    if (!v.empty()) sum += static_cast<size_t>(v.front()) + static_cast<size_t>(v.back());
    return sum;
}
template size_t prevector_members(prevector<28, uint8_t>&, const prevector<28, uint8_t>&, const uint8_t*,
                                  const uint8_t*, uint8_t);
template size_t prevector_members(prevector<3, uint32_t>&, const prevector<3, uint32_t>&, const uint32_t*,
                                  const uint32_t*, uint32_t);

// ---- the streams: every member, the member templates at the extents serialize.h and callers use -------------------
template <typename S>
void write_extents(S& s, std::span<const std::byte> bytes)
{
    s.write(bytes);                                         // dynamic extent
    s.write(std::span<const std::byte, 1>(bytes.data(), 1));
    s.write(std::span<const std::byte, 2>(bytes.data(), 2));
    s.write(std::span<const std::byte, 4>(bytes.data(), 4));
    s.write(std::span<const std::byte, 8>(bytes.data(), 8));
    s.write(std::span<const std::byte, 32>(bytes.data(), 32));
    s.write_byte(bytes[0]);
}
template <typename S>
size_t read_extents(S& s, std::span<std::byte> bytes)
{
    s.read(bytes);
    s.read(std::span<std::byte, 1>(bytes.data(), 1));
    s.read(std::span<std::byte, 2>(bytes.data(), 2));
    s.read(std::span<std::byte, 4>(bytes.data(), 4));
    s.read(std::span<std::byte, 8>(bytes.data(), 8));
    s.read(std::span<std::byte, 32>(bytes.data(), 32));
    s.ignore(bytes.size());
    return static_cast<size_t>(s.read_byte());
}

size_t data_stream(DataStream& s, std::span<const uint8_t> initial, std::span<const std::byte> in,
                   std::span<std::byte> out, size_t capacity, Block& block)
{
    DataStream made(initial);
    write_extents(s, in);
    size_t sum = read_extents(s, out);
    s.reserve(capacity);
    sum += s.size() + s.empty() + s.read_position() + s.unread().size() + s.bytes().size()
           + reinterpret_cast<uintptr_t>(s.unread().data()) + reinterpret_cast<uintptr_t>(s.bytes().data());
    s << block;
    s >> block;
    made.clear();
    return sum + made.size();
}

size_t span_reader(SpanReader& s, std::span<const uint8_t> data, std::span<std::byte> out, Block& block)
{
    SpanReader made(data);
    size_t sum = read_extents(s, out);
    sum += s.size() + s.empty() + s.unread().size() + reinterpret_cast<uintptr_t>(s.unread().data());
    s >> block;
    made >> block;
    return sum;
}

size_t vector_writer(std::vector<uint8_t>& target, size_t position, std::span<const std::byte> in, const Block& block)
{
    VectorWriter s(target, position);
    write_extents(s, in);
    VectorWriter& again = s << block;
    again << block;
    return s.position() + again.position();
}

size_t span_writer(std::span<uint8_t> target, std::span<const std::byte> in, const Block& block)
{
    SpanWriter s(target);
    write_extents(s, in);
    SpanWriter& again = s << block;
    again << block;
    return s.position() + s.remaining() + again.remaining();
}

size_t size_computer(SizeComputer& s, std::span<const std::byte> in, size_t bytes)
{
    write_extents(s, in);
    s.add(bytes);
    return s.size();
}

size_t auto_file(std::FILE* file, const ObfuscationKey& key, std::span<const std::byte> in, std::span<std::byte> out,
                 uint64_t position)
{
    AutoFile f(file, key);
    size_t sum = f.is_open() + f.position() + std::to_integer<size_t>(f.key()[0]) + f.size();
    f.seek(position);
    write_extents(f, in);
    f.write_obfuscated(in);
    sum += read_extents(f, out) + f.read_some(out);
    f.flush();
    f.close();
    return sum;
}

size_t buffered_reader(AutoFile& file, size_t buffer_size, std::span<std::byte> out)
{
    BufferedReader defaulted(file);                 // the default buffer size
    BufferedReader sized(file, buffer_size);
    return read_extents(defaulted, out) + read_extents(sized, out) + defaulted.position() + sized.position()
           + BufferedReader::kDefaultBufferSize;
}

size_t buffered_writer(AutoFile& file, size_t buffer_size, std::span<const std::byte> in)
{
    BufferedWriter defaulted(file);                 // the default buffer size
    BufferedWriter sized(file, buffer_size);
    write_extents(defaulted, in);
    write_extents(sized, in);
    defaulted.flush();
    sized.close();
    return defaulted.position() + sized.position() + BufferedWriter::kDefaultBufferSize;
}

// ---- Serialize / Unserialize of every model type and container through every stream ------------------------------
template <typename S, typename T>
void write_one(S& s, const T& value)
{
    Serialize(s, value);
}
template <typename S, typename T>
void read_one(S& s, T& value)
{
    Unserialize(s, value);
}
template <typename S, typename W>
void read_wrapped(S& s, const W& wrapper)   // Using<...>(x), TxWithWitness{...}: temporaries, read through const
{
    Unserialize(s, wrapper);
}
template <typename T>
size_t size_of(const T& value)
{
    return GetSerializeSize(value);
}

template <typename S>
void write_all(S& s, const model::Transaction& tx, const std::string& text, uint64_t n, int64_t i)
{
    write_one(s, TxWithWitness{tx, true});
    write_one(s, TxWithWitness{tx, false});
    write_one(s, Using<LimitedStringFormatter<256>>(text));
    write_one(s, LimitedString<256>(text));
    write_one(s, Using<VarIntFormatter<VarIntMode::Unsigned>>(n));
    write_one(s, Using<VarIntFormatter<VarIntMode::NonNegativeSigned>>(i));
    write_one(s, Using<CompactSizeFormatter<true>>(n));
    write_one(s, Using<CompactSizeFormatter<false>>(n));
    write_one(s, Using<CustomUintFormatter<1>>(n));
    write_one(s, Using<CustomUintFormatter<2, true>>(n));
    write_one(s, Using<CustomUintFormatter<3>>(n));
    write_one(s, Using<CustomUintFormatter<6, true>>(n));
    write_one(s, Using<CustomUintFormatter<8>>(n));
    write_one(s, Using<TransactionFormatter<true>>(tx));
    write_one(s, Using<TransactionFormatter<false>>(tx));
    WriteCompactSize(s, n);
    WriteVarInt<VarIntMode::Unsigned, uint8_t>(s, static_cast<uint8_t>(n));
    WriteVarInt<VarIntMode::Unsigned, uint16_t>(s, static_cast<uint16_t>(n));
    WriteVarInt<VarIntMode::Unsigned, uint32_t>(s, static_cast<uint32_t>(n));
    WriteVarInt<VarIntMode::Unsigned, uint64_t>(s, n);
    WriteVarInt<VarIntMode::NonNegativeSigned, int8_t>(s, static_cast<int8_t>(i));
    WriteVarInt<VarIntMode::NonNegativeSigned, int16_t>(s, static_cast<int16_t>(i));
    WriteVarInt<VarIntMode::NonNegativeSigned, int32_t>(s, static_cast<int32_t>(i));
    WriteVarInt<VarIntMode::NonNegativeSigned, int64_t>(s, i);
    ser_writedata8(s, static_cast<uint8_t>(n));
    ser_writedata16(s, static_cast<uint16_t>(n));
    ser_writedata32(s, static_cast<uint32_t>(n));
    ser_writedata64(s, n);
    ser_writedata16be(s, static_cast<uint16_t>(n));
    ser_writedata32be(s, static_cast<uint32_t>(n));
    ser_writedata64be(s, n);
}

template <typename S>
uint64_t read_all(S& s, model::Transaction& tx, std::string& text, uint64_t& n, int64_t& i)
{
    read_wrapped(s, TxWithWitness{tx, true});
    read_wrapped(s, TxWithWitness{tx, false});
    read_wrapped(s, Using<LimitedStringFormatter<256>>(text));
    read_wrapped(s, LimitedString<256>(text));
    read_wrapped(s, Using<VarIntFormatter<VarIntMode::Unsigned>>(n));
    read_wrapped(s, Using<VarIntFormatter<VarIntMode::NonNegativeSigned>>(i));
    read_wrapped(s, Using<CompactSizeFormatter<true>>(n));
    read_wrapped(s, Using<CompactSizeFormatter<false>>(n));
    read_wrapped(s, Using<CustomUintFormatter<1>>(n));
    read_wrapped(s, Using<CustomUintFormatter<2, true>>(n));
    read_wrapped(s, Using<CustomUintFormatter<3>>(n));
    read_wrapped(s, Using<CustomUintFormatter<6, true>>(n));
    read_wrapped(s, Using<CustomUintFormatter<8>>(n));
    read_wrapped(s, Using<TransactionFormatter<true>>(tx));
    read_wrapped(s, Using<TransactionFormatter<false>>(tx));
    uint64_t sum = ReadCompactSize(s) + ReadCompactSize(s, false);
    sum += ReadVarInt<VarIntMode::Unsigned, uint8_t>(s) + ReadVarInt<VarIntMode::Unsigned, uint16_t>(s)
           + ReadVarInt<VarIntMode::Unsigned, uint32_t>(s) + ReadVarInt<VarIntMode::Unsigned, uint64_t>(s);
    sum += static_cast<uint64_t>(ReadVarInt<VarIntMode::NonNegativeSigned, int8_t>(s)
                                 + ReadVarInt<VarIntMode::NonNegativeSigned, int16_t>(s)
                                 + ReadVarInt<VarIntMode::NonNegativeSigned, int32_t>(s)
                                 + ReadVarInt<VarIntMode::NonNegativeSigned, int64_t>(s));
    sum += ser_readdata8(s) + ser_readdata16(s) + ser_readdata32(s) + ser_readdata64(s) + ser_readdata16be(s)
           + ser_readdata32be(s) + ser_readdata64be(s);
    return sum;
}

size_t sizes(const model::Transaction& tx, uint64_t n, int64_t i)
{
    return size_of(TxWithWitness{tx, true}) + size_of(TxWithWitness{tx, false}) + GetSizeOfCompactSize(n)
           + GetSizeOfVarInt(n) + GetSizeOfVarInt<VarIntMode::NonNegativeSigned>(i)
           + GetSizeOfVarInt(static_cast<uint8_t>(n)) + GetSizeOfVarInt(static_cast<uint16_t>(n))
           + GetSizeOfVarInt(static_cast<uint32_t>(n));
}

// Every model type, the containers, the smart pointers, the prevectors and spans (aliases: a macro argument cannot
// hold a comma).
using Bytes4 = std::array<uint8_t, 4>;
using Shorts3 = std::array<uint16_t, 3>;
using Pair = std::pair<uint8_t, uint64_t>;
using Map = std::map<uint32_t, std::string>;
using ScriptBytes = prevector<28, uint8_t>;
using Words = prevector<3, uint32_t>;
using ByteSpan = std::span<const uint8_t>;
using HashSpan = std::span<const uint8_t, 32>;
using WritableSpan = std::span<uint8_t>;
using WritableHashSpan = std::span<uint8_t, 32>;
#define SERDIFF_INSTANTIATION_VALUES(X)                                                                           \
    X(uint256) X(OutPoint) X(TxIn) X(TxOut) X(WitnessStack) X(BlockHeader) X(Block) X(BlockLocator) X(Coin)       \
    X(TxUndo) X(BlockUndo) X(Script) X(std::string) X(std::vector<uint8_t>) X(std::vector<uint32_t>)              \
    X(std::vector<uint256>) X(std::vector<std::vector<uint8_t>>) X(std::vector<Script>) X(Bytes4) X(Shorts3)     \
    X(Pair) X(Map) X(std::set<uint64_t>) X(std::unique_ptr<uint32_t>) X(std::shared_ptr<uint32_t>)               \
    X(ScriptBytes) X(Words) X(uint8_t) X(int8_t) X(uint16_t) X(int16_t) X(uint32_t) X(int32_t) X(uint64_t)       \
    X(int64_t) X(char)

#define SERDIFF_WRITERS(X, T) X(DataStream, T) X(VectorWriter, T) X(SpanWriter, T) X(SizeComputer, T) X(AutoFile, T) \
    X(BufferedWriter, T)
#define SERDIFF_READERS(X, T) X(DataStream, T) X(SpanReader, T) X(AutoFile, T) X(BufferedReader, T)

#define SERDIFF_WRITE_ONE(S, T) template void write_one<S, T>(S&, const T&);
#define SERDIFF_READ_ONE(S, T) template void read_one<S, T>(S&, T&);
#define SERDIFF_BOTH(T) SERDIFF_WRITERS(SERDIFF_WRITE_ONE, T) SERDIFF_READERS(SERDIFF_READ_ONE, T) \
    template size_t size_of<T>(const T&);
SERDIFF_INSTANTIATION_VALUES(SERDIFF_BOTH)

// Raw spans (no length prefix), dynamic and static extents.
#define SERDIFF_SPAN_WRITE(S, T) template void write_one<S, ByteSpan>(S&, const ByteSpan&); \
    template void write_one<S, HashSpan>(S&, const HashSpan&);
#define SERDIFF_SPAN_READ(S, T) template void read_one<S, WritableSpan>(S&, WritableSpan&); \
    template void read_one<S, WritableHashSpan>(S&, WritableHashSpan&);
SERDIFF_WRITERS(SERDIFF_SPAN_WRITE, void)
SERDIFF_READERS(SERDIFF_SPAN_READ, void)

#define SERDIFF_WRITE_ALL(S, T) template void write_all<S>(S&, const model::Transaction&, const std::string&, \
                                                           uint64_t, int64_t);
#define SERDIFF_READ_ALL(S, T) template uint64_t read_all<S>(S&, model::Transaction&, std::string&, uint64_t&, \
                                                            int64_t&);
SERDIFF_WRITERS(SERDIFF_WRITE_ALL, void)
SERDIFF_READERS(SERDIFF_READ_ALL, void)

// ---- the record layer's writer templates, compression, obfuscation -------------------------------------------
uint64_t records(AutoFile& file, BufferedWriter& buffered, const NetworkMagic& magic, std::span<const uint8_t> bytes,
                 const Block& block, const uint256& checksum_hash)
{
    return write_block_record(file, magic, bytes) + write_block_record(file, magic, block)
           + write_undo_record(file, magic, bytes, checksum_hash) + write_block_record(buffered, magic, bytes)
           + write_block_record(buffered, magic, block) + write_undo_record(buffered, magic, bytes, checksum_hash);
}

uint64_t compression(uint64_t amount, std::span<const uint8_t> script, CompressedScript& out, unsigned tag,
                     Script& decompressed)
{
    DecompressScript(tag, script, decompressed);
    return CompressAmount(amount) + DecompressAmount(amount) + CompressScript(script, out)
           + special_script_payload_size(tag);
}

bool obfuscation(std::span<std::byte> data, uint64_t offset, const ObfuscationKey& key)
{
    obfuscate(data, offset, key);
    return is_zero_key(key);
}

}  // namespace serdiff::mutate_instantiate
