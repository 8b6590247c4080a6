// Target size_computer: structured objects built from the input; SizeComputer == encoded length on both sides.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "differential/codecs.h"
#include "differential/compare.h"
#include "differential/generate.h"
#include "differential/reference/primitives.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"
#include "model/model.h"
#include "subject_streams.h"

using namespace serdiff;
using namespace serdiff::differential;

namespace {

// Each witness stack of a generated transaction on its own, which no transaction size computes (it adds the stacks'
// sizes without sizing one alone): the subject's encoding against the reference's (a CompactSize count, then each
// item as a byte vector), and the subject's SizeComputer against that length.
void check_witness_stacks(const model::Transaction& tx, std::span<const uint8_t> input)
{
    for (size_t i = 0; i < tx.inputs.size(); ++i) {
        const model::WitnessStack& witness = tx.inputs[i].witness;
        reference::Writer expected;
        expected.write_compactsize(witness.size());
        for (const model::WitnessStack::Item item : witness) expected.write_byte_vector(item);
        const std::string label = "size_computer witness stack of input " + std::to_string(i) + " (" +
                                  std::to_string(witness.size()) + " items)";
        const model::Bytes encoded = subject::encode_witness_stack(witness);
        if (encoded != expected.out)
            report_mismatch(label, "encoding differs", describe_byte_difference(encoded, expected.out), input);
        const uint64_t size = subject::witness_stack_size(witness);
        if (size != expected.out.size())
            report_mismatch(label, "SizeComputer differs from the encoded length",
                            std::string(subject_side()) + " SizeComputer " + std::to_string(size) +
                                ", the reference's encoding " + std::to_string(expected.out.size()) + " bytes",
                            input);
    }
}

// The generic byte payload (a CompactSize length, then the bytes), which every byte vector, string and prevector of
// the subject is sized through and no transaction or block size reaches (their SizeComputer adds the script lengths
// in one pass of its own): `bytes` as each of the three containers through the subject's SizeComputer, against the
// length the reference writes for a byte vector. `what` names the field for the report.
template <typename What>
void check_payload_size(std::span<const uint8_t> bytes, const What& what, std::span<const uint8_t> input)
{
    reference::Writer prefix;
    prefix.write_compactsize(bytes.size());
    const uint64_t expected = prefix.out.size() + bytes.size();
    const auto sized = [](const auto& container) {
        subject::SizeComputer sizer;
        subject::Serialize(sizer, container);
        return static_cast<uint64_t>(sizer.size());
    };
    const std::vector<uint8_t> vector(bytes.begin(), bytes.end());
    const uint64_t sizes[] = {sized(vector), sized(std::string(vector.begin(), vector.end())),
                              sized(subject::prevector<28, uint8_t>(vector.begin(), vector.end()))};
    static constexpr const char* kContainers[] = {"std::vector<uint8_t>", "std::string", "prevector<28, uint8_t>"};
    for (size_t i = 0; i < std::size(sizes); ++i)
        if (sizes[i] != expected)
            report_mismatch("size_computer byte payload (" + label_text(what) + " as " + kContainers[i] + ")",
                            "SizeComputer differs from the encoded length",
                            std::string(subject_side()) + " SizeComputer " + std::to_string(sizes[i]) + " for " +
                                std::to_string(bytes.size()) + " bytes, the reference's encoding " +
                                std::to_string(expected) + " bytes",
                            input);
}

// Every scriptSig, scriptPubKey and witness item of `tx` through check_payload_size.
void check_payload_sizes(const model::Transaction& tx, std::span<const uint8_t> input)
{
    for (size_t i = 0; i < tx.inputs.size(); ++i) {
        check_payload_size(tx.inputs[i].script_sig, [i] { return "scriptSig of input " + std::to_string(i); }, input);
        size_t item_index = 0;
        for (const model::WitnessStack::Item item : tx.inputs[i].witness) {
            check_payload_size(item, [&] {
                return "witness item " + std::to_string(item_index) + " of input " + std::to_string(i);
            }, input);
            ++item_index;
        }
    }
    for (size_t i = 0; i < tx.outputs.size(); ++i)
        check_payload_size(tx.outputs[i].script_pubkey, [i] { return "scriptPubKey of output " + std::to_string(i); },
                           input);
}

// The generator keeps scriptSigs below 301 bytes and scriptPubKeys below 10,017 (differential/generate.cpp): no
// script length needs a 5-byte CompactSize. Up to two scripts of a generated transaction are replaced with an edge
// length up to kMaxGeneratedWitnessItemSize (65,552: past 65,535/65,536), built by the generator from a short prefix of
// the input under its byte budget, so a large script costs the input a few bytes, not 64 KiB.
void widen_scripts(FuzzInput& fuzz, ValueGenerator& generate, model::Transaction& tx)
{
    const size_t count = fuzz.in_range<size_t>(0, 2);
    for (size_t n = 0; n < count; ++n) {
        const size_t scripts = tx.inputs.size() + tx.outputs.size();
        if (scripts == 0) return;
        const size_t at = fuzz.in_range<size_t>(0, scripts - 1);
        const model::Bytes bytes = generate.byte_string(kMaxGeneratedWitnessItemSize);
        if (at < tx.inputs.size()) tx.inputs[at].script_sig = bytes;
        else tx.outputs[at - tx.inputs.size()].script_pubkey = bytes;
    }
}

// Once per process, whatever the input: a byte payload of every length class the memory allows (1, 3 and 5-byte
// CompactSize), and a transaction and a block whose scripts and witness items have those lengths, through
// check_payload_size and check_encoding. About 0.6 MB of encoding, once: a length class no input happens to reach
// is still sized in every run.
void check_length_classes(std::span<const uint8_t> input)
{
    static constexpr size_t kLengths[] = {0, 1, 252, 253, 254, 0xffff, 0x10000, 0x10001};
    model::Bytes largest(0x10001);
    for (size_t i = 0; i < largest.size(); ++i) largest[i] = static_cast<uint8_t>(i * 7 + (i >> 9));
    model::Block block;
    for (const size_t length : kLengths) {
        const std::span<const uint8_t> bytes = std::span<const uint8_t>(largest).first(length);
        check_payload_size(bytes, [length] { return "the fixed payload of " + std::to_string(length) + " bytes"; },
                           input);
        model::Transaction tx;
        tx.version = 2;
        tx.inputs.resize(2);
        tx.inputs[0].script_sig = model::Bytes(bytes.begin(), bytes.end());
        tx.inputs[1].witness = {model::Bytes{0x30}, model::Bytes(bytes.begin(), bytes.end())};
        tx.outputs = {{1, model::Bytes{0x51}}, {2, model::Bytes(bytes.begin(), bytes.end())}};
        check_encoding(transaction_codec(true), tx, input);
        check_encoding(transaction_codec(false), tx, input);
        if (length >= 0xffff) block.transactions.push_back(tx);
    }
    check_encoding(block_codec(), block, input);
}

}  // namespace

// Generated values range from bytes to ~200 KB; the engine favours the inputs that run fast (see primitive_stream).
SERDIFF_FUZZ_TARGET(size_computer, .max_len = 8192, .libfuzzer_flags = "-entropic_scale_per_exec_time=1")
{
    once_per_process([&] { check_length_classes(input); });
    FuzzInput fuzz(input);
    ValueGenerator generate(fuzz);
    // check_encoding compares both encodings, optimized size_*() against the length, and the re-decode.
    const int which = fuzz.in_range<int>(0, 5);
    switch (which) {
    case 0:
    case 1: {
        model::Transaction tx = generate.transaction();
        widen_scripts(fuzz, generate, tx);
        check_witness_stacks(tx, input);
        check_payload_sizes(tx, input);
        check_encoding(transaction_codec(which == 0), tx, input);
        break;
    }
    case 2: check_encoding(block_header_codec(), generate.header(), input); break;
    case 3: {
        model::Block block = generate.block();
        if (!block.transactions.empty())
            widen_scripts(fuzz, generate, block.transactions[fuzz.in_range<size_t>(0, block.transactions.size() - 1)]);
        for (const model::Transaction& tx : block.transactions) check_payload_sizes(tx, input);
        check_encoding(block_codec(), block, input);
        break;
    }
    case 4: check_encoding(block_locator_codec(), generate.locator(), input); break;
    default: check_encoding(block_undo_codec(), generate.block_undo(), input); break;
    }
}
