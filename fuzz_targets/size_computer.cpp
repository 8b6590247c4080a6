// Target size_computer: structured objects built from the input; SizeComputer == encoded length on both sides.
#include <cstdint>
#include <span>
#include <string>

#include "differential/codecs.h"
#include "differential/compare.h"
#include "differential/generate.h"
#include "differential/reference/primitives.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"
#include "model/model.h"

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

}  // namespace

// Generated values range from bytes to ~200 KB; the engine favours the inputs that run fast (see primitive_stream).
SERDIFF_FUZZ_TARGET(size_computer, .max_len = 8192, .libfuzzer_flags = "-entropic_scale_per_exec_time=1")
{
    FuzzInput fuzz(input);
    ValueGenerator generate(fuzz);
    // check_encoding compares both encodings, optimized size_*() against the length, and the re-decode.
    const int which = fuzz.in_range<int>(0, 5);
    switch (which) {
    case 0:
    case 1: {
        const model::Transaction tx = generate.transaction();
        check_witness_stacks(tx, input);
        check_encoding(transaction_codec(which == 0), tx, input);
        break;
    }
    case 2: check_encoding(block_header_codec(), generate.header(), input); break;
    case 3: check_encoding(block_codec(), generate.block(), input); break;
    case 4: check_encoding(block_locator_codec(), generate.locator(), input); break;
    default: check_encoding(block_undo_codec(), generate.block_undo(), input); break;
    }
}
