// The reference's answers for the transaction value types' members (differential/subject.h transaction_members and
// transaction_constants; rules in docs/format.md "Transaction members").
#pragma once

#include <string>
#include <vector>

#include "model/model.h"

namespace serdiff::reference {

std::vector<std::string> transaction_members(const model::Transaction& tx);
std::vector<std::string> transaction_constants();

// The text of a fact: "name value" (value 0 or 1 for a truth).
inline std::string fact(const std::string& name, bool value) { return name + (value ? " 1" : " 0"); }
inline std::string fact(const std::string& name, long long value) { return name + " " + std::to_string(value); }
inline std::string fact(const std::string& name, unsigned long long value) { return name + " " + std::to_string(value); }

}  // namespace serdiff::reference
