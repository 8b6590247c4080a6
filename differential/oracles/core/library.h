// The Bitcoin Core peer's library (libbitcoinkernel.so, loaded on first use) as the rest of serdiff sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace serdiff::oracles::core {

// Why the library cannot be used (not installed, dlopen failed, a function missing); empty when it can.
const std::string& unavailable_reason();
// "Bitcoin Core <version from the library> libbitcoinkernel, py-bitcoinkernel <pinned version>".
const std::string& description();
// The file that was (or would have been) loaded.
const std::string& library_path();
// How many times Core's serializer calls the writer callback for this block (0 when it does not decode).
uint64_t block_writer_calls(const uint8_t* data, size_t size);

}  // namespace serdiff::oracles::core
