// serdiff_peer_check: every real transaction and block, and every allow-listed edge input, through the
// reference and each linked peer; fails on any divergence the allow-list does not explain.
//
// Usage: serdiff_peer_check [--require-peer NAME]... [DATA_DIR]
//                                        check (DATA_DIR defaults to the configured ../shared/data); a required
//                                        peer that cannot run here (Bitcoin Core without its library) fails it
//        serdiff_peer_check --table      print the docs/divergences.md table from the allow-list
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "differential/oracles/divergences.h"
#include "differential/oracles/peers.h"

namespace {

using serdiff::model::Bytes;
using namespace serdiff::oracles;

struct Input {
    std::string name;
    ObjectKind kind;
    Bytes bytes;
};

bool read_file(const std::filesystem::path& path, std::string& out)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) return false;
    out.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    return true;
}

// The serialized transaction of every entry of Bitcoin Core's tx_valid/tx_invalid.json: entries are
// arrays `[prevouts, "hex", "flags"]` (one-element entries are comments), so take each entry's second
// element when it is a string.
std::vector<std::string> vector_transactions(const std::string& json)
{
    std::vector<std::string> found;
    int depth = 0;
    int element = 0;  // index of the current element inside the current entry (depth 2)
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (c == '"') {
            const size_t end = json.find('"', i + 1);
            if (end == std::string::npos) break;
            if (depth == 2 && element == 1) found.push_back(json.substr(i + 1, end - i - 1));
            i = end;
        } else if (c == '[') {
            if (++depth == 2) element = 0;
        } else if (c == ']') {
            --depth;
        } else if (c == ',' && depth == 2) {
            ++element;
        }
    }
    return found;
}

struct Tally {
    int agreed = 0;
    int explained = 0;
    int unexplained = 0;
    int stale = 0;
    std::map<std::string, int> explained_by_rule;
    std::map<std::string, std::map<std::string, int>> verdicts_by_peer;  // peer -> "agree"/"explained"/... -> count
};

// Every linked peer on one input; `expected` is an allow-list entry this input must trigger.
void check(const Input& input, bool allow_witness, const AllowedDivergence* expected, Tally& tally)
{
    const Verdict reference = reference_verdict(input.kind, input.bytes, allow_witness);
    bool expected_seen = false;
    for (const Peer& peer : linked_peers()) {
        const Verdict peer_result = peer_verdict(peer, input.kind, input.bytes, allow_witness);
        const std::string difference = disagreement(reference, peer_result);
        auto& by_peer = tally.verdicts_by_peer[peer.name];
        if (peer_result.status == Verdict::Status::unsupported) {
            ++by_peer["unsupported"];
        } else if (difference.empty()) {
            ++by_peer[reference.accepted ? "agree (accept)" : "agree (reject)"];
        }
        if (difference.empty()) {
            ++tally.agreed;
            continue;
        }
        const Observation observation{input.kind, allow_witness, input.bytes, peer.name, reference, peer_result};
        const AllowedDivergence* entry = explain(observation);
        if (entry == nullptr) {
            ++tally.unexplained;
            ++by_peer["UNEXPLAINED"];
            std::printf("UNEXPLAINED %s %s (witness %s) peer %s: %s\n  reference: %s\n  peer:      %s\n",
                        kind_name(input.kind), input.name.c_str(), allow_witness ? "on" : "off", peer.name,
                        difference.c_str(), describe(reference).c_str(), describe(peer_result).c_str());
            if (input.bytes.size() <= 256) std::printf("  input: %s\n", serdiff::model::to_hex(input.bytes).c_str());
            continue;
        }
        ++tally.explained;
        ++by_peer["explained"];
        ++tally.explained_by_rule[std::string(entry->peer) + ": " + entry->rule];
        expected_seen |= entry == expected;
    }
    if (expected != nullptr && !expected_seen) {
        ++tally.stale;
        std::printf("STALE allow-list entry (its input no longer diverges): %s: %s\n", expected->peer, expected->rule);
    }
}

void print_table()
{
    std::printf("| peer | rule | upstream | minimal input | reference | peer |\n|---|---|---|---|---|---|\n");
    for (const AllowedDivergence& entry : allowed_divergences()) {
        const Bytes input = entry.minimal_input();
        const Peer* peer = find_peer(entry.peer);
        const Verdict reference = reference_verdict(entry.kind, input, true);
        const std::string peer_text =
            peer ? describe(peer_verdict(*peer, entry.kind, input, true)) : std::string("(not linked)");
        const std::string shown = input.size() <= 64 ? "`" + serdiff::model::to_hex(input) + "`"
                                                     : std::to_string(input.size()) + " bytes, not shown";
        std::printf("| %s | %s | %s | %s: %s | %s | %s |\n", entry.peer, entry.rule, entry.upstream, entry.input_shape,
                    shown.c_str(), describe(reference).c_str(), peer_text.c_str());
    }
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc > 1 && std::string(argv[1]) == "--table") {
        print_table();
        return 0;
    }
    std::vector<std::string> required;
    std::filesystem::path data = SERDIFF_DATA_DIR;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--require-peer" && i + 1 < argc) {
            required.push_back(argv[++i]);
        } else if (!argument.empty() && argument[0] == '-') {
            std::fprintf(stderr, "usage: serdiff_peer_check [--require-peer NAME]... [DATA_DIR] | --table\n");
            return 2;
        } else {
            data = argument;
        }
    }
    std::printf("peers:");
    for (const Peer& peer : linked_peers()) std::printf(" %s %s;", peer.name, peer.version);
    std::printf("\n");
    for (const MissingPeer& missing : missing_peers()) std::printf("peer %s left out: %s\n", missing.name, missing.reason.c_str());
    for (const std::string& name : required) {
        if (find_peer(name) == nullptr) {
            std::printf("FAILED: peer %s is required (--require-peer) but cannot run here\n", name.c_str());
            return 1;
        }
    }

    std::vector<Input> inputs;
    for (const char* file : {"vectors/tx_valid.json", "vectors/tx_invalid.json"}) {
        std::string json;
        if (!read_file(data / file, json)) {
            std::printf("SKIPPED real data: %s not found (set the data directory as the first argument)\n",
                        (data / file).c_str());
            continue;
        }
        int index = 0;
        for (const std::string& hex : vector_transactions(json)) {
            Input input{std::string(file) + "#" + std::to_string(index++), ObjectKind::transaction, {}};
            if (!serdiff::model::from_hex(hex, input.bytes)) {
                std::printf("FAILED: %s is not hex\n", input.name.c_str());
                return 1;
            }
            inputs.push_back(std::move(input));
        }
    }
    std::string raw;
    if (read_file(data / "tx/megatx.bin", raw)) inputs.push_back({"tx/megatx.bin", ObjectKind::transaction, Bytes(raw.begin(), raw.end())});
    if (read_file(data / "tx/huge_witness.hex", raw)) {
        Input input{"tx/huge_witness.hex", ObjectKind::transaction, {}};
        while (!raw.empty() && (raw.back() == '\n' || raw.back() == '\r')) raw.pop_back();
        if (serdiff::model::from_hex(raw, input.bytes)) inputs.push_back(std::move(input));
    }
    std::error_code missing;
    std::vector<std::filesystem::path> blocks;
    for (const auto& entry : std::filesystem::directory_iterator(data / "blocks", missing))
        if (entry.path().extension() == ".raw") blocks.push_back(entry.path());
    std::sort(blocks.begin(), blocks.end());
    for (const auto& path : blocks)
        if (read_file(path, raw))
            inputs.push_back({"blocks/" + path.filename().string(), ObjectKind::block, Bytes(raw.begin(), raw.end())});

    Tally real;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Input& input = inputs[i];
        check(input, true, nullptr, real);
        if (input.kind == ObjectKind::transaction) check(input, false, nullptr, real);
        if (input.kind == ObjectKind::block && input.bytes.size() >= 80) {
            // The block's header alone, and the whole block read as a header (80 bytes consumed, the rest trailing).
            check({input.name + " header", ObjectKind::header, Bytes(input.bytes.begin(), input.bytes.begin() + 80)},
                  true, nullptr, real);
            check({input.name + " as header", ObjectKind::header, input.bytes}, true, nullptr, real);
        }
        if (input.kind == ObjectKind::block || input.bytes.size() > 100'000)
            std::printf("  %zu/%zu %s checked\n", i + 1, inputs.size(), input.name.c_str());
    }
    std::printf("real data: %zu inputs, %d peer verdicts agree, %d explained, %d unexplained\n", inputs.size(),
                real.agreed, real.explained, real.unexplained);
    for (const auto& [peer, counts] : real.verdicts_by_peer) {
        std::printf("  %s:", peer.c_str());
        for (const auto& [what, count] : counts) std::printf(" %d %s;", count, what.c_str());
        std::printf("\n");
    }

    Tally edges;
    for (const AllowedDivergence& entry : allowed_divergences()) {
        if (find_peer(entry.peer) == nullptr) continue;
        check({std::string("edge: ") + entry.input_shape, entry.kind, entry.minimal_input()}, true, &entry, edges);
    }
    std::printf("edge inputs: %zu allow-list entries, %d peer verdicts agree, %d explained, %d unexplained, %d stale\n",
                allowed_divergences().size(), edges.agreed, edges.explained, edges.unexplained, edges.stale);
    for (const auto& [rule, count] : edges.explained_by_rule) std::printf("  %3d  %s\n", count, rule.c_str());

    const int failed = real.unexplained + edges.unexplained + edges.stale;
    const int passed = real.agreed + real.explained + edges.agreed + edges.explained;
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
