# Injected by tools/fuzz/planted.py and bench.py into their Core-subject build trees (-DCMAKE_PROJECT_INCLUDE=
# this file): Bitcoin Core's util/check.h refuses to compile with NDEBUG ("Cannot compile without assertions!"),
# which RelWithDebInfo defines, and subjects/core/CMakeLists.txt does not undefine it yet. At the end of the
# top-level directory (when serdiff_core exists) this adds -UNDEBUG to serdiff_core and, PUBLIC, to everything
# that includes Core's headers through it; the serdiff subject keeps NDEBUG. Harmless once the subject does it.
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _serdiff_core_keeps_assertions)
function(_serdiff_core_keeps_assertions)
  if(TARGET serdiff_core)
    target_compile_options(serdiff_core PUBLIC -UNDEBUG)
  endif()
endfunction()
