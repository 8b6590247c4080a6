// `serdiff inspect`: decode one object with the optimized and/or reference implementation and print
// what each made of it as one JSON object, plus whether they agree.
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "differential/reference/reference.h"
#ifdef SERDIFF_WITH_PEERS
#include "differential/oracles/divergences.h"
#include "differential/oracles/peers.h"
#endif
#include "model/json.h"
#include "model/model.h"
#include "serialize/codec.h"
#include "tools/serdiff/commands.h"

namespace serdiff::cli {
namespace {

constexpr int kExitAgreeOk = 0;
constexpr int kExitDecodeError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitDisagree = 3;
constexpr int kExitPeerDivergence = 4;

constexpr const char* kInspectUsage =
    "usage: serdiff inspect TYPE [--impl optimized|reference|both|all] [--int KIND] [--no-range-check]\n"
    "                            [--hex HEX | FILE | -]\n"
    "\n"
    "Decodes one object and prints one JSON object: ok, error (when not ok), consumed,\n"
    "reencoded_hex, size, value. With --impl both (the default) it prints\n"
    "{\"optimized\": {...}, \"reference\": {...}, \"agree\": bool, \"difference\": \"first field that differs\"}.\n"
    "\n"
    "TYPE              compactsize varint tx tx-nowitness header block locator blockundo\n"
    "--impl IMPL       optimized, reference or both (default both); all (tx, tx-nowitness, block): both,\n"
    "                  plus every linked peer's verdict (bitcoin-core, rust-bitcoin, btcd, python-bitcoinlib) under\n"
    "                  \"peers\" (Bitcoin Core first; it has no message and no tx-nowitness mode),\n"
    "                  each with the allow-list entry that explains a divergence from the reference\n"
    "--int KIND        varint only: the integer type read into, u8 u16 u32 u64 i8 i16 i32 i64 (default u64)\n"
    "--no-range-check  compactsize only: accept values above MAX_SIZE (0x02000000)\n"
    "--hex HEX         the input as hex; FILE is read as raw bytes; - reads raw bytes from stdin\n"
    "\n"
    "size is the optimized SizeComputer result (the re-encoding's length for compactsize and varint,\n"
    "which have no SizeComputer entry point) and the reference re-encoding's length.\n"
    "Exit status: 0 decoded (and, with both, the implementations agree), 1 decoding error,\n"
    "2 bad usage or unreadable input, 3 the implementations disagree,\n"
    "4 (--impl all) a peer diverges from the reference with no allow-list entry explaining it.\n";

constexpr const char* kTypes[] = {"compactsize", "varint", "tx", "tx-nowitness",
                                  "header",      "block",  "locator", "blockundo"};
constexpr const char* kTypeList = "compactsize varint tx tx-nowitness header block locator blockundo";

// Bad command line or unreadable input: reported on stderr with exit status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Impl { Optimized, Reference, Both, All };

struct Options {
    std::string type;
    Impl impl = Impl::Both;
    model::IntKind int_kind = model::IntKind::U64;
    bool int_kind_given = false;
    bool range_check = true;
    model::Bytes input;
};

// One implementation's entry points for one type, so the inspect logic is written once.
template <typename T>
struct Codec {
    std::function<model::Decoded<T>(std::span<const uint8_t>)> decode;
    std::function<model::Bytes(const T&)> encode;
    // Receives the re-encoding too: sides without a SizeComputer entry point report its length.
    std::function<uint64_t(const T&, const model::Bytes& reencoded)> size;
};

// What one implementation made of the input.
template <typename T>
struct SideResult {
    bool ok = false;
    std::string error;
    size_t consumed = 0;
    model::Bytes reencoded;
    uint64_t size = 0;
    std::optional<T> value;
};

template <typename T>
std::string value_json(const T& value)
{
    if constexpr (std::is_same_v<T, uint64_t>) {
        return std::to_string(value);
    } else {
        return model::to_json(value);
    }
}

template <typename T>
SideResult<T> run_side(const Codec<T>& codec, std::span<const uint8_t> input)
{
    SideResult<T> result;
    // The facades report malformed input in Decoded; anything thrown is itself a finding to print.
    try {
        model::Decoded<T> decoded = codec.decode(input);
        result.ok = decoded.ok;
        result.error = decoded.error;
        if (decoded.ok) {
            result.consumed = decoded.consumed;
            result.reencoded = codec.encode(decoded.value);
            result.size = codec.size(decoded.value, result.reencoded);
            result.value = std::move(decoded.value);
        }
    } catch (const std::exception& e) {
        result = SideResult<T>{};
        result.error = std::string("unexpected exception: ") + e.what();
    }
    return result;
}

template <typename T>
std::string side_json(const SideResult<T>& side)
{
    std::string out = "{\"ok\":";
    out += side.ok ? "true" : "false";
    if (!side.ok) return out + ",\"error\":" + model::json_quote(side.error) + "}";
    out += ",\"consumed\":" + std::to_string(side.consumed);
    out += ",\"reencoded_hex\":\"" + model::to_hex(side.reencoded) + "\"";
    out += ",\"size\":" + std::to_string(side.size);
    out += ",\"value\":" + value_json(*side.value);
    return out + "}";
}

// The first field in which the two sides differ, or "" when they agree.
template <typename T>
std::string first_difference(const SideResult<T>& optimized, const SideResult<T>& reference)
{
    if (optimized.ok != reference.ok) return "ok";
    if (optimized.error != reference.error) return "error";
    if (!optimized.ok) return "";
    if (optimized.consumed != reference.consumed) return "consumed";
    if (!(*optimized.value == *reference.value)) return "value";
    if (optimized.reencoded != reference.reencoded) return "reencoded_hex";
    if (optimized.size != reference.size || optimized.size != optimized.reencoded.size()) return "size";
    return "";
}

void write_stdout(const std::string& text)
{
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

#ifdef SERDIFF_WITH_PEERS
// Every linked peer's verdict next to the reference's, with the allow-list entry that explains a divergence.
std::string peers_json(const Options& options, bool& unexplained)
{
    const bool is_block = options.type == "block";
    const oracles::ObjectKind kind = is_block ? oracles::ObjectKind::block : oracles::ObjectKind::transaction;
    const bool allow_witness = options.type != "tx-nowitness";
    const std::span<const uint8_t> input(options.input);
    const oracles::Verdict reference = oracles::reference_verdict(kind, input, allow_witness);
    std::string out = "{";
    bool first = true;
    for (const oracles::Peer& peer : oracles::linked_peers()) {
        const oracles::Verdict verdict = oracles::peer_verdict(peer, kind, input, allow_witness);
        const std::string disagreement = oracles::disagreement(reference, verdict);
        std::string explained_by;
        if (!disagreement.empty()) {
            const oracles::Observation observation{kind, allow_witness, input, peer.name, reference, verdict};
            const oracles::AllowedDivergence* entry = oracles::explain(observation);
            if (entry) {
                explained_by = std::string(entry->rule) + " (" + entry->upstream + ")";
            } else {
                unexplained = true;
            }
        }
        out += first ? "" : ",";
        first = false;
        out += model::json_quote(peer.name) + ":{\"version\":" + model::json_quote(peer.version) +
               ",\"verdict\":" + model::json_quote(oracles::describe(verdict)) +
               ",\"agrees_with_reference\":" + (disagreement.empty() ? "true" : "false") +
               ",\"disagreement\":" + model::json_quote(disagreement) +
               ",\"explained_by\":" + model::json_quote(explained_by) + "}";
    }
    return out + "}";
}
#endif

template <typename T>
int inspect(const Codec<T>& optimized, const Codec<T>& reference, const Options& options)
{
    std::span<const uint8_t> input(options.input);
    if (options.impl == Impl::Optimized || options.impl == Impl::Reference) {
        const SideResult<T> side = run_side(options.impl == Impl::Optimized ? optimized : reference, input);
        write_stdout(side_json(side) + "\n");
        return side.ok ? kExitAgreeOk : kExitDecodeError;
    }
    const SideResult<T> optimized_side = run_side(optimized, input);
    const SideResult<T> reference_side = run_side(reference, input);
    const std::string difference = first_difference(optimized_side, reference_side);
    std::string peers;
    bool unexplained_peer = false;
#ifdef SERDIFF_WITH_PEERS
    if (options.impl == Impl::All)
        peers = ",\"peers\":" + peers_json(options, unexplained_peer) +
                ",\"peers_unexplained\":" + (unexplained_peer ? "true" : "false");
#endif
    write_stdout("{\"optimized\":" + side_json(optimized_side) + ",\"reference\":" + side_json(reference_side) +
                 ",\"agree\":" + (difference.empty() ? "true" : "false") +
                 ",\"difference\":" + model::json_quote(difference) + peers + "}\n");
    if (!difference.empty()) return kExitDisagree;
    if (unexplained_peer) return kExitPeerDivergence;
    return optimized_side.ok ? kExitAgreeOk : kExitDecodeError;
}

uint64_t reencoded_length(const model::Bytes& reencoded) { return reencoded.size(); }

// Builds the codec pair for one object type: the optimized size comes from its SizeComputer.
#define SERDIFF_OBJECT_CODECS(Type, decode_name, encode_name, size_name)                                       \
    Codec<Type>{[](std::span<const uint8_t> data) { return optimized::decode_name(data); },                    \
                [](const Type& value) { return optimized::encode_name(value); },                               \
                [](const Type& value, const model::Bytes&) { return optimized::size_name(value); }},           \
        Codec<Type>{[](std::span<const uint8_t> data) { return reference::decode_name(data); },                \
                    [](const Type& value) { return reference::encode_name(value); },                           \
                    [](const Type&, const model::Bytes& reencoded) { return reencoded_length(reencoded); }}

int inspect_transaction(const Options& options, bool allow_witness)
{
    using model::Transaction;
    const Codec<Transaction> optimized_codec{
        [=](std::span<const uint8_t> data) { return optimized::decode_transaction(data, allow_witness); },
        [=](const Transaction& tx) { return optimized::encode_transaction(tx, allow_witness); },
        [=](const Transaction& tx, const model::Bytes&) { return optimized::size_transaction(tx, allow_witness); }};
    const Codec<Transaction> reference_codec{
        [=](std::span<const uint8_t> data) { return reference::decode_transaction(data, allow_witness); },
        [=](const Transaction& tx) { return reference::encode_transaction(tx, allow_witness); },
        [](const Transaction&, const model::Bytes& reencoded) { return reencoded_length(reencoded); }};
    return inspect(optimized_codec, reference_codec, options);
}

int dispatch(const Options& options)
{
    const std::string& type = options.type;
    if (type == "compactsize") {
        const bool range_check = options.range_check;
        const Codec<uint64_t> optimized_codec{
            [=](std::span<const uint8_t> data) { return optimized::decode_compactsize(data, range_check); },
            [](const uint64_t& value) { return optimized::encode_compactsize(value); },
            [](const uint64_t&, const model::Bytes& reencoded) { return reencoded_length(reencoded); }};
        const Codec<uint64_t> reference_codec{
            [=](std::span<const uint8_t> data) { return reference::decode_compactsize(data, range_check); },
            [](const uint64_t& value) { return reference::encode_compactsize(value); },
            [](const uint64_t&, const model::Bytes& reencoded) { return reencoded_length(reencoded); }};
        return inspect(optimized_codec, reference_codec, options);
    }
    if (type == "varint") {
        const model::IntKind kind = options.int_kind;
        const Codec<uint64_t> optimized_codec{
            [=](std::span<const uint8_t> data) { return optimized::decode_varint(data, kind); },
            [=](const uint64_t& value) { return optimized::encode_varint(value, kind); },
            [](const uint64_t&, const model::Bytes& reencoded) { return reencoded_length(reencoded); }};
        const Codec<uint64_t> reference_codec{
            [=](std::span<const uint8_t> data) { return reference::decode_varint(data, kind); },
            [=](const uint64_t& value) { return reference::encode_varint(value, kind); },
            [](const uint64_t&, const model::Bytes& reencoded) { return reencoded_length(reencoded); }};
        return inspect(optimized_codec, reference_codec, options);
    }
    if (type == "tx") return inspect_transaction(options, true);
    if (type == "tx-nowitness") return inspect_transaction(options, false);
    if (type == "header")
        return inspect(SERDIFF_OBJECT_CODECS(model::BlockHeader, decode_header, encode_header, size_header), options);
    if (type == "block")
        return inspect(SERDIFF_OBJECT_CODECS(model::Block, decode_block, encode_block, size_block), options);
    if (type == "locator")
        return inspect(SERDIFF_OBJECT_CODECS(model::BlockLocator, decode_locator, encode_locator, size_locator),
                       options);
    if (type == "blockundo")
        return inspect(
            SERDIFF_OBJECT_CODECS(model::BlockUndo, decode_block_undo, encode_block_undo, size_block_undo), options);
    throw UsageError("unknown TYPE '" + type + "' (expected " + kTypeList + ")");
}

model::Bytes read_file(const std::string& path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) throw UsageError("cannot open '" + path + "'");
    model::Bytes bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (file.bad()) throw UsageError("cannot read '" + path + "'");
    return bytes;
}

model::Bytes read_stdin()
{
    model::Bytes bytes;
    uint8_t buffer[65536];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) bytes.insert(bytes.end(), buffer, buffer + got);
    if (std::ferror(stdin)) throw UsageError("cannot read stdin");
    return bytes;
}

model::IntKind parse_int_kind(const std::string& name)
{
    for (model::IntKind kind : model::kAllIntKinds)
        if (name == model::int_kind_name(kind)) return kind;
    throw UsageError("unknown --int KIND '" + name + "' (expected u8 u16 u32 u64 i8 i16 i32 i64)");
}

Impl parse_impl(const std::string& name)
{
    if (name == "optimized") return Impl::Optimized;
    if (name == "reference") return Impl::Reference;
    if (name == "both") return Impl::Both;
    if (name == "all") {
#ifdef SERDIFF_WITH_PEERS
        return Impl::All;
#else
        throw UsageError("--impl all needs the peer implementations: this serdiff was built with SERDIFF_PEERS=OFF "
                         "(they need cargo, go and python3-dev; see docs/divergences.md)");
#endif
    }
    throw UsageError("unknown --impl '" + name + "' (expected optimized, reference, both or all)");
}

Options parse_arguments(int argc, char** argv)
{
    if (argc < 2) throw UsageError("missing TYPE");
    Options options;
    options.type = argv[1];
    if (options.type.starts_with("-")) throw UsageError("expected TYPE before options, got '" + options.type + "'");
    bool known_type = false;
    for (const char* type : kTypes) known_type = known_type || options.type == type;
    if (!known_type) throw UsageError("unknown TYPE '" + options.type + "' (expected " + kTypeList + ")");
    enum class Source { None, Hex, File, Stdin } source = Source::None;
    std::string hex, path;
    auto set_source = [&](Source chosen) {
        if (source != Source::None) throw UsageError("more than one input given (use one of --hex HEX, FILE, -)");
        source = chosen;
    };
    for (int i = 2; i < argc; ++i) {
        const std::string argument = argv[i];
        auto next_value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(argument + " needs a value");
            return argv[++i];
        };
        if (argument == "--impl") {
            options.impl = parse_impl(next_value());
        } else if (argument == "--int") {
            options.int_kind = parse_int_kind(next_value());
            options.int_kind_given = true;
        } else if (argument == "--no-range-check") {
            options.range_check = false;
        } else if (argument == "--hex") {
            set_source(Source::Hex);
            hex = next_value();
        } else if (argument == "-") {
            set_source(Source::Stdin);
        } else if (argument.starts_with("-")) {
            throw UsageError("unknown option '" + argument + "'");
        } else {
            set_source(Source::File);
            path = argument;
        }
    }
    if (options.int_kind_given && options.type != "varint") throw UsageError("--int applies only to TYPE varint");
    if (options.impl == Impl::All && options.type != "tx" && options.type != "tx-nowitness" && options.type != "block")
        throw UsageError("--impl all applies only to TYPE tx, tx-nowitness and block (the peers decode those)");
    if (!options.range_check && options.type != "compactsize")
        throw UsageError("--no-range-check  applies only to TYPE compactsize");
    switch (source) {
    case Source::None: throw UsageError("no input: give --hex HEX, a FILE, or - for stdin");
    case Source::Hex:
        if (!model::from_hex(hex, options.input))
            throw UsageError("--hex: not an even-length string of hex digits");
        break;
    case Source::File: options.input = read_file(path); break;
    case Source::Stdin: options.input = read_stdin(); break;
    }
    return options;
}

}  // namespace

int run_inspect(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::fputs(kInspectUsage, stdout);
            return 0;
        }
    }
    try {
        return dispatch(parse_arguments(argc, argv));
    } catch (const UsageError& e) {
        std::fprintf(stderr, "serdiff inspect: %s\n\n%s", e.what(), kInspectUsage);
        return kExitUsage;
    }
}

}  // namespace serdiff::cli
