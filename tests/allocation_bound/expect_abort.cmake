# Runs PROGRAM with ARGS (a ;-list) and fails unless it aborted with EXPECTED (a regex) in its output.
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited normally; it had to abort with /${EXPECTED}/:\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECTED}")
  message(FATAL_ERROR "${PROGRAM} failed (${status}) without /${EXPECTED}/:\n${out}${err}")
endif()
message(STATUS "aborted as expected (${status}): /${EXPECTED}/")
