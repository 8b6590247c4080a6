// What Core's node/blockstorage.cpp needs from the rest of Core's node, beyond the files subjects/core/CMakeLists.txt
// compiles for block_store (docs/core.md "What is built"). Core's own definitions where they are one line; stubs that
// stop the run where the definition would pull in validation or LevelDB: the block index database (BlockManager
// opens one, block_store never reads or writes it) and the chainstate calls of reindexing and pruning, which
// block_store does not make. A stub that is reached is a harness error, and says so.
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>

#include <dbwrapper.h>
#include <kernel/cs_main.h>
#include <kernel/notifications_interface.h>
#include <kernel/chain.h>
#include <kernel/types.h>
#include <random.h>
#include <signet.h>
#include <util/translation.h>
#include <validation.h>

namespace {
[[noreturn]] void not_built(const char* what)
{
    std::fprintf(stderr, "serdiff: Core's %s was called; the Core subject's block_store does not build it "
                         "(subjects/core/node_support.cpp)\n", what);
    std::abort();
}
}  // namespace

// Core's definitions (validation.cpp, the node's translation function: none, as the kernel library's).
RecursiveMutex cs_main;
const TranslateFn G_TRANSLATION_FUN{nullptr};
bool FatalError(kernel::Notifications& notifications, BlockValidationState& state, const bilingual_str& message)
{
    notifications.fatalError(message);
    return state.Error(message.original);
}

// The block index database: BlockManager's constructor makes one, nothing block_store calls reads or writes it.
struct LevelDBContext {};
CDBWrapper::CDBWrapper(const DBParams&) {}
CDBWrapper::~CDBWrapper() = default;
void CDBWrapper::WriteBatch(CDBBatch&, bool) { not_built("CDBWrapper::WriteBatch"); }
std::optional<std::string> CDBWrapper::ReadImpl(std::span<const std::byte>) const { not_built("CDBWrapper::Read"); }
bool CDBWrapper::ExistsImpl(std::span<const std::byte>) const { not_built("CDBWrapper::Exists"); }
CDBIterator* CDBWrapper::NewIterator() { not_built("CDBWrapper::NewIterator"); }
struct CDBBatch::WriteBatchImpl {};
CDBBatch::CDBBatch(const CDBWrapper& parent) : parent{parent}, m_impl_batch{} { not_built("CDBBatch"); }
CDBBatch::~CDBBatch() = default;
void CDBBatch::WriteImpl(std::span<const std::byte>, DataStream&) { not_built("CDBBatch::Write"); }
void CDBBatch::EraseImpl(std::span<const std::byte>) { not_built("CDBBatch::Erase"); }
struct CDBIterator::IteratorImpl {};
CDBIterator::~CDBIterator() = default;
void CDBIterator::SeekImpl(std::span<const std::byte>) { not_built("CDBIterator::Seek"); }
bool CDBIterator::Valid() const { not_built("CDBIterator::Valid"); }
void CDBIterator::Next() { not_built("CDBIterator::Next"); }
std::span<const std::byte> CDBIterator::GetKeyImpl() const { not_built("CDBIterator::GetKey"); }
std::span<const std::byte> CDBIterator::GetValueImpl() const { not_built("CDBIterator::GetValue"); }
namespace dbwrapper_private {
const Obfuscation& GetObfuscation(const CDBWrapper&) { not_built("dbwrapper_private::GetObfuscation"); }
}  // namespace dbwrapper_private

// Reindexing, importing and pruning (validation.cpp).
bool Chainstate::LoadGenesisBlock() { not_built("Chainstate::LoadGenesisBlock"); }
kernel::ChainstateRole Chainstate::GetRole() const { not_built("Chainstate::GetRole"); }
std::pair<int, int> Chainstate::GetPruneRange(int) const { not_built("Chainstate::GetPruneRange"); }
Chainstate& ChainstateManager::ActiveChainstate() const { not_built("ChainstateManager::ActiveChainstate"); }
bool ChainstateManager::IsInitialBlockDownload() const noexcept { not_built("ChainstateManager::IsInitialBlockDownload"); }
util::Result<void> ChainstateManager::ActivateBestChains() { not_built("ChainstateManager::ActivateBestChains"); }
void ChainstateManager::LoadExternalBlockFile(AutoFile&, FlatFilePos*, std::multimap<uint256, FlatFilePos>*)
{
    not_built("ChainstateManager::LoadExternalBlockFile");
}
namespace kernel {
std::ostream& operator<<(std::ostream&, const ChainstateRole&) { not_built("operator<<(ChainstateRole)"); }
}  // namespace kernel

// A signet block's solution (signet.cpp): block_store runs on regtest, whose ReadBlock never checks one.
bool CheckSignetBlockSolution(const CBlock&, const Consensus::Params&) { not_built("CheckSignetBlockSolution"); }

// A fresh random obfuscation key (random.cpp): block_store writes xor.dat itself before BlockManager starts, so
// BlockManager reads the key and never draws one.
namespace {
constexpr std::array<std::byte, 32> kNoKey{};
}  // namespace
FastRandomContext::FastRandomContext(bool) noexcept : requires_seed{false}, rng{kNoKey} { not_built("FastRandomContext"); }
void FastRandomContext::fillrand(std::span<std::byte>) noexcept { not_built("FastRandomContext::fillrand"); }

// Whether Core's fuzz-determinism rules are on at run time (util/check.cpp): off, as in Core's own non-fuzz builds;
// a FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION build (OSS-Fuzz) turns them on at compile time whatever this says.
std::atomic<bool> g_enable_dynamic_fuzz_determinism{false};
