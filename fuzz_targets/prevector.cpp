// Target prevector: subject::prevector driven directly by an operation program and compared with std::vector
// after every step (contents, size, emptiness, front/back, the returned iterators and references, equality
// with a snapshot), plus its own invariants (capacity ≥ size; inline exactly while capacity is the inline N).
// The object targets reach prevector only through CScript-shaped fields; this drives every member.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "differential/compare.h"
#include "differential/program_input.h"
#include "differential/subject.h"
#include "fuzz_targets/registry.h"
#include "subject_streams.h"

using namespace serdiff;

namespace {

inline constexpr size_t kMaxElements = 96;  // a few heap growths past every inline capacity used here
inline constexpr size_t kMaxSteps = 64;

// A single-pass iterator over a vector, so insert/assign take their input-iterator path.
template <typename T>
struct InputOnly {
    using iterator_category = std::input_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const T* at = nullptr;
    const T& operator*() const { return *at; }
    InputOnly& operator++()
    {
        ++at;
        return *this;
    }
    void operator++(int) { ++at; }
    friend bool operator==(const InputOnly& a, const InputOnly& b) { return a.at == b.at; }
};
static_assert(std::input_iterator<InputOnly<uint8_t>> && !std::forward_iterator<InputOnly<uint8_t>>);

template <typename T>
std::string show(const T* data, size_t size)
{
    std::string text = "[";
    for (size_t i = 0; i < size; ++i) text += (i ? " " : "") + std::to_string(static_cast<uint64_t>(data[i]));
    return text + "] (" + std::to_string(size) + " elements)";
}

template <size_t N, typename T>
class Program {
public:
    Program(differential::ProgramInput& in, std::span<const uint8_t> input, std::string label)
        : in_(in), input_(input), label_(std::move(label))
    {
    }

    void run()
    {
        for (size_t step = 0; step < kMaxSteps && !in_.exhausted(); ++step) {
            operation_ = in_.byte() % 18;
            apply();
            check();
        }
    }

private:
    T value() { return static_cast<T>(in_.number()); }
    size_t count(size_t at_most) { return static_cast<size_t>(in_.number_at_most(at_most)); }
    std::vector<T> values(size_t how_many)
    {
        std::vector<T> out(how_many);
        const uint8_t salt = in_.byte();
        for (size_t i = 0; i < how_many; ++i) out[i] = static_cast<T>(salt * 31 + i * 7 + (i >> 3));
        return out;
    }

    void fail(const std::string& what, const std::string& details)
    {
        differential::report_mismatch(label_, "operation " + std::to_string(operation_) + ": " + what, details, input_);
    }

    void apply()
    {
        const size_t capacity_before = subject_.capacity();
        operate();
        if (operation_ == 0 || operation_ == 1 || operation_ == 9 || operation_ == 10) {
            // An append or insert that no longer fits grows by the subject's rule (subject::prevector_grown_capacity);
            // one that fits keeps the capacity.
            const size_t needed = model_.size();
            const size_t expected =
                needed > capacity_before ? subject::prevector_grown_capacity(capacity_before, needed) : capacity_before;
            if (subject_.capacity() != expected)
                fail("growth", "capacity " + std::to_string(subject_.capacity()) + " for " + std::to_string(needed) +
                                   " elements, was " + std::to_string(capacity_before) + ", expected " +
                                   std::to_string(expected));
        }
    }

    // One operation on both the subject and the std::vector.
    void operate()
    {
        const size_t size = model_.size();
        const size_t room = kMaxElements - std::min(size, kMaxElements);
        switch (operation_) {
        case 0: {
            const T v = value();
            if (room) subject_.push_back(v), model_.push_back(v);
            break;
        }
        case 1: {
            const T v = value();
            if (!room) break;
            if constexpr (subject::kPrevectorEmplaceBackReturnsReference) {
                T& made = subject_.emplace_back(v);
                if (&made != &subject_.back() || made != v) fail("emplace_back reference", "not the new last element");
            } else {
                subject_.emplace_back(v);
            }
            model_.push_back(v);
            break;
        }
        case 2:
            if (size) subject_.pop_back(), model_.pop_back();
            break;
        case 3: {
            const size_t n = count(kMaxElements);
            subject_.resize(n), model_.resize(n);
            break;
        }
        case 4: {
            const size_t n = count(kMaxElements);
            const T v = value();
            if constexpr (subject::kPrevectorResizeTakesValue) {
                subject_.resize(n, v), model_.resize(n, v);
            } else {
                // Core's prevector has no resize(n, value); instead its resize_uninitialized down to n (a shrink
                // writes no element) and shrink_to_fit, which moves a heap vector of at most N elements back
                // inline (freeing the heap block) and fits a longer one's heap block to its size.
                const size_t kept = std::min(n, size);
                subject_.resize_uninitialized(kept), model_.resize(kept);
                subject_.shrink_to_fit();
                if (subject_.capacity() != std::max(kept, N))
                    fail("shrink_to_fit", "capacity " + std::to_string(subject_.capacity()) + " for " + std::to_string(kept) +
                                              " elements (inline N " + std::to_string(N) + ")");
            }
            break;
        }
        case 5: {
            const size_t n = count(kMaxElements);
            const size_t before = subject_.capacity();
            subject_.reserve(n);
            if (subject_.capacity() < std::max(before, n)) fail("reserve", "capacity below the request");
            break;
        }
        case 6:
            subject_.clear(), model_.clear();
            break;
        case 7: {
            const size_t n = count(kMaxElements);
            const T v = value();
            subject_.assign(n, v), model_.assign(n, v);
            break;
        }
        case 8: {
            const std::vector<T> range = values(count(kMaxElements));
            const bool single_pass = in_.byte() & 1;
            if constexpr (subject::kPrevectorTakesSinglePassRanges) {
                if (single_pass) subject_.assign(InputOnly<T>{range.data()}, InputOnly<T>{range.data() + range.size()});
                else subject_.assign(range.begin(), range.end());
            } else {
                subject_.assign(range.begin(), range.end());
            }
            model_.assign(range.begin(), range.end());
            break;
        }
        case 9: {
            const size_t at = count(size);
            const T v = value();
            if (!room) break;
            const auto it = subject_.insert(subject_.begin() + at, v);
            model_.insert(model_.begin() + static_cast<std::ptrdiff_t>(at), v);
            if (it != subject_.begin() + at) fail("insert(value) result", "iterator not at the inserted element");
            break;
        }
        case 10: {
            const size_t at = count(size);
            const std::vector<T> range = values(count(room));
            const bool single_pass = in_.byte() & 1;
            if constexpr (subject::kPrevectorTakesSinglePassRanges) {
                const auto it = single_pass
                                    ? subject_.insert(subject_.begin() + at, InputOnly<T>{range.data()},
                                                      InputOnly<T>{range.data() + range.size()})
                                    : subject_.insert(subject_.begin() + at, range.begin(), range.end());
                if (it != subject_.begin() + at) fail("insert(range) result", "iterator not at the first inserted element");
            } else {
                subject_.insert(subject_.begin() + at, range.begin(), range.end());  // returns nothing
            }
            model_.insert(model_.begin() + static_cast<std::ptrdiff_t>(at), range.begin(), range.end());
            break;
        }
        case 11: {
            if (!size) break;
            const size_t at = count(size - 1);
            const auto it = subject_.erase(subject_.begin() + at);
            model_.erase(model_.begin() + static_cast<std::ptrdiff_t>(at));
            if (it != subject_.begin() + at) fail("erase(position) result", "iterator not after the erased element");
            break;
        }
        case 12: {
            const size_t first = count(size);
            const size_t last = first + count(size - first);
            const auto it = subject_.erase(subject_.begin() + first, subject_.begin() + last);
            model_.erase(model_.begin() + static_cast<std::ptrdiff_t>(first),
                         model_.begin() + static_cast<std::ptrdiff_t>(last));
            if (it != subject_.begin() + first) fail("erase(range) result", "iterator not after the erased range");
            break;
        }
        case 13:  // snapshot by copy construction (the equality checks compare against it from now on)
            snapshot_ = subject::prevector<N, T>(subject_), snapshot_model_ = model_;
            break;
        case 14:  // copy assignment both ways, self-assignment included
            if (in_.byte() & 1) {
                const auto& self = subject_;
                subject_ = self;
            } else {
                subject_ = snapshot_, model_ = snapshot_model_;
            }
            break;
        case 15: {  // move construction and move assignment: the moved-from vector must be empty and usable
            subject::prevector<N, T> moved(std::move(subject_));
            if (!subject_.empty() || !subject::prevector_is_inline(subject_) || subject_.capacity() != N)
                fail("move construction", "moved-from prevector not empty with its inline capacity");
            subject_ = std::move(moved);
            if (!moved.empty() || !subject::prevector_is_inline(moved) || moved.capacity() != N)
                fail("move assignment", "moved-from prevector not empty with its inline capacity");
            moved.push_back(T{7});  // a moved-from prevector is usable
            if (moved.size() != 1 || moved[0] != T{7}) fail("move assignment", "moved-from prevector unusable");
            break;
        }
        case 16: {  // elements of the vector itself as the argument (aliasing)
            if (!size || !room || !subject::kPrevectorTakesOwnElements) break;
            const size_t from = count(size - 1);
            const T v = model_[from];
            if (in_.byte() & 1) {
                subject_.push_back(subject_[from]), model_.push_back(v);
            } else {
                const size_t at = count(size);
                subject_.insert(subject_.begin() + at, subject_[from]);
                model_.insert(model_.begin() + static_cast<std::ptrdiff_t>(at), v);
            }
            break;
        }
        default: {  // constructors: count, count+value, range, initializer list
            const size_t n = count(kMaxElements);
            const T v = value();
            switch (in_.byte() % 4) {
            case 0: subject_ = subject::prevector<N, T>(n), model_.assign(n, T{}); break;
            case 1: subject_ = subject::prevector<N, T>(n, v), model_.assign(n, v); break;
            case 2: {
                const std::vector<T> range = values(n);
                subject_ = subject::prevector<N, T>(range.begin(), range.end()), model_ = range;
                break;
            }
            default: {
                // The next two values, wrapping at the type's width (computed in 64 bits: no overflow).
                const T v1 = static_cast<T>(uint64_t{v} + 1), v2 = static_cast<T>(uint64_t{v} + 2);
                model_ = {v, v1, v2};
                if constexpr (subject::kPrevectorTakesInitializerList) subject_ = subject::prevector<N, T>{v, v1, v2};
                else subject_ = subject::prevector<N, T>(model_.begin(), model_.end());
            }
            }
        }
        }
    }

    void check()
    {
        const size_t size = model_.size();
        const std::string both = std::string(subject::name()) + " " + show(subject_.data(), subject_.size()) + "\nstd::vector " +
                                 show(model_.data(), size);
        if (subject_.size() != size || !std::equal(model_.begin(), model_.end(), subject_.begin()))
            fail("contents differ from std::vector", both);
        if (subject_.empty() != model_.empty()) fail("empty()", both);
        if (static_cast<size_t>(subject_.end() - subject_.begin()) != size) fail("end() - begin()", both);
        if (size && (subject_.front() != model_.front() || subject_.back() != model_.back()))
            fail("front()/back()", both);
        if (subject_.capacity() < size) fail("capacity below size", "capacity " + std::to_string(subject_.capacity()));
        if (subject::prevector_is_inline(subject_) != (subject_.capacity() == N))
            fail("inline storage", "is_inline " + std::to_string(subject::prevector_is_inline(subject_)) + " with capacity " +
                                       std::to_string(subject_.capacity()) + " (inline N " + std::to_string(N) + ")");
        const auto& constant = subject_;
        if (size && (constant[size - 1] != model_[size - 1] || constant.data() != subject_.data()))
            fail("const access", both);
        if (size && (constant.front() != model_.front() || constant.back() != model_.back() ||
                     &constant.front() != subject_.data() || &constant.back() != subject_.data() + (size - 1)))
            fail("const front()/back()", both);
        // Copy assignment between two distinct prevectors whatever their address order (the second element of an
        // array from the first: `this` above `&other`), then self-assignment through a const reference.
        subject::prevector<N, T> copies[2] = {subject_, subject::prevector<N, T>()};
        copies[1] = copies[0];
        const auto& same = copies[1];
        copies[1] = same;
        if (copies[1].size() != size || !std::equal(model_.begin(), model_.end(), copies[1].begin()))
            fail("copy assignment", both + "\ncopy " + show(copies[1].data(), copies[1].size()));
        if ((subject_ == snapshot_) != (model_ == snapshot_model_) || !(snapshot_ == snapshot_))
            fail("operator==", both + "\nsnapshot " + show(snapshot_model_.data(), snapshot_model_.size()));
        // Core's order: the shorter first, then element by element (not std::vector's lexicographic order).
        if ((subject_ < snapshot_) != shorter_or_less(model_, snapshot_model_) ||
            (snapshot_ < subject_) != shorter_or_less(snapshot_model_, model_) || subject_ < subject_)
            fail("operator<", both + "\nsnapshot " + show(snapshot_model_.data(), snapshot_model_.size()));
        check_iterators(subject_.begin(), subject_.end(), both);
        check_iterators(constant.begin(), constant.end(), both);
        // An iterator converts to a const_iterator at the same element.
        const typename subject::prevector<N, T>::const_iterator converted = subject_.end();
        if (converted != constant.end()) fail("iterator to const_iterator", both);
    }

    static bool shorter_or_less(const std::vector<T>& a, const std::vector<T>& b)
    {
        if (a.size() != b.size()) return a.size() < b.size();
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }

    // Every operator of the (const_)iterator against the contents: ++ and -- (both forms), [], +, n + it, +=, -, -=,
    // the difference, ==, <=> and operator->.
    template <typename Iterator>
    void check_iterators(Iterator first, Iterator last, const std::string& both)
    {
        const size_t size = model_.size();
        size_t seen = 0;
        for (Iterator it = first; it != last; ++it, ++seen)
            if (seen >= size || *it != model_[seen] || std::to_address(it) != subject_.data() + seen)
                fail("iterator ++", both);
        if (seen != size) fail("iterator ++ count", both);
        Iterator back = last;
        for (size_t i = size; i > 0; --i)
            if (*--back != model_[i - 1]) fail("iterator --", both);
        Iterator post = first;
        for (size_t i = 0; i < size; ++i)
            if (*post++ != model_[i]) fail("iterator ++(int)", both);
        for (size_t i = size; i > 0; --i) {
            post--;
            if (*post != model_[i - 1]) fail("iterator --(int)", both);
        }
        for (size_t i = 0; i < size; ++i)
            if (first[i] != model_[i] || *(first + i) != model_[i] || *(i + first) != model_[i] ||
                *(last - (size - i)) != model_[i])
                fail("iterator [], + or -", both);
        Iterator moved = first;
        moved += size;
        if (moved != last || static_cast<size_t>(last - first) != size) fail("iterator += or difference", both);
        moved -= size;
        if (moved != first) fail("iterator -=", both);
        if ((first < last) != (size > 0) || !(first <= first) || (last > first) != (size > 0) || first > last)
            fail("iterator <=>", both);
    }

    differential::ProgramInput& in_;
    std::span<const uint8_t> input_;
    std::string label_;
    uint8_t operation_ = 0;
    subject::prevector<N, T> subject_, snapshot_;
    std::vector<T> model_, snapshot_model_;
};

}  // namespace

// Input: shape byte (0: prevector<28, uint8_t>, CScript's; 1: prevector<3, uint32_t>, wider elements and a
// small inline part), then operations: byte % 18 selects, numbers and payload salts are its arguments.
SERDIFF_FUZZ_TARGET(prevector, .max_len = 512)
{
    differential::ProgramInput in(input);
    if (in.byte() & 1) {
        Program<3, uint32_t>(in, input, "prevector<3, uint32_t>").run();
    } else {
        Program<28, uint8_t>(in, input, "prevector<28, uint8_t>").run();
    }
}
