// Bitcoin Core behind serdiff's peer C ABI: libbitcoinkernel.so (from the pinned py-bitcoinkernel wheel),
// loaded with dlopen on first use. Only the handful of C API functions used here are declared, from the
// library's ABI: `btck_<object>_create(bytes, length)` returns an owned handle or NULL when Core's
// deserializer throws; `btck_<object>_to_bytes` writes Core's serialization through a callback (a header
// into an 80-byte buffer); `btck_<object>_destroy` frees the handle. No context object is needed for these.
//
// What Core's C API cannot say, and how the verdict is made exact anyway:
// - no error message: a rejection is reported as "rejected by btck_<object>_create".
// - no consumed-byte count, and trailing bytes are accepted silently (the C API deserializes from a stream
//   and does not check that the stream is empty). Core's deserializer reads the input front to back and
//   what it reads depends only on the bytes already read, so a prefix of length k decodes exactly when k
//   is at least the number of bytes Core consumes. The consumed count is measured that way: the length of
//   Core's re-encoding is tried first (Core accepts only canonical encodings, so it is normally the answer)
//   and confirmed by decoding the prefix of that length (must succeed) and one byte shorter (must fail);
//   otherwise a binary search over prefix lengths finds the smallest one that decodes. The comparison with
//   the reference then covers accept/reject, consumed and the re-encoding, like every other peer.
// - no witness-free decoding: decode_tx with allow_witness = 0 is SERDIFF_PEER_UNSUPPORTED.
#include "differential/oracles/core/library.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "differential/oracles/peer_abi.h"

#ifndef SERDIFF_CORE_VENV
#error "SERDIFF_CORE_VENV must name the venv the wheel is installed into (set by differential/oracles/CMakeLists.txt)"
#endif
#ifndef SERDIFF_CORE_PACKAGE_VERSION
#error "SERDIFF_CORE_PACKAGE_VERSION must be the pinned py-bitcoinkernel version (differential/oracles/CMakeLists.txt)"
#endif

namespace {

// Opaque handle types of the C API (only ever used through pointers).
struct CoreTransaction;
struct CoreBlock;
struct CoreHeader;

// int (*)(const void* bytes, size_t size, void* user_data): 0 means the write succeeded.
using WriteBytes = int (*)(const void*, size_t, void*);

struct Api {
    CoreTransaction* (*transaction_create)(const void*, size_t) = nullptr;
    int (*transaction_to_bytes)(const CoreTransaction*, WriteBytes, void*) = nullptr;
    void (*transaction_destroy)(CoreTransaction*) = nullptr;
    CoreBlock* (*block_create)(const void*, size_t) = nullptr;
    int (*block_to_bytes)(const CoreBlock*, WriteBytes, void*) = nullptr;
    void (*block_destroy)(CoreBlock*) = nullptr;
    CoreHeader* (*header_create)(const void*, size_t) = nullptr;
    int (*header_to_bytes)(const CoreHeader*, unsigned char*) = nullptr;  // writes exactly 80 bytes
    void (*header_destroy)(CoreHeader*) = nullptr;
    void (*logging_disable)() = nullptr;

    std::string path;
    std::string core_version;  // FormatFullVersion() of the library, e.g. "v31.99.0-unk"
    std::string description;   // what Peer::version shows
    std::string failure;       // why the library is not usable; empty when it is
};

// The library file: $SERDIFF_CORE_LIBRARY, or the pinned package in the venv (its dist-info must be the
// pinned version, so a different py-bitcoinkernel left in the venv is not used silently).
std::string locate(std::string& failure)
{
    if (const char* overridden = std::getenv("SERDIFF_CORE_LIBRARY"); overridden != nullptr && *overridden != '\0')
        return overridden;
    namespace fs = std::filesystem;
    const fs::path venv = SERDIFF_CORE_VENV;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(venv / "lib", error)) {
        const fs::path site = entry.path() / "site-packages";
        const fs::path library = site / "pbk" / "_libs" / "libbitcoinkernel.so";
        if (!fs::exists(library, error)) continue;
        if (!fs::exists(site / ("py_bitcoinkernel-" SERDIFF_CORE_PACKAGE_VERSION ".dist-info"), error)) {
            failure = "the py-bitcoinkernel in " + site.string() + " is not the pinned " SERDIFF_CORE_PACKAGE_VERSION;
            return "";
        }
        return library.string();
    }
    failure = "libbitcoinkernel.so not found under " + (venv / "lib").string() +
              "/python3*/site-packages/pbk/_libs (differential/oracles/core/install.sh " + venv.string() +
              " installs it; the build does so when SERDIFF_CORE_PEER=ON)";
    return "";
}

template <typename Function>
bool bind(void* handle, const char* name, Function& out, std::string& failure)
{
    void* symbol = dlsym(handle, name);
    if (symbol == nullptr) {
        if (failure.empty()) failure = std::string("libbitcoinkernel has no ") + name;
        return false;
    }
    out = reinterpret_cast<Function>(symbol);
    return true;
}

Api load()
{
    Api api;
    api.path = locate(api.failure);
    if (api.path.empty()) return api;
    void* handle = dlopen(api.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* error = dlerror();
        api.failure = "dlopen " + api.path + ": " + (error ? error : "unknown error");
        return api;
    }
    // Never dlclosed: handles may be alive until exit, and Core's static objects live in the library.
    bool ok = bind(handle, "btck_transaction_create", api.transaction_create, api.failure);
    ok &= bind(handle, "btck_transaction_to_bytes", api.transaction_to_bytes, api.failure);
    ok &= bind(handle, "btck_transaction_destroy", api.transaction_destroy, api.failure);
    ok &= bind(handle, "btck_block_create", api.block_create, api.failure);
    ok &= bind(handle, "btck_block_to_bytes", api.block_to_bytes, api.failure);
    ok &= bind(handle, "btck_block_destroy", api.block_destroy, api.failure);
    ok &= bind(handle, "btck_block_header_create", api.header_create, api.failure);
    ok &= bind(handle, "btck_block_header_to_bytes", api.header_to_bytes, api.failure);
    ok &= bind(handle, "btck_block_header_destroy", api.header_destroy, api.failure);
    ok &= bind(handle, "btck_logging_disable", api.logging_disable, api.failure);
    if (!ok) return api;
    // Core's logger buffers messages until a log connection starts it; nothing here reads them.
    api.logging_disable();
    // The library's own version string: the C++ function FormatFullVersion() (std::string, libstdc++'s
    // new ABI, as the symbol's [abi:cxx11] tag says); called only when this binary uses the same std::string.
#if defined(__GLIBCXX__) && defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI
    if (void* symbol = dlsym(handle, "_Z17FormatFullVersionB5cxx11v"))
        api.core_version = reinterpret_cast<std::string (*)()>(symbol)();
#endif
    api.description = "Bitcoin Core " + (api.core_version.empty() ? std::string("(version not readable)") : api.core_version) +
                      " libbitcoinkernel, py-bitcoinkernel " SERDIFF_CORE_PACKAGE_VERSION;
    return api;
}

const Api& api()
{
    static const Api loaded = load();
    return loaded;
}

void set_error(serdiff_peer_result* out, const char* message)
{
    std::snprintf(out->error, sizeof out->error, "%s", message);
}

// Appends what Core writes to a std::vector<uint8_t>.
int append_writer(const void* bytes, size_t size, void* user_data)
{
    auto* buffer = static_cast<std::vector<uint8_t>*>(user_data);
    const auto* begin = static_cast<const uint8_t*>(bytes);
    buffer->insert(buffer->end(), begin, begin + size);
    return 0;
}

// Counts the bytes and the calls, keeps nothing.
struct Discarded {
    uint64_t bytes = 0;
    uint64_t calls = 0;
};
int discard_writer(const void*, size_t size, void* user_data)
{
    auto* discarded = static_cast<Discarded*>(user_data);
    discarded->bytes += size;
    ++discarded->calls;
    return 0;
}

// One object type of the C API: create, serialize, destroy.
template <typename Handle>
struct ObjectApi {
    Handle* (*create)(const void*, size_t);
    void (*destroy)(Handle*);
    bool (*encode)(const Handle*, std::vector<uint8_t>&);
    const char* rejection;
};

bool encode_transaction(const CoreTransaction* tx, std::vector<uint8_t>& out)
{
    return api().transaction_to_bytes(tx, append_writer, &out) == 0;
}
bool encode_block(const CoreBlock* block, std::vector<uint8_t>& out)
{
    return api().block_to_bytes(block, append_writer, &out) == 0;
}
bool encode_header(const CoreHeader* header, std::vector<uint8_t>& out)
{
    unsigned char bytes[80];
    if (api().header_to_bytes(header, bytes) != 0) return false;
    out.insert(out.end(), bytes, bytes + sizeof bytes);
    return true;
}

// True when Core decodes the first `length` bytes.
template <typename Handle>
bool decodes_prefix(const ObjectApi<Handle>& object, const uint8_t* data, size_t length)
{
    Handle* handle = object.create(data, length);
    if (handle == nullptr) return false;
    object.destroy(handle);
    return true;
}

// The number of bytes Core reads: the smallest prefix length that decodes (see the top of this file).
template <typename Handle>
size_t consumed_by_core(const ObjectApi<Handle>& object, const uint8_t* data, size_t size, size_t guess)
{
    if (guess >= 1 && guess <= size && decodes_prefix(object, data, guess) && !decodes_prefix(object, data, guess - 1))
        return guess;
    size_t low = 0;      // every prefix shorter than `low` fails to decode
    size_t high = size;  // the prefix of length `high` decodes (the whole input does)
    while (low < high) {
        const size_t middle = low + (high - low) / 2;
        if (decodes_prefix(object, data, middle)) high = middle;
        else low = middle + 1;
    }
    return high;
}

template <typename Handle>
int decode(const ObjectApi<Handle>& object, const uint8_t* data, size_t size, serdiff_peer_result* out)
{
    *out = serdiff_peer_result{};
    const Api& library = api();
    if (!library.failure.empty()) {
        set_error(out, ("Bitcoin Core peer unavailable: " + library.failure).c_str());
        return SERDIFF_PEER_INTERNAL_ERROR;
    }
    Handle* handle = object.create(data, size);
    if (handle == nullptr) {
        set_error(out, object.rejection);
        return SERDIFF_PEER_OK;
    }
    std::vector<uint8_t> encoded;
    const bool encoded_ok = object.encode(handle, encoded);
    object.destroy(handle);
    if (!encoded_ok) {
        set_error(out, "Core's serializer reported a failed write");
        return SERDIFF_PEER_INTERNAL_ERROR;
    }
    out->accepted = 1;
    out->consumed = consumed_by_core(object, data, size, encoded.size());
    out->reencoded_len = encoded.size();
    out->reencoded = static_cast<uint8_t*>(std::malloc(encoded.empty() ? 1 : encoded.size()));
    if (out->reencoded == nullptr) {
        set_error(out, "out of memory");
        return SERDIFF_PEER_INTERNAL_ERROR;
    }
    if (!encoded.empty()) std::memcpy(out->reencoded, encoded.data(), encoded.size());
    return SERDIFF_PEER_OK;
}

const ObjectApi<CoreTransaction>& transaction_api()
{
    static const ObjectApi<CoreTransaction> object{api().transaction_create, api().transaction_destroy,
                                                   encode_transaction, "rejected by btck_transaction_create"};
    return object;
}
const ObjectApi<CoreBlock>& block_api()
{
    static const ObjectApi<CoreBlock> object{api().block_create, api().block_destroy, encode_block,
                                             "rejected by btck_block_create"};
    return object;
}
const ObjectApi<CoreHeader>& header_api()
{
    static const ObjectApi<CoreHeader> object{api().header_create, api().header_destroy, encode_header,
                                              "rejected by btck_block_header_create"};
    return object;
}

uint64_t now_ns()
{
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

}  // namespace

namespace serdiff::oracles::core {

const std::string& unavailable_reason() { return api().failure; }
const std::string& description() { return api().description; }
const std::string& library_path() { return api().path; }

uint64_t block_writer_calls(const uint8_t* data, size_t size)
{
    const Api& library = api();
    if (!library.failure.empty()) return 0;
    CoreBlock* block = library.block_create(data, size);
    if (block == nullptr) return 0;
    Discarded discarded;
    library.block_to_bytes(block, discard_writer, &discarded);
    library.block_destroy(block);
    return discarded.calls;
}

}  // namespace serdiff::oracles::core

extern "C" int serdiff_peer_core_decode_tx(const uint8_t* data, size_t size, int allow_witness, serdiff_peer_result* out)
{
    if (allow_witness == 0) {
        *out = serdiff_peer_result{};
        set_error(out, "Core's C API decodes transactions with witness only");
        return SERDIFF_PEER_UNSUPPORTED;
    }
    return decode(transaction_api(), data, size, out);
}

extern "C" int serdiff_peer_core_decode_block(const uint8_t* data, size_t size, serdiff_peer_result* out)
{
    return decode(block_api(), data, size, out);
}

extern "C" int serdiff_peer_core_decode_header(const uint8_t* data, size_t size, serdiff_peer_result* out)
{
    return decode(header_api(), data, size, out);
}

// DECODE: btck_block_create + btck_block_destroy per iteration. ENCODE: btck_block_to_bytes into a buffer
// reused across iterations (cleared, capacity kept) through append_writer. ENCODE_DISCARD: the same
// serialization into discard_writer, which only counts.
extern "C" int serdiff_peer_core_bench_block(const uint8_t* data, size_t size, uint64_t iterations, int mode,
                                             uint64_t* total_ns)
{
    const Api& library = api();
    if (!library.failure.empty()) return SERDIFF_PEER_INTERNAL_ERROR;
    if (mode != SERDIFF_PEER_BENCH_DECODE && mode != SERDIFF_PEER_BENCH_ENCODE && mode != SERDIFF_PEER_BENCH_ENCODE_DISCARD)
        return SERDIFF_PEER_UNSUPPORTED;
    // Checked before timing: the whole input is the block, and Core re-encodes it to the same bytes.
    serdiff_peer_result result{};
    const int status = serdiff_peer_core_decode_block(data, size, &result);
    const bool round_trips = status == SERDIFF_PEER_OK && result.accepted && result.consumed == size &&
                             result.reencoded_len == size && std::memcmp(result.reencoded, data, size) == 0;
    std::free(result.reencoded);
    if (!round_trips) return SERDIFF_PEER_INTERNAL_ERROR;

    uint64_t start = 0;
    if (mode == SERDIFF_PEER_BENCH_DECODE) {
        start = now_ns();
        for (uint64_t i = 0; i < iterations; ++i) {
            CoreBlock* block = library.block_create(data, size);
            if (block == nullptr) return SERDIFF_PEER_INTERNAL_ERROR;
            library.block_destroy(block);
        }
    } else {
        CoreBlock* block = library.block_create(data, size);
        if (block == nullptr) return SERDIFF_PEER_INTERNAL_ERROR;
        std::vector<uint8_t> buffer;
        buffer.reserve(size);
        Discarded discarded;
        bool ok = true;
        start = now_ns();
        for (uint64_t i = 0; i < iterations; ++i) {
            if (mode == SERDIFF_PEER_BENCH_ENCODE) {
                buffer.clear();
                ok &= library.block_to_bytes(block, append_writer, &buffer) == 0;
            } else {
                ok &= library.block_to_bytes(block, discard_writer, &discarded) == 0;
            }
        }
        const uint64_t end = now_ns();
        library.block_destroy(block);
        const uint64_t written = mode == SERDIFF_PEER_BENCH_ENCODE ? buffer.size() * iterations : discarded.bytes;
        if (!ok || written != size * iterations) return SERDIFF_PEER_INTERNAL_ERROR;
        *total_ns = end - start;
        return SERDIFF_PEER_OK;
    }
    *total_ns = now_ns() - start;
    return SERDIFF_PEER_OK;
}
