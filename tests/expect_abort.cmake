# Runs PROGRAM with ARGS (a ;-list) and fails unless it exits with a non-zero status and its output (stdout
# and stderr) matches every regex of EXPECTED (a ;-list). Used by the tests that must see a check fire.
if(NOT EXPECTED)
  message(FATAL_ERROR "expect_abort.cmake: EXPECTED (the patterns the failure must print) is empty")
endif()
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status MATCHES "^[0-9]+$" AND NOT status MATCHES "^Subprocess ")
  # Not an exit status nor a signal ("Subprocess aborted", ...): the program could not be run at all.
  message(FATAL_ERROR "${PROGRAM} did not run: ${status}")
endif()
if(status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited normally; it had to fail with /${EXPECTED}/:\n${out}${err}")
endif()
foreach(expected IN LISTS EXPECTED)
  if(NOT "${out}${err}" MATCHES "${expected}")
    message(FATAL_ERROR "${PROGRAM} failed (${status}) without /${expected}/:\n${out}${err}")
  endif()
endforeach()
message(STATUS "failed as expected (${status}): /${EXPECTED}/")
