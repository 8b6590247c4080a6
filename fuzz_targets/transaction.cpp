// Target transaction: decode arbitrary bytes with and without witness on both sides; round-trip what decodes.
#include <cstdint>
#include <span>
#include <string>

#include "differential/codecs.h"
#include "differential/compare.h"
#include "differential/reference/members.h"
#include "differential/reference/reference.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"
#include "model/model.h"

namespace {

// A witness stack whose first item is 5,000,001 bytes long, past the 5,000,000-byte chunk in which both sides read a
// claimed length (Core's MAX_VECTOR_ALLOCATE; serialize/'s WitnessStackFormatter reads such an item aside and then
// appends it), then a 1-byte item: a transaction of one input and one output with that witness.
serdiff::model::Bytes large_witness_item_transaction()
{
    constexpr uint32_t kItem = 5'000'001;
    serdiff::model::Bytes tx{2, 0, 0, 0, 0x00, 0x01, 1};                    // version 2, marker, flag, 1 input
    tx.insert(tx.end(), 32, 0x11);                                           // prevout hash
    tx.insert(tx.end(), {7, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1});         // index 7, empty script, sequence, 1 output
    tx.insert(tx.end(), {0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, 1, 0x6a});        // 1,000,000 sat, script OP_RETURN
    tx.insert(tx.end(), {2, 0xfe, kItem & 0xff, (kItem >> 8) & 0xff, (kItem >> 16) & 0xff, 0});  // 2 items, the first's length
    for (uint32_t i = 0; i < kItem; ++i) tx.push_back(static_cast<uint8_t>(i * 7 + (i >> 16)));
    tx.insert(tx.end(), {1, 0x5a, 0, 0, 0, 0});                              // the 1-byte item, lock time 0
    return tx;
}

// The witness as counts and sizes (a mismatch report cannot print the 5 MB item: the fuzz binaries bound every
// allocation at 16 MiB).
std::string witness_shape(const serdiff::model::Decoded<serdiff::model::Transaction>& decoded)
{
    if (!decoded.ok) return "error \"" + decoded.error + "\"";
    std::string shape = "consumed " + std::to_string(decoded.consumed) + ", witness item sizes:";
    for (const auto& in : decoded.value.inputs)
        for (const auto item : in.witness) shape += " " + std::to_string(item.size());
    return shape;
}

// No input below max_len holds such an item (the engine favours small, fast inputs): once per process
// (differential::once_per_process), both sides decode the transaction; the decodings must be equal, and the optimized side's encoding and SizeComputer must
// give the transaction's bytes back.
void check_large_witness_item(std::span<const uint8_t> input)
{
    using namespace serdiff;
    const model::Bytes tx = large_witness_item_transaction();
    const auto& codec = differential::transaction_codec(true);
    const model::Decoded<model::Transaction> optimized = codec.optimized_decode(tx), reference = codec.reference_decode(tx);
    const std::string label = "transaction with a witness item of 5,000,001 bytes";
    if (!optimized.ok || !reference.ok || optimized.consumed != reference.consumed || !(optimized.value == reference.value))
        differential::report_mismatch(label, "decode differs",
                                      "optimized: " + witness_shape(optimized) + "; reference: " + witness_shape(reference), input);
    const model::Bytes encoded = codec.optimized_encode(optimized.value);
    const uint64_t size = codec.optimized_size(optimized.value);
    if (encoded != tx || size != tx.size())
        differential::report_mismatch(label, "re-encode differs", "encoded " + std::to_string(encoded.size()) +
                                      " bytes, SizeComputer " + std::to_string(size) + ", the transaction " +
                                      std::to_string(tx.size()) + (encoded.size() == tx.size() ? " (bytes differ)" : ""), input);
}

// A transaction that claims MAX_SIZE (33,554,432) inputs and then holds 1,000,000 zero bytes (24,390 empty inputs of
// 41 bytes, then 10 bytes of one more). A reader may reserve for a claimed count only kMaxVectorAllocate bytes ahead
// of the elements it has read (Core's MAX_VECTOR_ALLOCATE; serialize/'s VectorFormatter, which also caps a step at
// the bytes a memory stream still holds): reserving for as many inputs as there are bytes left would ask for 1,000,000
// inputs at once, far past the fuzz binaries' 16 MiB allocation bound (fuzz_targets/registry.cpp), which stops the
// process. No input below this target's max_len is that large (a block input of the block target's max_len could be,
// but no seed claims such a count): once per process both sides decode it and must refuse it alike.
void check_claimed_count_past_large_input(std::span<const uint8_t> input)
{
    using namespace serdiff;
    model::Bytes tx{2, 0, 0, 0, 0xfe, 0x00, 0x00, 0x00, 0x02};  // version 2, 0x02000000 inputs claimed
    tx.resize(tx.size() + 1'000'000, 0);
    for (const bool witness : {true, false}) {
        const auto& codec = differential::transaction_codec(witness);
        const model::Decoded<model::Transaction> optimized = codec.optimized_decode(tx), reference = codec.reference_decode(tx);
        if (optimized.ok || reference.ok || optimized.error != reference.error)
            differential::report_mismatch(std::string("transaction claiming 33,554,432 inputs over 1,000,000 bytes") +
                                              (witness ? "" : " (no witness)"),
                                          "decision differs",
                                          std::string(differential::subject_side()) + ": " + witness_shape(optimized) +
                                              "; reference: " + witness_shape(reference),
                                          input);
    }
}

// The transaction value types' own members (differential/subject.h transaction_members) for what the reference
// decodes, and once per process the constants and default members: on a subject with types of its own (Core's).
void check_members(std::span<const uint8_t> input)
{
    using namespace serdiff;
    static const bool has_members = subject::transaction_constants().has_value();  // serdiff's subject has none
    if (!has_members) return;
    differential::once_per_process([&] {
        if (const auto constants = subject::transaction_constants())
            differential::compare_traces("transaction constants and default members", *constants,
                                         reference::transaction_constants(), input);
    });
    const model::Decoded<model::Transaction> decoded = reference::decode_transaction(input, true);
    if (!decoded.ok) return;
    if (const auto members = subject::transaction_members(decoded.value))
        differential::compare_traces("transaction members", *members, reference::transaction_members(decoded.value),
                                     input);
}

}  // namespace

// A claimed script or witness length makes the optimized reader allocate (and zero) up to 5,000,000 bytes
// before it finds the input short: the engine favours the inputs that run fast (see primitive_stream).
SERDIFF_FUZZ_TARGET(transaction, .max_len = 65536, .codec = "transaction", .real_data_seeds = true,
                    .libfuzzer_flags = "-entropic_scale_per_exec_time=1")
{
    serdiff::differential::check_decode_round_trip(serdiff::differential::transaction_codec(true), input);
    serdiff::differential::check_decode_round_trip(serdiff::differential::transaction_codec(false), input);
    check_members(input);
    serdiff::differential::once_per_process([&] { check_large_witness_item(input); });
    serdiff::differential::once_per_process([&] { check_claimed_count_past_large_input(input); });
}
