// Result of decoding one object from bytes; both implementations return this shape.
#pragma once

#include <cstddef>
#include <string>

namespace serdiff::model {

template <typename T>
struct Decoded {
    bool ok = false;
    std::string error;    // one of model::errors when !ok
    size_t consumed = 0;  // bytes read; meaningful only when ok
    T value{};
};

}  // namespace serdiff::model
