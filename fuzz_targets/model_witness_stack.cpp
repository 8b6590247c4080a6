// Target model_witness_stack: model::WitnessStack (shared by the optimized and the reference side, so no
// differential target can see a bug in it) driven by an operation program and compared with
// std::vector<std::vector<uint8_t>> after every step: size, emptiness, the items by iteration (pre- and
// post-increment), by item(i) and [] (spans into the buffer), the wire form against the reference's encoding
// of the same items, serialized_size(), ==, what append() returns, and the moved-from state.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "differential/compare.h"
#include "differential/program_input.h"
#include "differential/reference/primitives.h"
#include "fuzz_targets/registry.h"
#include "model/model.h"

using namespace serdiff;
using model::Bytes;
using model::WitnessStack;

static_assert(std::forward_iterator<WitnessStack::const_iterator>);

namespace {

inline constexpr size_t kMaxItemBytes = 0x10000 + 8;      // past the 3-byte length prefix into the 5-byte one
inline constexpr size_t kMaxTotalBytes = kMaxItemBytes + 4096;  // of item bytes in one stack: one such item at most
inline constexpr size_t kMaxSteps = 64;
inline constexpr size_t kOperations = 12;

using Items = std::vector<Bytes>;

size_t total_bytes(const Items& items)
{
    size_t total = 0;
    for (const Bytes& item : items) total += item.size();
    return total;
}

template <typename ItemList>  // Items, or the spans of a stack
std::string show(const ItemList& items)
{
    std::string text = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        const auto& item = items[i];
        text += (i ? " " : "") + (item.empty() ? std::string("''") : model::to_hex(item.data(), std::min<size_t>(item.size(), 8)));
        text += item.size() > 8 ? "…(" + std::to_string(item.size()) + ")" : "";
    }
    return text + "] (" + std::to_string(items.size()) + " items)";
}

class Program {
public:
    Program(differential::ProgramInput& in, std::span<const uint8_t> input) : in_(in), input_(input) {}

    void run()
    {
        for (size_t step = 0; step < kMaxSteps && !in_.exhausted(); ++step) {
            operation_ = in_.byte() % kOperations;
            snapshot_changed_ = false;
            apply();
            check(stack_, expected_, "the stack");
            if (snapshot_changed_) check(snapshot_, snapshot_expected_, "the snapshot");
        }
    }

private:
    size_t count(size_t at_most) { return static_cast<size_t>(in_.number_at_most(at_most)); }
    size_t room() const { return kMaxTotalBytes - std::min(total_bytes(expected_), kMaxTotalBytes); }

    void fail(const std::string& what, const std::string& details)
    {
        differential::report_mismatch("model::WitnessStack", "operation " + std::to_string(operation_) + ": " + what,
                                      details, input_);
    }

    void apply()
    {
        const size_t size = expected_.size();
        switch (operation_) {
        case 0: {  // push_back of a payload (a Bytes converts to the item span)
            const Bytes item = in_.payload(count(std::min(room(), kMaxItemBytes)));
            stack_.push_back(item);
            expected_.push_back(item);
            break;
        }
        case 1: {  // append: `n` zero bytes after their length prefix, returned for the caller to fill (a prefix of them)
            const size_t n = count(std::min(room(), kMaxItemBytes));
            const size_t filled = count(n);
            const uint8_t salt = in_.byte();
            const std::span<uint8_t> out = stack_.append(n);
            const WitnessStack::Item wire = stack_.encoded_items();
            if (out.size() != n || out.data() + n != wire.data() + wire.size())
                fail("append", "the returned span is not the last " + std::to_string(n) + " bytes of the wire form");
            if (std::find_if(out.begin(), out.end(), [](uint8_t b) { return b != 0; }) != out.end())
                fail("append", "the returned bytes are not zero");
            Bytes item(n, 0);
            for (size_t i = 0; i < filled; ++i) item[i] = out[i] = static_cast<uint8_t>(salt + i * 13);
            expected_.push_back(std::move(item));
            break;
        }
        case 2: {  // push_back of one of its own items, or of a part of one (aliasing: growing moves them)
            if (!size) break;
            const size_t at = count(size - 1);
            const Bytes& source = expected_[at];
            if (source.size() > room()) break;
            const size_t first = (in_.byte() & 1) ? count(source.size()) : 0;
            const size_t last = first + count(source.size() - first);
            stack_.push_back(stack_.item(at).subspan(first, last - first));
            expected_.push_back(Bytes(source.begin() + static_cast<std::ptrdiff_t>(first),
                                      source.begin() + static_cast<std::ptrdiff_t>(last)));
            break;
        }
        case 3: {  // reserve: the items stay
            stack_.reserve(count(kMaxTotalBytes + 64));
            break;
        }
        case 4:
            stack_.clear(), expected_.clear();
            break;
        case 5:  // snapshot by copy construction (the equality checks compare against it from now on)
            snapshot_ = WitnessStack(stack_), snapshot_expected_ = expected_;
            snapshot_changed_ = true;
            break;
        case 6:  // copy assignment both ways, self-assignment included
            if (in_.byte() & 1) {
                const WitnessStack& self = stack_;
                stack_ = self;
            } else {
                stack_ = snapshot_, expected_ = snapshot_expected_;
            }
            break;
        case 7: {  // move construction and move assignment: the moved-from stack is valid (its size is its items)
            WitnessStack moved(std::move(stack_));
            check_moved_from(stack_, "move construction");
            stack_ = std::move(moved);
            check_moved_from(moved, "move assignment");
            break;
        }
        case 8:  // swap: a move construction and two move assignments
            std::swap(stack_, snapshot_), std::swap(expected_, snapshot_expected_);
            snapshot_changed_ = true;
            break;
        case 9: {  // items past the first by walking the iterator from begin(): std::next, std::advance
            if (!size) break;
            const size_t at = count(size - 1);
            WitnessStack::const_iterator it = stack_.begin();
            std::advance(it, static_cast<std::ptrdiff_t>(at));
            if (it != std::next(stack_.begin(), static_cast<std::ptrdiff_t>(at)) || !std::ranges::equal(*it, expected_[at]))
                fail("iterator advance", "item " + std::to_string(at) + " not reached");
            break;
        }
        case 10: {  // the initializer-list constructor, 0 to 3 items
            const size_t items = in_.byte() % 4;
            Items made;
            for (size_t i = 0; i < items; ++i) made.push_back(in_.payload(count(std::min<size_t>(kMaxItemBytes / 2, 300))));
            switch (items) {
            case 0: stack_ = WitnessStack{}; break;
            case 1: stack_ = WitnessStack{made[0]}; break;
            case 2: stack_ = WitnessStack{made[0], made[1]}; break;
            default: stack_ = WitnessStack{made[0], made[1], made[2]};
            }
            expected_ = std::move(made);
            break;
        }
        default: {  // an empty item, pushed as an empty span
            if (in_.byte() & 1) stack_.push_back(WitnessStack::Item{}), expected_.emplace_back();
            else (void)stack_.append(0), expected_.emplace_back();
        }
        }
    }

    // Valid but unspecified, as a moved-from standard container: its size is the number of its items, and after
    // clear() it is empty and usable.
    void check_moved_from(WitnessStack& stack, const char* what)
    {
        const auto walked = static_cast<size_t>(std::distance(stack.begin(), stack.end()));
        if (stack.size() != walked || stack.empty() != (stack.begin() == stack.end()))
            fail(what, "moved-from stack says size() " + std::to_string(stack.size()) + " but holds " +
                           std::to_string(walked) + " items (" + std::to_string(stack.encoded_items().size()) +
                           " wire bytes)");
        stack.clear();
        stack.push_back(Bytes{7});
        if (stack.size() != 1 || stack.item(0).size() != 1 || stack.item(0)[0] != 7) fail(what, "moved-from stack unusable");
        stack.clear();
    }

    void check(const WitnessStack& stack, const Items& expected, const char* which)
    {
        // What the walk reached so far (walking the stack again could follow a broken length into any memory).
        std::vector<WitnessStack::Item> spans;
        const auto both = [&] {
            return std::string(which) + ", the items walked: " + show(spans) + " of size() " + std::to_string(stack.size()) +
                   "\nstd::vector " + show(expected);
        };
        if (stack.size() != expected.size() || stack.empty() != expected.empty())
            fail("size differs from std::vector", std::string(which) + " size() " + std::to_string(stack.size()) +
                                                      "\nstd::vector " + show(expected));
        // The wire form first (the walks below trust its length prefixes): each item's CompactSize length from the
        // reference, then its bytes; where each item's bytes start in it.
        Bytes& wire = wire_;  // kept between checks: a fresh 64 KiB buffer each time is a fresh mmap under ASan
        std::vector<size_t>& starts = starts_;
        wire.clear(), starts.clear();
        for (const Bytes& item : expected) {
            reference::Writer prefix;
            prefix.write_compactsize(item.size());
            wire.insert(wire.end(), prefix.out.begin(), prefix.out.end());
            starts.push_back(wire.size());
            wire.insert(wire.end(), item.begin(), item.end());
        }
        const WitnessStack::Item encoded = stack.encoded_items();
        if (encoded.size() != wire.size() || (!wire.empty() && std::memcmp(encoded.data(), wire.data(), wire.size()) != 0))
            fail("encoded_items() differs from the reference's encoding of the items",
                 differential::describe_byte_difference(encoded, wire, "WitnessStack", "reference"));
        reference::Writer count;
        count.write_compactsize(expected.size());
        if (stack.serialized_size() != count.out.size() + wire.size())
            fail("serialized_size()", std::to_string(stack.serialized_size()) + ", the reference's encoding " +
                                          std::to_string(count.out.size() + wire.size()) + " bytes");
        // Every item by the iterator (pre- and post-increment alternately), then by item(i) and [] (the same span):
        // the wire form being right, an item is right when it is the span of its bytes there.
        WitnessStack::const_iterator it = stack.begin();
        for (size_t i = 0; i < expected.size(); ++i) {
            if (it == stack.end()) fail("iteration ends early", both());
            const WitnessStack::Item item = *it;
            if (item.data() < encoded.data() || item.size() > static_cast<size_t>(encoded.data() + encoded.size() - item.data()))
                fail("item " + std::to_string(i), "not a span into encoded_items(): " + std::to_string(item.size()) +
                                                      " bytes at offset " + std::to_string(item.data() - encoded.data()) + "\n" + both());
            spans.push_back(item);
            if (item.data() != encoded.data() + starts[i] || item.size() != expected[i].size())
                fail("item " + std::to_string(i) + " differs from std::vector", both());
            if (i % 2) {
                ++it;
            } else {
                const WitnessStack::const_iterator before = it;
                if (it++ != before) fail("post-increment", "did not return the iterator before the step");
            }
        }
        if (it != stack.end()) fail("iteration does not end after size() items", both());
        for (size_t i = 0; i < spans.size(); ++i) {
            const WitnessStack::Item by_index = stack.item(i), by_subscript = stack[i];
            if (by_index.data() != spans[i].data() || by_index.size() != spans[i].size() ||
                by_subscript.data() != spans[i].data() || by_subscript.size() != spans[i].size())
                fail("item(" + std::to_string(i) + ") / [" + std::to_string(i) + "]", "not the item iteration reaches");
        }
        if (!(stack == stack) || (stack == snapshot_) != (expected == snapshot_expected_))
            fail("operator==", both() + "\nsnapshot " + show(snapshot_expected_));
    }

    differential::ProgramInput& in_;
    std::span<const uint8_t> input_;
    uint8_t operation_ = 0;
    bool snapshot_changed_ = false;  // checked again only then: the checks cost as much as the stack's bytes
    WitnessStack stack_, snapshot_;
    Items expected_, snapshot_expected_;
    Bytes wire_;
    std::vector<size_t> starts_;
};

}  // namespace

// Input: operations, byte % 12 selects, numbers and payloads are its arguments.
SERDIFF_FUZZ_TARGET(model_witness_stack, .max_len = 1024)
{
    differential::ProgramInput in(input);
    Program(in, input).run();
}
