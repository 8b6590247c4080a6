// make mutate SUBJECT=core's instantiation unit (docs/mutation.md, "Equivalence"; the serdiff subject's is
// tools/mutate/instantiate.cpp): compiled ONLY by tools/mutate/mutate.py's trivial-compiler-equivalence step, with the
// command line of a Core-subject unit, never part of a binary. It instantiates the public templates and members of
// the Core files make mutate SUBJECT=core mutates (serialize.h, streams.h, prevector.h, util/obfuscation.h, undo.h,
// primitives/transaction.h, primitives/block.h) for the types Core serializes, so that a mutant of code no fuzz unit
// instantiates (BufferedFile, BitStreamReader, a comparison operator nobody calls) still changes an object file:
// here. Such a mutant is "survived (not reached)", reach "instantiation-only", never equivalent.
//
// Every function has external linkage and takes its inputs by reference, so nothing is optimized away; explicit
// instantiation definitions are always emitted, and so is every inline member the functions below call. The probes
// of subjects/core/probe.cmake (SERDIFF_CORE_HAS_*) leave out what an older tree lacks.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <compressor.h>
#include <prevector.h>
#include <primitives/block.h>
#include <primitives/transaction.h>
#include <serialize.h>
#include <streams.h>
#include <undo.h>
#include <util/golombrice.h>
#if SERDIFF_CORE_HAS_OBFUSCATION
#include <util/obfuscation.h>
#endif

// ---- class templates: every non-template member ------------------------------------------------------------------
template class prevector<28, unsigned char>;  // CScript's bytes
template class prevector<3, uint32_t>;        // the prevector target's second instance
template class prevector<16, uint8_t>;        // another inline size: the size arithmetic at other N
template class BitStreamReader<DataStream>;
template class BitStreamReader<SpanReader>;
template class BitStreamWriter<DataStream>;
template class BitStreamWriter<VectorWriter>;
#if SERDIFF_CORE_HAS_BUFFERED_FILES
template class BufferedReader<AutoFile>;
template class BufferedWriter<AutoFile>;
#endif

namespace serdiff_instantiate_core {

// ---- inline members of the classes that are not templates: each called here ---------------------------------------

// BufferedFile (LoadExternalBlockFile's reader: -reindex, -loadblock), taken whole.
void buffered_file(AutoFile& file, uint64_t size, uint64_t rewind, std::vector<std::byte>& out, uint8_t byte,
                   uint64_t position, uint64_t limit, uint32_t& value)
{
    BufferedFile reader{file, size, rewind};
    reader.SetLimit(limit);
    reader.read(out);
    reader.SkipTo(position);
    reader.SetPos(position);
    reader.FindByte(std::byte{byte});
    reader >> value;
    out.push_back(std::byte(reader.GetPos() + reader.eof()));
    reader.SetLimit();
}

// BitStreamReader/Writer and the Golomb-Rice coding (BIP 158 block filters).
uint64_t bit_streams(DataStream& stream, SpanReader& span, VectorWriter& vector_writer, uint64_t value, int nbits,
                     uint8_t parameter)
{
    {
        BitStreamWriter<DataStream> writer{stream};
        writer.Write(value, nbits);
        GolombRiceEncode(writer, parameter, value);
        writer.Flush();
    }
    {
        BitStreamWriter<VectorWriter> writer{vector_writer};
        GolombRiceEncode(writer, parameter, value);
    }
    BitStreamReader<DataStream> reader{stream};
    BitStreamReader<SpanReader> span_reader{span};
    return reader.Read(nbits) + GolombRiceDecode(reader, parameter) + GolombRiceDecode(span_reader, parameter);
}

// DataStream's public surface, SpanReader's, VectorWriter's, SpanWriter's (members a tree lacks are left out by their
// requires-expressions: DataStream lost several between 28.99 and 31.99).
// (A template, explicitly instantiated below, so that a member a tree lacks makes its requires-expression false
// instead of an error.)
template <typename Stream, typename Reader>
size_t streams(Stream& stream, const Stream& other, Reader& span, std::vector<unsigned char>& bytes, size_t position,
               std::vector<std::byte>& out)
{
    size_t sum = stream.size() + stream.empty() + other.size();
    if constexpr (requires { stream.GetMemoryUsage(); }) sum += stream.GetMemoryUsage();
    if constexpr (requires { stream.in_avail(); }) sum += stream.in_avail();
    if constexpr (requires { stream.Compact(); }) stream.Compact();
    if constexpr (requires { stream.Rewind(position); }) sum += stream.Rewind(position);
    if constexpr (requires { stream.eof(); }) sum += stream.eof();
    sum += static_cast<size_t>(stream[position]) + static_cast<size_t>(other[position]);
    stream.resize(position);
    stream.reserve(position);
    if constexpr (requires { stream.insert(stream.begin(), out.begin(), out.end()); }) {
        stream.insert(stream.begin(), out.begin(), out.end());
    }
    if constexpr (requires { stream.erase(stream.begin()); }) {
        stream.erase(stream.begin());
        stream.erase(stream.begin(), stream.begin() + 1);
    }
    sum += static_cast<size_t>(*stream.data()) + static_cast<size_t>(*other.begin()) +
           static_cast<size_t>(*(other.end() - 1));
    stream.ignore(position);
    stream.read(out);
    stream.write(out);
    stream.clear();
    span.read(out);
    if constexpr (requires { span.ignore(position); }) span.ignore(position);
    sum += span.size() + span.empty();
    VectorWriter writer{bytes, position};
    writer.write(out);
    writer << uint8_t{1};
#if SERDIFF_CORE_HAS_SPAN_WRITER
    SpanWriter span_writer{out};
    span_writer.write(out);
    span_writer << uint8_t{1};
#endif
    return sum;
}
template size_t streams(DataStream&, const DataStream&, SpanReader&, std::vector<unsigned char>&, size_t,
                        std::vector<std::byte>&);

// AutoFile's inline members.
size_t auto_file(AutoFile& file, std::vector<std::byte>& out, int64_t position)
{
    size_t sum = file.IsNull() + file.feof();
    file.read(out);
    file.write(out);
    file.ignore(out.size());
    file.seek(position, SEEK_SET);
    sum += static_cast<size_t>(file.tell());
    file >> out;
    file << out;
    return sum;
}

// The transaction and block value types: comparisons, IsNull, SetNull, CalculateOutputValue, constructors.
template <typename Transaction, typename Block>
int64_t values(const COutPoint& a, const COutPoint& b, const CTxIn& in_a, const CTxIn& in_b, const CTxOut& out_a,
               const CTxOut& out_b, const Transaction& tx, const CMutableTransaction& mtx, CBlockHeader& header,
               Block& block, CBlockLocator& locator, DataStream& stream)
{
    int64_t sum = (a == b) + (a != b) + (a < b) + a.IsNull();
    sum += (in_a == in_b) + (in_a != in_b) + (out_a == out_b) + (out_a != out_b) + out_a.IsNull();
    sum += tx.GetValueOut() + tx.IsCoinBase() + tx.HasWitness() + mtx.HasWitness() + (tx == Transaction{mtx}) +
           (tx != Transaction{mtx});
    if constexpr (requires { tx.GetTotalSize(); }) sum += static_cast<int64_t>(tx.GetTotalSize());
    COutPoint copy{a};
    copy.SetNull();
    CTxOut out_copy{out_a};
    out_copy.SetNull();
    sum += copy.IsNull() + out_copy.IsNull() + static_cast<int64_t>(CTxIn::SEQUENCE_FINAL) +
           static_cast<int64_t>(CTxIn::SEQUENCE_LOCKTIME_DISABLE_FLAG) +
           static_cast<int64_t>(CTxIn::SEQUENCE_LOCKTIME_TYPE_FLAG) + CTxIn::SEQUENCE_LOCKTIME_MASK;
    Transaction from_stream{deserialize, TX_WITH_WITNESS, stream};
    CMutableTransaction mutable_from_stream{deserialize, TX_NO_WITNESS, stream};
    sum += from_stream.IsNull() + static_cast<int64_t>(mutable_from_stream.vin.size());
    sum += header.IsNull() + block.IsNull() + locator.IsNull() + static_cast<int64_t>(header.GetBlockTime());
    header.SetNull();
    block.SetNull();
    locator.SetNull();
    if constexpr (requires { block.GetBlockHeader(); }) sum += static_cast<int64_t>(block.GetBlockHeader().nTime);
    return sum;
}
template int64_t values(const COutPoint&, const COutPoint&, const CTxIn&, const CTxIn&, const CTxOut&, const CTxOut&,
                        const CTransaction&, const CMutableTransaction&, CBlockHeader&, CBlock&, CBlockLocator&,
                        DataStream&);

// serialize.h's function templates through every stream the fuzz targets and Core's callers use.
template <typename Stream>
void serialize_all(Stream& s, const CTransaction& tx, const CBlock& block, const CBlockUndo& undo,
                   const CBlockLocator& locator, const std::vector<unsigned char>& bytes, const std::string& text,
                   const std::map<uint32_t, uint64_t>& map, const std::set<uint64_t>& set,
                   const std::pair<int32_t, uint16_t>& pair, const prevector<28, unsigned char>& pv, uint64_t value)
{
    s << TX_WITH_WITNESS(tx) << TX_NO_WITNESS(tx) << TX_WITH_WITNESS(block) << undo << locator << bytes << text << map
      << set << pair << pv;
    WriteCompactSize(s, value);
    s << VARINT(value) << VARINT(static_cast<uint32_t>(value)) << VARINT_MODE(static_cast<int64_t>(value), VarIntMode::NONNEGATIVE_SIGNED);
    s << Using<CompactSizeFormatter<false>>(value) << Using<CompactSizeFormatter<true>>(value);
    s << Using<CustomUintFormatter<1>>(static_cast<uint8_t>(value)) << Using<CustomUintFormatter<3>>(static_cast<uint32_t>(value))
      << Using<CustomUintFormatter<8, true>>(value);
    s << Using<AmountCompression>(static_cast<int64_t>(value));
    s << LIMITED_STRING(text, 100);
}

template <typename Stream>
void unserialize_all(Stream& s, CMutableTransaction& tx, CBlock& block, CBlockUndo& undo, CBlockLocator& locator,
                     std::vector<unsigned char>& bytes, std::string& text, std::map<uint32_t, uint64_t>& map,
                     std::set<uint64_t>& set, std::pair<int32_t, uint16_t>& pair, prevector<28, unsigned char>& pv,
                     uint64_t& value, uint32_t& narrow, int64_t& wide)
{
    s >> TX_WITH_WITNESS(tx) >> TX_NO_WITNESS(tx) >> TX_WITH_WITNESS(block) >> locator >> bytes >> text >> map >> set
      >> pair >> pv;
    if constexpr (requires { s.ignore(size_t{1}); }) s >> undo;  // an oversized compressed script is skipped
    value = ReadCompactSize(s) + ReadCompactSize(s, false);
    s >> VARINT(value) >> VARINT(narrow) >> VARINT_MODE(wide, VarIntMode::NONNEGATIVE_SIGNED);
    s >> Using<CompactSizeFormatter<false>>(value) >> Using<CompactSizeFormatter<true>>(narrow);
    s >> Using<CustomUintFormatter<3>>(narrow) >> Using<CustomUintFormatter<8, true>>(value);
    s >> Using<AmountCompression>(wide);
    s >> LIMITED_STRING(text, 100);
}

template void serialize_all(DataStream&, const CTransaction&, const CBlock&, const CBlockUndo&, const CBlockLocator&,
                            const std::vector<unsigned char>&, const std::string&, const std::map<uint32_t, uint64_t>&,
                            const std::set<uint64_t>&, const std::pair<int32_t, uint16_t>&,
                            const prevector<28, unsigned char>&, uint64_t);
template void serialize_all(VectorWriter&, const CTransaction&, const CBlock&, const CBlockUndo&, const CBlockLocator&,
                            const std::vector<unsigned char>&, const std::string&, const std::map<uint32_t, uint64_t>&,
                            const std::set<uint64_t>&, const std::pair<int32_t, uint16_t>&,
                            const prevector<28, unsigned char>&, uint64_t);
template void serialize_all(SizeComputer&, const CTransaction&, const CBlock&, const CBlockUndo&, const CBlockLocator&,
                            const std::vector<unsigned char>&, const std::string&, const std::map<uint32_t, uint64_t>&,
                            const std::set<uint64_t>&, const std::pair<int32_t, uint16_t>&,
                            const prevector<28, unsigned char>&, uint64_t);
template void serialize_all(AutoFile&, const CTransaction&, const CBlock&, const CBlockUndo&, const CBlockLocator&,
                            const std::vector<unsigned char>&, const std::string&, const std::map<uint32_t, uint64_t>&,
                            const std::set<uint64_t>&, const std::pair<int32_t, uint16_t>&,
                            const prevector<28, unsigned char>&, uint64_t);
template void unserialize_all(DataStream&, CMutableTransaction&, CBlock&, CBlockUndo&, CBlockLocator&,
                              std::vector<unsigned char>&, std::string&, std::map<uint32_t, uint64_t>&,
                              std::set<uint64_t>&, std::pair<int32_t, uint16_t>&, prevector<28, unsigned char>&,
                              uint64_t&, uint32_t&, int64_t&);
template void unserialize_all(SpanReader&, CMutableTransaction&, CBlock&, CBlockUndo&, CBlockLocator&,
                              std::vector<unsigned char>&, std::string&, std::map<uint32_t, uint64_t>&,
                              std::set<uint64_t>&, std::pair<int32_t, uint16_t>&, prevector<28, unsigned char>&,
                              uint64_t&, uint32_t&, int64_t&);
template void unserialize_all(AutoFile&, CMutableTransaction&, CBlock&, CBlockUndo&, CBlockLocator&,
                              std::vector<unsigned char>&, std::string&, std::map<uint32_t, uint64_t>&,
                              std::set<uint64_t>&, std::pair<int32_t, uint16_t>&, prevector<28, unsigned char>&,
                              uint64_t&, uint32_t&, int64_t&);
template void unserialize_all(BufferedFile&, CMutableTransaction&, CBlock&, CBlockUndo&, CBlockLocator&,
                              std::vector<unsigned char>&, std::string&, std::map<uint32_t, uint64_t>&,
                              std::set<uint64_t>&, std::pair<int32_t, uint16_t>&, prevector<28, unsigned char>&,
                              uint64_t&, uint32_t&, int64_t&);

// The sizes: GetSerializeSize and GetSizeOfCompactSize/VarInt at every integer kind.
size_t sizes(const CTransaction& tx, const CBlock& block, const CBlockUndo& undo, uint64_t value)
{
    return GetSerializeSize(TX_WITH_WITNESS(tx)) + GetSerializeSize(TX_NO_WITNESS(block)) + GetSerializeSize(undo) +
           GetSizeOfCompactSize(value) + GetSizeOfVarInt<VarIntMode::DEFAULT>(value) +
           GetSizeOfVarInt<VarIntMode::DEFAULT>(static_cast<uint32_t>(value)) +
           GetSizeOfVarInt<VarIntMode::DEFAULT>(static_cast<uint16_t>(value)) +
           GetSizeOfVarInt<VarIntMode::DEFAULT>(static_cast<uint8_t>(value)) +
           GetSizeOfVarInt<VarIntMode::NONNEGATIVE_SIGNED>(static_cast<int64_t>(value)) +
           GetSizeOfVarInt<VarIntMode::NONNEGATIVE_SIGNED>(static_cast<int32_t>(value));
}

#if SERDIFF_CORE_HAS_OBFUSCATION
// Obfuscation's members: the key's hex form, its serialization, the XOR at an offset.
std::string obfuscation(Obfuscation& key, std::vector<std::byte>& bytes, size_t offset, DataStream& stream)
{
    key(bytes, offset);
    stream << key;
    stream >> key;
    return key.HexKey() + static_cast<char>(bool(key));
}
#endif

}  // namespace serdiff_instantiate_core
