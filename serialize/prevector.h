// prevector<N, T>: a vector of trivially copyable elements that keeps up to N of them inline (no heap).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>

namespace serdiff::optimized {

template <size_t N, typename T>
class prevector {
    static_assert(N > 0, "an inline capacity of zero is a plain vector");
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>,
                  "elements are moved with memcpy and created without construction");

public:
    using value_type = T;
    using size_type = size_t;
    using iterator = T*;
    using const_iterator = const T*;
    using reference = T&;
    using const_reference = const T&;

    prevector() noexcept = default;
    explicit prevector(size_t count) { resize(count); }
    prevector(size_t count, const T& value) { assign(count, value); }
    template <std::input_iterator It>
    prevector(It first, It last)
    {
        assign(first, last);
    }
    prevector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
    prevector(const prevector& other) { assign(other.begin(), other.end()); }
    prevector(prevector&& other) noexcept { take(other); }
    ~prevector() { std::free(heap_); }

    prevector& operator=(const prevector& other)
    {
        if (this != &other) assign(other.begin(), other.end());
        return *this;
    }
    prevector& operator=(prevector&& other) noexcept
    {
        if (this != &other) {
            std::free(heap_);
            heap_ = nullptr;
            take(other);
        }
        return *this;
    }

    size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    size_t capacity() const noexcept { return capacity_; }
    bool is_inline() const noexcept { return heap_ == nullptr; }

    T* data() noexcept { return heap_ ? heap_ : inline_; }
    const T* data() const noexcept { return heap_ ? heap_ : inline_; }
    iterator begin() noexcept { return data(); }
    iterator end() noexcept { return data() + size_; }
    const_iterator begin() const noexcept { return data(); }
    const_iterator end() const noexcept { return data() + size_; }
    T& operator[](size_t index) noexcept { return data()[index]; }
    const T& operator[](size_t index) const noexcept { return data()[index]; }
    T& front() noexcept { return data()[0]; }
    const T& front() const noexcept { return data()[0]; }
    T& back() noexcept { return data()[size_ - 1]; }
    const T& back() const noexcept { return data()[size_ - 1]; }

    // Allocates exactly `wanted` elements when growing, so callers bound memory precisely.
    void reserve(size_t wanted)
    {
        if (wanted <= capacity_) return;
        T* grown = static_cast<T*>(std::malloc(wanted * sizeof(T)));
        if (!grown) throw std::bad_alloc();
        if (size_ != 0) std::memcpy(grown, data(), size_ * sizeof(T));
        std::free(heap_);
        heap_ = grown;
        capacity_ = wanted;
    }

    void resize(size_t count)
    {
        const size_t old_size = size_;
        resize_uninitialized(count);
        if (count > old_size) std::fill(data() + old_size, data() + count, T{});
    }
    void resize(size_t count, const T& value)
    {
        const size_t old_size = size_;
        resize_uninitialized(count);
        if (count > old_size) std::fill(data() + old_size, data() + count, value);
    }
    // Grows without writing the new elements: for readers that fill them right away.
    void resize_uninitialized(size_t count)
    {
        reserve(count);
        size_ = count;
    }

    void clear() noexcept { size_ = 0; }
    void push_back(const T& value)
    {
        const T copy = value;  // value may live inside this prevector's storage
        grow_for(size_ + 1);
        data()[size_++] = copy;
    }
    template <typename... Args>
    T& emplace_back(Args&&... args)
    {
        const T made{std::forward<Args>(args)...};
        grow_for(size_ + 1);
        return data()[size_++] = made;
    }
    void pop_back() noexcept { --size_; }

    void assign(size_t count, const T& value)
    {
        const T copy = value;
        clear();
        resize(count, copy);
    }
    template <std::input_iterator It>
    void assign(It first, It last)
    {
        clear();
        insert(end(), first, last);
    }

    template <std::input_iterator It>
    iterator insert(const_iterator position, It first, It last)
    {
        const size_t offset = static_cast<size_t>(position - begin());
        if constexpr (std::forward_iterator<It>) {
            const size_t count = static_cast<size_t>(std::distance(first, last));
            if (count == 0) return begin() + offset;
            grow_for(size_ + count);
            T* at = data() + offset;
            if (offset != size_) std::memmove(at + count, at, (size_ - offset) * sizeof(T));
            std::copy(first, last, at);
            size_ += count;
        } else {
            prevector staged;
            for (; first != last; ++first) staged.push_back(*first);
            insert(begin() + offset, staged.begin(), staged.end());
        }
        return begin() + offset;
    }
    iterator insert(const_iterator position, const T& value)
    {
        const T copy = value;
        return insert(position, &copy, &copy + 1);
    }
    iterator erase(const_iterator first, const_iterator last)
    {
        const size_t from = static_cast<size_t>(first - begin());
        const size_t count = static_cast<size_t>(last - first);
        T* at = data() + from;
        std::memmove(at, at + count, (size_ - from - count) * sizeof(T));
        size_ -= count;
        return at;
    }
    iterator erase(const_iterator position) { return erase(position, position + 1); }

    friend bool operator==(const prevector& a, const prevector& b)
    {
        return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
    }
    // Bitcoin Core's order (prevector::operator<): the shorter first, then element by element.
    friend bool operator<(const prevector& a, const prevector& b)
    {
        if (a.size_ != b.size_) return a.size_ < b.size_;
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    // Doubling growth for element-wise appends; exact growth is reserve()'s job.
    void grow_for(size_t needed)
    {
        if (needed > capacity_) reserve(std::max(needed, capacity_ * 2));
    }
    void take(prevector& other) noexcept
    {
        size_ = other.size_;
        capacity_ = other.capacity_;
        if (other.heap_) {
            heap_ = other.heap_;
        } else if (size_ != 0) {
            std::memcpy(inline_, other.inline_, size_ * sizeof(T));
        }
        other.heap_ = nullptr;
        other.size_ = 0;
        other.capacity_ = N;
    }

    T inline_[N];
    T* heap_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = N;
};

}  // namespace serdiff::optimized
