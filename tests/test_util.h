// Shared helpers for the unit tests: both implementations behind one table, hex and file input, a small
// JSON reader (for the transaction vectors and the CLI's output) and the real-data directory.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "differential/reference/reference.h"
#include "model/decoded.h"
#include "model/json.h"
#include "model/model.h"
#include "serialize/codec.h"

namespace serdiff::test {

using model::Bytes;
using model::Decoded;

// Each implementation's codec table (model/codec_table.h), so every check runs on both sides from one loop.
using Implementation = model::CodecTable;
inline const Implementation& kOptimized = optimized::codec_table();
inline const Implementation& kReference = reference::codec_table();
inline const Implementation* const kImplementations[] = {&kOptimized, &kReference};

// Hex written in a test; a typo in a table is a bug in the test, so it throws.
inline Bytes hex(std::string_view text)
{
    std::string compact;
    for (char c : text)
        if (c != ' ') compact += c;
    Bytes out;
    if (!model::from_hex(compact, out)) throw std::invalid_argument("bad hex in test: " + std::string(text));
    return out;
}

inline std::string to_hex(const Bytes& bytes) { return model::to_hex(bytes); }

// EXPECT_TRUE(decodes_to(decoded, value, consumed)): success with exactly this value and length.
template <typename T>
::testing::AssertionResult decodes_to(const Decoded<T>& decoded, const T& expected, size_t expected_consumed)
{
    if (!decoded.ok) return ::testing::AssertionFailure() << "decoding failed with '" << decoded.error << "'";
    if (decoded.consumed != expected_consumed)
        return ::testing::AssertionFailure() << "consumed " << decoded.consumed << ", expected " << expected_consumed;
    if (!(decoded.value == expected))
        return ::testing::AssertionFailure() << "value " << decoded.value << "\n   expected " << expected;
    return ::testing::AssertionSuccess();
}

// EXPECT_TRUE(fails_with(decoded, model::errors::kEndOfData)): rejected with exactly this message.
template <typename T>
::testing::AssertionResult fails_with(const Decoded<T>& decoded, std::string_view expected_error)
{
    if (decoded.ok) return ::testing::AssertionFailure() << "decoded (" << decoded.consumed << " bytes) instead of failing";
    if (decoded.error != expected_error)
        return ::testing::AssertionFailure() << "error '" << decoded.error << "', expected '" << expected_error << "'";
    return ::testing::AssertionSuccess();
}

inline Bytes concat(std::initializer_list<Bytes> parts)
{
    Bytes out;
    for (const Bytes& part : parts) out.insert(out.end(), part.begin(), part.end());
    return out;
}

inline Bytes repeat_byte(uint8_t byte, size_t count) { return Bytes(count, byte); }

inline std::filesystem::path data_dir() { return SERDIFF_DATA_DIR; }

// True when the real-data directory (../shared/data) is present; tests using it skip otherwise.
inline bool have_data() { return std::filesystem::is_regular_file(data_dir() / "README.md"); }

inline Bytes read_file_bytes(const std::filesystem::path& path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) throw std::runtime_error("cannot open " + path.string());
    return Bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

inline std::string read_file_text(const std::filesystem::path& path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) throw std::runtime_error("cannot open " + path.string());
    return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

// A fresh directory under the system's temporary directory (named PREFIX-XXXXXX), removed with its contents.
class TempDir {
public:
    explicit TempDir(const std::string& prefix = "serdiff-test")
    {
        std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        m_path = pattern;
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() { std::filesystem::remove_all(m_path); }
    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

private:
    std::filesystem::path m_path;
};

#ifdef SERDIFF_CLI
// One run of the serdiff CLI (SERDIFF_CLI: its path, a compile definition of the test binary).
struct CliRun {
    int exit_status = -1;
    std::string out;
    std::string err;
};

// Runs `serdiff ARGUMENTS` through the shell (so ARGUMENTS may redirect stdin) with ENVIRONMENT
// ("NAME=value ..." or "") and collects both streams.
inline CliRun run_cli(const std::string& arguments, const std::string& environment = "")
{
    const std::filesystem::path err_path =
        std::filesystem::temp_directory_path() / ("serdiff_cli_test_stderr_" + std::to_string(getpid()));
    const std::string command = "env " + environment + " '" + std::string(SERDIFF_CLI) + "' " + arguments +
                                " 2>'" + err_path.string() + "'";
    CliRun run;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("popen failed: " + command);
    char buffer[65536];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) run.out.append(buffer, got);
    const int status = pclose(pipe);
    run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.err = read_file_text(err_path);
    std::filesystem::remove(err_path);
    return run;
}
#endif

// A parsed JSON value: enough of JSON for the test vectors and the CLI's output (no \u escapes beyond
// ASCII, numbers kept as their text).
struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    bool boolean = false;
    std::string text;  // a string's contents or a number's digits
    std::vector<JsonValue> items;
    // An object's members in order: keys[i] names values[i] (a pair would need the complete type).
    std::vector<std::string> keys;
    std::vector<JsonValue> values;

    // Member lookup; throws when absent so a test failure names the missing key.
    const JsonValue& operator[](std::string_view key) const
    {
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return values[i];
        throw std::out_of_range("JSON object has no member '" + std::string(key) + "'");
    }
    bool has(std::string_view key) const
    {
        for (const std::string& name : keys)
            if (name == key) return true;
        return false;
    }
};

class JsonReader {
public:
    explicit JsonReader(std::string_view text) : text_(text) {}

    JsonValue parse_document()
    {
        JsonValue value = parse_value();
        skip_space();
        if (pos_ != text_.size()) fail("trailing characters");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(pos_));
    }

    void skip_space()
    {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
                                       text_[pos_] == '\t'))
            ++pos_;
    }

    bool consume(char expected)
    {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == expected) {
            ++pos_;
            return true;
        }
        return false;
    }

    void expect(char expected)
    {
        if (!consume(expected)) fail(std::string("expected '") + expected + "'");
    }

    bool consume_word(std::string_view word)
    {
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    std::string parse_string()
    {
        expect('"');
        std::string out;
        while (true) {
            if (pos_ >= text_.size()) fail("unterminated string");
            char c = text_[pos_++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= text_.size()) fail("unterminated escape");
            char escaped = text_[pos_++];
            switch (escaped) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                if (pos_ + 4 > text_.size()) fail("short \\u escape");
                unsigned code = std::stoul(std::string(text_.substr(pos_, 4)), nullptr, 16);
                if (code > 0x7f) fail("non-ASCII \\u escape");
                out += static_cast<char>(code);
                pos_ += 4;
                break;
            }
            default: out += escaped;
            }
        }
    }

    JsonValue parse_value()
    {
        skip_space();
        if (pos_ >= text_.size()) fail("unexpected end");
        JsonValue value;
        char c = text_[pos_];
        if (c == '{') {
            value.kind = JsonValue::Kind::Object;
            ++pos_;
            if (consume('}')) return value;
            do {
                skip_space();
                std::string key = parse_string();
                expect(':');
                value.keys.push_back(std::move(key));
                value.values.push_back(parse_value());
            } while (consume(','));
            expect('}');
        } else if (c == '[') {
            value.kind = JsonValue::Kind::Array;
            ++pos_;
            if (consume(']')) return value;
            do {
                value.items.push_back(parse_value());
            } while (consume(','));
            expect(']');
        } else if (c == '"') {
            value.kind = JsonValue::Kind::String;
            value.text = parse_string();
        } else if (consume_word("true")) {
            value.kind = JsonValue::Kind::Bool;
            value.boolean = true;
        } else if (consume_word("false")) {
            value.kind = JsonValue::Kind::Bool;
        } else if (consume_word("null")) {
            value.kind = JsonValue::Kind::Null;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            value.kind = JsonValue::Kind::Number;
            size_t start = pos_;
            while (pos_ < text_.size() && std::string_view("+-.eE0123456789").find(text_[pos_]) != std::string_view::npos)
                ++pos_;
            value.text = std::string(text_.substr(start, pos_ - start));
        } else {
            fail(std::string("unexpected character '") + c + "'");
        }
        return value;
    }

    std::string_view text_;
    size_t pos_ = 0;
};

inline JsonValue parse_json(std::string_view text) { return JsonReader(text).parse_document(); }

}  // namespace serdiff::test
