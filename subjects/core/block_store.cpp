// The block_store program of the Core subject: Core's own BlockManager (node/blockstorage.cpp over flatfile.cpp, a
// regtest chain, -fastprune sizes) writes blocks and undo data into a blocks directory and reads them back; serdiff's
// reference model of those files (differential/reference/block_files.h) does the same in memory. Every position,
// file, read and refusal is compared (docs/targets.md "Program formats", docs/file-io.md "Core's block files").
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <chain.h>
#include <consensus/validation.h>
#include <kernel/chainparams.h>
#include <kernel/cs_main.h>
#include <kernel/notifications_interface.h>
#include <node/blockstorage.h>
#include <streams.h>
#include <sync.h>
#include <util/check.h>
#include <util/signalinterrupt.h>
#include <util/translation.h>

#include "block_file_faults.h"
#include "convert.h"
#include "crypto/crypto.h"
#include "differential/allocation_bound.h"
#include "differential/compare.h"
#include "differential/file_programs.h"
#include "differential/generate.h"
#include "differential/observe.h"
#include "differential/program_input.h"
#include "differential/reference/block_files.h"
#include "differential/reference/reference.h"

namespace serdiff::differential {

namespace {

using core_subject::to_core;
using model::Bytes;
namespace files = reference::block_files;

// What block_store's BlockManager told its notifications (none of the programs' operations may fail).
class Notifications : public kernel::Notifications {
public:
    std::string errors;
    void flushError(const bilingual_str& message) override { errors += "flush error: " + message.original + "\n"; }
    void fatalError(const bilingual_str& message) override { errors += "fatal error: " + message.original + "\n"; }
};

const CChainParams& chain_params()
{
    static const std::unique_ptr<const CChainParams> params = CChainParams::RegTest(CChainParams::RegTestOptions{});
    return *params;
}

// The blocks directory of this process (HEAD and BASE each their own), emptied for every input. Under /dev/shm when
// there is one: Core flushes and fsyncs its files, which costs nothing there.
const std::filesystem::path& work_directory()
{
    static const std::filesystem::path directory = [] {
        std::filesystem::path base = std::filesystem::temp_directory_path();
        std::error_code error;
        if (std::filesystem::is_directory("/dev/shm", error) && access("/dev/shm", W_OK) == 0) base = "/dev/shm";
#ifdef SERDIFF_BASE_LIBRARY
        const char* side = "base";
#else
        const char* side = "head";
#endif
        return base / ("serdiff-core-block-store-" + std::to_string(getpid()) + "-" + side);
    }();
    // Removed when the process exits (a run that crashes leaves it for the report's reproduction).
    static const struct Removal {
        ~Removal()
        {
            std::error_code error;
            std::filesystem::remove_all(directory, error);
        }
    } removal;
    return directory;
}

Bytes file_bytes(const std::filesystem::path& path)
{
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (error) return {};
    Bytes out(static_cast<size_t>(size));
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return {};
    out.resize(std::fread(out.data(), 1, out.size(), file));
    std::fclose(file);
    return out;
}

void put_file(const std::filesystem::path& path, std::span<const uint8_t> bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

Bytes position_bytes(int file, uint32_t offset)
{
    Bytes out(8);
    for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(static_cast<uint32_t>(file) >> (8 * i));
    for (int i = 0; i < 4; ++i) out[4 + i] = static_cast<uint8_t>(offset >> (8 * i));
    return out;
}

std::string position_text(files::Position position)
{
    return "(" + std::to_string(position.file) + ", " + std::to_string(position.offset) + ")";
}

Bytes serialize_block(const CBlock& block)
{
    DataStream stream;
    stream << TX_WITH_WITNESS(block);
    const auto* data = reinterpret_cast<const uint8_t*>(stream.data());
    return Bytes(data, data + stream.size());
}

// A read's outcome as bytes: a status byte (0 ok, 1 I/O error, 2 bad part range), then what was read.
Bytes raw_outcome(files::RawError error, std::span<const uint8_t> data)
{
    Bytes out{static_cast<uint8_t>(error)};
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

// ReadBlock's check of the header (pow.cpp CheckProofOfWork): the regtest rule, or, in a build where Core's
// EnableFuzzDeterminism() holds (OSS-Fuzz's FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION), the rule Core keeps there:
// the hash's top bit clear.
bool proof_of_work(const model::uint256& hash, uint32_t bits)
{
    if (EnableFuzzDeterminism()) return (hash.bytes[31] & 0x80) == 0;
    return files::check_proof_of_work(hash, bits, core_subject::from_core(chain_params().GetConsensus().powLimit));
}

model::uint256 header_hash(std::span<const uint8_t> block_bytes)
{
    return crypto::sha256d(block_bytes.first(80));
}

// The block index entries BlockManager's undo calls take: the block (its file, height, undo position) whose parent
// entry holds the parent's hash. Not copyable: the block points at its parent, the parent at its hash.
struct UndoIndex {
    uint256 parent_hash;
    CBlockIndex parent;
    CBlockIndex block;
    UndoIndex(const model::uint256& parent_hash_in, int file) : parent_hash(to_core(parent_hash_in))
    {
        parent.phashBlock = &parent_hash;
        block.pprev = &parent;
        block.nFile = file;
    }
    UndoIndex(const UndoIndex&) = delete;
    UndoIndex& operator=(const UndoIndex&) = delete;
};

struct BlockWritten {
    files::Position position;
    uint32_t height;
    model::uint256 hash;
};
struct UndoWritten {
    files::Position position;
    model::uint256 parent;
};
// A write of the program, kept for the fault mode's second run of the same writes.
struct WriteAction {
    bool undo = false;
    model::Block block;  // a block write: the block before mining
    bool mine = false;
    model::BlockUndo undo_data;  // an undo write: the data, its parent's hash, the block it belongs to (by index)
    model::uint256 parent;
    size_t which = 0;
};

class Program {
public:
    explicit Program(std::span<const uint8_t> input) : m_input(input), m_in(input) {}
    void run();

private:
    void write_block(model::Block block, bool mine);
    void write_undo(const model::BlockUndo& undo, const model::uint256& parent, const BlockWritten& block);
    void compare_files(const char* when);
    void damage();
    void read_raw(files::Position position, std::optional<std::pair<uint64_t, uint64_t>> part);
    void read_block(files::Position position, std::optional<model::uint256> expected_hash);
    void read_undo(files::Position position, const model::uint256& parent);
    std::unique_ptr<node::BlockManager> make_manager(const std::filesystem::path& blocks, Notifications& notifications);
    void fault_mode(uint8_t fault_byte);
    void fault_child(const core_subject::BlockFileFaultPlan& plan, const std::string& label);
    files::Options model_options() const;

    std::span<const uint8_t> m_input;
    ProgramInput m_in;
    std::filesystem::path m_blocks;
    Notifications m_notifications;
    std::unique_ptr<node::BlockManager> m_core;
    std::optional<files::BlockFiles> m_model;
    std::vector<BlockWritten> m_blocks_written;
    std::vector<UndoWritten> m_undo_written;
    std::array<std::byte, 8> m_key{};
    std::vector<WriteAction> m_actions;
    std::map<std::string, uint64_t> m_sizes_written;  // each file's size as written (the fault mode picks one)
};

// Regtest's easiest target; about two tries find a nonce under it.
void mine_block(model::Block& block)
{
    block.header.bits = 0x207fffff;
    for (int tries = 0; tries < 64; ++tries) {
        if (proof_of_work(header_hash(reference::encode_header(block.header)), block.header.bits)) break;
        block.header.nonce = block.header.nonce == UINT32_MAX ? 0 : block.header.nonce + 1;
    }
}

void Program::write_block(model::Block block, bool mine)
{
    WriteAction action;
    action.block = block;
    action.mine = mine;
    m_actions.push_back(std::move(action));
    if (mine) mine_block(block);
    const Bytes encoded = reference::encode_block(block);
    const uint32_t height = static_cast<uint32_t>(m_blocks_written.size() + 1);
    const FlatFilePos core_position = m_core->WriteBlock(to_core(block), static_cast<int>(height));
    const files::Position expected = m_model->write_block(encoded, height);
    compare_bytes([&] { return "block_store WriteBlock of block " + std::to_string(m_blocks_written.size()) + ": position"; },
                  position_bytes(core_position.nFile, core_position.nPos), position_bytes(expected.file, expected.offset), m_input);
    m_blocks_written.push_back({expected, height, header_hash(encoded)});
}

void Program::write_undo(const model::BlockUndo& undo, const model::uint256& parent, const BlockWritten& block)
{
    WriteAction action;
    action.undo = true;
    action.undo_data = undo;
    action.parent = parent;
    action.which = static_cast<size_t>(&block - m_blocks_written.data());
    m_actions.push_back(std::move(action));
    const Bytes encoded = reference::encode_block_undo(undo);
    UndoIndex undo_index(parent, block.position.file);
    CBlockIndex& index = undo_index.block;
    index.nHeight = static_cast<int>(block.height);
    BlockValidationState state;
    bool written;
    {
        LOCK(::cs_main);
        written = m_core->WriteBlockUndo(to_core(undo), state, index);
    }
    const files::Position expected = m_model->write_undo(encoded, parent, block.position.file, block.height);
    const Bytes outcome = written && (index.nStatus & BLOCK_HAVE_UNDO) ? position_bytes(index.nFile, index.nUndoPos) : Bytes{};
    compare_bytes([&] { return "block_store WriteBlockUndo " + std::to_string(m_undo_written.size()) + ": position"; },
                  outcome, position_bytes(expected.file, expected.offset), m_input);
    m_undo_written.push_back({expected, parent});
}

// The blocks directory on disk (xor.dat aside) against the model's files: the same names, byte for byte.
void Program::compare_files(const char* when)
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(m_blocks)) {
        const std::string name = entry.path().filename().string();
        if (name != "xor.dat") names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    std::string core_names, model_names;
    for (const std::string& name : names) core_names += name + " ";
    for (const auto& [name, bytes] : m_model->files()) model_names += name + " ";
    compare_bytes(std::string("block_store files ") + when,
                  std::span(reinterpret_cast<const uint8_t*>(core_names.data()), core_names.size()),
                  std::span(reinterpret_cast<const uint8_t*>(model_names.data()), model_names.size()), m_input);
    for (const auto& [name, bytes] : m_model->files())
        compare_bytes([&] { return "block_store " + name + " " + when; }, file_bytes(m_blocks / name), bytes, m_input);
    if (!m_notifications.errors.empty())
        report_mismatch("block_store notifications", "Core reported an error the model has none for", m_notifications.errors,
                        m_input);
}

// The edits of the serdiff program, on blk00000.dat: flip a bit, truncate, append stored zeros, overwrite 4 bytes.
void Program::damage()
{
    const size_t edits = m_in.byte() % (kMaxRecordFileEdits + 1);
    const std::string name = files::BlockFiles::block_file_name(0);
    for (size_t i = 0; i < edits; ++i) {
        Bytes& stored = m_model->file(name);
        const uint8_t kind = m_in.byte() % 4;
        const uint64_t where = m_in.number();
        if (kind == 0 && !stored.empty()) stored[where % stored.size()] ^= static_cast<uint8_t>(1u << (m_in.byte() % 8));
        else if (kind == 1) stored.resize(static_cast<size_t>(where % (stored.size() + 1)));
        else if (kind == 2) stored.resize(stored.size() + 1 + static_cast<size_t>(where % 64), 0);
        else if (kind == 3 && stored.size() >= 4) {
            const size_t at = static_cast<size_t>(where % (stored.size() - 3));
            for (size_t j = 0; j < 4; ++j) stored[at + j] = m_in.byte();
        }
    }
    if (edits > 0) put_file(m_blocks / name, m_model->file(name));
}

// Core allocates a record's size field before it reads (ReadRawBlock: "Zeroing of memory is intentional here"), up to
// MAX_SIZE, 32 MiB: a size over the fuzz binaries' 16-MiB bound is Core's rule, let pass (allocation_bound.h).
bool needs_exemption(const files::RawRead& expected) { return expected.size_field >= (8u << 20); }

void Program::read_raw(files::Position position, std::optional<std::pair<uint64_t, uint64_t>> part)
{
    const files::RawRead expected = m_model->read_raw(position, part);
    Bytes outcome;
    {
        std::optional<PeerAllocations> exempt;
        if (needs_exemption(expected)) exempt.emplace();  // (a part allocates at most the size field)
        const auto core_part = part ? std::optional<std::pair<size_t, size_t>>(*part) : std::nullopt;
        const auto read = m_core->ReadRawBlock(FlatFilePos(position.file, position.offset), core_part);
        if (read) {
            const auto* data = reinterpret_cast<const uint8_t*>(read->data());
            outcome = raw_outcome(files::RawError::none, std::span(data, read->size()));
        } else {
            outcome = raw_outcome(read.error() == node::ReadRawError::BadPartRange ? files::RawError::bad_part_range
                                                                                   : files::RawError::io, {});
        }
    }
    compare_bytes([&] {
        return "block_store ReadRawBlock at " + position_text(position) +
               (part ? " part (" + std::to_string(part->first) + ", " + std::to_string(part->second) + ")" : std::string());
    }, outcome, raw_outcome(expected.error, expected.data), m_input);
}

void Program::read_block(files::Position position, std::optional<model::uint256> expected_hash)
{
    const files::RawRead raw = m_model->read_raw(position);
    bool expected_ok = raw.error == files::RawError::none;
    Bytes expected_block;
    if (expected_ok) {
        const auto decoded = reference::decode_block(raw.data);
        expected_ok = decoded.ok;
        if (decoded.ok) {
            expected_block = reference::encode_block(decoded.value);
            const model::uint256 hash = header_hash(raw.data);
            expected_ok = proof_of_work(hash, decoded.value.header.bits) && (!expected_hash || *expected_hash == hash);
        }
    }
    CBlock block;
    bool ok;
    {
        std::optional<PeerAllocations> exempt;
        if (needs_exemption(raw)) exempt.emplace();
        const std::optional<uint256> core_hash = expected_hash ? std::optional<uint256>(to_core(*expected_hash)) : std::nullopt;
        ok = m_core->ReadBlock(block, FlatFilePos(position.file, position.offset), core_hash);
    }
    const auto label = [&] { return "block_store ReadBlock at " + position_text(position) + (expected_hash ? " with its hash" : ""); };
    compare_bytes([&] { return label() + ": result"; }, Bytes{static_cast<uint8_t>(ok)}, Bytes{static_cast<uint8_t>(expected_ok)},
                  m_input);
    // The block is read before its header is checked: a block that decoded is there whatever the result.
    if (!expected_block.empty()) compare_bytes([&] { return label() + ": block"; }, serialize_block(block), expected_block, m_input);
}

void Program::read_undo(files::Position position, const model::uint256& parent)
{
    const std::optional<Bytes> expected = m_model->read_undo(position, parent);
    UndoIndex undo_index(parent, position.file);
    CBlockIndex& index = undo_index.block;
    index.nUndoPos = position.offset;
    index.nStatus = BLOCK_HAVE_UNDO;
    CBlockUndo undo;
    const bool ok = m_core->ReadBlockUndo(undo, index);
    const auto label = [&] { return "block_store ReadBlockUndo at " + position_text(position); };
    compare_bytes([&] { return label() + ": result"; }, Bytes{static_cast<uint8_t>(ok)}, Bytes{static_cast<uint8_t>(expected.has_value())},
                  m_input);
    // The undo data as values (its encoding is not byte-exact: docs/targets.md), each written by the reference's encoder.
    if (ok && expected)
        compare_bytes([&] { return label() + ": undo data"; }, reference::encode_block_undo(core_subject::from_core(undo)),
                      reference::encode_block_undo(reference::decode_block_undo(*expected).value), m_input);
}

// A BlockManager over `blocks` (whose xor.dat is written): regtest, -fastprune, obfuscated, no pruning.
std::unique_ptr<node::BlockManager> Program::make_manager(const std::filesystem::path& blocks, Notifications& notifications)
{
    static util::SignalInterrupt interrupt;
    node::BlockManager::Options options{
        .chainparams = chain_params(),
        .use_xor = true,
        .prune_target = 0,
        .fast_prune = true,
        .blocks_dir = blocks,
        .notifications = notifications,
        .block_tree_db_params = DBParams{.path = blocks.parent_path() / "index", .cache_bytes = 0, .memory_only = true},
    };
    return std::make_unique<node::BlockManager>(interrupt, std::move(options));
}

// ---- The fault mode (docs/core-block-store.md "Faults") ----
// The program's writes run a second time over a fresh blocks directory, with one file's writes (or its close)
// failing (block_file_faults.h). That run happens in a child process: Core's answer to some write faults is to end
// the process (an exception out of ~BufferedWriter, a noexcept destructor, is std::terminate), and the parent must
// go on. The child's observations, its mismatch report, the Core call it was in and
// how it ended come back through shared memory; its stderr goes to a memory file the parent prints when the child
// failed in a way nobody knows.

struct ForkShared {
    char phase[192];       // the Core call the child is in ("" between calls)
    char ending[512];      // how it ended (std::terminate: the exception's words)
    uint8_t fault_hit;     // the armed fault had failed a write or a close when it ended
    uint64_t report_size;  // the child's mismatch report (kChildMismatch)
    uint64_t entries_size;  // what the child observed: entries, then each label and reference
    uint64_t entries_count;
    uint64_t labels_count;
    uint64_t data_size;
};
constexpr size_t kForkSharedSize = 64u << 20;  // mapped once, touched as far as used
constexpr int kChildMismatch = 3, kChildTerminate = 4, kChildAbort = 5, kChildOverflow = 6, kChildException = 7;
constexpr unsigned kChildSeconds = 25;  // a faulted run that takes longer is ended (before make fuzz's 30-s timeout)

ForkShared* fork_shared()
{
    static ForkShared* shared = [] {
        void* region = mmap(nullptr, kForkSharedSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (region == MAP_FAILED) {
            std::perror("serdiff block_store fault mode: mmap");
            std::abort();
        }
        return static_cast<ForkShared*>(region);
    }();
    return shared;
}
uint8_t* fork_data() { return reinterpret_cast<uint8_t*>(fork_shared() + 1); }
constexpr size_t kForkDataCapacity = kForkSharedSize - sizeof(ForkShared);

int child_stderr()
{
    static const int fd = memfd_create("serdiff-block-store-fault-child-stderr", MFD_CLOEXEC);
    return fd;
}

size_t g_entries_at_fork = 0, g_count_at_fork = 0;  // the observation record's size when the child was made

void set_text(char* field, size_t size, std::string_view text)
{
    const size_t n = std::min(size - 1, text.size());
    std::memcpy(field, text.data(), n);
    field[n] = '\0';
}

bool put_data(std::span<const uint8_t> bytes)
{
    ForkShared& shared = *fork_shared();
    if (shared.data_size + bytes.size() > kForkDataCapacity) return false;
    if (!bytes.empty()) std::memcpy(fork_data() + shared.data_size, bytes.data(), bytes.size());
    shared.data_size += bytes.size();
    return true;
}
bool put_string(std::string_view text)
{
    const uint32_t n = static_cast<uint32_t>(text.size());
    const uint8_t length[4] = {static_cast<uint8_t>(n), static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n >> 16),
                               static_cast<uint8_t>(n >> 24)};
    return put_data(length) && put_data(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

// The child's end: its new observations to the parent, then _exit (no atexit handler, no leak check: the parent's).
[[noreturn]] void child_end(int code)
{
    ForkShared& shared = *fork_shared();
    shared.fault_hit = shared.fault_hit || core_subject::block_file_fault_hit();
    if (const Observations* record = observations(); record != nullptr && (code == 0 || code == kChildMismatch)) {
        const std::span<const uint8_t> entries(record->entries.data() + g_entries_at_fork, record->entries.size() - g_entries_at_fork);
        shared.entries_size = entries.size();
        shared.entries_count = record->count - g_count_at_fork;
        bool fits = put_data(entries);
        if (record->labelled)
            for (size_t i = g_count_at_fork; fits && i < record->labels.size(); ++i, ++shared.labels_count)
                fits = put_string(record->labels[i]) && put_string(i < record->references.size() ? record->references[i] : "");
        if (!fits) _exit(kChildOverflow);
    }
    _exit(code);
}

[[noreturn]] void child_mismatch(const std::string& report)
{
    ForkShared& shared = *fork_shared();
    put_data(std::span(reinterpret_cast<const uint8_t*>(report.data()), report.size()));
    shared.report_size = shared.data_size;
    child_end(kChildMismatch);
}

[[noreturn]] void child_terminate()
{
    std::string what = "std::terminate";
    try {
        if (const std::exception_ptr current = std::current_exception()) std::rethrow_exception(current);
    } catch (const std::exception& error) {
        what += " (an exception escaped: " + std::string(error.what()) + ")";
    } catch (...) {
    }
    set_text(fork_shared()->ending, sizeof(ForkShared::ending), what);
    child_end(kChildTerminate);
}

// An abort in the child (a sanitizer's or Core's Assume): its own exit status, instead of libFuzzer's crash handler,
// which would write a crash file of its own; the parent reports it with the child's stderr.
void child_abort(int)
{
    fork_shared()->fault_hit = fork_shared()->fault_hit || core_subject::block_file_fault_hit();
    _exit(kChildAbort);
}

// SERDIFF_REPORT_KNOWN_FINDINGS=1: a known finding of docs/findings.md is reported where it is found, not let pass.
bool report_known_findings()
{
    static const bool report = [] {
        const char* value = std::getenv("SERDIFF_REPORT_KNOWN_FINDINGS");
        return value != nullptr && std::string_view(value) == "1";
    }();
    return report;
}

// How many inputs met the known finding and let it pass: said once when the process exits.
struct KnownFindingCount {
    uint64_t count = 0;
    ~KnownFindingCount()
    {
        if (count == 0) return;
        // BASE's shared object may hold HEAD's own compiled objects (BASE = HEAD's tree): the object file tells.
        Dl_info where{};
        const bool base = dladdr(static_cast<void*>(this), &where) != 0 && where.dli_fname != nullptr &&
                          std::string_view(where.dli_fname).ends_with("libcore_base.so");
        const char* side = base ? "BASE" : "HEAD";
        std::fprintf(stderr, "serdiff block_store (%s): %llu input(s) ended Core's process in a fault-mode write "
                             "(std::terminate: the known finding of docs/findings.md), let pass; "
                             "SERDIFF_REPORT_KNOWN_FINDINGS=1 reports it\n",
                     side, static_cast<unsigned long long>(count));
    }
};
KnownFindingCount g_known_finding_count;

std::string child_stderr_text()
{
    struct stat status;
    if (fstat(child_stderr(), &status) != 0 || status.st_size <= 0) return {};
    std::string text(static_cast<size_t>(std::min<off_t>(status.st_size, 1 << 20)), '\0');
    const ssize_t n = pread(child_stderr(), text.data(), text.size(), 0);
    text.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return text;
}

files::Options Program::model_options() const
{
    files::Options options;
    options.key = m_key;
    for (size_t i = 0; i < 4; ++i) options.magic[i] = static_cast<std::byte>(chain_params().MessageStart()[i]);
    options.block_chunk = 0x4000;  // -fastprune: BlockManager's 16 KiB block-file chunks
    options.undo_chunk = node::UNDOFILE_CHUNK_SIZE;
    options.max_file = 0x10000;  // -fastprune: 64 KiB block files
    return options;
}

void Program::fault_mode(uint8_t fault_byte)
{
    using core_subject::BlockFileFault;
    static constexpr BlockFileFault kKinds[] = {BlockFileFault::none, BlockFileFault::full_disk, BlockFileFault::io_error,
                                                BlockFileFault::io_error_once, BlockFileFault::failing_close};
    const BlockFileFault kind = kKinds[fault_byte % 5];
    if (kind == BlockFileFault::none || m_sizes_written.empty()) return;
    // The file: one of those the program wrote, chosen by a byte; the fault's offset: up to its size as written.
    auto chosen = m_sizes_written.begin();
    std::advance(chosen, m_in.byte() % m_sizes_written.size());
    const core_subject::BlockFileFaultPlan plan{kind, chosen->first, m_in.number_at_most(chosen->second)};
    const std::string label = std::string("block_store fault mode (") + core_subject::block_file_fault_name(kind) +
                              (kind == BlockFileFault::failing_close ? std::string()
                                                                     : " at byte " + std::to_string(plan.offset)) +
                              " of " + plan.file_name + ")";

    ForkShared& shared = *fork_shared();
    std::memset(&shared, 0, sizeof(shared));
    if (child_stderr() < 0 || ftruncate(child_stderr(), 0) != 0 || lseek(child_stderr(), 0, SEEK_SET) != 0) {
        std::perror("serdiff block_store fault mode: memfd");
        std::abort();
    }
    Observations* record = observations();
    g_entries_at_fork = record ? record->entries.size() : 0;
    g_count_at_fork = record ? record->count : 0;
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        std::perror("serdiff block_store fault mode: fork");
        std::abort();
    }
    if (pid == 0) {
        dup2(child_stderr(), STDERR_FILENO);
        std::signal(SIGABRT, child_abort);
        std::signal(SIGALRM, SIG_DFL);  // (the fuzzer's timeout handler would write a crash file of its own)
        alarm(kChildSeconds);
        std::set_terminate(child_terminate);
        set_mismatch_handler(child_mismatch);
        try {
            fault_child(plan, label);
        } catch (const std::exception& error) {
            set_text(shared.ending, sizeof(shared.ending), std::string("an exception escaped the faulted run: ") + error.what());
            child_end(kChildException);
        } catch (...) {
            set_text(shared.ending, sizeof(shared.ending), "an exception escaped the faulted run");
            child_end(kChildException);
        }
        child_end(0);
    }
    int status = 0;
    pid_t waited;
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    if (waited != pid) {
        std::perror("serdiff block_store fault mode: waitpid");
        std::abort();
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (record != nullptr && (code == 0 || code == kChildMismatch)) {
        const uint8_t* data = fork_data() + shared.report_size;
        record->entries.insert(record->entries.end(), data, data + shared.entries_size);
        record->count += shared.entries_count;
        data += shared.entries_size;
        const auto take_string = [&] {
            const uint32_t n = data[0] | data[1] << 8 | data[2] << 16 | static_cast<uint32_t>(data[3]) << 24;
            std::string text(reinterpret_cast<const char*>(data + 4), n);
            data += 4 + n;
            return text;
        };
        for (uint64_t i = 0; i < shared.labels_count; ++i) {
            record->labels.push_back(take_string());
            record->references.push_back(take_string());
        }
    }
    if (code == 0) return;
    if (code == kChildMismatch) {
        // The child's report again, from this process: its headline's label and what, and its details.
        const std::string report(reinterpret_cast<const char*>(fork_data()), shared.report_size);
        const std::string head = "==== serdiff MISMATCH in ";
        const size_t start = report.find(head), end = report.find(" ====\n", start == std::string::npos ? 0 : start);
        const size_t details_end = report.rfind("\ninput (");
        if (start != std::string::npos && end != std::string::npos && details_end != std::string::npos && details_end > end) {
            const std::string headline = report.substr(start + head.size(), end - start - head.size());
            const size_t split = headline.rfind(": ");
            report_mismatch(headline.substr(0, split), split == std::string::npos ? "" : headline.substr(split + 2),
                            report.substr(end + 6, details_end - end - 6), m_input);
        }
        report_mismatch(label, "a check of the faulted run failed", report, m_input);
    }
    const std::string phase(shared.phase);
    const std::string ending(shared.ending);
    if (code == kChildTerminate && phase.starts_with("Write") && shared.fault_hit &&
        ending.find("write failed") != std::string::npos) {
        // Core ended the process in std::terminate inside a write after the fault failed it, with its write error
        // (AutoFile::write_buffer's): docs/findings.md's retried flush. Anything else that ends the child is reported
        // below. The files it left are not checked.
        observe_text("block_store fault mode: Core ended the process", phase + ": " + ending);
        ++g_known_finding_count.count;
        if (report_known_findings())
            report_mismatch(label, "Core ended the process after a write fault (a known finding, docs/findings.md: "
                                   "the retried flush, bitcoin/bitcoin#36049)",
                            "in " + phase + ": " + ending + "\nthe faulted run's stderr:\n" + child_stderr_text(), m_input);
        return;
    }
    const std::string text = child_stderr_text();
    std::fputs(text.c_str(), stderr);
    report_mismatch(label, "the faulted run ended abnormally",
                    (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status)) : "exit status " + std::to_string(code)) +
                        (phase.empty() ? std::string() : ", in " + phase) +
                        (shared.ending[0] ? std::string(", ") + shared.ending : std::string()) +
                        (code == kChildOverflow ? " (its record did not fit the shared memory)" : "") +
                        (code == kChildAbort ? " (an abort)" : "") +
                        (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM
                             ? " (the faulted run took over " + std::to_string(kChildSeconds) + " s)" : std::string()) +
                        "; its stderr is above",
                    m_input);
}

// The first byte of `bytes` that is neither `right`'s (zero past its end) nor zero, or bytes.size(). Not
// instrumented for coverage: a rev file is 1 MiB, and its comparisons would feed nothing to the fuzzer.
SERDIFF_NO_COVERAGE size_t first_wrong_byte(std::span<const uint8_t> bytes, std::span<const uint8_t> right)
{
    for (size_t i = 0; i < bytes.size(); ++i)
        if (bytes[i] != 0 && (i >= right.size() || bytes[i] != right[i])) return i;
    return bytes.size();
}

// A write or close of a record that the fault failed must make the call that did it report a failure (docs/file-io.md
// "Core's block files"); failed preallocation writes are advisory and not counted.
void check_fault_reported(uint64_t hits_before, const std::string& reported, const std::string& call,
                          const std::string& label, std::span<const uint8_t> input)
{
    if (core_subject::block_file_record_fault_hits() > hits_before && reported.empty())
        report_mismatch(label, "a write fault Core did not report",
                        call + " failed a write or close of its file and reported success", input);
}

void Program::fault_child(const core_subject::BlockFileFaultPlan& plan, const std::string& label)
{
    ForkShared& shared = *fork_shared();
    const auto phase = [&](const std::string& text) { set_text(shared.phase, sizeof(shared.phase), text); };
    std::error_code error;
    std::filesystem::remove_all(work_directory() / "fault", error);
    const std::filesystem::path blocks = work_directory() / "fault" / "blocks";
    std::filesystem::create_directories(blocks);
    put_file(blocks / "xor.dat", std::span(reinterpret_cast<const uint8_t*>(m_key.data()), m_key.size()));
    Notifications notifications;
    std::unique_ptr<node::BlockManager> core = make_manager(blocks, notifications);
    files::BlockFiles model(model_options());

    struct Record {
        std::string file;
        uint64_t begin, end;  // the record's bytes, magic to checksum
        bool acknowledged;    // Core reported it written
    };
    std::vector<Record> records;
    std::vector<BlockWritten> blocks_written;
    std::string reported;  // how Core reported the first write that failed
    size_t failed_at = 0;
    core_subject::arm_block_file_fault(plan);
    for (size_t i = 0; i < m_actions.size() && reported.empty(); ++i) {
        const WriteAction& action = m_actions[i];
        failed_at = i;
        if (!action.undo) {
            model::Block block = action.block;
            if (action.mine) mine_block(block);
            const Bytes encoded = reference::encode_block(block);
            const uint32_t height = static_cast<uint32_t>(blocks_written.size() + 1);
            phase("WriteBlock of block " + std::to_string(blocks_written.size()));
            const uint64_t hits_before = core_subject::block_file_record_fault_hits();
            FlatFilePos position;
            try {
                position = core->WriteBlock(to_core(block), static_cast<int>(height));
            } catch (const std::exception& exception) {
                reported = std::string("exception: ") + exception.what();
            }
            phase("");
            const files::Position expected = model.write_block(encoded, height);
            if (reported.empty() && position.IsNull()) reported = "no position: " + notifications.errors;
            else if (reported.empty() && !notifications.errors.empty()) reported = "a position, and " + notifications.errors;
            check_fault_reported(hits_before, reported, "WriteBlock of block " + std::to_string(blocks_written.size()), label,
                                 m_input);
            if (reported.empty())
                compare_bytes([&] { return label + ": WriteBlock of block " + std::to_string(blocks_written.size()) + ": position"; },
                              position_bytes(position.nFile, position.nPos), position_bytes(expected.file, expected.offset), m_input);
            records.push_back({files::BlockFiles::block_file_name(expected.file), expected.offset - 8u,
                               expected.offset + encoded.size(), reported.empty()});
            blocks_written.push_back({expected, height, header_hash(encoded)});
        } else {
            const BlockWritten& block = blocks_written.at(action.which);
            const Bytes encoded = reference::encode_block_undo(action.undo_data);
            UndoIndex undo_index(action.parent, block.position.file);
            CBlockIndex& index = undo_index.block;
            index.nHeight = static_cast<int>(block.height);
            BlockValidationState state;
            bool written = false;
            phase("WriteBlockUndo of block " + std::to_string(action.which));
            const uint64_t hits_before = core_subject::block_file_record_fault_hits();
            try {
                LOCK(::cs_main);
                written = core->WriteBlockUndo(to_core(action.undo_data), state, index);
            } catch (const std::exception& exception) {
                reported = std::string("exception: ") + exception.what();
            }
            phase("");
            const files::Position expected = model.write_undo(encoded, action.parent, block.position.file, block.height);
            if (reported.empty() && !(written && (index.nStatus & BLOCK_HAVE_UNDO)))
                reported = "not written: " + state.ToString() + "; " + notifications.errors;
            else if (reported.empty() && !notifications.errors.empty()) reported = "written, and " + notifications.errors;
            check_fault_reported(hits_before, reported, "WriteBlockUndo of block " + std::to_string(action.which), label,
                                 m_input);
            if (reported.empty())
                compare_bytes([&] { return label + ": WriteBlockUndo " + std::to_string(i) + ": position"; },
                              position_bytes(index.nFile, index.nUndoPos), position_bytes(expected.file, expected.offset), m_input);
            records.push_back({files::BlockFiles::undo_file_name(expected.file), expected.offset - 8u,
                               expected.offset + encoded.size() + 32u, reported.empty()});
        }
    }
    phase("BlockManager's destructor");
    core.reset();
    phase("");
    shared.fault_hit = core_subject::block_file_fault_hit();
    core_subject::arm_block_file_fault({});
    observe_text([&] { return label + ": the first write reported failed"; },
                 reported.empty() ? std::string("none") : "write " + std::to_string(failed_at) + ": " + reported);

    // The contract (docs/file-io.md "Core's block files"): every byte of every file is the right one (the model's, the
    // writes up to the failed one all landed) or a zero nothing wrote; a write reported done is whole.
    std::map<std::string, Bytes> on_disk;
    for (const auto& entry : std::filesystem::directory_iterator(blocks)) {
        const std::string name = entry.path().filename().string();
        if (name != "xor.dat") on_disk[name] = file_bytes(entry.path());
    }
    for (const auto& [name, bytes] : on_disk) {
        observe([&] { return label + ": " + name + " after the fault"; }, bytes);
        const auto found = model.files().find(name);
        const Bytes empty;
        const Bytes& right = found == model.files().end() ? empty : found->second;
        if (const size_t i = first_wrong_byte(bytes, right); i < bytes.size()) {
            const uint8_t want = i < right.size() ? right[i] : 0;
            const uint8_t plain = static_cast<uint8_t>(want ^ static_cast<uint8_t>(m_key[i % 8]));
            report_mismatch(label, bytes[i] == plain ? "unobfuscated bytes in an obfuscated file"
                                                     : "a byte that is neither the right one nor an unwritten zero",
                            name + " byte " + std::to_string(i) + ": " + std::to_string(bytes[i]) + ", the right byte " +
                                std::to_string(want) + " (plain " + std::to_string(plain) + "); the first write reported failed: " +
                                (reported.empty() ? std::string("none") : "write " + std::to_string(failed_at) + ": " + reported),
                            m_input);
        }
    }
    for (const Record& written : records) {
        if (!written.acknowledged) continue;
        const auto disk = on_disk.find(written.file);
        const Bytes& right = model.files().at(written.file);
        const bool whole = disk != on_disk.end() && disk->second.size() >= written.end &&
                           std::equal(right.begin() + written.begin, right.begin() + written.end, disk->second.begin() + written.begin);
        if (!whole)
            report_mismatch(label, "a write Core reported done is not in the file",
                            written.file + " bytes " + std::to_string(written.begin) + " to " + std::to_string(written.end), m_input);
    }
}

void Program::run()
{
    // Header: the obfuscation key (xor.dat), the shape byte (bit 0: mine the blocks, so that ReadBlock's header check
    // passes; bit 5: a filler block first, so the next records roll over into blk00001.dat), the record count.
    const auto key = read_file_key(m_in);
    const uint8_t shape = m_in.byte();
    std::error_code error;
    std::filesystem::remove_all(work_directory(), error);
    m_blocks = work_directory() / "blocks";
    std::filesystem::create_directories(m_blocks);
    put_file(m_blocks / "xor.dat", std::span(reinterpret_cast<const uint8_t*>(key.data()), key.size()));

    m_key = key;
    m_core = make_manager(m_blocks, m_notifications);
    m_model.emplace(model_options());

    ValueGenerator generate(m_in.raw(), kMaxRecordGeneratedBytes);
    const bool mine = (shape & 0x01) != 0;
    if (shape & 0x20) {
        // A filler block of one transaction whose output script leaves 54 + 64 * (shape >> 1 & 0x0f) bytes of
        // blk00000.dat's 64 KiB (its record is the script and 110 bytes): from too few for the smallest block record (89)
        // to 1,014.
        model::Block filler;
        filler.transactions.resize(1);
        filler.transactions[0].outputs.resize(1);
        filler.transactions[0].outputs[0].script_pubkey = model::Script(0x10000 - 164 - ((shape >> 1) & 0x0f) * 64u, 0x6a);
        write_block(filler, mine);
    }
    const size_t record_count = m_in.byte() % (kMaxRecordOperations + 1);
    for (size_t i = 0; i < record_count; ++i) {
        const uint8_t kind = m_in.byte() % 4;
        if (kind == 0) {
            write_block(generate.block(), mine);
        } else if (kind == 1) {
            // The serdiff program's raw payload (0..4,096 bytes): written when it decodes as a block.
            const Bytes payload = m_in.payload(static_cast<size_t>(m_in.number_at_most(kMaxRawRecordPayload)));
            const auto decoded = reference::decode_block(payload);
            if (decoded.ok) write_block(decoded.value, mine);
        } else {
            const model::BlockUndo undo = generate.block_undo();
            const model::uint256 parent = generate.hash();
            // Kind 3: the undo data of an earlier block, chosen by its first extra byte (else the last block's).
            size_t which = m_blocks_written.empty() ? 0 : m_blocks_written.size() - 1;
            if (kind == 3) {
                const Bytes extra = m_in.payload(1 + m_in.byte() % 8u);
                if (!m_blocks_written.empty() && !extra.empty()) which = extra[0] % m_blocks_written.size();
            }
            // BlockManager writes undo data next to a block it has stored, never before the first.
            if (!m_blocks_written.empty()) write_undo(undo, parent, m_blocks_written[which]);
        }
    }
    compare_files("as written");
    for (const auto& [name, bytes] : m_model->files()) m_sizes_written[name] = bytes.size();

    damage();
    // Reads: every block written (raw, and as a block with and without its hash), an extra offset of blk00000.dat,
    // every undo record written, and the extra offset of rev00000.dat with a generated parent hash.
    const uint64_t file_size = m_model->files().count(files::BlockFiles::block_file_name(0))
                                   ? m_model->files().at(files::BlockFiles::block_file_name(0)).size() : 0;
    const files::Position extra{0, static_cast<uint32_t>(m_in.number_at_most(std::min<uint64_t>(file_size + 8, UINT32_MAX)))};
    for (const BlockWritten& block : m_blocks_written) {
        read_raw(block.position, std::nullopt);
        read_block(block.position, block.hash);
    }
    read_raw(extra, std::nullopt);
    read_block(extra, std::nullopt);
    const model::uint256 extra_parent = generate.hash();
    for (const UndoWritten& undo : m_undo_written) read_undo(undo.position, undo.parent);
    read_undo(extra, extra_parent);
    // The serdiff program's fault byte (its seek fault mode has no counterpart here), then up to 3 partial reads
    // (ReadRawBlock's part: the REST interface's range), each of a block written (or the extra offset) by index.
    const uint8_t fault_byte = m_in.byte();
    const size_t parts = m_in.byte() % 4;
    for (size_t i = 0; i < parts; ++i) {
        const size_t which = m_in.byte();
        const files::Position position = which < m_blocks_written.size() ? m_blocks_written[which].position : extra;
        const uint64_t offset = m_in.number(), size = m_in.number();
        read_raw(position, std::pair{offset, size});
    }
    m_core.reset();
    compare_files("after the reads");
    fault_mode(fault_byte);
}

}  // namespace

void check_block_store_program(std::span<const uint8_t> input) { Program(input).run(); }

}  // namespace serdiff::differential
