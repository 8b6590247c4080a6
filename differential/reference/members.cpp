// The transaction value types' members from their definitions (docs/format.md "Transaction members").
#include "differential/reference/members.h"

#include <algorithm>

#include "differential/reference/reference.h"

namespace serdiff::reference {

namespace {

constexpr uint32_t kNullIndex = 0xffffffff;
constexpr int64_t kMaxMoney = 21'000'000LL * 100'000'000LL;

bool null_outpoint(const model::OutPoint& outpoint)
{
    return outpoint.n == kNullIndex && std::all_of(outpoint.hash.bytes.begin(), outpoint.hash.bytes.end(),
                                                   [](uint8_t byte) { return byte == 0; });
}
// Outpoints order by hash (its 32 bytes as stored, first byte first), then index.
bool less(const model::OutPoint& a, const model::OutPoint& b)
{
    return a.hash != b.hash ? a.hash < b.hash : a.n < b.n;
}
bool money_range(int64_t value) { return value >= 0 && value <= kMaxMoney; }

}  // namespace

std::vector<std::string> transaction_members(const model::Transaction& tx)
{
    std::vector<std::string> lines;
    const size_t inputs = tx.inputs.size(), outputs = tx.outputs.size();
    for (size_t i = 0; i < inputs; ++i) {
        const model::TxIn &in = tx.inputs[i], &next = tx.inputs[(i + 1) % inputs];
        const std::string at = "input " + std::to_string(i) + " ";
        lines.push_back(fact(at + "prevout null", null_outpoint(in.prevout)));
        lines.push_back(fact(at + "prevout < next", less(in.prevout, next.prevout)));
        lines.push_back(fact(at + "prevout > next", less(next.prevout, in.prevout)));
        lines.push_back(fact(at + "prevout == next", in.prevout == next.prevout));
        lines.push_back(fact(at + "prevout != next", !(in.prevout == next.prevout)));
        // An input's equality leaves its witness out.
        const bool same = in.prevout == next.prevout && in.script_sig == next.script_sig && in.sequence == next.sequence;
        lines.push_back(fact(at + "== next", same));
        lines.push_back(fact(at + "!= next", !same));
    }
    for (size_t i = 0; i < outputs; ++i) {
        const model::TxOut &out = tx.outputs[i], &next = tx.outputs[(i + 1) % outputs];
        const std::string at = "output " + std::to_string(i) + " ";
        lines.push_back(fact(at + "null", out.value == -1));
        lines.push_back(fact(at + "== next", out == next));
        lines.push_back(fact(at + "!= next", !(out == next)));
    }
    lines.push_back(fact("coinbase", inputs == 1 && null_outpoint(tx.inputs[0].prevout)));
    lines.push_back(fact("null", inputs == 0 && outputs == 0));
    lines.push_back(fact("has witness", tx.has_witness()));
    lines.push_back(fact("total size", static_cast<unsigned long long>(encode_transaction(tx, true).size())));
    // GetValueOut: every value and every running sum within MoneyRange, else an error.
    int64_t sum = 0;
    bool in_range = true;
    for (const model::TxOut& out : tx.outputs) {
        if (!money_range(out.value) || !money_range(sum + out.value)) {
            in_range = false;
            break;
        }
        sum += out.value;
    }
    lines.push_back(in_range ? fact("value out", static_cast<long long>(sum)) : "value out: out of range");
    // CalculateOutputValue: the plain sum, where it does not overflow.
    int64_t total = 0;
    bool overflow = false;
    for (const model::TxOut& out : tx.outputs) overflow = overflow || __builtin_add_overflow(total, out.value, &total);
    lines.push_back(overflow ? "output sum: overflows" : fact("output sum", static_cast<long long>(total)));
    // Transactions are equal when their witness serializations are.
    lines.push_back(fact("== itself", true));
    lines.push_back(fact("== with another lock time", false));
    lines.push_back(fact("deserializing constructor gives it back", true));
    if (inputs > 0) lines.push_back(fact("CTxIn constructors give input 0", true));
    if (outputs > 0) lines.push_back(fact("CTxOut constructor gives output 0", true));
    return lines;
}

std::vector<std::string> transaction_constants()
{
    return {
        fact("SEQUENCE_FINAL", 0xffffffffULL),
        fact("MAX_SEQUENCE_NONFINAL", 0xfffffffeULL),
        fact("SEQUENCE_LOCKTIME_DISABLE_FLAG", 1ULL << 31),
        fact("SEQUENCE_LOCKTIME_TYPE_FLAG", 1ULL << 22),
        fact("SEQUENCE_LOCKTIME_MASK", 0xffffULL),
        fact("SEQUENCE_LOCKTIME_GRANULARITY", 9LL),
        fact("NULL_INDEX", static_cast<unsigned long long>(kNullIndex)),
        fact("CURRENT_VERSION", 2ULL),
        fact("default input sequence", 0xffffffffULL),
        fact("default input prevout null", true),
        fact("default output null", true),
        fact("default output value", -1LL),
        fact("output after SetNull null", true),
        fact("outpoint after SetNull null", true),
        fact("default transaction version", 2ULL),
        fact("default transaction lock time", 0ULL),
    };
}

}  // namespace serdiff::reference
