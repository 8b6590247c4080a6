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

#include "differential/compare.h"
#include "differential/reference/reference.h"
#ifdef SERDIFF_WITH_PEERS
#include "differential/oracles/divergences.h"
#include "differential/oracles/peers.h"
#endif
#include "model/codec_table.h"
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
    "TYPE              compact_size varint transaction block_header block block_locator block_undo\n"
    "                  (the codec table's names, as the fuzz targets are named; also accepted: compactsize,\n"
    "                  tx, tx-nowitness = transaction --no-witness, header, locator, blockundo)\n"
    "--impl IMPL       optimized, reference or both (default both); all (transaction, block): both,\n"
    "                  plus every linked peer's verdict (rust-bitcoin, btcd, python-bitcoinlib) under \"peers\",\n"
    "                  each with the allow-list entry that explains a divergence from the reference\n"
    "--int KIND        varint only: the integer type read into, u8 u16 u32 u64 i8 i16 i32 i64 (default u64)\n"
    "--no-range-check  compact_size only: accept values above MAX_SIZE (0x02000000)\n"
    "--no-witness      transaction only: decode and encode without witness (witness not allowed)\n"
    "--hex HEX         the input as hex; FILE is read as raw bytes; - reads raw bytes from stdin\n"
    "\n"
    "size is the optimized SizeComputer result (the re-encoding's length for compact_size and varint,\n"
    "which have no SizeComputer entry point) and the reference re-encoding's length.\n"
    "Exit status: 0 decoded (and, with both, the implementations agree), 1 decoding error,\n"
    "2 bad usage or unreadable input, 3 the implementations disagree,\n"
    "4 (--impl all) a peer diverges from the reference with no allow-list entry explaining it.\n";

// Shorter spellings the CLI has always accepted, mapped to the codec table's names (model/codec_table.h).
struct TypeAlias {
    const char* alias;
    const char* type;
    bool no_witness;
};
constexpr TypeAlias kTypeAliases[] = {{"compactsize", "compact_size", false}, {"tx", "transaction", false},
                                      {"tx-nowitness", "transaction", true},  {"header", "block_header", false},
                                      {"locator", "block_locator", false},    {"blockundo", "block_undo", false}};

std::string type_list()
{
    std::string list;
    for (const std::string_view type : model::kTypeNames) list += (list.empty() ? "" : " ") + std::string(type);
    return list;
}

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
    bool allow_witness = true;
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

// What one implementation made of the input: its decoding, and when it decoded, the re-encoding and size.
template <typename T>
struct SideResult {
    model::Decoded<T> decoded;
    model::Bytes reencoded;
    uint64_t size = 0;
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
        result.decoded = codec.decode(input);
        if (result.decoded.ok) {
            result.reencoded = codec.encode(result.decoded.value);
            result.size = codec.size(result.decoded.value, result.reencoded);
        }
    } catch (const std::exception& e) {
        result = SideResult<T>{};
        result.decoded.error = std::string("unexpected exception: ") + e.what();
    }
    return result;
}

template <typename T>
std::string side_json(const SideResult<T>& side)
{
    std::string out = "{\"ok\":";
    out += side.decoded.ok ? "true" : "false";
    if (!side.decoded.ok) return out + ",\"error\":" + model::json_quote(side.decoded.error) + "}";
    out += ",\"consumed\":" + std::to_string(side.decoded.consumed);
    out += ",\"reencoded_hex\":\"" + model::to_hex(side.reencoded) + "\"";
    out += ",\"size\":" + std::to_string(side.size);
    out += ",\"value\":" + value_json(side.decoded.value);
    return out + "}";
}

// The first field in which the two sides differ, or "" when they agree: the decoding as the fuzz targets
// compare it (differential::first_decoded_difference), then the re-encodings and the SizeComputer.
template <typename T>
std::string first_difference(const SideResult<T>& optimized, const SideResult<T>& reference)
{
    const std::string_view decoded = differential::first_decoded_difference(optimized.decoded, reference.decoded);
    if (!decoded.empty()) return std::string(decoded);
    if (!optimized.decoded.ok) return "";
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
    const bool allow_witness = options.allow_witness;
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
        return side.decoded.ok ? kExitAgreeOk : kExitDecodeError;
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
    return optimized_side.decoded.ok ? kExitAgreeOk : kExitDecodeError;
}

uint64_t reencoded_length(const model::Bytes& reencoded) { return reencoded.size(); }

// One side's entry for an object type as a Codec; a side without a SizeComputer reports the re-encoding's length.
template <typename T, typename... Param>
Codec<T> codec_of(const model::ObjectCodec<T, Param...>& entry, Param... param)
{
    return {[=](std::span<const uint8_t> data) { return entry.decode(data, param...); },
            [=](const T& value) { return entry.encode(value, param...); },
            [=](const T& value, const model::Bytes& reencoded) {
                return entry.size ? entry.size(value, param...) : reencoded_length(reencoded);
            }};
}

int dispatch(const Options& options)
{
    const model::CodecTable& optimized = optimized::codec_table();
    const model::CodecTable& reference = reference::codec_table();
    const std::string& type = options.type;
    if (type == "compact_size") {
        auto codec = [range_check = options.range_check](const model::CodecTable& table) {
            return Codec<uint64_t>{
                [=, &table](std::span<const uint8_t> data) { return table.decode_compact_size(data, range_check); },
                [&table](const uint64_t& value) { return table.encode_compact_size(value); },
                [](const uint64_t&, const model::Bytes& reencoded) { return reencoded_length(reencoded); }};
        };
        return inspect(codec(optimized), codec(reference), options);
    }
    if (type == "varint") {
        auto codec = [kind = options.int_kind](const model::CodecTable& table) {
            return Codec<uint64_t>{
                [=, &table](std::span<const uint8_t> data) { return table.decode_varint(data, kind); },
                [=, &table](const uint64_t& value) { return table.encode_varint(value, kind); },
                [](const uint64_t&, const model::Bytes& reencoded) { return reencoded_length(reencoded); }};
        };
        return inspect(codec(optimized), codec(reference), options);
    }
    if (type == "transaction")
        return inspect(codec_of(optimized.transaction, options.allow_witness),
                       codec_of(reference.transaction, options.allow_witness), options);
#define SERDIFF_INSPECT_OBJECT(name, Type, stem) \
    if (type == #name) return inspect(codec_of(optimized.name), codec_of(reference.name), options);
    SERDIFF_OBJECT_TYPES(SERDIFF_INSPECT_OBJECT)
#undef SERDIFF_INSPECT_OBJECT
    throw UsageError("unknown TYPE '" + type + "' (expected " + type_list() + ")");
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
    for (const TypeAlias& alias : kTypeAliases) {
        if (options.type == alias.alias) {
            options.type = alias.type;
            options.allow_witness = !alias.no_witness;
        }
    }
    bool known_type = false;
    for (const std::string_view type : model::kTypeNames) known_type = known_type || options.type == type;
    if (!known_type) throw UsageError("unknown TYPE '" + options.type + "' (expected " + type_list() + ")");
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
        } else if (argument == "--no-witness") {
            if (options.type != "transaction") throw UsageError("--no-witness applies only to TYPE transaction");
            options.allow_witness = false;
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
    if (options.impl == Impl::All && options.type != "transaction" && options.type != "block")
        throw UsageError("--impl all applies only to TYPE transaction and block (the peers decode those)");
    if (!options.range_check && options.type != "compact_size")
        throw UsageError("--no-range-check applies only to TYPE compact_size");
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
