# ctest core_tree_probe: subjects/core/probe.cmake on made-up Core trees shaped like v31.99 (util/log.h, SpanWriter,
# SpanReader::ignore's end check, Obfuscation, BufferedWriter, BlockManager's WriteBlock and part reads) and like v28.99 (logging.h with SipHash, its own Span class, none of the others). cmake -DWORK=<dir> -P this.
include(${CMAKE_CURRENT_LIST_DIR}/../../subjects/core/probe.cmake)
if(NOT WORK)
  message(FATAL_ERROR "give -DWORK=<scratch directory>")
endif()
file(REMOVE_RECURSE "${WORK}")

function(expect what actual wanted)
  if(NOT "${actual}" STREQUAL "${wanted}")
    message(FATAL_ERROR "core_tree_probe: ${what}: got '${actual}', expected '${wanted}'")
  endif()
endfunction()

set(new "${WORK}/v31")
file(WRITE "${new}/src/util/log.h" "")
file(WRITE "${new}/src/span.h" "// Span is std::span now; no class Span\n")
file(WRITE "${new}/src/util/obfuscation.h" "")
file(WRITE "${new}/src/util/check.h" "[[noreturn]] void assertion_fail(std::source_location loc, std::string_view a);\n")
file(WRITE "${new}/src/kernel/cs_main.h" "")
file(WRITE "${new}/src/node/blockstorage.h" "    FlatFilePos WriteBlock(const CBlock& block, int nHeight);\n    ReadRawBlockResult ReadRawBlock(const FlatFilePos& pos, std::optional<std::pair<size_t, size_t>> block_part = std::nullopt) const;\n")
file(WRITE "${new}/src/streams.h" "class SpanReader\n{\n    void ignore(size_t n)\n    {\n        if (n > m_data.size()) {\n            throw std::ios_base::failure(\"SpanReader::ignore(): end of data\");\n        }\n    }\n};\nclass SpanWriter\n{\n};\nclass BufferedWriter\n{\n};\n")
serdiff_core_probe("${new}")
expect("v31 sources" "${SERDIFF_CORE_PROBE_SOURCES}" "")
expect("v31 private" "${SERDIFF_CORE_PROBE_PRIVATE}" "SERDIFF_CORE_ASSERTION_FAIL_TAKES_SOURCE_LOCATION=1")
expect("v31 public" "${SERDIFF_CORE_PROBE_PUBLIC}"
       "SERDIFF_CORE_HAS_SPAN_WRITER=1;SERDIFF_CORE_SPAN_READER_IGNORE_CHECKED=1;SERDIFF_CORE_HAS_OWN_SPAN=0;SERDIFF_CORE_HAS_OBFUSCATION=1;SERDIFF_CORE_HAS_BUFFERED_FILES=1;SERDIFF_CORE_HAS_BLOCK_STORE=1")
expect("v31 messages" "${SERDIFF_CORE_PROBE_MESSAGES}" "")
expect("v31 absent" "${SERDIFF_CORE_PROBE_ABSENT}" "")

set(old "${WORK}/v28")
foreach(file logging.h logging.cpp util/fs.cpp util/string.cpp crypto/siphash.cpp)
  file(WRITE "${old}/src/${file}" "")
endforeach()
file(WRITE "${old}/src/util/check.h" "[[noreturn]] void assertion_fail(const char* file, int line, const char* func, std::string_view assertion);\n")
# v28's BlockManager: WriteBlockToDisk, and a raw read without a part range.
file(WRITE "${old}/src/node/blockstorage.h" "    FlatFilePos SaveBlockToDisk(const CBlock& block, int nHeight);\n    bool ReadRawBlockFromDisk(std::vector<uint8_t>& block, const FlatFilePos& pos) const;\n")
# A comment naming SpanWriter and an unchecked ignore: neither is the class or the check.
file(WRITE "${old}/src/span.h" "template <typename C>\nclass Span\n{\n};\n")
file(WRITE "${old}/src/streams.h" "// not a SpanWriter\nclass SpanReader\n{\n    void ignore(size_t n)\n    {\n        m_data = m_data.subspan(n);\n    }\n};\n")
serdiff_core_probe("${old}")
expect("v28 sources" "${SERDIFF_CORE_PROBE_SOURCES}"
       "${old}/src/logging.cpp;${old}/src/util/fs.cpp;${old}/src/util/string.cpp;${old}/src/crypto/siphash.cpp")
expect("v28 private" "${SERDIFF_CORE_PROBE_PRIVATE}" "SERDIFF_CORE_ASSERTION_FAIL_TAKES_SOURCE_LOCATION=0")
expect("v28 public" "${SERDIFF_CORE_PROBE_PUBLIC}"
       "SERDIFF_CORE_HAS_SPAN_WRITER=0;SERDIFF_CORE_SPAN_READER_IGNORE_CHECKED=0;SERDIFF_CORE_HAS_OWN_SPAN=1;SERDIFF_CORE_HAS_OBFUSCATION=0;SERDIFF_CORE_HAS_BUFFERED_FILES=0;SERDIFF_CORE_HAS_BLOCK_STORE=0")
list(LENGTH SERDIFF_CORE_PROBE_MESSAGES said)
expect("v28 messages" "${said}" "6")
string(REGEX REPLACE ":[^;]*" "" absent "${SERDIFF_CORE_PROBE_ABSENT}")
expect("v28 absent" "${absent}" "buffered_reader;buffered_writer;block_store")
file(REMOVE_RECURSE "${WORK}")
message(STATUS "core_tree_probe: both made-up trees probed as expected")
