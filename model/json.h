// Readable printer for the model types: compact JSON, used by the CLI, test failures and mismatch reports.
#pragma once

#include <ostream>
#include <string>

#include "model/model.h"

namespace serdiff::model {

std::string to_json(const uint256& value);
std::string to_json(const OutPoint& value);
std::string to_json(const WitnessStack& value);
std::string to_json(const TxIn& value);
std::string to_json(const TxOut& value);
std::string to_json(const Transaction& value);
std::string to_json(const BlockHeader& value);
std::string to_json(const Block& value);
std::string to_json(const BlockLocator& value);
std::string to_json(const Coin& value);
std::string to_json(const TxUndo& value);
std::string to_json(const BlockUndo& value);

// JSON string literal with escapes.
std::string json_quote(std::string_view text);

// Lets GoogleTest and mismatch reports print any model value.
template <typename T>
    requires requires(const T& v) { to_json(v); }
std::ostream& operator<<(std::ostream& os, const T& value)
{
    return os << to_json(value);
}

}  // namespace serdiff::model
