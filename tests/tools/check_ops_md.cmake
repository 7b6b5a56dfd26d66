# ops.md_is_current: docs/OPS.md must be what `lowerscope-cli ops --markdown` prints now (the
# registries are the source; the file is what users read).
execute_process(COMMAND ${CLI} ops --markdown OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "lowerscope-cli ops --markdown failed (exit ${rc})")
endif()
file(READ ${DOC} current)
if(NOT generated STREQUAL current)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/OPS.generated.md "${generated}")
  message(FATAL_ERROR "docs/OPS.md is out of date with the registries; regenerate it with "
                      "`build/dev/app/lowerscope-cli ops --markdown > docs/OPS.md` "
                      "(the current output is in ${CMAKE_CURRENT_BINARY_DIR}/OPS.generated.md)")
endif()
