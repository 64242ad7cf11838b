# tests/mutants/check_conform.cmake: runs `tabi conform` on one plugin and checks
# the outcome from its exit status and its JSON report.
#
#   cmake -DTABI=<tabi> -DPLUGIN=<path> -DOPS=<glob> -DDTYPES=<list> -DJSON=<file>
#         -DPLUGIN_PATH=<dir> -DTIMEOUT=<s> -DEXPECT=fail|pass
#         [-DOP=<op> -DKIND=<kind>] [-DEXTRA=<one more option>] -P check_conform.cmake
#
# EXPECT=skip: exit 0, nothing failed, something skipped with SKIP_REASON.
# PASS_OP=<op> (with EXPECT=pass): some passed case must have exactly that op
# (and PASS_DTYPE, when given, that dtype), so a run that passed only its ABI
# checks is not taken for a pass of the op or feature checks. MIN_PASSED=<n>: at
# least that many passed cases (a floor, so a check that quietly stops running
# most of its cases is noticed).
# EXPECT=fail: the run must exit 1 and the JSON must hold a failed case with
# exactly that op and kind (and, when given, a sample starting with SAMPLE and a
# detail containing DETAIL). EXPECT=pass: exit 0, failed == 0, passed > 0.
set(args conform --plugin ${PLUGIN} --json ${JSON} --jobs 2 --timeout ${TIMEOUT} --quiet)
if(OPS)
  list(APPEND args --ops ${OPS})
endif()
if(EXTRA)
  list(APPEND args ${EXTRA})
endif()
if(DTYPES)
  list(APPEND args --dtypes ${DTYPES})
endif()
file(REMOVE ${JSON})
execute_process(COMMAND ${CMAKE_COMMAND} -E env TABI_PLUGIN_PATH=${PLUGIN_PATH} ${TABI} ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT EXISTS ${JSON})
  message(FATAL_ERROR "tabi conform wrote no JSON report (exit ${rc})")
endif()
file(READ ${JSON} js)
string(JSON failed GET "${js}" summary failed)
string(JSON passed GET "${js}" summary passed)
if(EXPECT STREQUAL "skip")
  # A plugin whose device is absent: exit 0, nothing failed, the groups skipped
  # with the reason.
  string(JSON skipped GET "${js}" summary skipped)
  if(NOT rc EQUAL 0 OR NOT failed EQUAL 0 OR skipped EQUAL 0)
    message(FATAL_ERROR "expected skips only: exit ${rc}, ${failed} failed, ${skipped} skipped")
  endif()
  string(FIND "${js}" "${SKIP_REASON}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the report does not say '${SKIP_REASON}'")
  endif()
  message(STATUS "OK: ${skipped} skipped (${SKIP_REASON})")
  return()
endif()
if(EXPECT STREQUAL "pass")
  if(NOT rc EQUAL 0 OR NOT failed EQUAL 0 OR passed EQUAL 0)
    message(FATAL_ERROR "expected a clean pass: exit ${rc}, ${passed} passed, ${failed} failed")
  endif()
  if(MIN_PASSED AND passed LESS MIN_PASSED)
    message(FATAL_ERROR "only ${passed} passed cases, expected at least ${MIN_PASSED}")
  endif()
  if(PASS_OP)
    # The report writes one case a line ({"op": ..., "dtype": ..., "sample":
    # ..., "status": ...}): a line match, since string(JSON GET) parses the
    # whole report for each case (minutes for the autograd plugin's 5000).
    string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" op_re "${PASS_OP}")
    set(dt_re "[^\"]*")
    if(PASS_DTYPE)
      set(dt_re "${PASS_DTYPE}")
    endif()
    file(STRINGS ${JSON} hits REGEX "\"op\": \"${op_re}\", \"dtype\": \"${dt_re}\", .*\"status\": \"pass\"")
    set(found 0)
    if(hits)
      set(found 1)
    endif()
    if(NOT found)
      message(FATAL_ERROR "no passed case with op ${PASS_OP} (dtype '${PASS_DTYPE}')")
    endif()
  endif()
  message(STATUS "OK: ${passed} passed, 0 failed")
  return()
endif()
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit status 1 (a failure), got ${rc}")
endif()
string(JSON n LENGTH "${js}" cases)
math(EXPR last "${n} - 1")
set(found 0)
set(kinds "")
foreach(i RANGE ${last})
  string(JSON st GET "${js}" cases ${i} status)
  if(NOT st STREQUAL "fail")
    continue()
  endif()
  string(JSON op GET "${js}" cases ${i} op)
  string(JSON kind GET "${js}" cases ${i} kind)
  string(JSON sample GET "${js}" cases ${i} sample)
  string(JSON detail GET "${js}" cases ${i} detail)
  list(APPEND kinds "${op}:${kind}:${sample}")
  set(where_ok 1)
  if(SAMPLE)
    string(FIND "${sample}" "${SAMPLE}" at)
    if(NOT at EQUAL 0)
      set(where_ok 0)
    endif()
  endif()
  if(DETAIL)
    string(FIND "${detail}" "${DETAIL}" at)
    if(at EQUAL -1)
      set(where_ok 0)
    endif()
  endif()
  if(op STREQUAL "${OP}" AND kind STREQUAL "${KIND}" AND where_ok)
    set(found 1)
  endif()
endforeach()
if(NOT found)
  message(FATAL_ERROR "no failed case with op ${OP} and kind ${KIND} (sample '${SAMPLE}...', detail "
                      "'...${DETAIL}...'); failures seen: ${kinds}")
endif()
message(STATUS "OK: ${OP} failed with ${KIND} (${failed} failure(s) in all)")
