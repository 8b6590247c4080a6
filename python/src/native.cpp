// serdiff._native: nanobind bindings of the optimized and reference codecs, converting to and from serdiff.model.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "differential/reference/reference.h"
#include "model/decoded.h"
#include "model/json.h"
#include "model/model.h"
#include "serialize/codec.h"
#include "serialize/planted.h"
#include "stream_programs.h"

namespace nb = nanobind;
using serdiff::model::Bytes;

namespace {

// The Python model classes, looked up once; C++ values are built into them and read back from them.
struct PythonModel {
    nb::object out_point, tx_in, tx_out, transaction, block_header, block, block_locator, coin, tx_undo, block_undo,
        decoded;
};

PythonModel& python_model()
{
    // Leaked on purpose: Python objects must not be released by a C++ static destructor after finalization.
    static PythonModel* classes = [] {
        nb::module_ module = nb::module_::import_("serdiff.model");
        return new PythonModel{module.attr("OutPoint"),    module.attr("TxIn"),        module.attr("TxOut"),
                           module.attr("Transaction"), module.attr("BlockHeader"), module.attr("Block"),
                           module.attr("BlockLocator"), module.attr("Coin"),       module.attr("TxUndo"),
                           module.attr("BlockUndo"),   module.attr("Decoded")};
    }();
    return *classes;
}

// --- Python -> C++ ---

Bytes bytes_from(nb::handle object)
{
    auto data = nb::cast<nb::bytes>(object);
    const auto* begin = static_cast<const uint8_t*>(data.data());
    return Bytes(begin, begin + data.size());
}

std::span<const uint8_t> view_of(const nb::bytes& data)
{
    return {static_cast<const uint8_t*>(data.data()), data.size()};
}

serdiff::model::uint256 hash_from(nb::handle object)
{
    const Bytes bytes = bytes_from(object);
    if (bytes.size() != 32) throw nb::value_error("a hash must be exactly 32 bytes");
    serdiff::model::uint256 hash;
    std::copy(bytes.begin(), bytes.end(), hash.bytes.begin());
    return hash;
}

template <typename T>
T field(nb::handle object, const char* name)
{
    return nb::cast<T>(object.attr(name));
}

serdiff::model::TxOut tx_out_from(nb::handle object)
{
    return {field<int64_t>(object, "value"), bytes_from(object.attr("script_pubkey"))};
}

serdiff::model::Transaction transaction_from(nb::handle object)
{
    serdiff::model::Transaction tx;
    tx.version = field<uint32_t>(object, "version");
    for (nb::handle input : object.attr("inputs")) {
        serdiff::model::TxIn in;
        nb::object prevout = input.attr("prevout");
        in.prevout.hash = hash_from(prevout.attr("hash"));
        in.prevout.n = field<uint32_t>(prevout, "n");
        in.script_sig = bytes_from(input.attr("script_sig"));
        in.sequence = field<uint32_t>(input, "sequence");
        for (nb::handle item : input.attr("witness")) in.witness.push_back(bytes_from(item));
        tx.inputs.push_back(std::move(in));
    }
    for (nb::handle output : object.attr("outputs")) tx.outputs.push_back(tx_out_from(output));
    tx.lock_time = field<uint32_t>(object, "lock_time");
    return tx;
}

serdiff::model::BlockHeader header_from(nb::handle object)
{
    return {field<int32_t>(object, "version"), hash_from(object.attr("prev_block")),
            hash_from(object.attr("merkle_root")), field<uint32_t>(object, "time"),
            field<uint32_t>(object, "bits"),       field<uint32_t>(object, "nonce")};
}

serdiff::model::Block block_from(nb::handle object)
{
    serdiff::model::Block block;
    block.header = header_from(object.attr("header"));
    for (nb::handle tx : object.attr("transactions")) block.transactions.push_back(transaction_from(tx));
    return block;
}

serdiff::model::BlockLocator locator_from(nb::handle object)
{
    serdiff::model::BlockLocator locator;
    locator.version = field<int32_t>(object, "version");
    for (nb::handle hash : object.attr("have")) locator.have.push_back(hash_from(hash));
    return locator;
}

serdiff::model::BlockUndo block_undo_from(nb::handle object)
{
    serdiff::model::BlockUndo undo;
    for (nb::handle tx_undo : object.attr("txundo")) {
        serdiff::model::TxUndo converted;
        for (nb::handle coin : tx_undo.attr("prevouts")) {
            const auto height = field<uint32_t>(coin, "height");
            if (height >= 0x8000'0000u) throw nb::value_error("a coin height has 31 bits");
            converted.prevouts.push_back({tx_out_from(coin.attr("out")), height, field<bool>(coin, "coinbase")});
        }
        undo.txundo.push_back(std::move(converted));
    }
    return undo;
}

serdiff::model::IntKind int_kind_from(std::string_view name)
{
    using serdiff::model::IntKind;
    for (IntKind kind : serdiff::model::kAllIntKinds)
        if (name == serdiff::model::int_kind_name(kind)) return kind;
    throw nb::value_error("unknown integer kind (expected u8 u16 u32 u64 i8 i16 i32 i64)");
}

void require_fits(uint64_t value, serdiff::model::IntKind kind)
{
    const int bits = 8 * serdiff::model::int_kind_bytes(kind) - (serdiff::model::int_kind_signed(kind) ? 1 : 0);
    if (bits < 64 && value >> bits != 0) throw nb::value_error("VarInt value does not fit its integer kind");
}

// --- C++ -> Python ---

nb::bytes to_python(std::span<const uint8_t> bytes) { return nb::bytes(bytes.data(), bytes.size()); }
nb::bytes to_python(const serdiff::model::uint256& hash) { return nb::bytes(hash.bytes.data(), hash.bytes.size()); }

template <typename Range, typename Convert>
nb::tuple tuple_of(const Range& range, Convert convert)
{
    nb::list list;
    for (const auto& element : range) list.append(convert(element));
    return nb::tuple(list);
}

nb::object to_python(const serdiff::model::TxOut& out)
{
    return python_model().tx_out(nb::int_(out.value), to_python(out.script_pubkey));
}

nb::object to_python(const serdiff::model::Transaction& tx)
{
    const PythonModel& classes = python_model();
    nb::tuple inputs = tuple_of(tx.inputs, [&](const serdiff::model::TxIn& in) {
        nb::object prevout = classes.out_point(to_python(in.prevout.hash), nb::int_(in.prevout.n));
        return classes.tx_in(prevout, to_python(in.script_sig), nb::int_(in.sequence),
                             tuple_of(in.witness, [](serdiff::model::WitnessStack::Item item) { return to_python(item); }));
    });
    nb::tuple outputs = tuple_of(tx.outputs, [](const serdiff::model::TxOut& out) { return to_python(out); });
    return classes.transaction(nb::int_(tx.version), inputs, outputs, nb::int_(tx.lock_time));
}

nb::object to_python(const serdiff::model::BlockHeader& header)
{
    return python_model().block_header(nb::int_(header.version), to_python(header.prev_block),
                                       to_python(header.merkle_root), nb::int_(header.time), nb::int_(header.bits),
                                       nb::int_(header.nonce));
}

nb::object to_python(const serdiff::model::Block& block)
{
    return python_model().block(to_python(block.header), tuple_of(block.transactions, [](const auto& tx) {
                                    return to_python(tx);
                                }));
}

nb::object to_python(const serdiff::model::BlockLocator& locator)
{
    return python_model().block_locator(nb::int_(locator.version), tuple_of(locator.have, [](const auto& hash) {
                                            return to_python(hash);
                                        }));
}

nb::object to_python(const serdiff::model::BlockUndo& undo)
{
    const PythonModel& classes = python_model();
    return classes.block_undo(tuple_of(undo.txundo, [&](const serdiff::model::TxUndo& tx_undo) {
        return classes.tx_undo(tuple_of(tx_undo.prevouts, [&](const serdiff::model::Coin& coin) {
            return classes.coin(to_python(coin.out), nb::int_(coin.height), nb::bool_(coin.coinbase));
        }));
    }));
}

nb::object to_python(uint64_t value) { return nb::int_(value); }

template <typename T>
nb::object decoded_to_python(const serdiff::model::Decoded<T>& decoded)
{
    nb::object value = decoded.ok ? nb::object(to_python(decoded.value)) : nb::none();
    return python_model().decoded(nb::bool_(decoded.ok), nb::str(decoded.error.c_str()),
                                  nb::int_(decoded.ok ? decoded.consumed : 0), value);
}

// A model value from its serdiff.model object, for the types the Python model has a class for. A type of the
// codec table without one is still bound, at the bytes level (decode_<stem> gives its value as JSON text).
template <typename T>
struct PythonValue;
template <>
struct PythonValue<serdiff::model::BlockHeader> {
    static serdiff::model::BlockHeader from(nb::handle object) { return header_from(object); }
};
template <>
struct PythonValue<serdiff::model::Block> {
    static serdiff::model::Block from(nb::handle object) { return block_from(object); }
};
template <>
struct PythonValue<serdiff::model::BlockLocator> {
    static serdiff::model::BlockLocator from(nb::handle object) { return locator_from(object); }
};
template <>
struct PythonValue<serdiff::model::BlockUndo> {
    static serdiff::model::BlockUndo from(nb::handle object) { return block_undo_from(object); }
};
template <typename T>
concept HasPythonClass = requires(nb::handle object) { PythonValue<T>::from(object); };

// One object type of the table: encode_<stem>/decode_<stem>/size_<stem> on serdiff.model values, or, for a type
// without a Python class, decode_<stem> with the value as JSON text.
template <typename T>
void bind_object_codec(nb::module_ module, const std::string& stem, const serdiff::model::ObjectCodec<T>& codec)
{
    if constexpr (HasPythonClass<T>) {
        module.def(("encode_" + stem).c_str(),
                   [&codec](nb::handle value) { return to_python(codec.encode(PythonValue<T>::from(value))); });
        module.def(("decode_" + stem).c_str(),
                   [&codec](nb::bytes data) { return decoded_to_python(codec.decode(view_of(data))); });
        if (codec.size)
            module.def(("size_" + stem).c_str(),
                       [&codec](nb::handle value) { return codec.size(PythonValue<T>::from(value)); });
    } else {
        module.def(("decode_" + stem).c_str(), [&codec](nb::bytes data) {
            const serdiff::model::Decoded<T> decoded = codec.decode(view_of(data));
            nb::object value = decoded.ok ? nb::object(nb::str(serdiff::model::to_json(decoded.value).c_str())) : nb::none();
            return python_model().decoded(nb::bool_(decoded.ok), nb::str(decoded.error.c_str()),
                                          nb::int_(decoded.ok ? decoded.consumed : 0), value);
        });
    }
}

// One side's codec table (model/codec_table.h) as Python functions: encode_<stem>, decode_<stem>, and on the
// optimized side size_<stem> (the SizeComputer).
void bind_codec(nb::module_ module, const serdiff::model::CodecTable& codec)
{
    module.def("encode_compactsize", [&codec](uint64_t value) { return to_python(codec.encode_compact_size(value)); });
    module.def(
        "decode_compactsize",
        [&codec](nb::bytes data, bool range_check) {
            return decoded_to_python(codec.decode_compact_size(view_of(data), range_check));
        },
        nb::arg("data"), nb::arg("range_check") = true);
    module.def("encode_varint", [&codec](uint64_t value, std::string_view kind_name) {
        const serdiff::model::IntKind kind = int_kind_from(kind_name);
        require_fits(value, kind);
        return to_python(codec.encode_varint(value, kind));
    });
    module.def("decode_varint", [&codec](nb::bytes data, std::string_view kind_name) {
        return decoded_to_python(codec.decode_varint(view_of(data), int_kind_from(kind_name)));
    });
    module.def("encode_transaction", [&codec](nb::handle tx, bool allow_witness) {
        return to_python(codec.transaction.encode(transaction_from(tx), allow_witness));
    });
    module.def("decode_transaction", [&codec](nb::bytes data, bool allow_witness) {
        return decoded_to_python(codec.transaction.decode(view_of(data), allow_witness));
    });
    if (codec.transaction.size)
        module.def("size_transaction", [&codec](nb::handle tx, bool allow_witness) {
            return codec.transaction.size(transaction_from(tx), allow_witness);
        });
#define SERDIFF_BIND_OBJECT_CODEC(name, Type, stem) bind_object_codec(module, #stem, codec.name);
    SERDIFF_OBJECT_TYPES(SERDIFF_BIND_OBJECT_CODEC)
#undef SERDIFF_BIND_OBJECT_CODEC
}

}  // namespace

NB_MODULE(_native, module)
{
    module.doc() = "serdiff's optimized and reference codecs, on serdiff.model values";
#ifdef SERDIFF_PLANTED_BUG
    module.attr("planted_bug") = nb::str(kSerdiffPlantedBug.data(), kSerdiffPlantedBug.size());
#else
    module.attr("planted_bug") = nb::none();
#endif

    namespace optimized = serdiff::optimized;
    nb::module_ optimized_module = module.def_submodule("optimized", "the optimized serializer (serialize/)");
    bind_codec(optimized_module, optimized::codec_table());

    namespace reference = serdiff::reference;
    nb::module_ reference_module =
        module.def_submodule("reference", "the reference codec (differential/reference/)");
    bind_codec(reference_module, reference::codec_table());

    bind_stream_programs(optimized_module, reference_module);
    bind_fuzz_stream_programs(module);
}
