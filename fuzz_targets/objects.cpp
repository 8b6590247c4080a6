// One target per SERDIFF_OBJECT_TYPES line (model/codec_table.h), named like the type: decode arbitrary bytes
// on both sides, compare, re-encode, size, re-decode (differential/object_check.h); block_header and block also
// compare the encoding of a default-constructed object.
#include <span>
#include <string_view>
#include <type_traits>

#include "differential/codecs.h"
#include "differential/compare.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"

namespace {

// Each object target's options: it covers the codec of its own name; a type not named below fuzzes with
// the default max_len.
constexpr serdiff::fuzz::TargetOptions object_target_options(const char* name)
{
    serdiff::fuzz::TargetOptions options{.codec = name};
    const std::string_view type = name;
    if (type == "block_header") options.max_len = 256;
    if (type == "block") options.max_len = 262144;
    if (type == "block_locator") options.max_len = 16384;
    if (type == "block_undo") options.max_len = 65536;
    // tools/corpus_gen cuts seeds for these from the real blocks.
    options.real_data_seeds = type == "block_header" || type == "block" || type == "block_locator";
    return options;
}

// Besides the round trip: a default-constructed header and block (SetNull's values on Core) must encode on the
// subject's side as the reference encodes model::BlockHeader{} and model::Block{}. Neither side's encoding depends
// on the input, so it is compared once per process, at its first input (a mismatch there names that input, and
// replaying it alone shows it again), not again on every input.
template <typename T>
void check_default_encoding(std::span<const uint8_t> input)
{
    using namespace serdiff;
    differential::once_per_process([&] {
        if constexpr (std::is_same_v<T, model::BlockHeader>)
            differential::compare_bytes("block_header default-constructed encode", subject::encode_default_header(),
                                        differential::block_header_codec().reference_encode(model::BlockHeader{}), input);
        if constexpr (std::is_same_v<T, model::Block>)
            differential::compare_bytes("block default-constructed encode", subject::encode_default_block(),
                                        differential::block_codec().reference_encode(model::Block{}), input);
    });
}

}  // namespace

#define SERDIFF_OBJECT_TARGET(name, Type, stem)                                                       \
    SERDIFF_FUZZ_TARGET(name, object_target_options(#name))                                           \
    {                                                                                                  \
        serdiff::differential::check_decode_round_trip(serdiff::differential::name##_codec(), input); \
        check_default_encoding<serdiff::model::Type>(input);                                           \
    }
SERDIFF_OBJECT_TYPES(SERDIFF_OBJECT_TARGET)
