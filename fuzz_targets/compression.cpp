// Target compression: the subject's undo-data compression (serialize/compression.h, Core's compressor) driven directly rather than through whole undo records:
// CompressAmount/DecompressAmount on any u64, the special-script payload sizes (GetSpecialScriptSize) on any u32, the amount and script formatters' bytes against the reference
// writer, and the script formatter's decoding of both its own encoding and arbitrary bytes (value, error,
// bytes consumed). Scripts are biased to the six special forms and to near misses of each (one byte off,
// one byte short or long, keys off the curve).
#include <array>
#include <string>

#include "crypto/crypto.h"
#include "differential/compare.h"
#include "differential/program_input.h"
#include "differential/reference/primitives.h"
#include "differential/reference/reference.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"

using namespace serdiff;

namespace {

struct Outcome {
    bool ok = false;
    std::string error;
    model::Script script;
    size_t consumed = 0;
};

// What the destination of every compressed-script read holds before it (a reused script), and the tags of the
// special script forms (Core's nSpecialScripts: tags 0-5; larger tags are a raw script's size + 6).
constexpr uint8_t kOldBytes[] = {0xee, 0xee, 0xee};
constexpr uint64_t kSpecialScriptTags = 6;

// The subject's ScriptCompression read, into a reused destination that holds kOldBytes.
Outcome decode_optimized(std::span<const uint8_t> data)
{
    Outcome out;
    out.script = model::Script(std::span<const uint8_t>(kOldBytes));
    const model::Decoded<bool> read = subject::read_compressed_script(data, out.script);
    out.ok = read.ok;
    out.error = read.error;
    out.consumed = read.consumed;
    if (!read.ok) out.script.clear();
    return out;
}

// What a read into a script that held `ee ee ee` must leave, given the reference's read (into nothing). Its old
// bytes must never show through, unless the subject keeps them by design (differential/subject.h; Core, whose
// callers read into a fresh CScript): then a special script whose key is off the curve (the reference's script is
// empty) leaves them as they were, and an oversized script appends OP_RETURN to them (docs/divergences.md).
model::Script expected_in_reused(std::span<const uint8_t> data, const model::Script& reference)
{
    if (!subject::divergences().compressed_script_read_keeps_old_bytes) return reference;
    const model::Decoded<uint64_t> tag = reference::decode_varint(data, model::IntKind::U32);
    const bool off_curve = tag.value < kSpecialScriptTags && reference.empty();
    const bool oversized = tag.value >= kSpecialScriptTags && tag.value - kSpecialScriptTags > model::kMaxScriptSize;
    if (!off_curve && !oversized) return reference;
    model::Bytes kept(std::begin(kOldBytes), std::end(kOldBytes));
    kept.insert(kept.end(), reference.begin(), reference.end());
    return model::Script(kept);
}
Outcome decode_reference(std::span<const uint8_t> data)
{
    Outcome out;
    reference::Reader reader(data);
    out.script = reference::read_compressed_script(reader);
    if (reader.failed()) {
        out.error = reader.error();
        out.script.clear();
        return out;
    }
    out.ok = true;
    out.consumed = reader.position();
    return out;
}

void compare_decoding(const std::string& label, std::span<const uint8_t> data, std::span<const uint8_t> input)
{
    const Outcome optimized = decode_optimized(data);
    const Outcome reference = decode_reference(data);
    differential::observe_outcome(label, optimized.ok, optimized.consumed, optimized.error);
    if (optimized.ok != reference.ok || optimized.error != reference.error || optimized.consumed != reference.consumed)
        differential::report_mismatch(label, "outcome differs",
                                      std::string(differential::subject_side()) + ": " + (optimized.ok ? "accepted, consumed " + std::to_string(optimized.consumed)
                                                                    : "rejected: " + optimized.error) +
                                          "\nreference: " + (reference.ok ? "accepted, consumed " + std::to_string(reference.consumed)
                                                                          : "rejected: " + reference.error),
                                      input);
    const model::Script expected = reference.ok ? expected_in_reused(data, reference.script) : reference.script;
    differential::compare_bytes(label + " script", optimized.script, expected, input);
}

// Opcodes of the special script forms.
inline constexpr uint8_t kOpDup = 0x76, kOpHash160 = 0xa9, kOpEqualVerify = 0x88, kOpCheckSig = 0xac, kOpEqual = 0x87;

// A script of one of the special forms (or a near miss of it), or plain bytes.
model::Bytes make_script(differential::ProgramInput& in)
{
    const uint8_t shape = in.byte();
    const model::Bytes body = in.payload(65);
    model::Bytes script;
    switch (shape % 8) {
    case 0:  // P2PKH
        script = {kOpDup, kOpHash160, 20};
        script.insert(script.end(), body.begin(), body.begin() + 20);
        script.insert(script.end(), {kOpEqualVerify, kOpCheckSig});
        break;
    case 1:  // P2SH
        script = {kOpHash160, 20};
        script.insert(script.end(), body.begin(), body.begin() + 20);
        script.push_back(kOpEqual);
        break;
    case 2:  // compressed key: 0x02/0x03 prefix, or another byte
        script = {33, static_cast<uint8_t>(shape & 0x10 ? body[0] : 0x02 + (body[0] & 1))};
        script.insert(script.end(), body.begin() + 1, body.begin() + 33);
        script.push_back(kOpCheckSig);
        break;
    case 3: {  // uncompressed key: on the curve (from a compressed x) or arbitrary bytes
        std::array<uint8_t, 33> compressed{};
        compressed[0] = static_cast<uint8_t>(0x02 + (body[0] & 1));
        std::copy(body.begin() + 1, body.begin() + 33, compressed.begin() + 1);
        std::array<uint8_t, 65> key{};
        if (shape & 0x10 || !crypto::decompress_pubkey(compressed, key)) {
            key[0] = 0x04;
            std::copy(body.begin(), body.begin() + 64, key.begin() + 1);
        }
        script = {65};
        script.insert(script.end(), key.begin(), key.end());
        script.push_back(kOpCheckSig);
        break;
    }
    default:  // plain bytes, up to past the 10,000-byte limit
        return in.payload(static_cast<size_t>(in.number_at_most(model::kMaxScriptSize + 40)));
    }
    // Near misses: change one byte, drop the last, or add one.
    switch ((shape >> 5) & 3) {
    case 1: script[in.byte() % script.size()] ^= static_cast<uint8_t>(1u << (in.byte() % 8)); break;
    case 2: script.pop_back(); break;
    case 3: script.push_back(in.byte()); break;
    default: break;
    }
    return script;
}

}  // namespace

// Input: amount (a number), a script shape byte and its payload, then any bytes decoded as a compressed script.
SERDIFF_FUZZ_TARGET(compression, .max_len = 1024)
{
    differential::ProgramInput in(input);

    const uint64_t amount = in.number();
    const uint64_t compressed = subject::compress_amount(amount);
    if (compressed != reference::compress_amount(amount) ||
        subject::decompress_amount(amount) != reference::decompress_amount(amount))
        differential::report_mismatch("compression amount", "CompressAmount/DecompressAmount differ",
                                      "amount " + std::to_string(amount) + ": optimized " + std::to_string(compressed) +
                                          " / " + std::to_string(subject::decompress_amount(amount)) + ", reference " +
                                          std::to_string(reference::compress_amount(amount)) + " / " +
                                          std::to_string(reference::decompress_amount(amount)),
                                      input);
    // The special-script payload sizes (Core's GetSpecialScriptSize, public): every tag and just past them, and the
    // amount's two halves as any u32.
    for (const uint32_t tag : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, static_cast<uint32_t>(amount), static_cast<uint32_t>(amount >> 32)})
        if (subject::special_script_size(tag) != reference::special_script_size(tag))
            differential::report_mismatch("compression special script size", "the payload size of a tag differs",
                                          "tag " + std::to_string(tag) + ": optimized " +
                                              std::to_string(subject::special_script_size(tag)) + ", reference " +
                                              std::to_string(reference::special_script_size(tag)),
                                          input);
    {
        const model::Bytes optimized_bytes = subject::write_compressed_amount(static_cast<int64_t>(amount));
        reference::Writer reference_writer;
        reference_writer.write_varint(reference::compress_amount(amount), model::IntKind::U64);
        differential::compare_bytes("compression amount formatter", optimized_bytes, reference_writer.out, input);
        const model::Decoded<int64_t> decoded = subject::read_compressed_amount(optimized_bytes);
        if (!decoded.ok || static_cast<uint64_t>(decoded.value) != reference::decompress_amount(compressed) ||
            decoded.consumed != optimized_bytes.size())
            differential::report_mismatch("compression amount formatter", "decoded amount differs",
                                          (decoded.ok ? std::to_string(decoded.value) : "error " + decoded.error) + " vs " +
                                              std::to_string(reference::decompress_amount(compressed)),
                                          input);
    }

    const model::Bytes script = make_script(in);
    const model::Bytes optimized_bytes = subject::write_compressed_script(script);
    reference::Writer reference_writer;
    reference::write_compressed_script(reference_writer, script);
    differential::compare_bytes("compression script encode", optimized_bytes, reference_writer.out, input);
    compare_decoding("compression script decode (own encoding)", optimized_bytes, input);
    compare_decoding("compression script decode (input bytes)", in.raw().rest(), input);
}
