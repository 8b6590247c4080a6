// OpenSSL and libsecp256k1 calls behind serdiff::crypto. Neither library is built with MSan, so under
// MSan every input is checked as initialized before the call and every output unpoisoned after it:
// MSan still reports uninitialized bytes reaching a hash or key, and trusts what the library wrote.
#include "crypto/crypto.h"

#include <openssl/evp.h>
#include <secp256k1.h>

#include <stdexcept>

#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#include <sanitizer/msan_interface.h>
#define SERDIFF_MSAN 1
#endif
#endif

namespace serdiff::crypto {
namespace {

void check_input(const void* data, size_t size)
{
#ifdef SERDIFF_MSAN
    __msan_check_mem_is_initialized(data, size);
#else
    (void)data;
    (void)size;
#endif
}

void trust_output(void* data, size_t size)
{
#ifdef SERDIFF_MSAN
    __msan_unpoison(data, size);
#else
    (void)data;
    (void)size;
#endif
}

// While OpenSSL runs, MSan's libc interceptors must not check its arguments: OpenSSL's own uninstrumented
// writes (e.g. the config file path its first call builds and fopen()s) look uninitialized to MSan.
struct UninstrumentedLibraryScope {
    UninstrumentedLibraryScope()
    {
#ifdef SERDIFF_MSAN
        __msan_scoped_disable_interceptor_checks();
#endif
    }
    ~UninstrumentedLibraryScope()
    {
#ifdef SERDIFF_MSAN
        __msan_scoped_enable_interceptor_checks();
#endif
    }
    UninstrumentedLibraryScope(const UninstrumentedLibraryScope&) = delete;
    UninstrumentedLibraryScope& operator=(const UninstrumentedLibraryScope&) = delete;
};

}  // namespace

// SHA-256 fetched from OpenSSL's provider once and one digest context reused per thread: a fetch and a new
// context per call cost more than hashing a typical transaction (EVP_sha256() fetches again at every init).
struct Sha256Context {
    EVP_MD* md = nullptr;
    EVP_MD_CTX* ctx = nullptr;
    Sha256Context()
    {
        const UninstrumentedLibraryScope openssl_scope;
        md = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
        ctx = EVP_MD_CTX_new();
    }
    ~Sha256Context()
    {
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
    }
    Sha256Context(const Sha256Context&) = delete;
    Sha256Context& operator=(const Sha256Context&) = delete;
};

model::uint256 sha256d(std::span<const uint8_t> a, std::span<const uint8_t> b)
{
    check_input(a.data(), a.size());
    check_input(b.data(), b.size());
    thread_local Sha256Context sha256;
    const UninstrumentedLibraryScope openssl_scope;
    unsigned char first[EVP_MAX_MD_SIZE];
    unsigned int first_size = 0;
    EVP_MD_CTX* ctx = sha256.ctx;
    bool ok = ctx && sha256.md && EVP_DigestInit_ex2(ctx, sha256.md, nullptr) == 1 &&
              EVP_DigestUpdate(ctx, a.data(), a.size()) == 1 && EVP_DigestUpdate(ctx, b.data(), b.size()) == 1 &&
              EVP_DigestFinal_ex(ctx, first, &first_size) == 1;
    trust_output(first, sizeof first);
    trust_output(&first_size, sizeof first_size);
    model::uint256 out;
    unsigned int second_size = 0;
    ok = ok && first_size == 32 && EVP_DigestInit_ex2(ctx, sha256.md, nullptr) == 1 &&
         EVP_DigestUpdate(ctx, first, 32) == 1 && EVP_DigestFinal_ex(ctx, out.bytes.data(), &second_size) == 1;
    trust_output(out.bytes.data(), out.bytes.size());
    trust_output(&second_size, sizeof second_size);
    if (!ok || second_size != 32) throw std::runtime_error("OpenSSL SHA-256 failed");
    return out;
}

model::uint256 sha256d(std::span<const uint8_t> data) { return sha256d(data, {}); }

bool pubkey_is_fully_valid(std::span<const uint8_t> key)
{
    check_input(key.data(), key.size());
    secp256k1_pubkey parsed;
    int ok = secp256k1_ec_pubkey_parse(secp256k1_context_static, &parsed, key.data(), key.size());
    trust_output(&ok, sizeof ok);
    return ok == 1;
}

bool decompress_pubkey(std::span<const uint8_t, 33> compressed, std::span<uint8_t, 65> uncompressed)
{
    check_input(compressed.data(), compressed.size());
    secp256k1_pubkey parsed;
    int ok = secp256k1_ec_pubkey_parse(secp256k1_context_static, &parsed, compressed.data(), compressed.size());
    trust_output(&ok, sizeof ok);
    if (ok != 1) return false;
    trust_output(&parsed, sizeof parsed);
    size_t length = uncompressed.size();
    ok = secp256k1_ec_pubkey_serialize(secp256k1_context_static, uncompressed.data(), &length, &parsed,
                                       SECP256K1_EC_UNCOMPRESSED);
    trust_output(uncompressed.data(), uncompressed.size());
    trust_output(&length, sizeof length);
    return ok == 1 && length == 65;
}

}  // namespace serdiff::crypto
