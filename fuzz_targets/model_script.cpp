// Target model_script: model::Script (shared by the optimized and the reference side, so no differential target
// can see a bug in it) driven by an operation program and compared with std::vector<uint8_t> after every step:
// contents (only bytes written: resize_uninitialized leaves the rest unset), size, emptiness, ==, the moved-from
// state; and what model.h promises: capacity ≥ size, inline exactly while capacity is kInlineBytes, inline while
// it never needed more, reserve growing to exactly its request, push_back at least doubling the capacity when it
// grows it, and (under ASan) the container annotations.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "differential/compare.h"
#include "differential/program_input.h"
#include "fuzz_targets/registry.h"
#include "model/model.h"

#ifdef SERDIFF_MODEL_ASAN  // model.h's: built with AddressSanitizer, so Script annotates its buffers
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

using namespace serdiff;
using model::Script;

namespace {

inline constexpr size_t kMaxBytes = 200;  // a few heap growths past the 40 inline bytes
inline constexpr size_t kMaxSteps = 64;
inline constexpr size_t kOperations = 17;

// The expected contents: the bytes, and which of them were written (resize_uninitialized leaves bytes unset,
// and reading them would be reading uninitialized memory: MSan's job, not a value to compare).
struct Expected {
    std::vector<uint8_t> bytes;
    std::vector<bool> known;
    size_t peak = 0;  // the most bytes the storage was asked to hold since it was made: at most 40 → inline

    size_t size() const { return bytes.size(); }
    bool fully_known() const { return std::find(known.begin(), known.end(), false) == known.end(); }
    void set(std::span<const uint8_t> values)
    {
        bytes.assign(values.begin(), values.end());
        known.assign(values.size(), true);
    }
    void resize(size_t count, bool zero_filled)
    {
        bytes.resize(count, 0);
        known.resize(count, zero_filled);
        peak = std::max(peak, count);
    }
};

std::string show(const Expected& expected)
{
    std::string text = "[";
    for (size_t i = 0; i < expected.size(); ++i)
        text += (i ? " " : "") + (expected.known[i] ? std::to_string(expected.bytes[i]) : std::string("?"));
    return text + "] (" + std::to_string(expected.size()) + " bytes)";
}

std::string show(const Script& script, const Expected& expected)
{
    std::string text = "[";
    for (size_t i = 0; i < script.size(); ++i)
        text += (i ? " " : "") + (i < expected.size() && !expected.known[i] ? std::string("?") : std::to_string(script[i]));
    return text + "] (" + std::to_string(script.size()) + " bytes, capacity " + std::to_string(script.capacity()) + ")";
}

bool stored_inline(const Script& script)
{
    const auto* object = reinterpret_cast<const uint8_t*>(&script);
    const std::less_equal<const uint8_t*> at_most;
    return at_most(object, script.data()) && at_most(script.data(), object + sizeof(Script));
}

class Program {
public:
    Program(differential::ProgramInput& in, std::span<const uint8_t> input) : in_(in), input_(input) {}

    void run()
    {
        for (size_t step = 0; step < kMaxSteps && !in_.exhausted(); ++step) {
            operation_ = in_.byte() % kOperations;
            apply();
            check(script_, expected_, "the script");
            check(snapshot_, snapshot_expected_, "the snapshot");
        }
    }

private:
    uint8_t value() { return static_cast<uint8_t>(in_.number()); }
    size_t count(size_t at_most) { return static_cast<size_t>(in_.number_at_most(at_most)); }
    std::vector<uint8_t> values(size_t how_many)
    {
        std::vector<uint8_t> out(how_many);
        const uint8_t salt = in_.byte();
        for (size_t i = 0; i < how_many; ++i) out[i] = static_cast<uint8_t>(salt * 31 + i * 7 + (i >> 3));
        return out;
    }

    void fail(const std::string& what, const std::string& details)
    {
        differential::report_mismatch("model::Script", "operation " + std::to_string(operation_) + ": " + what, details,
                                      input_);
    }

    void apply()
    {
        const size_t size = expected_.size();
        switch (operation_) {
        case 0: {
            const uint8_t v = value();
            if (size == kMaxBytes) break;
            const size_t before = script_.capacity();
            script_.push_back(v);
            // A push_back that has to grow the script at least doubles its capacity (model.h: it reserves twice), so
            // that n push_backs copy O(n) bytes, as std::vector's amortized constant time.
            if (script_.capacity() != before && script_.capacity() < 2 * before)
                fail("push_back", "capacity grew from " + std::to_string(before) + " to " +
                                      std::to_string(script_.capacity()) + ", less than twice");
            expected_.resize(size + 1, true);
            expected_.bytes[size] = v;
            break;
        }
        case 1: {
            const size_t n = count(kMaxBytes);
            script_.resize(n);
            expected_.resize(n, true);
            break;
        }
        case 2: {  // bytes past the old size stay unknown until written
            const size_t n = count(kMaxBytes);
            script_.resize_uninitialized(n);
            expected_.resize(n, false);
            break;
        }
        case 3: {
            const size_t n = count(kMaxBytes);
            const size_t before = script_.capacity();
            const uint8_t* const data = script_.data();
            script_.reserve(n);
            expected_.peak = std::max(expected_.peak, n);
            if (n > before && script_.capacity() != n)
                fail("reserve", "capacity " + std::to_string(script_.capacity()) + " after reserve(" + std::to_string(n) +
                                    ") from " + std::to_string(before) + ": not exactly the request");
            if (n <= before && (script_.capacity() != before || script_.data() != data))
                fail("reserve", "reserve(" + std::to_string(n) + ") within capacity " + std::to_string(before) +
                                    " changed the storage");
            break;
        }
        case 4:
            script_.clear();
            expected_.resize(0, true);
            break;
        case 5: {
            const size_t n = count(kMaxBytes);
            const uint8_t v = value();
            script_.assign(n, v);
            expected_.resize(n, true);
            expected_.set(std::vector<uint8_t>(n, v));
            break;
        }
        case 6: {
            const std::vector<uint8_t> range = values(count(kMaxBytes));
            script_.assign(std::span<const uint8_t>(range));
            expected_.resize(range.size(), true);
            expected_.set(range);
            break;
        }
        case 7: {  // assign from its own bytes (aliasing); an unset byte copied stays unknown
            const size_t first = count(size);
            const size_t last = first + count(size - first);
            script_.assign(std::span<const uint8_t>(script_.data() + first, last - first));
            Expected copied{{expected_.bytes.begin() + first, expected_.bytes.begin() + last},
                            {expected_.known.begin() + first, expected_.known.begin() + last},
                            expected_.peak};
            expected_ = std::move(copied);
            break;
        }
        case 8: {  // write one byte: through [], data() or an iterator
            const size_t at = count(size ? size - 1 : 0);
            const uint8_t v = value();
            const uint8_t how = in_.byte() % 3;
            if (!size) break;
            if (how == 0) script_[at] = v;
            else if (how == 1) script_.data()[at] = v;
            else *(script_.begin() + at) = v;
            expected_.bytes[at] = v, expected_.known[at] = true;
            break;
        }
        case 9: {  // write a range through the iterators
            const size_t first = count(size);
            const size_t last = first + count(size - first);
            const uint8_t v = value();
            std::fill(script_.begin() + first, script_.begin() + last, v);
            std::fill(expected_.bytes.begin() + first, expected_.bytes.begin() + last, v);
            std::fill(expected_.known.begin() + first, expected_.known.begin() + last, true);
            break;
        }
        case 10:  // snapshot by copy construction: a fresh script, inline if it fits
            snapshot_ = Script(script_);
            snapshot_expected_ = expected_;
            snapshot_expected_.peak = size;
            break;
        case 11:  // copy assignment both ways, self-assignment included: the storage is kept
            if (in_.byte() & 1) {
                const Script& self = script_;
                script_ = self;
            } else {
                script_ = snapshot_;
                const size_t peak = std::max(expected_.peak, snapshot_expected_.size());
                expected_ = snapshot_expected_;
                expected_.peak = peak;
            }
            break;
        case 12: {  // move construction and move assignment (self-move too): the moved-from script is empty and inline
            Script moved(std::move(script_));
            check_moved_from(script_, "move construction");
            script_ = std::move(moved);
            check_moved_from(moved, "move assignment");
            moved.push_back(7);
            if (moved.size() != 1 || moved[0] != 7) fail("move assignment", "moved-from script unusable");
            if (in_.byte() & 1) {
                Script& self = script_;
                script_ = std::move(self);
            }
            break;
        }
        case 13:  // swap: two moves and a move assignment
            std::swap(script_, snapshot_);
            std::swap(expected_, snapshot_expected_);
            break;
        case 14: {  // destroyed in place: its bytes must be plain memory again (the annotations undone)
            alignas(Script) uint8_t storage[sizeof(Script)];
            Script* copy = (in_.byte() & 1) ? std::construct_at(reinterpret_cast<Script*>(storage), script_)
                                            : std::construct_at(reinterpret_cast<Script*>(storage), Script(script_));
            bool same = copy->size() == size;
            for (size_t i = 0; same && i < size; ++i) same = !expected_.known[i] || (*copy)[i] == expected_.bytes[i];
            if (!same) fail("copy construction", show(*copy, expected_) + "\nexpected " + show(expected_));
            std::destroy_at(copy);
#ifdef SERDIFF_MODEL_ASAN
            if (__asan_region_is_poisoned(storage, sizeof(Script)))
                fail("destructor", "the destroyed script's bytes are still poisoned (container annotation left behind)");
#endif
            break;
        }
        default: {  // constructors: default, initializer list, Bytes (implicit), span (explicit), count + value
            const size_t n = count(kMaxBytes);
            const uint8_t v = value();
            const std::vector<uint8_t> range = values(n);
            switch (in_.byte() % 5) {
            case 0: script_ = Script(), expected_.set({}); break;
            case 1: {
                const uint8_t v1 = static_cast<uint8_t>(v + 1), v2 = static_cast<uint8_t>(v + 2);
                script_ = Script{v, v1, v2};
                expected_.set(std::vector<uint8_t>{v, v1, v2});
                break;
            }
            case 2: script_ = range, expected_.set(range); break;
            case 3: script_ = Script(std::span<const uint8_t>(range)), expected_.set(range); break;
            default: script_ = Script(n, v), expected_.set(std::vector<uint8_t>(n, v));
            }
            expected_.peak = expected_.size();
        }
        }
    }

    void check_moved_from(const Script& script, const char* what)
    {
        if (!script.empty() || script.capacity() != Script::kInlineBytes || !stored_inline(script))
            fail(what, "moved-from script not empty and inline: " + std::to_string(script.size()) + " bytes, capacity " +
                           std::to_string(script.capacity()));
    }

    void check(Script& script, const Expected& expected, const char* which)
    {
        const size_t size = expected.size();
        const Script& constant = script;
        const auto both = [&] { return std::string(which) + " " + show(script, expected) + "\nstd::vector " + show(expected); };
        if (script.size() != size || script.empty() != (size == 0) || static_cast<size_t>(script.end() - script.begin()) != size ||
            static_cast<size_t>(constant.end() - constant.begin()) != size)
            fail("size differs from std::vector", both());
        if (script.begin() != script.data() || constant.data() != script.data() || constant.begin() != script.data())
            fail("data()/begin()", both());
        for (size_t i = 0; i < size; ++i)
            if (expected.known[i] && (constant[i] != expected.bytes[i] || script[i] != expected.bytes[i]))
                fail("contents differ from std::vector at " + std::to_string(i), both());
        if (script.capacity() < size) fail("capacity below size", both());
        if (stored_inline(script) != (script.capacity() == Script::kInlineBytes))
            fail("inline storage", std::string(which) + (stored_inline(script) ? " inline" : " on the heap") + " with capacity " +
                                       std::to_string(script.capacity()));
        if (expected.peak <= Script::kInlineBytes && !stored_inline(script))
            fail("inline storage", std::string(which) + " on the heap though it never held more than " +
                                       std::to_string(expected.peak) + " bytes");
#ifdef SERDIFF_MODEL_ASAN
        // model.h: the buffer is poisoned from size() to capacity(); on the heap the object's own bytes are plain.
        if (!__sanitizer_verify_contiguous_container(script.data(), script.data() + size, script.data() + script.capacity()))
            fail("container annotation", both() + "\nthe bytes [0, size) are not exactly the unpoisoned part of the buffer");
        if (!stored_inline(script) && __asan_region_is_poisoned(&script, sizeof(Script)))
            fail("container annotation", both() + "\non the heap, but the object's inline bytes are still poisoned");
#endif
        // == reads every byte: compared only when no byte is unset.
        if (expected.fully_known() && snapshot_expected_.fully_known()) {
            if ((script == snapshot_) != (expected.bytes == snapshot_expected_.bytes) || !(script == script))
                fail("operator==", both() + "\nsnapshot " + show(snapshot_expected_));
        }
    }

    differential::ProgramInput& in_;
    std::span<const uint8_t> input_;
    uint8_t operation_ = 0;
    Script script_, snapshot_;
    Expected expected_, snapshot_expected_;
};

}  // namespace

// Input: operations, byte % 17 selects, numbers and payload salts are its arguments (fuzz_targets/model_script.cpp).
SERDIFF_FUZZ_TARGET(model_script, .max_len = 512)
{
    differential::ProgramInput in(input);
    Program(in, input).run();
}
