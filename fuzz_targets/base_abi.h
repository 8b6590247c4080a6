// The one C entry point between a Core-subject fuzz binary (HEAD) and its BASE shared object
// (fuzz_targets/base_entry.cpp); plain C types only, since each side has its own copy of every C++ type.
#pragma once

#include <stddef.h>
#include <stdint.h>

extern "C" {

// What BASE recorded for one input: the entries (differential/observe.h's layout), valid until the next call.
struct serdiff_base_record {
    const uint8_t* entries;
    size_t entries_size;
    size_t count;
    const char* labels;  // labelled runs: "label\0reference\0" per entry
    size_t labels_size;
};

enum {
    SERDIFF_BASE_RAN = 0,       // the target ran to its end on BASE
    SERDIFF_BASE_MISMATCH = 1,  // BASE differed from the reference (its record's last entry says where)
    SERDIFF_BASE_THREW = 2,     // an exception escaped BASE's target
    SERDIFF_BASE_NO_TARGET = 3  // BASE's build has no such target
};

// `labelled` this value: BASE runs alone, reporting its own mismatches with the reference and aborting, recording
// nothing (the fuzz binaries do that when SERDIFF_BASE_ALONE=1 is in the environment).
enum { SERDIFF_BASE_ALONE = 2 };

// Runs target `target_name` of BASE on the input, recording (with labels when `labelled` is 1) into `out`.
// `host_peer_depth`: the calling binary's differential::peer_depth, which BASE's exemptions from the allocation
// bound then count on (differential/allocation_bound.h).
// `shared_features`: the features of differential/observe.h both trees have (HEAD computes it with
// serdiff_base_features); what a check of any other feature sees is recorded by neither side.
int serdiff_base_run(const char* target_name, const uint8_t* data, size_t size, int labelled, serdiff_base_record* out,
                     volatile int* host_peer_depth, uint32_t shared_features) __attribute__((weak));
// BASE's features (differential::subject_features of the harness compiled against BASE's tree).
uint32_t serdiff_base_features(void) __attribute__((weak));
// 1 when BASE's build has the target (an older BASE tree may lack one HEAD has), else 0.
int serdiff_base_has_target(const char* target_name) __attribute__((weak));
}
