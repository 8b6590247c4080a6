# What differs between Core trees, probed in the tree (never read from a version number; HEAD and BASE may be
# different trees, docs/base.md). Included by subjects/core/CMakeLists.txt; tests/core/probe_test.cmake runs it
# on two made-up trees (ctest core_tree_probe). serdiff_core_probe(TREE) sets, in the caller's scope:
#   SERDIFF_CORE_PROBE_SOURCES  Core files to compile besides the usual ones
#   SERDIFF_CORE_PROBE_PRIVATE  definitions for support.cpp and Core's files
#   SERDIFF_CORE_PROBE_PUBLIC   definitions the adapter and the harness compiled for this tree read too
#   SERDIFF_CORE_PROBE_MESSAGES what the tree lacks, one sentence each (configure prints them)
#   SERDIFF_CORE_PROBE_ABSENT   the fuzz targets the tree cannot run, each as target:reason
# A tree older than the Core subject knows stops configuring with one message saying what is missing.
function(serdiff_core_probe tree)
  set(sources "")
  set(private "")
  set(public "")
  set(messages "")
  # The log sink: util/log.h since 2026-02 (support.cpp defines it, finding the header with __has_include); before
  # it logging.h, whose logging.cpp is then compiled, with util/fs.cpp and util/string.cpp it needs, and SipHash
  # for the rate limiter logging.h gained in the 30.x cycle.
  if(EXISTS "${tree}/src/util/log.h")
  elseif(EXISTS "${tree}/src/logging.h" AND EXISTS "${tree}/src/logging.cpp")
    list(APPEND sources "${tree}/src/logging.cpp" "${tree}/src/util/fs.cpp" "${tree}/src/util/string.cpp")
    if(EXISTS "${tree}/src/crypto/siphash.cpp")
      list(APPEND sources "${tree}/src/crypto/siphash.cpp")
    endif()
  else()
    message(FATAL_ERROR "subjects/core: ${tree} has neither src/util/log.h nor src/logging.h and src/logging.cpp: "
                        "a Core tree older than the Core subject knows (v28 and later build)")
  endif()
  # assertion_fail's signature: a std::source_location since 2025.
  file(STRINGS "${tree}/src/util/check.h" assertion_fail_line REGEX "void assertion_fail\\(")
  if(assertion_fail_line MATCHES "source_location")
    list(APPEND private SERDIFF_CORE_ASSERTION_FAIL_TAKES_SOURCE_LOCATION=1)
  else()
    list(APPEND private SERDIFF_CORE_ASSERTION_FAIL_TAKES_SOURCE_LOCATION=0)
  endif()
  # SpanWriter (streams.h, the v31 cycle): without it primitive_stream skips its SpanWriter checks.
  _serdiff_core_probe_line("${tree}/src/streams.h" "^class SpanWriter" SERDIFF_CORE_HAS_SPAN_WRITER
    "${tree} has no SpanWriter (older than v31): primitive_stream skips its SpanWriter checks")
  # SpanReader::ignore's end-of-data check (the v31 cycle): without it the seam refuses a skip past the end itself.
  _serdiff_core_probe_line("${tree}/src/streams.h" "SpanReader::ignore\\(\\): end of data"
    SERDIFF_CORE_SPAN_READER_IGNORE_CHECKED
    "${tree}'s SpanReader::ignore does not check the end (older than v31): the seam refuses a skip past it")
  # Core's own Span class (span.h before the v29 cycle made Span std::span): serialize.h's byte-span overloads and the
  # streams' read()/write() take it, so the seam names the tree's byte span (subject::Span).
  set(own_span "")
  if(EXISTS "${tree}/src/span.h")
    file(STRINGS "${tree}/src/span.h" own_span REGEX "^class Span")
  endif()
  if(own_span)
    list(APPEND public SERDIFF_CORE_HAS_OWN_SPAN=1)
    list(APPEND messages "${tree} has its own Span class (older than v29): the seam passes byte spans as Core's Span")
  else()
    list(APPEND public SERDIFF_CORE_HAS_OWN_SPAN=0)
  endif()
  # Obfuscation (util/obfuscation.h, the 30.x cycle): before it AutoFile takes a byte-vector key and util::Xor XORs.
  if(EXISTS "${tree}/src/util/obfuscation.h")
    list(APPEND public SERDIFF_CORE_HAS_OBFUSCATION=1)
  else()
    list(APPEND public SERDIFF_CORE_HAS_OBFUSCATION=0)
    list(APPEND messages "${tree} has no util/obfuscation.h (older than v30): the seam keys AutoFile with a byte vector and XORs with util::Xor")
  endif()
  # BufferedReader and BufferedWriter (streams.h, the 30.x cycle): without them their targets are absent.
  set(absent "")
  _serdiff_core_probe_line("${tree}/src/streams.h" "^class BufferedWriter" SERDIFF_CORE_HAS_BUFFERED_FILES
    "${tree} has no BufferedReader/BufferedWriter (older than v30): buffered_reader and buffered_writer are absent, primitive_stream skips its buffered checks")
  if(public MATCHES "SERDIFF_CORE_HAS_BUFFERED_FILES=0")
    set(why "this Core tree has no BufferedReader/BufferedWriter (streams.h before the 30.x cycle, subjects/core/probe.cmake)")
    set(absent "buffered_reader:${why}" "buffered_writer:${why}")
  endif()
  # Core's block storage as block_store drives it (node/blockstorage.h of the v31 cycle): WriteBlock(block, height) and
  # ReadRawBlock with a part range; then node/blockstorage.cpp and what it needs are compiled too (CMakeLists.txt).
  set(write_block_line "")
  set(read_part_line "")
  if(EXISTS "${tree}/src/node/blockstorage.h")
    file(STRINGS "${tree}/src/node/blockstorage.h" write_block_line REGEX "FlatFilePos WriteBlock\\(const CBlock& block, int nHeight\\)")
    file(STRINGS "${tree}/src/node/blockstorage.h" read_part_line REGEX "ReadRawBlockResult ReadRawBlock\\(.*block_part")
  endif()
  if(write_block_line AND read_part_line AND EXISTS "${tree}/src/kernel/cs_main.h" AND EXISTS "${tree}/src/util/log.h")
    list(APPEND public SERDIFF_CORE_HAS_BLOCK_STORE=1)
  else()
    list(APPEND public SERDIFF_CORE_HAS_BLOCK_STORE=0)
    list(APPEND messages "${tree}'s BlockManager has no WriteBlock(block, height) and ReadRawBlock with a part range (older than v31): block_store is absent")
    list(APPEND absent "block_store:this Core tree's BlockManager has no WriteBlock(block, height) and ReadRawBlock with a part range (node/blockstorage.h before the v31 cycle, subjects/core/probe.cmake)")
  endif()
  set(SERDIFF_CORE_PROBE_ABSENT "${absent}" PARENT_SCOPE)
  set(SERDIFF_CORE_PROBE_SOURCES "${sources}" PARENT_SCOPE)
  set(SERDIFF_CORE_PROBE_PRIVATE "${private}" PARENT_SCOPE)
  set(SERDIFF_CORE_PROBE_PUBLIC "${public}" PARENT_SCOPE)
  set(SERDIFF_CORE_PROBE_MESSAGES "${messages}" PARENT_SCOPE)
endfunction()

# DEFINE=1 in the caller's `public` when a line of FILE matches REGEX; else DEFINE=0 and MISSING in its `messages`.
function(_serdiff_core_probe_line file regex define missing)
  file(STRINGS "${file}" matching REGEX "${regex}")
  if(matching)
    set(public ${public} ${define}=1 PARENT_SCOPE)
  else()
    set(public ${public} ${define}=0 PARENT_SCOPE)
    set(messages ${messages} "${missing}" PARENT_SCOPE)
  endif()
endfunction()
