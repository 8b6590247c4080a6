// The seam between the harness and the code under test (the "subject"): what every subject-generic target
// and helper calls instead of naming serialize/. Each subject defines these once (subjects/<name>/), and each
// fuzz binary links exactly one: serdiff_fuzz_* the serdiff subject (serialize/), core_fuzz_* Bitcoin Core's
// own source (subjects/core/, docs/core.md). The reference side is the same for every subject.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/bits.h"
#include "model/codec_table.h"
#include "model/decoded.h"
#include "model/model.h"

namespace serdiff::subject {

// "serdiff" or "core": what this binary's reports call the side under test.
const char* name();

// The subject's codecs for every type of model/codec_table.h; .side is name().
const model::CodecTable& codec_table();

// The subject's batched XOR: `bytes` obfuscated in place as if they sat at file offset `offset` under `key`.
void obfuscate(std::span<std::byte> bytes, uint64_t offset, const std::array<std::byte, 8>& key);

// Undo-data compression (Core's compressor.h): the amount functions, and the amount and script formatters
// written to and read from a byte stream.
uint64_t compress_amount(uint64_t amount);
uint64_t decompress_amount(uint64_t compressed);
// The payload bytes after special-script tag `tag` (Core's GetSpecialScriptSize): 20, 32, or 0 for a value that is
// not a tag.
uint32_t special_script_size(uint32_t tag);
model::Bytes write_compressed_amount(int64_t amount);
model::Decoded<int64_t> read_compressed_amount(std::span<const uint8_t> data);
model::Bytes write_compressed_script(const model::Script& script);
// Reads into `script`, which may hold bytes already (a reused destination): ok/error/consumed in the result,
// the script as the read left it in `script`.
model::Decoded<bool> read_compressed_script(std::span<const uint8_t> data, model::Script& script);

// The subject's encoding of a default-constructed block header and block (Core's CBlockHeader{} and CBlock{}, which
// SetNull() fills; the serdiff subject's model::BlockHeader{} and Block{}, whose defaults the reference shares): the
// block_header and block targets compare it with the reference's encoding of model::BlockHeader{} and Block{}
// (docs/format.md: every field zero, no transactions).
model::Bytes encode_default_header();
model::Bytes encode_default_block();

// A witness stack on its own: the subject's encoding of it (Core: a CScriptWitness's stack, the
// std::vector<std::vector<unsigned char>> a transaction writes after its outputs; serdiff: model::WitnessStack through
// its formatter) and the size the subject's SizeComputer gives it. A transaction's size adds its stacks' sizes
// without sizing a stack alone, so the size_computer target sizes each stack alone too.
model::Bytes encode_witness_stack(const model::WitnessStack& witness);
uint64_t witness_stack_size(const model::WitnessStack& witness);

// Bit streams (model/bits.h): the subject's BitStreamWriter over a byte stream running `ops` as writes (Golomb-Rice
// codes with the subject's GolombRiceEncode), and its BitStreamReader over `bytes` running them as reads
// (GolombRiceDecode); an alignment is Flush(), or a new reader on the same stream. A bad bit count (Core's
// std::out_of_range) and the stream's end of data stop the run; the writer flushes as it goes out of scope.
model::BitWriteResult bit_write(std::span<const model::BitOp> ops);
model::BitReadResult bit_read(std::span<const uint8_t> bytes, std::span<const model::BitOp> ops);

// The transaction value types' own members, one line per fact (reference::transaction_members writes the same lines
// from docs/format.md "Transaction members"): Core's COutPoint, CTxIn and CTxOut comparisons and IsNull, CTransaction's
// IsCoinBase, IsNull, HasWitness, ComputeTotalSize, GetValueOut, CalculateOutputValue and ==, the deserializing
// constructors and the CTxIn/CTxOut constructors. std::nullopt from a subject whose transaction is the model's own
// type (serdiff's: the reference shares it, so there is nothing of the subject's to compare).
std::optional<std::vector<std::string>> transaction_members(const model::Transaction& tx);
// The same for what no input changes: the sequence constants (BIP 68), COutPoint's null index, the default version,
// and default-constructed and SetNull() members.
std::optional<std::vector<std::string>> transaction_constants();

// Where a subject's code departs from docs/format.md on purpose (docs/divergences.md lists each with an
// input), the harness compares it against the rule the subject keeps, and nowhere else.
struct Divergences {
    // Set when the subject reads a block locator's version and drops it, writing this constant instead.
    std::optional<int32_t> locator_version_written;
    // Set when reading a compressed script into a script that already holds bytes keeps some of them (Core
    // appends its OP_RETURN for an oversized script and leaves the script as it was for a tag-4/5 x that is
    // not on the curve): the compression target then expects that rule of its read into `ee ee ee`.
    bool compressed_script_read_keeps_old_bytes = false;
    // Set when WriteVarInt in the non-negative signed mode writes a negative value instead of refusing it (Core
    // leaves that to its callers): the stream programs then skip their refusal check.
    bool negative_varint_written = false;
};
const Divergences& divergences();

}  // namespace serdiff::subject
