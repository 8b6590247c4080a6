// The serdiff subject: serdiff's own optimized serializer (serialize/) behind the harness's seam.
#include "differential/subject.h"

#include <optional>
#include <stdexcept>
#include <string_view>

#include "serialize/bitstream.h"
#include "serialize/codec.h"
#include "serialize/compression.h"
#include "serialize/model_formats.h"
#include "serialize/obfuscation.h"
#include "serialize/streams.h"

namespace serdiff::subject {

const char* name() { return "serdiff"; }

const model::CodecTable& codec_table() { return optimized::codec_table(); }

void obfuscate(std::span<std::byte> bytes, uint64_t offset, const std::array<std::byte, 8>& key)
{
    optimized::obfuscate(bytes, offset, key);
}

uint64_t compress_amount(uint64_t amount) { return optimized::CompressAmount(amount); }
uint64_t decompress_amount(uint64_t compressed) { return optimized::DecompressAmount(compressed); }
// serialize/'s payload size is defined for the six tags only; any other value is not a special form.
uint32_t special_script_size(uint32_t tag)
{
    return tag < optimized::kSpecialScriptForms ? static_cast<uint32_t>(optimized::special_script_payload_size(tag)) : 0;
}

model::Bytes write_compressed_amount(int64_t amount)
{
    model::Bytes out;
    optimized::VectorWriter writer(out, 0);
    optimized::AmountCompressionFormatter::Ser(writer, amount);
    return out;
}

model::Decoded<int64_t> read_compressed_amount(std::span<const uint8_t> data)
{
    model::Decoded<int64_t> result;
    optimized::SpanReader reader(data);
    try {
        optimized::AmountCompressionFormatter::Unser(reader, result.value);
        result.ok = true;
        result.consumed = data.size() - reader.size();
    } catch (const optimized::SerializeError& error) {
        result.error = error.what();
    }
    return result;
}

model::Bytes write_compressed_script(const model::Script& script)
{
    model::Bytes out;
    optimized::VectorWriter writer(out, 0);
    optimized::ScriptCompressionFormatter::Ser(writer, script);
    return out;
}

model::Decoded<bool> read_compressed_script(std::span<const uint8_t> data, model::Script& script)
{
    model::Decoded<bool> result;
    optimized::SpanReader reader(data);
    try {
        optimized::ScriptCompressionFormatter::Unser(reader, script);
        result.ok = result.value = true;
        result.consumed = data.size() - reader.size();
    } catch (const optimized::SerializeError& error) {
        result.error = error.what();
    }
    return result;
}

model::Bytes encode_default_header() { return codec_table().block_header.encode(model::BlockHeader{}); }
model::Bytes encode_default_block() { return codec_table().block.encode(model::Block{}); }

model::Bytes encode_witness_stack(const model::WitnessStack& witness)
{
    model::Bytes out;
    optimized::VectorWriter writer(out, 0);
    optimized::Serialize(writer, witness);
    return out;
}
uint64_t witness_stack_size(const model::WitnessStack& witness) { return optimized::GetSerializeSize(witness); }

// serdiff's transaction is model::Transaction, which the reference shares: no members of its own to compare.
std::optional<std::vector<std::string>> transaction_members(const model::Transaction&) { return std::nullopt; }
std::optional<std::vector<std::string>> transaction_constants() { return std::nullopt; }

const Divergences& divergences()
{
    static const Divergences none;
    return none;
}

model::BitWriteResult bit_write(std::span<const model::BitOp> ops)
{
    model::BitWriteResult result;
    optimized::VectorWriter stream(result.bytes, 0);
    size_t i = 0;
    try {
        optimized::BitStreamWriter<optimized::VectorWriter> writer(stream);  // flushes as it goes out of scope
        for (; i < ops.size(); ++i) {
            const model::BitOp& op = ops[i];
            switch (op.kind) {
            case model::BitOp::Kind::kBits: writer.Write(op.value, op.nbits); break;
            case model::BitOp::Kind::kGolombRice: optimized::GolombRiceEncode(writer, op.rice_parameter, op.value); break;
            case model::BitOp::Kind::kAlign: writer.Flush(); break;
            }
        }
    } catch (const std::out_of_range&) {
        result.refused_at = i;
    }
    return result;
}

model::BitReadResult bit_read(std::span<const uint8_t> bytes, std::span<const model::BitOp> ops)
{
    model::BitReadResult result;
    optimized::SpanReader stream(bytes);
    std::optional<optimized::BitStreamReader<optimized::SpanReader>> reader{std::in_place, stream};
    for (size_t i = 0; i < ops.size(); ++i) {
        const model::BitOp& op = ops[i];
        try {
            switch (op.kind) {
            case model::BitOp::Kind::kBits: result.values.push_back(reader->Read(op.nbits)); break;
            case model::BitOp::Kind::kGolombRice:
                result.values.push_back(optimized::GolombRiceDecode(*reader, op.rice_parameter));
                break;
            case model::BitOp::Kind::kAlign: reader.emplace(stream); break;
            }
        } catch (const std::out_of_range&) {
            result.stopped_at = i;
            result.out_of_range = true;
            break;
        } catch (const optimized::SerializeError& error) {
            if (std::string_view(error.what()) != model::errors::kEndOfData) throw;
            result.stopped_at = i;
            break;
        }
    }
    return result;
}

}  // namespace serdiff::subject
