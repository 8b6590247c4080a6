# Runs PROGRAM (the mismatch report demo) and fails unless it aborted with a complete report.
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0)
  message(FATAL_ERROR "the demo exited normally; compare_bytes must abort on a difference:\n${out}${err}")
endif()
foreach(expected
    "serdiff MISMATCH in demo encode: bytes differ"
    "first difference at offset 5 \\(optimized 7 bytes, reference 8 bytes\\)"
    "optimized: \\[0\\.\\.\\] 01 02 03 04 05 >06< 07"
    "reference: \\[0\\.\\.\\] 01 02 03 04 05 >66< 07 08"
    "input \\(4 bytes\\): deadbeef")
  if(NOT err MATCHES "${expected}")
    message(FATAL_ERROR "mismatch report lacks /${expected}/; it was:\n${err}")
  endif()
endforeach()
message(STATUS "mismatch report fired as expected (exit status ${status})")
